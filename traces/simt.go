package traces

import (
	"fmt"
	"math"
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/kernel"
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

var _ Warp = (*ThreadCursor)(nil)

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
	code := c.pt.code
	for c.pc < len(code) {
		op := &code[c.pc]
		c.pc++
		if c.mask == 0 && op.kind < tIf {
			continue // nothing runs; control steps still keep the frames
		}
		switch op.kind {
		case tMem:
			return c.memory(dst, addr, int(op.ref))
		case tCompute:
			if n := int64(op.count) + c.pending; n > 0 {
				return c.compute(dst, n)
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
				return c.count()
			}
		case tReturn:
			c.exited |= c.mask
			c.mask = 0
		}
		if c.ln.bad != "" {
			return c.failBad()
		}
	}
	if c.pc == len(code) && c.pending > 0 {
		return c.compute(dst, c.pending)
	}
	c.pc = len(code) + 1
	return false
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

// elements sets the addresses of the active lanes' elements of pr,
// after checking that each lies inside its array; false when one does
// not (the cursor has failed). addresses forms them a warp at a time,
// which is where a per-thread kernel spends its time (docs/speed-log.md);
// when a lane lies outside, or an operator of a subscript went wrong,
// elementsByLane runs from the start, to report the first lane outside
// (in lane order, of the first subscript with one) or leave the first
// reason in the lanes, as it always has.
func (c *ThreadCursor) elements(addr *[WarpSize]uint64, pr *ptRef) bool {
	bad := c.ln.bad
	if len(pr.subs) > 0 && c.addresses(addr, pr) && c.ln.bad == bad {
		return true
	}
	c.ln.bad = bad
	return c.elementsByLane(addr, pr)
}

// addresses sets the addresses of pr's elements for every lane, the
// inactive ones' any value (memory clears them); false when an active
// lane's subscript lies outside its extent. A uniform subscript is
// evaluated and checked once; a varying one is checked on the largest
// of its lanes as unsigned (a negative one is larger than any extent)
// and added, scaled, in the same pass. A remapped array gets element
// indices here, then the remap lane by lane.
func (c *ThreadCursor) addresses(addr *[WarpSize]uint64, pr *ptRef) bool {
	base, first := pr.origin, true
	for i := range pr.plan {
		s := &pr.plan[i]
		if !s.x.varying { // the plan puts these first
			v := c.ln.scalar(s.x)
			if uint64(v) >= uint64(s.limit) { // v < 0 || v >= limit, in every active lane
				return false
			}
			base += uint64(v * s.scale)
			continue
		}
		if pr.tids != nil && first {
			// The varying subscripts are thread indices: their sum is
			// this warp's in every block, but for uniform values.
			tw := &pr.tids[c.warp]
			b, ok := base, tw.inside
			if ok && len(tw.spans) > 0 {
				b, ok = c.tidBase(pr, tw, base, i)
			}
			if ok {
				addTids(addr, b, &tw.add)
				first = false
				break
			}
		}
		v, d := c.laneValues(s)
		var hi uint64
		if first {
			hi, first = setScaled(addr, v, d, base, s.scale), false
		} else {
			hi = addScaled(addr, v, d, s.scale)
		}
		if hi >= uint64(s.limit) && c.outsideLanes(v, d, s.limit) {
			return false
		}
	}
	if first { // every subscript uniform
		fill(addr, base)
	}
	if pr.remap.kind != kernel.RemapNone {
		for m := c.mask; m != 0; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			addr[i] = pr.base + uint64(pr.remap.apply(int64(addr[i]))*pr.size)
		}
	}
	return true
}

// addTids sets each lane of out to base plus its lane of add.
func addTids(out *[WarpSize]uint64, base uint64, add *[WarpSize]uint64) {
	for i := 0; i < WarpSize; i += 4 {
		r, a := (*[4]uint64)(out[i:i+4]), (*[4]uint64)(add[i:i+4])
		r[0], r[1], r[2], r[3] = base+a[0], base+a[1], base+a[2], base+a[3]
	}
}

// tidWarp is, for one warp of a block, what a reference's varying
// subscripts add to its address where each is a thread index read in
// place (ptRef.tids), but for their uniform values; whether every lane
// of those without one lies inside its extent, as addresses would find
// it; and for each with one, in plan order, the least and greatest of
// its lanes without it.
type tidWarp struct {
	add    [WarpSize]uint64
	inside bool
	spans  [][2]int64
}

