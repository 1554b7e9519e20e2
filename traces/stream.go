package traces

import (
	"iter"
	"math"
)

// WarpInst is one warp instruction of the stream.
type WarpInst struct {
	// Block is the linear block id (x fastest); Warp the warp within it.
	Block int
	Warp  int
	// Ref indexes Launch.Refs; -1 for OpCompute.
	Ref int
	Op  Op
	// Width is the bytes each lane accesses.
	Width uint8
	// Active has bit i set when lane i takes part.
	Active uint32
	// Addr holds each active lane's byte address for OpLoad and OpStore;
	// inactive lanes hold 0. For OpCompute it is unspecified.
	Addr [WarpSize]uint64
	// Count is the number of non-memory warp instructions of an OpCompute.
	Count int32
}

// WarpCursor walks the instructions of one warp of a Launch. Its zero
// value is ready for Start; after the first Start of a launch it
// allocates nothing.
type WarpCursor struct {
	l           *Launch
	code        []pcode
	steps       []refStep
	block, warp int
	pc          int
	mask        uint32
	// pending is loop control not yet emitted; 64 bits, as empty loops
	// can gather more than an OpCompute's Count holds.
	pending int64

	// off is, per reference, the warp's scalar part of the address: the
	// block's mapped offset plus Σ coef·value over the uniform loops,
	// kept up to date as those loops step.
	off []int64
	tab [][WarpSize]uint64 // the lane offsets of this warp, by reference
	own [][WarpSize]uint64 // tab of launches without a lane table
	// shape is, by reference, the shape of tab; ownShape backs it for
	// launches without a lane table.
	shape    []laneShape
	ownShape []laneShape
	// lazyTab and lazyOff are the lane offsets and the offset added to
	// them of the latest instruction NextHalves left unwritten.
	lazyTab *[WarpSize]uint64
	lazyOff uint64
	// keep has every bit of lane i set when lane i is active: addresses
	// of partial warps are masked with it.
	keep [WarpSize]uint64

	val    []int64           // uniform loop values, by loop
	upper  []int64           // uniform loop upper bounds, by loop
	outer  []uint32          // mask on entry to a divergent loop, by loop
	lane   [][WarpSize]int64 // per-lane values of mapped and divergent loops
	laneUp [][WarpSize]int64 // per-lane upper bounds of divergent loops
}

