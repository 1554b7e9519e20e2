package traces

// This file forms the addresses of a per-thread kernel's memory
// instructions, a warp at a time; simt.go runs the warp's steps.

import (
	"math"
	"math/bits"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

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
	c.ln.bad, c.lazy = bad, false
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
				c.tidAddresses(addr, pr, tw, b)
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
		if c.takesHalves(pr) {
			// One address in every lane: Halves of stride 0.
			c.halves.Lo, c.halves.Hi, c.halves.Stride = base, base, 0
			c.lazy, c.lazyBase, c.lazyAdd = true, base, &noTids
			return true
		}
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

// tidAddresses sets the addresses of pr's elements to base plus the
// warp's table tw. Where the consumer takes Halves (NextHalves), the
// warp is full, and the table steps in half-warps, it describes them
// instead, leaving addr unwritten (Addresses writes it): the addresses
// are then nothing but these, not remapped, and no values are read at
// them.
func (c *ThreadCursor) tidAddresses(addr *[WarpSize]uint64, pr *ptRef, tw *tidWarp, base uint64) {
	if tw.halves && c.takesHalves(pr) {
		h := c.halves
		h.Lo, h.Hi, h.Stride = base+tw.add[0], base+tw.add[16], tw.stride
		c.lazy, c.lazyBase, c.lazyAdd = true, base, &tw.add
		return
	}
	addTids(addr, base, &tw.add)
}

// takesHalves says whether pr's addresses may go to the consumer as
// Halves, where their shape allows: it takes them (NextHalves), the warp
// is full, and the addresses are nothing but its elements', not
// remapped, with no values read at them.
func (c *ThreadCursor) takesHalves(pr *ptRef) bool {
	return c.halves != nil && c.mask == fullMask && pr.remap.kind == kernel.RemapNone && pr.slot < 0
}

// noTids is the table of a reference none of whose subscripts varies:
// every lane adds nothing to the base (Addresses).
var noTids [WarpSize]uint64

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
	// halves says add steps by stride within each half-warp, lane l
	// adding add[0] + l·stride and lane 16+l add[16] + l·stride: a full
	// warp's addresses are then Halves from its base (NextHalves).
	halves bool
	stride uint64
}

// planTids sets pr.tids where pr has varying subscripts and each is a
// thread index plus a constant (t[ty + 1][tx + 1]) or a uniform value
// (tile[ty + j][tx]), or thread indices times constants plus those
// (A[a + P * ty + tx]): what they add to the address, but for the uniform
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
		case s.reads != readsTid && !tidsOnly(s.lin):
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
			for i := range WarpSize {
				x := s.off + tidLane(&s, &tid, i)
				tw.add[i] += uint64(x * s.scale)
				lo, hi = min(lo, x), max(hi, x)
			}
			if len(s.unis) > 0 {
				tw.spans = append(tw.spans, [2]int64{lo, hi})
			} else {
				tw.inside = tw.inside && uint64(lo) < uint64(s.limit) && uint64(hi) < uint64(s.limit)
			}
		}
		tw.stride, tw.halves = halvesOf(&tw.add)
	}
}

// halvesOf is the stride of add within each half-warp, and whether it
// has one: lane l adds add[0] + l·stride and lane 16+l add[16] + l·stride.
func halvesOf(add *[WarpSize]uint64) (uint64, bool) {
	stride := add[1] - add[0]
	for l := range WarpSize / 2 {
		if add[l] != add[0]+uint64(l)*stride || add[16+l] != add[16]+uint64(l)*stride {
			return 0, false
		}
	}
	return stride, true
}

// tidsOnly says a linear subscript's lanes are thread indices, each
// times a constant (a + P * ty + tx): what they add is the same for a
// warp of a block at every access.
func tidsOnly(lin []linTerm) bool {
	for _, t := range lin {
		if t.reads != readsTid || t.coef != one || len(t.unis) > 0 {
			return false
		}
	}
	return len(lin) > 0
}

