package traces

import (
	"fmt"
	"math"
	"math/bits"

	"gpumemsim/arch"
)

// ThreadCursor walks the instructions of one warp of a per-thread
// kernel, SIMT style: the warp runs each step for its active lanes; at a
// branch whose lanes disagree it runs the taken part with those lanes,
// then the other part with the others, and reconverges after the
// statement; in a loop, lanes whose condition fails wait until the last
// lane leaves. A step with no active lane issues nothing. After the first
// Reset of a launch it allocates nothing.
type ThreadCursor struct {
	l  *Launch
	pt *threadProg

	block, warp int
	pc          int
	mask        uint32 // active lanes
	exited      uint32 // lanes that returned
	pending     int64  // control instructions not yet issued
	insts, cap  int64  // warp instructions emitted, and the most allowed
	// counting says the work is being counted (threadWork): cap is then
	// the budget of instructions, compute counts summed, left when the
	// warp started, spent what the counter has summed of the warp, and
	// over says the warp ran past the budget.
	counting, over bool
	spent          int64
	frames         []ptFrame
	ln             lanes
	sub, idx       [WarpSize]int64
	// halves is where NextHalves takes the shape of a memory
	// instruction's addresses (nil under NextTo); lazy says it did, and
	// the addresses are lazyBase plus the table lazyAdd (Addresses).
	halves   *Halves
	lazy     bool
	lazyBase uint64
	lazyAdd  *[WarpSize]uint64
}

// ptFrame is an if or loop the warp is in: the lanes that entered it and,
// for an if, the lanes still to run its else part.
type ptFrame struct {
	saved, other uint32
	// entering says a loop's first test is still to come.
	entering bool
}

// maxWarpInsts bounds the instructions of one warp: more means a loop
// that never ends, which would otherwise run for ever.
const maxWarpInsts = 1 << 36

var _ HalvesWarp = (*ThreadCursor)(nil)

// Addresses writes to addr the lane addresses of the instruction the
// latest NextHalves reported lazy.
func (c *ThreadCursor) Addresses(addr *[WarpSize]uint64) {
	addTids(addr, c.lazyBase, c.lazyAdd)
}

// Reset moves the cursor to the start of warp w of block b.
func (c *ThreadCursor) Reset(b, w int) {
	l, pt := c.l, c.pt
	c.block, c.warp, c.pc, c.pending, c.insts, c.exited = b, w, 0, 0, 0, 0
	c.cap, c.over, c.spent = maxWarpInsts, false, 0
	if pt.warpCap > 0 {
		c.cap = pt.warpCap
	}
	c.frames = c.frames[:0]
	if cap(c.frames) < pt.frames+1 {
		c.frames = make([]ptFrame, 0, pt.frames+1)
	}
	ln := &c.ln
	ln.vary = pt.vary
	ln.reserve(pt.depth, len(pt.vary), len(pt.slots))
	clear(ln.uregs)
	clear(ln.vregs)
	clear(ln.owed)
	ln.bad = ""
	g := l.grid
	ln.bid = [3]int64{int64(b % g.X), int64(b / g.X % g.Y), int64(b / (g.X * g.Y))}
	c.mask = threadIndices(&ln.tid, l.Block, w)
}

// threadIndices sets tid to the thread indices of the lanes of warp w of
// a block, 0 past its last thread, and returns the lanes it has. Lane i
// is thread w·32 + i, counted in x, then y, then z: the first lane's
// index is divided out, the others step from it.
func threadIndices(tid *[3][WarpSize]int64, block arch.Dim3, w int) (mask uint32) {
	bx, by := block.X, block.Y
	threads := block.Threads()
	t := w * WarpSize
	x, y, z := t%bx, t/bx%by, t/(bx*by)
	for i := range WarpSize {
		if t+i >= threads {
			tid[0][i], tid[1][i], tid[2][i] = 0, 0, 0
			continue
		}
		mask |= 1 << i
		tid[0][i], tid[1][i], tid[2][i] = int64(x), int64(y), int64(z)
		if x++; x == bx {
			if x, y = 0, y+1; y == by {
				y, z = 0, z+1
			}
		}
	}
	return mask
}