// Warp returns a cursor at the start of warp w of block b.
func (l *Launch) Warp(b, w int) *WarpCursor {
	c := new(WarpCursor)
	c.Start(l, b, w)
	return c
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

const fullMask = 1<<WarpSize - 1

// Reset moves the cursor to the start of warp w of block b of the launch
// it walks (Start or Launch.NewWarp set it).
func (c *WarpCursor) Reset(b, w int) { c.Start(c.l, b, w) }

// Start moves the cursor to the start of warp w of block b of l. A warp
// whose lanes are all past the extents (or past the block's threads) has
// no instructions.
func (c *WarpCursor) Start(l *Launch, b, w int) {
	nl, nr := len(l.Loops), len(l.refs)
	c.l, c.code, c.steps, c.block, c.warp, c.pc, c.pending = l, l.code, l.steps, b, w, 0, 0
	c.val = grow(c.val, nl)
	clear(c.val)
	c.upper = grow(c.upper, nl)
	c.outer = grow(c.outer, nl)
	c.off = grow(c.off, nr)
	if l.laneTab != nil {
		c.tab = l.laneTab[w*nr : (w+1)*nr]
		c.shape = l.laneStride[w*nr : (w+1)*nr]
	} else {
		c.own = grow(c.own, nr)
		l.laneOffsets(w, c.own)
		c.tab = c.own
		c.ownShape = grow(c.ownShape, nr)
		for r := range c.own {
			c.ownShape[r] = shapeOf(&c.own[r])
		}
		c.shape = c.ownShape
	}
	c.lazyTab = nil

	blk, dim, interior := l.blockOffsets(b, c.off)
	c.mask = l.warpMask[w]
	if !interior || l.divergent {
		c.lanes(l, w, blk, dim, !interior)
	}
	c.setMask(c.mask)
	if c.mask == 0 {
		c.pc = len(l.code) + 1 // nothing to do, not even a trailing compute
	}
}

// blockOffsets writes to off each reference's offset for block b (the
// address of its element for the block's thread 0 at the loops' lower
// bounds) and returns b's coordinates in the grid, the block's shape and
// whether every thread of b lies inside the mapped loops' extents.
func (l *Launch) blockOffsets(b int, off []int64) (blk, dim [3]int64, interior bool) {
	gx, gy := int64(l.grid.X), int64(l.grid.Y)
	bid := int64(b)
	blk = [3]int64{bid % gx, bid / gx % gy, bid / (gx * gy)}
	dim = [3]int64{int64(l.Block.X), int64(l.Block.Y), int64(l.Block.Z)}
	var first [3]uint64 // global coordinates of the block's thread 0
	interior = true
	for ax := range 3 {
		first[ax] = uint64(blk[ax] * dim[ax])
		if (blk[ax]+1)*dim[ax] > l.extent[ax] {
			interior = false
		}
	}
	for r := range l.refs {
		g := &l.refs[r]
		off[r] = int64(g.base + g.blockCoef[0]*first[0] + g.blockCoef[1]*first[1] + g.blockCoef[2]*first[2])
	}
	return blk, dim, interior
}

// BlockOffsets writes to off, one entry per reference, where block b's
// warps start each reference's addresses, and reports whether b is
// regular: of a loop nest without divergent loops, and with all its
// threads inside the mapped loops' extents. The warps of two regular
// blocks then run the same instructions, on the same lanes, and each
// reference's addresses in one are those in the other moved by the
// difference of their offsets. A per-thread kernel's blocks are never
// regular.
func (l *Launch) BlockOffsets(b int, off []int64) bool {
	if l.pt != nil || l.divergent {
		return false
	}
	_, _, interior := l.blockOffsets(b, off)
	return interior
}

// lanes computes the global thread coordinates of the warp's lanes: with
// clip, it drops lanes past the extents from the mask; with divergent
// loops, it sets the per-lane values of the mapped loops.
func (c *WarpCursor) lanes(l *Launch, w int, blk, dim [3]int64, clip bool) {
	bx, by := dim[0], dim[1]
	threads := int64(l.Block.Threads())
	t0 := int64(w) * WarpSize
	// Lane coordinates advance incrementally: no division per lane.
	var gc [3][WarpSize]int64 // global thread coordinates per axis
	coord := [3]int64{t0 % bx, t0 / bx % by, t0 / (bx * by)}
	for i := range WarpSize {
		if t0+int64(i) >= threads {
			break
		}
		for ax := range 3 {
			g := blk[ax]*dim[ax] + coord[ax]
			gc[ax][i] = g
			if clip && g >= l.extent[ax] {
				c.mask &^= 1 << i
			}
		}
		if coord[0]++; coord[0] == bx {
			coord[0] = 0
			if coord[1]++; coord[1] == by {
				coord[1] = 0
				coord[2]++
			}
		}
	}
	if !l.divergent {
		return
	}
	c.lane = grow(c.lane, len(l.Loops))
	c.laneUp = grow(c.laneUp, len(l.Loops))
	for ax := range 3 {
		v := l.mapLoop[ax]
		if v < 0 {
			continue
		}
		lv, lo, st := &c.lane[v], l.Loops[v].Lower.Const, l.Loops[v].Step
		for i := range WarpSize {
			lv[i] = lo + gc[ax][i]*st
		}
	}
}

// setMask makes m the active lanes.
func (c *WarpCursor) setMask(m uint32) {
	c.mask = m
	if m == fullMask {
		return
	}
	for i := range WarpSize {
		c.keep[i] = -uint64(m >> i & 1)
	}
}

// laneValue is the value of a linear form's terms for lane i.
func (c *WarpCursor) laneValue(k int64, ts []term, i int) int64 {
	for _, t := range ts {
		if c.l.Loops[t.loop].Mapped || c.l.bounds[t.loop].divergent {
			k += t.coef * c.lane[t.loop][i]
		} else {
			k += t.coef * c.val[t.loop]
		}
	}
	return k
}

// Next fills dst with the warp's next instruction; it reports false at
// the end of the warp.
func (c *WarpCursor) Next(dst *WarpInst) bool { return c.NextTo(dst, &dst.Addr) }

// NextTo is Next with the lane addresses of a memory instruction written
// to addr instead of dst.Addr, which it leaves as it was: a consumer that
// keeps the addresses elsewhere is spared a copy.
func (c *WarpCursor) NextTo(dst *WarpInst, addr *[WarpSize]uint64) bool {
	has, _ := c.next(dst, addr, nil)
	return has
}

// Halves describes the lane addresses of a memory instruction of a full
// warp whose half-warps each step by one stride: lane l reads
// Lo + l·Stride and lane 16+l reads Hi + l·Stride (mod 2^64).
type Halves struct {
	Lo, Hi, Stride uint64
}

// NextHalves is NextTo for a consumer that may not need the lane
// addresses: when the next instruction is a memory instruction of a full
// warp with the shape Halves describes, it sets *h, leaves addr unwritten
// and reports lazy; Addresses then writes them, until the next call.
// Otherwise it is NextTo.
func (c *WarpCursor) NextHalves(dst *WarpInst, addr *[WarpSize]uint64, h *Halves) (has, lazy bool) {
	return c.next(dst, addr, h)
}

// Addresses writes to addr the lane addresses of the instruction the
// latest NextHalves reported lazy.
func (c *WarpCursor) Addresses(addr *[WarpSize]uint64) {
	addAll(addr, c.lazyTab, c.lazyOff)
}

// next is NextTo, and NextHalves when h is not nil.
func (c *WarpCursor) next(dst *WarpInst, addr *[WarpSize]uint64, h *Halves) (has, lazy bool) {
	code := c.code
	pc := c.pc
	for uint(pc) < uint(len(code)) {
		op := &code[pc]
		pc++
		switch op.kind {
		case pMem:
			c.pc = pc
			if op.div || c.mask != fullMask {
				c.emitRef(dst, addr, op)
				return true, false
			}
			r := int(op.ref)
			dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, r, op.op, op.wid
			dst.Active, dst.Count = fullMask, 0
			u := uint64(c.off[r])
			if sh := &c.shape[r]; h != nil && sh.halves {
				tab := &c.tab[r]
				c.lazyTab, c.lazyOff = tab, u
				h.Lo, h.Hi, h.Stride = tab[0]+u, tab[16]+u, sh.stride
				return true, true
			}
			addAll(addr, &c.tab[r], u)
			return true, false
		case pCompute:
			if n := int64(op.count) + c.pending; n > 0 {
				c.pc, c.pending = pc, 0
				if n > math.MaxInt32 {
					// Emit what a Count holds and come back to this
					// step for the rest.
					c.pc, c.pending = pc-1, n-math.MaxInt32-int64(op.count)
					n = math.MaxInt32
				}
				c.emitCompute(dst, int32(n))
				return true, false
			}
		case pUniformEnd:
			v := int(op.loop)
			c.val[v] += op.step
			for _, s := range c.steps[op.d0:op.d1] {
				c.off[s.ref] += s.delta
			}
			if c.val[v] < c.upper[v] {
				c.pending += loopControl
				pc = int(op.jump)
			}
		case pLoopEnd:
			if c.again(int(op.loop)) {
				c.pending += loopControl
				pc = int(op.jump)
			}
		case pLoopBegin:
			if c.enter(int(op.loop)) {
				c.pending += loopControl
			} else {
				pc = int(op.jump)
			}
		}
	}
	if pc == len(code) && c.pending > 0 {
		n := min(c.pending, math.MaxInt32)
		c.pending -= n
		if c.pc = pc; c.pending == 0 {
			c.pc = pc + 1
		}
		c.emitCompute(dst, int32(n))
		return true, false
	}
	c.pc = len(code) + 1
	return false, false
}

// loopControl is the instructions per loop iteration: increment, compare,
// branch.
const loopControl = 3

// enter starts loop v; false when no lane runs an iteration.
func (c *WarpCursor) enter(v int) bool {
	g := &c.l.bounds[v]
	if !g.divergent {
		// A uniform loop's bounds depend on uniform loops only.
		lo, up := g.lo, g.up
		for _, t := range g.lower {
			lo += t.coef * c.val[t.loop]
		}
		for _, t := range g.upper {
			up += t.coef * c.val[t.loop]
		}
		d := lo - c.val[v]
		c.val[v], c.upper[v] = lo, up
		for _, p := range g.deps {
			c.off[p.ref] += p.coef * d
		}
		return lo < up
	}
	c.outer[v] = c.mask
	var m uint32
	for i := range WarpSize {
		if c.mask&(1<<i) == 0 {
			continue
		}
		lo, up := c.laneValue(g.lo, g.lower, i), c.laneValue(g.up, g.upper, i)
		c.lane[v][i], c.laneUp[v][i] = lo, up
		if lo < up {
			m |= 1 << i
		}
	}
	if m == 0 {
		return false
	}
	c.setMask(m)
	return true
}

// again advances divergent loop v (Next steps the uniform loops); false
// when no lane runs another iteration.
func (c *WarpCursor) again(v int) bool {
	g := &c.l.bounds[v]
	var m uint32
	outer := c.outer[v]
	for i := range WarpSize {
		if outer&(1<<i) == 0 {
			continue
		}
		c.lane[v][i] += g.step
		if c.lane[v][i] < c.laneUp[v][i] {
			m |= 1 << i
		}
	}
	if m == 0 {
		c.setMask(outer)
		return false
	}
	if m != c.mask {
		c.setMask(m)
	}
	return true
}

func (c *WarpCursor) emitCompute(dst *WarpInst, n int32) {
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, -1, OpCompute, 0
	dst.Active, dst.Count = c.mask, n
	// Addr is left as it was: it means nothing for OpCompute, and clearing
	// 256 bytes would cost as much as filling a memory instruction.
}

// emitRef fills dst, and addr with the lane addresses, with reference
// op.ref for a partial warp or a reference with divergent terms.
func (c *WarpCursor) emitRef(dst *WarpInst, addr *[WarpSize]uint64, op *pcode) {
	r := int(op.ref)
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, r, op.op, op.wid
	dst.Active, dst.Count = c.mask, 0
	tab := &c.tab[r]
	u := uint64(c.off[r])
	if !op.div {
		addMasked(addr, tab, u, &c.keep) // Next handles full warps
		return
	}
	for i := range WarpSize {
		if c.mask&(1<<i) == 0 {
			addr[i] = 0
			continue
		}
		a := u + tab[i]
		for _, t := range c.l.refs[r].divergent {
			a += uint64(t.coef * c.lane[t.loop][i])
		}
		addr[i] = a
	}
}

// Stream yields every warp instruction of the launch (see Stream).
func (l *Launch) Stream() iter.Seq[*WarpInst] { return Stream(l) }

// addAll sets a[i] = b[i] + u for all lanes, written out: the compiler
// does not unroll loops, and constant indices need no bounds checks.
func addAll(a, b *[WarpSize]uint64, u uint64) {
	a[0], a[1], a[2], a[3] = b[0]+u, b[1]+u, b[2]+u, b[3]+u
	a[4], a[5], a[6], a[7] = b[4]+u, b[5]+u, b[6]+u, b[7]+u
	a[8], a[9], a[10], a[11] = b[8]+u, b[9]+u, b[10]+u, b[11]+u
	a[12], a[13], a[14], a[15] = b[12]+u, b[13]+u, b[14]+u, b[15]+u
	a[16], a[17], a[18], a[19] = b[16]+u, b[17]+u, b[18]+u, b[19]+u
	a[20], a[21], a[22], a[23] = b[20]+u, b[21]+u, b[22]+u, b[23]+u
	a[24], a[25], a[26], a[27] = b[24]+u, b[25]+u, b[26]+u, b[27]+u
	a[28], a[29], a[30], a[31] = b[28]+u, b[29]+u, b[30]+u, b[31]+u
}

// addMasked sets a[i] = (b[i] + u) & k[i] for all lanes.
func addMasked(a, b *[WarpSize]uint64, u uint64, k *[WarpSize]uint64) {
	a[0], a[1], a[2], a[3] = (b[0]+u)&k[0], (b[1]+u)&k[1], (b[2]+u)&k[2], (b[3]+u)&k[3]
	a[4], a[5], a[6], a[7] = (b[4]+u)&k[4], (b[5]+u)&k[5], (b[6]+u)&k[6], (b[7]+u)&k[7]
	a[8], a[9], a[10], a[11] = (b[8]+u)&k[8], (b[9]+u)&k[9], (b[10]+u)&k[10], (b[11]+u)&k[11]
	a[12], a[13], a[14], a[15] = (b[12]+u)&k[12], (b[13]+u)&k[13], (b[14]+u)&k[14], (b[15]+u)&k[15]
	a[16], a[17], a[18], a[19] = (b[16]+u)&k[16], (b[17]+u)&k[17], (b[18]+u)&k[18], (b[19]+u)&k[19]
	a[20], a[21], a[22], a[23] = (b[20]+u)&k[20], (b[21]+u)&k[21], (b[22]+u)&k[22], (b[23]+u)&k[23]
	a[24], a[25], a[26], a[27] = (b[24]+u)&k[24], (b[25]+u)&k[25], (b[26]+u)&k[26], (b[27]+u)&k[27]
	a[28], a[29], a[30], a[31] = (b[28]+u)&k[28], (b[29]+u)&k[29], (b[30]+u)&k[30], (b[31]+u)&k[31]
}