// tidLane is lane i's value of s's lanes, thread indices read in place
// (tid, as threadIndices sets them) and their constants, without s's
// own addend.
func tidLane(s *ptSub, tid *[3][WarpSize]int64, i int) int64 {
	if s.reads == readsTid {
		return tid[s.reg][i]
	}
	var x int64
	for _, t := range s.lin {
		x += t.k * (tid[t.reg][i] + t.off)
	}
	return x
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
// for a varying one linear in lanes read in place (subPlan): for one
// thread index or local plus or minus constants and uniform values
// (ty + 1, tid + s, iy + R + k), which, the constants' sum, and the
// uniform values' reads and signs; for others (y * N + x), their lane
// reads as lin, with the uniform part's constants and reads.
type ptSub struct {
	x            *xprog
	limit, scale int64
	reads        uint8 // readsTid, readsVreg, readsLinear, or 0: evaluate x
	reg          int32
	off          int64     // the constants x adds to the value read in place
	unis         []uniTerm // the uniform values it adds or subtracts
	lin          []linTerm // readsLinear's lane reads
}

// uniTerm is a uniform value a subscript adds times sign: 1, −1, or the
// constant it is multiplied by (k + 2 * j).
type uniTerm struct {
	read xop
	sign int64
}

// uniforms is what s's uniform values add, as the warp's lanes hold them
// now.
func (s *ptSub) uniforms(ln *lanes) int64 { return uniformSum(s.unis, ln) }

// uniformSum is what the uniform values unis add, as ln holds them now.
func uniformSum(unis []uniTerm, ln *lanes) int64 {
	var u int64
	for _, t := range unis {
		u += t.sign * ln.read(t.read)
	}
	return u
}

// inPlace is the lanes of a thread index (readsTid) or varying local
// (readsVreg) reg, read in place, and what each lane still owes them
// (lanes.owed; 0 for a thread index).
func (ln *lanes) inPlace(reads uint8, reg int32) (*[WarpSize]int64, int64) {
	if reads == readsTid {
		return &ln.tid[reg], 0
	}
	return &ln.vregs[reg], ln.owed[reg]
}

// inPlaceSub is s, which reads a thread index or varying local in place
// (readsTid or readsVreg), in every lane: v+d, d its addend plus what the
// local owes.
func (c *ThreadCursor) inPlaceSub(s *ptSub) (v *[WarpSize]int64, d int64) {
	v, owed := c.ln.inPlace(s.reads, s.reg)
	return v, owed + s.addend(&c.ln)
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
	readsLinear // several, or one times a coefficient: lin, plus off and unis
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
	pr.texPlans = [2]int32{-1, -1}
	if pr.texWidth > 0 {
		for d := range pr.texPlans {
			pr.texPlans[d] = int32(slices.IndexFunc(pr.plan, func(s ptSub) bool { return s.x == pr.subs[d] && s.reads != 0 }))
		}
	}
	pr.planTids(block)
}

// subPlan plans a subscript. A varying one that is linear in lanes read
// in place (linearOf) reads them there: where it is one lane read plus
// or minus constants and uniform values (x, ty + 1, k - 2, tid + s,
// iy + R + k, 1 + i), as readsTid or readsVreg with its addend, and
// otherwise as readsLinear (y * N + x, (y + j) * width + x). vary says
// which locals are varying.
func subPlan(x *xprog, limit, scale int64, vary []bool) ptSub {
	s := ptSub{x: x, limit: limit, scale: scale}
	if !x.varying {
		return s
	}
	f, ok := linearOf(x, vary)
	switch t := f.terms; {
	case !ok:
	case len(t) == 1 && t[0].k == 1 && t[0].coef == one:
		// A coefficient of one is a constant: the term has no uniform
		// values of its own (linForm.times), the form's are its addend.
		s.reads, s.reg, s.off, s.unis = t[0].reads, t[0].reg, t[0].off+f.off, f.unis
	default:
		s.reads, s.lin, s.off, s.unis = readsLinear, t, f.off, f.unis
	}
	return s
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
	case readsTid, readsVreg:
		return c.inPlaceSub(s)
	case readsLinear:
		c.linear(&c.sub, s)
		return &c.sub, 0
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
