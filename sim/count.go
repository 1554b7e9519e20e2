package sim

import (
	"context"
	"fmt"
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/sim/banks"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/constmem"
	"gpumemsim/traces"
)

// RefCounts are the coalescer's counts for one memory reference (or, in
// Counts.Total, for all of them): what a profiler counts at the SM before
// any cache is involved.
type RefCounts struct {
	// Requests is the number of warp-level instructions.
	Requests int64 `json:"requests"`
	// Transactions is the number of memory transactions the coalescer
	// made; Txn32, Txn64 and Txn128 split them by size.
	Transactions int64 `json:"transactions"`
	Txn32        int64 `json:"txn_32b"`
	Txn64        int64 `json:"txn_64b"`
	Txn128       int64 `json:"txn_128b"`
	// Sectors is the transactions' size in 32-byte sectors (Bytes / 32),
	// whether the lanes touch them all or not; a sectored L2 reads or
	// writes only those they touch (the transactions' sector masks).
	Sectors int64 `json:"sectors"`
	// Bytes is the size of all transactions; RequestedBytes is what the
	// active lanes asked for (lanes × width, each lane counted even when
	// several read the same word, as nvprof counts it).
	Bytes          int64 `json:"bytes"`
	RequestedBytes int64 `json:"requested_bytes"`
	// ActiveLanes is the number of lane accesses.
	ActiveLanes int64 `json:"active_lanes"`
	// HalfWarps counts half-warp requests with active lanes; Coalesced
	// those a CC 1.0/1.1 device coalesced into 64- or 128-byte
	// transactions (meaningful on cc10 only).
	HalfWarps int64 `json:"half_warps"`
	Coalesced int64 `json:"coalesced_half_warps"`
}

// TransactionsPerRequest is nvprof's transactions per request (0 with no
// requests).
func (c *RefCounts) TransactionsPerRequest() float64 { return ratio(c.Transactions, c.Requests) }

// Efficiency is nvprof's gld_efficiency/gst_efficiency: the bytes the lanes
// requested over the bytes of the transactions, in percent.
func (c *RefCounts) Efficiency() float64 { return 100 * ratio(c.RequestedBytes, c.Bytes) }

func (c *RefCounts) add(o *RefCounts) {
	c.Requests += o.Requests
	c.Transactions += o.Transactions
	c.Txn32 += o.Txn32
	c.Txn64 += o.Txn64
	c.Txn128 += o.Txn128
	c.Sectors += o.Sectors
	c.Bytes += o.Bytes
	c.RequestedBytes += o.RequestedBytes
	c.ActiveLanes += o.ActiveLanes
	c.HalfWarps += o.HalfWarps
	c.Coalesced += o.Coalesced
}

// record adds one warp instruction and its transactions.
func (c *RefCounts) record(w *coalesce.Warp, txns []coalesce.Txn) {
	c.Requests++
	lanes := int64(bits.OnesCount32(w.Active))
	c.ActiveLanes += lanes
	c.RequestedBytes += lanes * int64(w.Width)
	c.Transactions += int64(len(txns))
	// Sums kept in registers, added once.
	var bytes, n32, n64 int64
	var wide uint32 // lanes served by a transaction wider than 32 B
	for i := range txns {
		t := &txns[i]
		bytes += int64(t.Size)
		switch t.Size {
		case 32:
			n32++
		case 64:
			n64++
			wide |= t.Lanes
		default:
			wide |= t.Lanes
		}
	}
	c.Bytes += bytes
	c.Sectors += bytes / 32
	c.Txn32 += n32
	c.Txn64 += n64
	c.Txn128 += int64(len(txns)) - n32 - n64
	const lo, hi = 0x0000FFFF, 0xFFFF0000
	if w.Active&lo != 0 {
		c.HalfWarps++
		if wide&lo != 0 {
			c.Coalesced++
		}
	}
	if w.Active&hi != 0 {
		c.HalfWarps++
		if wide&hi != 0 {
			c.Coalesced++
		}
	}
}