// NextTo fills dst with the warp's next instruction, the lane addresses
// of a memory instruction going to addr; it reports false at the end of
// the warp.
func (c *ThreadCursor) NextTo(dst *WarpInst, addr *[WarpSize]uint64) bool {
	has, _ := c.NextHalves(dst, addr, nil)
	return has
}

// NextHalves is NextTo for a consumer that may not need the lane
// addresses: for a memory instruction of a full warp whose addresses are
// a table by warp of a block that steps in half-warps (tidWarp), or one
// address in every lane, it sets *h, leaves addr unwritten and reports
// lazy.
func (c *ThreadCursor) NextHalves(dst *WarpInst, addr *[WarpSize]uint64, h *Halves) (has, lazy bool) {
	c.halves, c.lazy = h, false
	code := c.pt.code
	for c.pc < len(code) {
		op := &code[c.pc]
		c.pc++
		if c.mask == 0 && op.kind < tIf {
			continue // nothing runs; control steps still keep the frames
		}
		switch op.kind {
		case tMem:
			has = c.memory(dst, addr, int(op.ref))
			return has, c.lazy // after memory, which sets it
		case tCompute:
			if n := int64(op.count) + c.pending; n > 0 {
				return c.compute(dst, n), false
			}
		case tAssign:
			c.assign(op)
		case tIf:
			c.branch(op)
		case tElse:
			f := &c.frames[len(c.frames)-1]
			if f.other&^c.exited != 0 {
				c.mask, f.other = f.other&^c.exited, 0
			} else {
				c.pc = int(op.jump)
			}
		case tEndIf:
			c.mask = c.frames[len(c.frames)-1].saved &^ c.exited
			c.frames = c.frames[:len(c.frames)-1]
		case tEnter:
			c.frames = append(c.frames, ptFrame{saved: c.mask, entering: true})
		case tTest:
			if f := &c.frames[len(c.frames)-1]; f.entering {
				f.entering = false
				if op.trip != nil && c.mask != 0 {
					c.trips(op.trip)
				}
			}
			c.test(op)
		case tBack:
			c.pc = int(op.jump)
		case tBarrier:
			if c.mask != 0 {
				c.emit(dst, OpBarrier, -1, 0)
				return c.count(), false
			}
		case tReturn:
			c.exited |= c.mask
			c.mask = 0
		}
		if c.ln.bad != "" {
			return c.failBad(), false
		}
	}
	if c.pc == len(code) && c.pending > 0 {
		return c.compute(dst, c.pending), false
	}
	c.pc = len(code) + 1
	return false, false
}

// failBad ends the warp with the reason an operator went wrong in one of
// its active lanes (a division by zero, a shift out of range), placed at
// the statement, condition or reference of the step that met it, the
// last one run (branch and test do not jump once a lane went wrong, so
// it is at c.pc-1; a step NextTo's loop would keep instead costs
// matmul-tiled 0.4% more instructions); false, for NextTo to return.
func (c *ThreadCursor) failBad() bool {
	if c.pc > len(c.pt.code) {
		return false // the step failed the warp itself (trips), first
	}
	ln := &c.ln
	who := fmt.Sprintf("every active thread of warp %d of block (%d,%d,%d)", c.warp, ln.bid[0], ln.bid[1], ln.bid[2])
	if i := ln.badLane; i >= 0 {
		who = fmt.Sprintf("thread (%d,%d,%d) of block (%d,%d,%d)", ln.tid[0][i], ln.tid[1][i], ln.tid[2][i], ln.bid[0], ln.bid[1], ln.bid[2])
	}
	c.failHere(at(c.pt.pos[c.pc-1], fmt.Errorf("%s in %s; hint: check the operands' values in every thread (a divisor or shift count from threadIdx, blockIdx or the params)", ln.bad, who)))
	return false
}

// compute issues n instructions as one OpCompute (at most MaxInt32; the
// rest stays pending).
func (c *ThreadCursor) compute(dst *WarpInst, n int64) bool {
	m := min(n, math.MaxInt32)
	c.pending = n - m // the rest goes with the next compute
	if c.mask == 0 {
		c.mask = c.exited // the trailing compute of a warp whose lanes all returned
	}
	c.emit(dst, OpCompute, -1, int32(m))
	return c.count()
}

