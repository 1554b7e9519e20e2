package accelsim

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// Kernel is one kernel's trace, indexed: its header, where each traced
// warp's instructions are in the file, and the memory references. It is
// a traces.Source; the cursors read the file back as the simulator
// dispatches blocks, so several simulations may replay it at once.
type Kernel struct {
	Header
	// File names the trace in errors and reports.
	File string

	r      io.ReaderAt
	size   int64
	closer io.Closer

	// blocks are the traced blocks, by linear id; warps holds each one's
	// traced warps, by warp number, from its first: memory follows the
	// warps the file has, not the launch its header describes.
	blocks []tracedBlock
	warps  []span
	wpb    int

	refs    []traces.RefInfo
	refOf   map[refKey]int32
	opcodes map[string]uint16
	counts  Counts

	mu  sync.Mutex
	err error // the first error a cursor met
}

// tracedBlock is a block of the trace: its linear id and the index of its
// first warp in Kernel.warps.
type tracedBlock struct {
	id, first int32
}

// span is a traced warp: where its instructions are (the offset and line
// number of its first instruction line; for a warp of none, the line of
// its count), how many (insts = N), and its number in the block.
type span struct {
	off, line int64
	insts     int64
	warp      int32
}

// refKey identifies a memory reference: a PC and opcode, and the class its
// addresses gave (a generic LD may reach shared or global memory).
type refKey struct {
	pc     uint64
	opcode uint16
	class  class
}

// Counts are a kernel's instructions, counted from the trace alone.
type Counts struct {
	// Blocks and Warps are the thread blocks and warps the trace has.
	Blocks, Warps int64
	// Insts are the warp instructions; MemInsts those with addresses the
	// replay sends to memory.
	Insts, MemInsts int64
	// GlobalLoads and GlobalStores are the warp instructions replayed
	// through the global path (loads; stores and atomics), and their
	// sectors the distinct 32-byte sectors each touches, summed: what a
	// profiler counts as requests and sectors (transactions on sm_50 and
	// later).
	GlobalLoads, GlobalLoadSectors   int64
	GlobalStores, GlobalStoreSectors int64
	// Refs are the warp instructions of each memory reference, indexed
	// like Info().Refs.
	Refs []int64
}

// OpenKernel reads and indexes the .traceg at path; Close releases it.
func OpenKernel(path string) (*Kernel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	k, err := ReadKernel(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	k.closer = f
	return k, nil
}

// ReadKernel reads and indexes the .traceg in r, size bytes, named name in
// errors. The Kernel reads r again while it is replayed.
func ReadKernel(name string, r io.ReaderAt, size int64) (*Kernel, error) {
	k := &Kernel{File: name, r: r, size: size, refOf: map[refKey]int32{}, opcodes: map[string]uint16{}}
	if err := k.index(); err != nil {
		return nil, err
	}
	return k, nil
}

// Close closes the file OpenKernel opened.
func (k *Kernel) Close() error {
	if k.closer == nil {
		return nil
	}
	return k.closer.Close()
}

// Counts are the kernel's instruction counts from the trace.
func (k *Kernel) Counts() Counts {
	c := k.counts
	c.Refs = slices.Clone(c.Refs)
	return c
}

// Info describes the launch for the simulator.
func (k *Kernel) Info() *traces.Info {
	return &traces.Info{Kernel: k.Name, Block: k.Block, Grid: k.Grid, Regs: k.Regs, Smem: arch.Bytes(k.Shmem),
		PerThread: true, Refs: slices.Clone(k.refs)}
}

// NewWarp returns a cursor over the kernel's warps.
func (k *Kernel) NewWarp() traces.Warp { return &cursor{k: k} }

// Err is the first error a cursor met reading the trace back (the file
// changed or could not be read); the simulator reports it after the run.
func (k *Kernel) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

func (k *Kernel) fail(err error) {
	k.mu.Lock()
	if k.err == nil {
		k.err = err
	}
	k.mu.Unlock()
}

// WarpInstructions, RefInstructions and ExactWork make the kernel a
// traces.Counted: the trace counts its instructions exactly.
func (k *Kernel) WarpInstructions() float64 { return float64(k.counts.Insts) }

// RefInstructions are the warp instructions of each memory reference.
func (k *Kernel) RefInstructions() []float64 {
	out := make([]float64, len(k.counts.Refs))
	for i, n := range k.counts.Refs {
		out[i] = float64(n)
	}
	return out
}

// ExactWork is true: a trace's counts are exact.
func (k *Kernel) ExactWork() bool { return true }

// CountSpread is 0: a trace's counts are exact.
func (k *Kernel) CountSpread() float64 { return 0 }

var _ traces.Counted = (*Kernel)(nil)

// spanOf is warp w of block b, and false when the trace does not have it.
func (k *Kernel) spanOf(b, w int) (span, bool) {
	i, ok := slices.BinarySearchFunc(k.blocks, int32(b), func(t tracedBlock, id int32) int { return cmp.Compare(t.id, id) })
	if !ok {
		return span{}, false
	}
	ws := k.blockWarps(i)
	if w < len(ws) && ws[w].warp == int32(w) {
		return ws[w], true // every warp traced, as the post-processor writes them
	}
	j, ok := slices.BinarySearchFunc(ws, int32(w), func(s span, w int32) int { return cmp.Compare(s.warp, w) })
	if !ok {
		return span{}, false
	}
	return ws[j], true
}

// blockWarps are the traced warps of the i-th traced block.
func (k *Kernel) blockWarps(i int) []span {
	end := len(k.warps)
	if i+1 < len(k.blocks) {
		end = int(k.blocks[i+1].first)
	}
	return k.warps[k.blocks[i].first:end]
}

// ref returns the reference of a memory instruction the index pass saw.
func (k *Kernel) ref(in *inst, c class) (int32, bool) {
	op, ok := k.opcodes[string(in.opcode)]
	if !ok {
		return 0, false
	}
	r, ok := k.refOf[refKey{in.pc, op, c}]
	return r, ok
}

// sortRefs numbers the references by PC, then opcode and class, as they
// appear in the SASS listing, and renumbers the counts.
func (k *Kernel) sortRefs(keys []refKey, names []string) {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(keys[a].pc, keys[b].pc), cmp.Compare(names[a], names[b]), cmp.Compare(keys[a].class, keys[b].class))
	})
	refs := make([]traces.RefInfo, len(keys))
	counts := make([]int64, len(keys))
	for to, from := range order {
		key := keys[from]
		k.refOf[key] = int32(to)
		refs[to] = traces.RefInfo{Text: refText(names[from], key), Op: key.class.op(), Space: key.class.space()}
		counts[to] = k.counts.Refs[from]
	}
	k.refs, k.counts.Refs = refs, counts
}