// record adds a warp instruction and its transactions to c; it returns
// the sectors a store's transactions touch where k counts them, else 0.
func (k *counter) record(c *RefCounts, w *coalesce.Warp, txns []coalesce.Txn) int64 {
	c.record(w, txns)
	if k.touched && w.Op == coalesce.Store {
		return touchedSectors(txns)
	}
	return 0
}

// touchedSectors is the 32-byte sectors the transactions' sector masks
// mark (sectorsOf: the whole transaction where there is no mask).
func touchedSectors(txns []coalesce.Txn) int64 {
	var n int
	for i := range txns {
		t := &txns[i]
		n += bits.OnesCount32(sectorsOf(t.Addr, t.Size, uint32(t.Sectors)))
	}
	return int64(n)
}

// recordPasses adds one instruction of a space that serves it in passes
// (shared memory's banks, the constant cache) rather than transactions,
// and returns the bytes its active lanes asked for.
func (c *RefCounts) recordPasses(width int, active uint32, passes int) int64 {
	lanes := int64(bits.OnesCount32(active))
	bytes := lanes * int64(width)
	c.Requests++
	c.ActiveLanes += lanes
	c.RequestedBytes += bytes
	c.Transactions += int64(passes)
	return bytes
}

// Counts are the coalescer's counts for a whole kernel.
type Counts struct {
	Loads  RefCounts `json:"loads"`
	Stores RefCounts `json:"stores"`
	// Shared counts the shared-memory references (per-thread kernels),
	// which Loads and Stores leave out, and Constant the constant-memory
	// ones (requests and passes; no cache is involved).
	Shared   SharedStats   `json:"shared,omitzero"`
	Constant ReadOnlyStats `json:"constant,omitzero"`
	// Texture counts the texture fetches: requests and 32-byte line
	// lookups (no cache is involved).
	Texture ReadOnlyStats `json:"texture,omitzero"`
	// Refs is indexed like traces.Info.Refs.
	Refs []RefCounts `json:"refs"`
	// storeSectors are the 32-byte sectors the global stores'
	// transactions touch (their sector masks, sectorsOf), what an L2
	// writes: counted for a sampled run's skipped blocks only
	// (counter.touched), which fits its L2 write sectors to them.
	storeSectors int64
}

// LoadPath is the path a device's global loads take: through L1 when the
// device caches global loads there, else L2 only.
func LoadPath(dev *arch.Device) coalesce.Path {
	if dev.Coalescer.CacheGlobalLoads {
		return coalesce.L1
	}
	return coalesce.L2
}

// Coalescer turns traces' warp instructions into transactions with one
// device's rule. The zero value is not usable; use NewCoalescer.
type Coalescer struct {
	rule coalesce.Rule
	path coalesce.Path
	warp coalesce.Warp
	txns []coalesce.Txn
	// halves is coalesce.HalvesUnit by op and width, segments
	// coalesce.HalvesSegment.
	halves, segments [2][17]uint64
}

// NewCoalescer returns the coalescer of dev.
func NewCoalescer(dev *arch.Device) (*Coalescer, error) {
	r := dev.Coalescer.Rule
	if r == 0 {
		return nil, fmt.Errorf("device %s: no coalescing rule", dev.Name)
	}
	c := &Coalescer{rule: r, path: LoadPath(dev), txns: make([]coalesce.Txn, 0, coalesce.MaxTxns)}
	for op := range c.halves {
		for width := range c.halves[op] {
			c.halves[op][width] = coalesce.HalvesUnit(r, c.path, coalesce.Op(op), width)
			c.segments[op][width] = coalesce.HalvesSegment(r, c.path, coalesce.Op(op), width)
		}
	}
	return c, nil
}

// Coalesce returns the transactions of a memory instruction. The slice
// and the warp it returns are reused by the next call.
func (c *Coalescer) Coalesce(in *traces.WarpInst) (*coalesce.Warp, []coalesce.Txn) {
	w := &c.warp
	w.Op = coalesce.Load
	if in.Op == traces.OpStore {
		w.Op = coalesce.Store
	}
	w.Width = int(in.Width)
	w.Active = in.Active
	w.Addr = in.Addr
	return w, c.CoalesceWarp(w)
}