// planTids sets pr.tids where pr has varying subscripts and each is a
// thread index plus a constant (t[ty + 1][tx + 1]) or a uniform value
// (tile[ty + j][tx]): what they add to the address, but for the uniform
// values, is the same for a warp of a block in every block and at every
// access, so it is formed once per warp of a block, as addresses would
// form it. Wrapping arithmetic makes the sum the one addresses' passes
// add up. Otherwise pr.tids is nil.
func (pr *ptRef) planTids(block arch.Dim3) {
	pr.tids = nil
	varying, spans := 0, 0
	for _, s := range pr.plan {
		switch {
		case !s.x.varying:
		case s.reads != readsTid:
			return
		default:
			varying++
			if len(s.unis) > 0 {
				spans++
			}
		}
	}
	if varying == 0 {
		return
	}
	var tid [3][WarpSize]int64
	pr.tids = make([]tidWarp, (block.Threads()+WarpSize-1)/WarpSize)
	for w := range pr.tids {
		threadIndices(&tid, block, w)
		tw := &pr.tids[w]
		tw.inside, tw.spans = true, make([][2]int64, 0, spans)
		for _, s := range pr.plan {
			if !s.x.varying {
				continue
			}
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for i, v := range tid[s.reg] {
				x := v + s.off
				tw.add[i] += uint64(x * s.scale)
				lo, hi = min(lo, x), max(hi, x)
			}
			if len(s.unis) > 0 {
				tw.spans = append(tw.spans, [2]int64{lo, hi})
			} else {
				tw.inside = tw.inside && uint64(lo) < uint64(s.limit) && uint64(hi) < uint64(s.limit)
			}
		}
	}
}

// tidBase is the address pr's varying subscripts, from plan[i] on, start
// from where the warp's table applies (tw.inside) and they have uniform
// values (tw.spans): base plus those values, scaled; false where a lane
// of a subscript with one lies outside its extent, which addresses then
// finds lane by lane.
func (c *ThreadCursor) tidBase(pr *ptRef, tw *tidWarp, base uint64, i int) (uint64, bool) {
	k := 0
	for j := i; j < len(pr.plan); j++ {
		s := &pr.plan[j]
		if len(s.unis) == 0 {
			continue
		}
		u := s.uniforms(&c.ln)
		if span := tw.spans[k]; uint64(span[0]+u) >= uint64(s.limit) || uint64(span[1]+u) >= uint64(s.limit) {
			return 0, false
		}
		base += uint64(u * s.scale)
		k++
	}
	return base, true
}

// ptSub is a subscript as addresses takes it: its extent, the bytes a
// unit of it moves the address (elements, for a remapped array), and
// for a varying one that only reads a thread index or a local, plus or
// minus constants and uniform values (ty + 1, tid + s, iy + R + k),
// which, the constants' sum, and the uniform values' reads and signs.
type ptSub struct {
	x            *xprog
	limit, scale int64
	reads        uint8 // readsTid, readsVreg, or 0: evaluate x
	reg          int32
	off          int64     // the constants x adds to the value read in place
	unis         []uniTerm // the uniform values it adds or subtracts
}

// uniTerm is a uniform value a subscript adds (sign 1) or subtracts (−1).
type uniTerm struct {
	read xop
	sign int64
}

// uniforms is what s's uniform values add, as the warp's lanes hold them
// now.
func (s *ptSub) uniforms(ln *lanes) int64 {
	var u int64
	for _, t := range s.unis {
		u += t.sign * ln.read(t.read)
	}
	return u
}

// addend is what s adds to the value it reads in place: its constants
// and its uniform values.
func (s *ptSub) addend(ln *lanes) int64 {
	if len(s.unis) == 0 {
		return s.off
	}
	return s.off + s.uniforms(ln)
}

// Where a varying subscript's lanes are read in place (ptSub.reads).
const (
	readsTid uint8 = iota + 1
	readsVreg
)

// planAddresses sets pr's plan: its subscripts, the uniform ones first,
// so that the varying ones start from their sum, origin (pr.base, or 0
// for the element index of a remapped array). Wrapping arithmetic makes
// base + Σ v·(stride·size) the address the element index Σ v·stride
// gives, however its terms are grouped. block is the launch's, whose
// warps planTids tabulates; vary says which locals are varying.
func (pr *ptRef) planAddresses(block arch.Dim3, vary []bool) {
	scale, origin := pr.size, pr.base
	if pr.remap.kind != kernel.RemapNone {
		scale, origin = 1, 0
	}
	pr.plan, pr.origin = pr.plan[:0], origin
	for _, varying := range []bool{false, true} {
		for d, x := range pr.subs {
			if x.varying == varying {
				pr.plan = append(pr.plan, subPlan(x, pr.limits[d], pr.strides[d]*scale, vary))
			}
		}
	}
	pr.planTids(block)
}

