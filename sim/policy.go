package sim

import "math/bits"

// A policy picks the warp its scheduler issues.
type policy interface {
	// pick returns the index, in sc's arrays, of the warp to issue at
	// cycle t, where a warp whose instruction needs the LSU may go only
	// when gate <= t; -1 when none can.
	pick(sc *scheduler, t, gate int64) int
	// ahead is pick at t where that costs less than the minima, else
	// -1: pick's answer or -1, never another warp. The scheduler looks
	// ahead to its next issue slot with it before it works them out.
	ahead(sc *scheduler, t, gate int64) int
}

// lrr is loose round robin: the first warp after the last issued one, in
// slot order, that can issue.
type lrr struct{}

// gto is greedy then oldest: the last issued warp while it can issue,
// then the oldest that can (its scheduler keeps its warps by age).
type gto struct{}

var (
	_ policy = (*lrr)(nil)
	_ policy = (*gto)(nil)
)

// pick goes straight to the warp after the last issued one when it can
// issue at t, the commonest case where warps are ready, as in a tiled
// kernel's shared-memory loops; the minima stay as set keeps them.
// Otherwise it makes one branch-free pass over the warps, marking in a bit
// set those that can issue at t and finding the minima of both classes on
// the way (it leaves them to sc); the first marked at or after the one
// after the last issued goes, else the first marked from the front. A
// scheduler holds at most 64 warps (arch validates sm.max_warps), one bit
// each.
func (p *lrr) pick(sc *scheduler, t, gate int64) int {
	if k := p.ahead(sc, t, gate); k >= 0 {
		return k
	}
	alu, lsu := sc.alu, sc.lsu
	n := len(alu)
	lsu = lsu[:n]
	tl := t
	if gate > t {
		tl = -1
	}
	a, l := int64(never), int64(never)
	var can uint64
	// Own times are in [0, never] and t, tl in [-1, never), so the
	// differences below cannot overflow; their sign bit says "not yet".
	// Backwards, so that warp k's bit is shifted to place k.
	for k := n - 1; k >= 0; k-- {
		ak, lk := alu[k], lsu[k]
		a = min(a, ak)
		l = min(l, lk)
		late := uint64(t-ak) & uint64(tl-lk) >> 63
		can = can<<1 | (late ^ 1)
	}
	sc.minALU, sc.minLSU, sc.minOK = a, l, true
	start := uint(sc.last+1) & 63 // last+1 == 64 only when n == 64: start over
	if after := can >> start; after != 0 {
		return int(start) + bits.TrailingZeros64(after)
	}
	if can != 0 {
		return bits.TrailingZeros64(can)
	}
	return -1
}

// ahead is pick's first try alone, the warp after the last issued one:
// pick's pass finds the minima on its way, but costs more than they do
// where no warp can go.
func (*lrr) ahead(sc *scheduler, t, gate int64) int {
	if k := sc.last + 1; k < len(sc.alu) && (sc.alu[k] <= t || (sc.lsu[k] <= t && gate <= t)) {
		return k
	}
	return -1
}

// ahead is pick, a pass that stops at the first warp that can go.
func (p *gto) ahead(sc *scheduler, t, gate int64) int { return p.pick(sc, t, gate) }

// pick tries the last issued warp, then passes over the warps in age
// order and stops at the first that can issue; the minima are left to
// the scheduler, which needs them only when none can.
func (*gto) pick(sc *scheduler, t, gate int64) int {
	if k := sc.last; k >= 0 && (sc.alu[k] <= t || (sc.lsu[k] <= t && gate <= t)) {
		return k
	}
	// A warp's next instruction needs the LSU or not, so one of its two
	// own times is never: with the LSU free by t a warp can go when the
	// smaller is due.
	own := sc.alu
	if gate <= t {
		own = sc.own
	}
	for k, o := range own {
		if o <= t {
			return k
		}
	}
	return -1
}