// CoalesceWarp returns the transactions of a warp instruction the caller
// holds (which must pass w.Validate, as every instruction of a bound
// launch does). The slice is reused by the next call.
func (c *Coalescer) CoalesceWarp(w *coalesce.Warp) []coalesce.Txn {
	c.txns = coalesce.Coalesce(c.rule, c.path, w, c.txns[:0])
	return c.txns
}

// moved is txns, each moved by delta bytes, in the scratch the next call
// reuses.
func (c *Coalescer) moved(txns []coalesce.Txn, delta uint64) []coalesce.Txn {
	out := c.txns[:len(txns)]
	for i, t := range txns {
		t.Addr += delta
		out[i] = t
	}
	c.txns = out
	return out
}

// CoalesceHalves returns the transactions of a warp instruction of 32
// active lanes whose half-warps step as h describes (w.Addr is not read),
// and true; or false when they need the lane addresses (CoalesceWarp).
// The slice is reused by the next call.
func (c *Coalescer) CoalesceHalves(w *coalesce.Warp, h *traces.Halves) ([]coalesce.Txn, bool) {
	if uint(w.Op) >= 2 || uint(w.Width) >= 17 {
		return nil, false
	}
	// coalesce.CoalesceHalves, with HalvesUnit and HalvesSegment looked
	// up where they apply: CC10 and CC13 form each half-warp on its own.
	var txns []coalesce.Txn
	var ok bool
	if c.rule == coalesce.CC10 || c.rule == coalesce.CC13 {
		txns, ok = coalesce.CoalesceHalves(c.rule, c.path, w.Op, w.Width, h.Lo, h.Hi, h.Stride, c.txns[:0])
	} else if size := c.halves[w.Op][w.Width]; size != 0 {
		txns, ok = coalesce.AppendHalves(c.txns[:0], w.Width, size, h.Lo, h.Hi, h.Stride)
	} else if seg := c.segments[w.Op][w.Width]; seg != 0 {
		txns, ok = coalesce.AppendSegmentHalves(c.txns[:0], w.Width, seg, h.Lo, h.Hi, h.Stride)
	} else {
		return nil, false
	}
	c.txns = txns
	return txns, ok
}

// Count streams every warp instruction of src through dev's coalescer and
// counts requests and transactions per reference. It needs no timing model
// and memory bounded by one warp's cursor. progress, if not nil, is called
// with the blocks done and the total now and then.
func Count(ctx context.Context, dev *arch.Device, src traces.Source, progress func(done, total int64)) (*Counts, error) {
	k, err := newCounter(dev, src)
	if err != nil {
		return nil, err
	}
	info := src.Info()
	c := &Counts{Refs: make([]RefCounts, len(info.Refs))}
	blocks := int64(info.Blocks())
	if err := k.blocks(ctx, c, 0, blocks, progress); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(blocks, blocks)
	}
	k.totals(c)
	return c, nil
}

// CountBlocks is Count over the listed blocks of src alone, in that
// order, each streamed for at most steps instructions of its cursor (its
// warps in turn, a run of compute instructions one step; the rest of the
// block is left out): the counts of a sample of the grid, for an estimate
// of the whole where streaming it all would cost too much (the time a
// per-thread kernel takes to simulate, whose transactions have no closed
// form).
func CountBlocks(ctx context.Context, dev *arch.Device, src traces.Source, blocks []int, steps int64) (*Counts, error) {
	k, err := newCounter(dev, src)
	if err != nil {
		return nil, err
	}
	c := &Counts{Refs: make([]RefCounts, len(src.Info().Refs))}
	k.limited = true
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k.left = steps
		k.block(c, b)
	}
	if err := streamErr(src); err != nil {
		return nil, err
	}
	k.totals(c)
	return c, nil
}

// totals adds up c's global references into its Loads and Stores.
func (k *counter) totals(c *Counts) {
	for i, r := range k.src.Info().Refs {
		if k.space[i] != spaceGlobal {
			continue
		}
		if r.Op == traces.OpStore {
			c.Stores.add(&c.Refs[i])
		} else {
			c.Loads.add(&c.Refs[i])
		}
	}
}

