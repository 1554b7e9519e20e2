package sim

import "gpumemsim/sim/cache"

// A cache still filling for the first time is not yet in the state the
// rest of the grid runs in. While it has lines never filled, a miss takes
// one of them and evicts nothing; once it is full, every miss evicts a
// line, and in a write-back cache every dirty line evicted is a write to
// the level below. a100's L2 holds 40 MiB: vecadd at 2^25 elements (three
// 128-MiB arrays) streams through it for the first tenth of the grid
// without a write-back, then writes back as much as it stores. A window of
// waves taken in the first tenth saw no write-back, and the sampled run
// printed none, and 41% fewer cycles than the full run (2026-11-28).
//
// So the warm-up lasts as long as a kind of cache fills at a rate that
// would fill it within the waves a skip would leave out: the window then
// starts anew after the wave that filled it. A cache that fills no more
// (a working set that fits, sets that the addresses never reach), or
// fills so slowly that the grid ends first, stays in its state to the
// end, and the window stands for the rest as it is. One with no more free
// lines than the count tolerance's share of its lines (1%) counts as
// full: nearly every set evicts already, and the last free ways, in sets
// the addresses seldom reach, may take the rest of the grid to fill. The
// measure is lines, not sectors: counting the sectors missing from lines
// present as free too held the window back where lines fill sector by
// sector (kepler stencil-shared skipped 20% of its grid instead of 77%),
// and with skips under SampleMinSkip refused it met the goals in no more
// cases of the sampling report (2026-11-28).

// The kinds of cache whose filling the sampler follows.
const (
	fillL1 = iota
	fillConstant
	fillTexture
	fillL2
	fillKinds
)

// fillState is, for each kind of cache, its free lines and all its
// lines, summed over the SMs' or slices' caches (a texture cache shared by
// several SMs counted once).
type fillState struct{ free, lines [fillKinds]int64 }

// fillState reads e's caches.
func (e *engine) fillState() fillState {
	var n fillState
	add := func(k int, c *cache.Cache) {
		g := c.Geometry()
		n.free[k] += int64(c.FreeLines())
		n.lines[k] += int64(g.Sets * g.Ways)
	}
	seen := map[*cache.Cache]bool{}
	for i := range e.sms {
		s := &e.sms[i]
		for k, lv := range [...]*level{fillL1: s.l1, fillConstant: s.constant.cache, fillTexture: s.texture.cache} {
			if lv != nil && !seen[lv.cache] {
				seen[lv.cache] = true
				add(k, lv.cache)
			}
		}
	}
	if e.l2 != nil {
		for i := range e.l2.slices {
			add(fillL2, e.l2.slices[i].l2)
		}
	}
	return n
}

// filling says whether a kind of cache went from before's free lines to
// now's over the last wave at a rate that would fill it within the next
// waves, while more than tol of its lines are free.
func filling(before, now fillState, waves int64, tol float64) bool {
	for k, free := range now.free {
		d := before.free[k] - free
		if float64(free) > tol*float64(now.lines[k]) && d > 0 && d*waves >= free {
			return true
		}
	}
	return false
}
