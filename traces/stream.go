package traces

import "iter"

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

// WarpCursor walks the instructions of one warp. Its zero value is ready
// for Reset; after the first Reset of a launch it allocates nothing.
type WarpCursor struct {
	l           *Launch
	block, warp int
	pc          int
	phase       int
	mask        uint32
	pending     int32

	val      []int64           // uniform loop values, by loop
	upper    []int64           // uniform loop upper bounds, by loop
	outer    []uint32          // mask on entry to a divergent loop, by loop
	lane     [][WarpSize]int64 // per-lane values of mapped and divergent loops
	laneUp   [][WarpSize]int64 // per-lane upper bounds of divergent loops
	laneBase [][WarpSize]uint64
}

// Warp returns a cursor at the start of warp w of block b.
func (l *Launch) Warp(b, w int) *WarpCursor {
	c := new(WarpCursor)
	c.Reset(l, b, w)
	return c
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Reset moves the cursor to the start of warp w of block b of l. A warp
// whose lanes are all past the extents (or past the block's threads) has
// no instructions.
func (c *WarpCursor) Reset(l *Launch, b, w int) {
	nl, nr := len(l.Loops), len(l.refs)
	c.l, c.block, c.warp, c.pc, c.phase, c.pending = l, b, w, 0, 0, 0
	c.val = grow(c.val, nl)
	c.upper = grow(c.upper, nl)
	c.outer = grow(c.outer, nl)
	c.lane = grow(c.lane, nl)
	c.laneUp = grow(c.laneUp, nl)
	c.laneBase = grow(c.laneBase, nr)

	bx, by := int64(l.Block.X), int64(l.Block.Y)
	threads := int64(l.Block.Threads())
	gx, gy := int64(l.grid.X), int64(l.grid.Y)
	bid := int64(b)
	blk := [3]int64{bid % gx, bid / gx % gy, bid / (gx * gy)}
	dim := [3]int64{bx, by, int64(l.Block.Z)}
	c.mask = 0
	t0 := int64(w) * WarpSize
	// Lane coordinates advance incrementally: no division per lane.
	var gc [3][WarpSize]int64 // global thread coordinates per axis
	coord := [3]int64{t0 % bx, t0 / bx % by, t0 / (bx * by)}
	for i := range WarpSize {
		if t0+int64(i) >= threads {
			break
		}
		active := true
		for ax := range 3 {
			g := blk[ax]*dim[ax] + coord[ax]
			gc[ax][i] = g
			if g >= l.extent[ax] {
				active = false
			}
		}
		if active {
			c.mask |= 1 << i
		}
		if coord[0]++; coord[0] == bx {
			coord[0] = 0
			if coord[1]++; coord[1] == by {
				coord[1] = 0
				coord[2]++
			}
		}
	}
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
	for r := range l.refs {
		g := &l.refs[r]
		base := &c.laneBase[r]
		k := uint64(g.konst)
		for i := range WarpSize {
			base[i] = k
		}
		for _, t := range g.mapped {
			lv, cf := &c.lane[t.loop], uint64(t.coef)
			for i := range WarpSize {
				base[i] += cf * uint64(lv[i])
			}
		}
		if c.mask != 1<<WarpSize-1 {
			for i := range WarpSize {
				if c.mask&(1<<i) == 0 {
					base[i] = 0
				}
			}
		}
	}
	if c.mask == 0 {
		c.pc = len(l.code) + 1 // nothing to do, not even a trailing compute
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
func (c *WarpCursor) Next(dst *WarpInst) bool {
	l := c.l
	for {
		if c.pc >= len(l.code) {
			if c.pc == len(l.code) && c.pending > 0 {
				c.pc++
				c.emitCompute(dst, c.pending)
				c.pending = 0
				return true
			}
			c.pc = len(l.code) + 1
			return false
		}
		op := &l.code[c.pc]
		switch op.kind {
		case pStmt:
			s := &l.stmts[op.stmt]
			switch {
			case c.phase < len(s.loads):
				c.emitRef(dst, s.loads[c.phase])
				c.phase++
				return true
			case c.phase == len(s.loads):
				c.phase++
				if n := s.compute + c.pending; n > 0 {
					c.pending = 0
					c.emitCompute(dst, n)
					return true
				}
			case c.phase == len(s.loads)+1 && s.store >= 0:
				c.phase++
				c.emitRef(dst, s.store)
				return true
			default:
				c.phase = 0
				c.pc++
			}
		case pLoopBegin:
			if c.enter(op.loop) {
				c.pending += loopControl
				c.pc++
			} else {
				c.pc = op.jump
			}
		case pLoopEnd:
			if c.again(op.loop) {
				c.pending += loopControl
				c.pc = op.jump
			} else {
				c.pc++
			}
		}
	}
}

// loopControl is the instructions per loop iteration: increment, compare,
// branch.
const loopControl = 3

// enter starts loop v; false when no lane runs an iteration.
func (c *WarpCursor) enter(v int) bool {
	g := &c.l.bounds[v]
	if !g.divergent {
		lo, up := c.laneValue(g.lo, g.lower, 0), c.laneValue(g.up, g.upper, 0)
		c.val[v], c.upper[v] = lo, up
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
	c.mask = m
	return true
}

// again advances loop v; false when no lane runs another iteration.
func (c *WarpCursor) again(v int) bool {
	g := &c.l.bounds[v]
	if !g.divergent {
		c.val[v] += g.step
		return c.val[v] < c.upper[v]
	}
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
		c.mask = outer
		return false
	}
	c.mask = m
	return true
}

func (c *WarpCursor) emitCompute(dst *WarpInst, n int32) {
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, -1, OpCompute, 0
	dst.Active, dst.Count = c.mask, n
	// Addr is left as it was: it means nothing for OpCompute, and clearing
	// 256 bytes would cost as much as filling a memory instruction.
}

func (c *WarpCursor) emitRef(dst *WarpInst, r int) {
	g := &c.l.refs[r]
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, r, c.l.Refs[r].Op, g.width
	dst.Active, dst.Count = c.mask, 0
	off := int64(0)
	for _, t := range g.uniform {
		off += t.coef * c.val[t.loop]
	}
	base := &c.laneBase[r]
	u := uint64(off)
	if len(g.divergent) == 0 {
		if c.mask == 1<<WarpSize-1 {
			addAll(&dst.Addr, base, u)
			return
		}
		for i := range WarpSize {
			if c.mask&(1<<i) != 0 {
				dst.Addr[i] = base[i] + u
			} else {
				dst.Addr[i] = 0
			}
		}
		return
	}
	for i := range WarpSize {
		if c.mask&(1<<i) == 0 {
			dst.Addr[i] = 0
			continue
		}
		a := off
		for _, t := range g.divergent {
			a += t.coef * c.lane[t.loop][i]
		}
		dst.Addr[i] = base[i] + uint64(a)
	}
}

// Stream yields every warp instruction of the launch: block 0 warps 0,
// 1, …, then block 1, and so on. It reuses one WarpInst, so a consumer
// that keeps an instruction must copy it. Memory is one cursor.
func (l *Launch) Stream() iter.Seq[*WarpInst] {
	return func(yield func(*WarpInst) bool) {
		var c WarpCursor
		var w WarpInst
		nb, nw := l.Blocks(), l.WarpsPerBlock()
		for b := range nb {
			for wi := range nw {
				c.Reset(l, b, wi)
				for c.Next(&w) {
					if !yield(&w) {
						return
					}
				}
			}
		}
	}
}

// addAll sets a[i] = b[i] + u for all lanes, unrolled by eight.
func addAll(a, b *[WarpSize]uint64, u uint64) {
	for i := 0; i < WarpSize; i += 8 {
		a0, b0 := (*[8]uint64)(a[i:i+8]), (*[8]uint64)(b[i:i+8])
		a0[0], a0[1], a0[2], a0[3] = b0[0]+u, b0[1]+u, b0[2]+u, b0[3]+u
		a0[4], a0[5], a0[6], a0[7] = b0[4]+u, b0[5]+u, b0[6]+u, b0[7]+u
	}
}