// countCheck is how many blocks a counter streams between looks at its
// context and reports of progress: a few milliseconds of counting for a
// large block.
const countCheck = 64

// counter streams blocks of a launch through a device's coalescer, bank
// rule and constant and texture passes: Count's work, also used by a
// sampled run to count the blocks it skipped.
type counter struct {
	dev     *arch.Device
	src     traces.Source
	co      *Coalescer
	space   []refSpace
	rule    banks.Rule
	memo    shapeMemo
	classes blockClasses
	// The cursor and what it fills, reused from block to block, and the
	// warps of a block.
	warps  int
	cur    traces.Warp
	hcur   traces.HalvesWarp
	in     traces.WarpInst
	h      traces.Halves
	passes []uint64
	// touched says to count the sectors each store touches
	// (Counts.storeSectors), as a sampled run's SMs do (smSpec.touched).
	touched bool
	// limited says a block streams at most left more steps of its
	// cursor (CountBlocks).
	limited bool
	left    int64
}

func newCounter(dev *arch.Device, src traces.Source) (*counter, error) {
	co, err := NewCoalescer(dev)
	if err != nil {
		return nil, err
	}
	info := src.Info()
	k := &counter{dev: dev, src: src, co: co, memo: newShapeMemo(len(info.Refs)), classes: newBlockClasses(src)}
	k.warps = info.WarpsPerBlock()
	k.cur = src.NewWarp()
	k.hcur, _ = k.cur.(traces.HalvesWarp)
	if k.space, k.rule, err = launchSpaces(dev, info); err != nil {
		return nil, err
	}
	return k, nil
}

// blocks adds to c the counts of blocks [from, to) and returns the
// source's error, if it met one. A block like one counted before (see
// classes) adds that one's counts; a full warp whose half-warps each step
// by one stride, where the cursor describes it so, is coalesced in closed
// form (as the simulator's SMs do), without its 32 addresses.
func (k *counter) blocks(ctx context.Context, c *Counts, from, to int64, progress func(done, total int64)) error {
	total := int64(k.src.Info().Blocks())
	for b := from; b < to; b++ {
		if (b-from)%countCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := streamErr(k.src); err != nil {
				return err
			}
			if progress != nil {
				progress(b, total)
			}
		}
		if !k.classes.count(k, c, int(b)) {
			k.block(c, int(b))
		}
	}
	return streamErr(k.src)
}

// block adds to c the counts of block b.
func (k *counter) block(c *Counts, b int) {
	cur, hcur := k.cur, k.hcur
	in, h := &k.in, &k.h
	for wi := range k.warps {
		cur.Reset(b, wi)
		for {
			var has, lazy bool
			if hcur != nil {
				has, lazy = hcur.NextHalves(in, &in.Addr, h)
			} else {
				has = cur.NextTo(in, &in.Addr)
			}
			if !has {
				break
			}
			if k.limited {
				if k.left <= 0 {
					return
				}
				k.left--
			}
			if in.Op != traces.OpLoad && in.Op != traces.OpStore {
				continue
			}
			r := in.Ref
			sp := k.space[r]
			if lazy && sp == spaceGlobal {
				c.storeSectors += k.countShape(&c.Refs[r], in, h, hcur)
				continue
			}
			if lazy {
				hcur.Addresses(&in.Addr)
			}
			switch sp {
			case spaceShared:
				c.Shared.record(&c.Refs[r], in, banks.Transactions(k.rule, int(in.Width), in.Active, &in.Addr))
			case spaceConstant:
				k.passes = constmem.Passes(k.dev.Coalescer.Rule, in.Active, &in.Addr, k.passes[:0])
				c.Constant.record(&c.Refs[r], int(in.Width), in.Active, len(k.passes))
			case spaceTexture:
				k.passes = TextureLines(in.Active, &in.Addr, k.passes[:0])
				c.Texture.record(&c.Refs[r], int(in.Width), in.Active, len(k.passes))
			default:
				warp, txns := k.co.Coalesce(in)
				c.storeSectors += k.record(&c.Refs[r], warp, txns)
			}
		}
	}
}