func (c *ThreadCursor) emit(dst *WarpInst, op Op, ref int, n int32) {
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width = c.block, c.warp, ref, op, 0
	dst.Active, dst.Count = c.mask, n
}

// count counts an emitted instruction against the warp's cap
// (maxWarpInsts, or LimitWork's).
func (c *ThreadCursor) count() bool {
	if c.insts++; c.insts > c.cap && c.counting {
		c.overBudget()
		return false
	} else if c.insts > c.cap {
		c.failHere(fmt.Errorf("warp %d of block %d issues more than %d instructions; hint: a loop of the kernel may never end, or run longer than its data allow (a trip count read from an index array)", c.warp, c.block, c.cap))
		return false
	}
	return true
}

// overBudget ends a warp whose work, being counted, has passed the
// budget.
func (c *ThreadCursor) overBudget() {
	c.over, c.pc, c.pending, c.mask = true, len(c.pt.code)+1, 0, 0
}

// failHere records err for the launch and ends the warp.
func (c *ThreadCursor) failHere(err error) {
	c.pt.fail(err)
	c.pc, c.pending, c.mask = len(c.pt.code)+1, 0, 0
}

// value evaluates x for the active lanes into out (uniform programs once).
func (c *ThreadCursor) value(x *xprog, out *[WarpSize]int64) {
	if x.varying {
		c.ln.vector(x, c.mask, out)
		return
	}
	fill(out, c.ln.scalar(x))
}

// lanesWhere is the active lanes where x is not zero.
func (c *ThreadCursor) lanesWhere(x *xprog) uint32 {
	if !x.varying {
		if c.ln.scalar(x) != 0 {
			return c.mask
		}
		return 0
	}
	if x.cmp.kind != 0 {
		return c.ln.compared(&x.cmp) & c.mask
	}
	var m uint32
	for i, v := range c.ln.vectorAt(x, c.mask, &c.sub) {
		if v != 0 {
			m |= 1 << i
		}
	}
	return m & c.mask
}

func (c *ThreadCursor) branch(op *tcode) {
	if c.mask == 0 {
		c.frames = append(c.frames, ptFrame{})
		c.pc = int(c.pt.code[op.jump-1].jump) // the tEndIf
		return
	}
	taken := c.lanesWhere(op.x)
	c.pending += int64(op.count)
	c.frames = append(c.frames, ptFrame{saved: c.mask, other: c.mask &^ taken})
	if taken != 0 || c.ln.bad != "" { // failing: no jump (failBad)
		c.mask = taken
		return
	}
	f := &c.frames[len(c.frames)-1]
	c.mask, f.other = f.other, 0
	c.pc = int(op.jump)
}

func (c *ThreadCursor) test(op *tcode) {
	if c.mask != 0 {
		c.mask = c.lanesWhere(op.x)
	}
	if c.mask == 0 && c.ln.bad == "" { // failing: no jump (failBad)
		c.mask = c.frames[len(c.frames)-1].saved &^ c.exited
		c.frames = c.frames[:len(c.frames)-1]
		c.pc = int(op.jump)
		return
	}
	c.pending += int64(op.count)
}

// memory emits the memory instruction of reference r for the active
// lanes, after checking that every lane's element lies inside its array.
func (c *ThreadCursor) memory(dst *WarpInst, addr *[WarpSize]uint64, r int) bool {
	pr := &c.pt.refs[r]
	switch {
	case c.counting && c.insts > ptChecked && pr.slot < 0 && pr.texWidth == 0:
		// The work count needs the instruction, not its addresses, unless
		// the kernel reads the values; it checks them in a warp's first
		// ptChecked instructions, so that an access outside its array
		// before a long loop is reported at once (threadWork).
	case pr.texWidth > 0:
		c.texels(addr, pr)
	case !c.elements(addr, pr):
		return false
	}
	if c.ln.bad != "" { // an operator of a subscript went wrong
		return c.failBad()
	}
	if pr.slot >= 0 {
		c.readValues(addr, pr)
	}
	for m := ^c.mask; m != 0; m &= m - 1 { // inactive lanes read as 0
		addr[bits.TrailingZeros32(m)] = 0
	}
	c.emit(dst, c.l.Refs[r].Op, r, 0)
	dst.Width = uint8(pr.width)
	return c.count()
}