// subPlan plans a subscript. A varying one that reads one value plus or
// minus constants and uniform reads (x, ty + 1, k - 2, tid + s,
// iy + R + k, 1 + i) reads it in place: the read is of a thread index or
// varying local, as the program varies and the other operands do not,
// and with no step of C's types between them the value is the 64-bit
// sum, however its terms are grouped. vary says which locals are
// varying.
func subPlan(x *xprog, limit, scale int64, vary []bool) ptSub {
	s := ptSub{x: x, limit: limit, scale: scale}
	if !x.varying {
		return s
	}
	ops := x.ops
	read, terms := ops[0], ops[1:]
	if len(ops) >= 3 && uniformRead(ops[0], vary) && ops[2].kind == kernel.ExprAdd {
		s.term(ops[0], 1) // 1 + i, s + tid
		read, terms = ops[1], ops[3:]
	}
	for ; len(terms) >= 2; terms = terms[2:] {
		switch t, k := terms[0], terms[1].kind; {
		case !uniformRead(t, vary):
			return ptSub{x: x, limit: limit, scale: scale}
		case k == kernel.ExprAdd:
			s.term(t, 1)
		case k == kernel.ExprSub:
			s.term(t, -1)
		default:
			return ptSub{x: x, limit: limit, scale: scale}
		}
	}
	switch {
	case len(terms) != 0:
	case read.kind == kernel.ExprSpecial && read.arg < int32(kernel.BlockIdxX):
		s.reads, s.reg = readsTid, read.arg
		return s
	case read.kind == kernel.ExprScalar: // varying, as x is and the other operands are not
		s.reads, s.reg = readsVreg, read.arg
		return s
	}
	return ptSub{x: x, limit: limit, scale: scale}
}

// term adds the uniform read t to s, sign 1, or subtracts it, −1: a
// constant to off.
func (s *ptSub) term(t xop, sign int64) {
	if t.kind == kernel.ExprConst {
		s.off += sign * t.val
		return
	}
	s.unis = append(s.unis, uniTerm{read: t, sign: sign})
}

// setScaled sets each lane of out to base + (v+d)·st and returns the
// largest lane of v+d as unsigned. The loop goes by fours: a quarter of
// its own steps, one bounds check a quarter.
func setScaled(out *[WarpSize]uint64, v *[WarpSize]int64, d int64, base uint64, st int64) (hi uint64) {
	for i := 0; i < WarpSize; i += 4 {
		x, o := (*[4]int64)(v[i:i+4]), (*[4]uint64)(out[i:i+4])
		x0, x1, x2, x3 := x[0]+d, x[1]+d, x[2]+d, x[3]+d
		hi = max(hi, uint64(x0), uint64(x1), uint64(x2), uint64(x3))
		o[0], o[1] = base+uint64(x0*st), base+uint64(x1*st)
		o[2], o[3] = base+uint64(x2*st), base+uint64(x3*st)
	}
	return hi
}

// addScaled adds (v+d)·st to each lane of out and returns the largest
// lane of v+d as unsigned.
func addScaled(out *[WarpSize]uint64, v *[WarpSize]int64, d int64, st int64) (hi uint64) {
	for i := 0; i < WarpSize; i += 4 {
		x, o := (*[4]int64)(v[i:i+4]), (*[4]uint64)(out[i:i+4])
		x0, x1, x2, x3 := x[0]+d, x[1]+d, x[2]+d, x[3]+d
		hi = max(hi, uint64(x0), uint64(x1), uint64(x2), uint64(x3))
		o[0], o[1] = o[0]+uint64(x0*st), o[1]+uint64(x1*st)
		o[2], o[3] = o[2]+uint64(x2*st), o[3]+uint64(x3*st)
	}
	return hi
}

// outsideLanes says an active lane's v+d lies outside [0, lim).
func (c *ThreadCursor) outsideLanes(v *[WarpSize]int64, d, lim int64) bool {
	for m := c.mask; m != 0; m &= m - 1 {
		if x := v[bits.TrailingZeros32(m)] + d; x < 0 || x >= lim {
			return true
		}
	}
	return false
}

// laneValues is s's value in every lane, v+d: a thread index or varying
// local read in place (d the subscript's constant plus what the local
// owes, lanes.owed), other programs evaluated (vectorAt: into c.sub or
// an array of the lanes, valid until the next evaluation).
func (c *ThreadCursor) laneValues(s *ptSub) (v *[WarpSize]int64, d int64) {
	switch s.reads {
	case readsTid:
		return &c.ln.tid[s.reg], s.addend(&c.ln)
	case readsVreg:
		return &c.ln.vregs[s.reg], c.ln.owed[s.reg] + s.addend(&c.ln)
	}
	return c.ln.vectorAt(s.x, c.mask, &c.sub), 0
}

// elementsByLane is elements one active lane at a time: it reports the
// first lane outside, in lane order, of the first subscript with one.
func (c *ThreadCursor) elementsByLane(addr *[WarpSize]uint64, pr *ptRef) bool {
	last := len(pr.subs) - 1
	for d, x := range pr.subs {
		c.value(x, &c.sub)
		lim, st := pr.limits[d], pr.strides[d]
		for m := c.mask; m != 0; m &= m - 1 { // the active lanes
			i := bits.TrailingZeros32(m)
			v := c.sub[i]
			if v < 0 || v >= lim {
				c.failHere(c.outside(pr, d, i, v))
				return false
			}
			idx := v * st
			if d > 0 {
				idx += c.idx[i]
			}
			if d == last {
				addr[i] = pr.base + uint64(pr.remap.apply(idx)*pr.size)
			} else {
				c.idx[i] = idx
			}
		}
	}
	return true
}
