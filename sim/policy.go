package sim

import "math"

// A policy picks the warp its scheduler issues.
type policy interface {
	// pick returns the index, in sc's arrays, of the warp to issue at
	// cycle t, where a warp whose instruction needs the LSU may go only
	// when gate <= t; -1 when none can.
	pick(sc *scheduler, t, gate int64) int
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

// pick makes one branch-free pass over the warps from the last issued one
// on, in cyclic order. The pass finds the minima of both classes on the
// way, so it leaves them to sc.
func (*lrr) pick(sc *scheduler, t, gate int64) int {
	alu, lsu := sc.alu, sc.lsu
	n := len(alu)
	lsu = lsu[:n]
	tl := t
	if gate > t {
		tl = -1
	}
	start := sc.last + 1
	a, l := int64(never), int64(never)
	best := uint64(math.MaxUint64)
	pick := -1
	// Own times are in [0, never] and t, tl in [-1, never), so the
	// differences below cannot overflow; their sign bit says "not yet".
	for k := range n {
		ak, lk := alu[k], lsu[k]
		a = min(a, ak)
		l = min(l, lk)
		late := uint64(t-ak) & uint64(tl-lk) >> 63
		d := k - start
		key := uint64(d+n&(d>>63)) | -late
		if key < best {
			best, pick = key, k
		}
	}
	sc.minALU, sc.minLSU, sc.minOK = a, l, true
	if best == math.MaxUint64 {
		return -1
	}
	return pick
}

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