// refText names a reference as the SASS listing shows it: "LDG.E @0x00a0";
// a generic one says the window its addresses were in.
func refText(opcode string, key refKey) string {
	s := fmt.Sprintf("%s @0x%04x", opcode, key.pc)
	if !isGeneric([]byte(opcode)) {
		return s
	}
	switch key.class {
	case sharedLoad, sharedStore:
		return s + " [shared]"
	case localLoad, localStore:
		return s + " [local]"
	}
	return s + " [global]"
}

// sectors is the distinct 32-byte sectors the active lanes of in touch.
func sectors(in *inst, addr *[traces.WarpSize]uint64) int64 {
	var seen [2 * traces.WarpSize]uint64
	n := 0
	add := func(s uint64) {
		for _, x := range seen[:n] {
			if x == s {
				return
			}
		}
		seen[n] = s
		n++
	}
	for l := range traces.WarpSize {
		if in.mask&(1<<l) != 0 {
			a := addr[l]
			add(a / 32)
			add((a + uint64(in.width) - 1) / 32)
		}
	}
	return int64(n)
}

// threadsPerBlock is the block's threads.
func (k *Kernel) threadsPerBlock() int { return k.Block.X * k.Block.Y * k.Block.Z }

// replayAddr rewrites in's lane addresses as the simulator takes them for
// class c, in warp w of block b: a shared offset from the window's base,
// and local memory interleaved per thread as the hardware lays it out
// (consecutive threads' words adjacent) rather than at the per-thread
// window offset the trace records, which is the same for every thread.
func (k *Kernel) replayAddr(in *inst, c class, b, w int, addr *[traces.WarpSize]uint64) {
	*addr = in.addr
	switch c {
	case sharedLoad, sharedStore:
		if base := k.ShmemBase; base != 0 {
			for l := range traces.WarpSize {
				if in.mask&(1<<l) != 0 && addr[l] >= base {
					addr[l] -= base
				}
			}
		}
	case localLoad, localStore:
		base := k.LocalBase
		if base == 0 {
			return
		}
		threads := uint64(k.threadsPerBlock())
		total := threads * uint64(k.Grid.X) * uint64(k.Grid.Y) * uint64(k.Grid.Z)
		width := uint64(in.width)
		first := uint64(b)*threads + uint64(w)*traces.WarpSize
		for l := range traces.WarpSize {
			a := addr[l]
			if in.mask&(1<<l) == 0 || a < base || a-base >= localWindow {
				continue
			}
			off := a - base
			addr[l] = base + off/width*width*total + width*(first+uint64(l)) + off%width
		}
	}
}
