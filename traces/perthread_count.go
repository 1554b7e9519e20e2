package traces

import (
	"iter"
	"math"
)

// A sample that leaves the estimate uncertain is doubled, round by
// round, still spread evenly from the first block to the last and
// holding the blocks already counted, until the estimate's relative
// standard error is at most ptSampleError, the sample is the whole grid
// (the count is then exact), or a further round would take the count
// past ptMoreWork warp instructions.

// ptSampleError is the relative standard error of a sample's estimate of
// a launch's warp instructions at which counting stops adding rounds.
const ptSampleError = 0.05

// ptMoreWork bounds the warp instructions counted in rounds after the
// first: a round starts only while the count, with the round's blocks at
// the sample's mean, stays within it, and stops between blocks past
// twice it. About two seconds of counting.
var ptMoreWork int64 = 1 << 25

// sampleRound is the blocks round r (0 the first) adds to the sample of
// a grid of nb blocks, and how many. Round r's sample is SampleBlocks(nb,
// 15·2^r+1), which holds round r-1's (its k-th block, k even, is the
// (k/2)-th of the smaller sample): the round adds its odd-numbered
// blocks or, once that sample would be the whole grid, every block not
// yet counted. None past the whole grid. Nothing is allocated: a round
// may hold millions of blocks.
func sampleRound(nb, r int) (int, iter.Seq[int]) {
	if r == 0 {
		bs := SampleBlocks(nb, ptSampleBlocks)
		return len(bs), func(yield func(int) bool) {
			for _, b := range bs {
				if !yield(b) {
					return
				}
			}
		}
	}
	if r > 58 { // 15·2^r past any grid, and past int64
		return 0, nil
	}
	prev, n := (ptSampleBlocks-1)<<(r-1)+1, (ptSampleBlocks-1)<<r+1
	switch {
	case prev >= nb:
		return 0, nil
	case n >= nb:
		return nb - prev, func(yield func(int) bool) { restOf(nb, prev, yield) }
	}
	return (n - 1) / 2, func(yield func(int) bool) {
		for k := 1; k < n; k += 2 {
			if !yield(sampleBlock(nb, n, k)) {
				return
			}
		}
	}
}

// sampleBlock is the k-th block of SampleBlocks(nb, n), for 1 < n < nb.
func sampleBlock(nb, n, k int) int { return int(int64(k) * int64(nb-1) / int64(n-1)) }

// restOf yields the blocks of a grid of nb outside SampleBlocks(nb, n),
// n < nb, in order.
func restOf(nb, n int, yield func(int) bool) {
	k := 0
	for b := range nb {
		if k < n && sampleBlock(nb, n, k) == b {
			k++
			continue
		}
		if !yield(b) {
			return
		}
	}
}

// workCount counts a per-thread launch's work on sample blocks, round by
// round (threadWork), into the launch's ptWork.
type workCount struct {
	l  *Launch
	pt *threadProg
	w  *ptWork
	c  *ThreadCursor
	in WarpInst
	// counted is the warp instructions counted, compute counts summed;
	// look the next multiple of lookEvery, where the count looks at
	// WatchWork's channel and tells how far it has got; budget the most
	// it may count (CountBudget, or LimitWork's cap).
	counted, look, budget int64
	// done is the blocks counted; mean and m2 are the mean of their warp
	// instructions and the sum of squared deviations from it (Welford).
	done     int
	mean, m2 float64
	// over says counting stopped early: past the budget, interrupted, or
	// at an error a warp met.
	over bool
}

func newWorkCount(l *Launch) *workCount {
	pt := l.pt
	w := &pt.work
	w.refs = make([]float64, len(l.Refs))
	budget := int64(CountBudget)
	if pt.countBudget > 0 {
		budget = pt.countBudget
	}
	return &workCount{l: l, pt: pt, w: w, c: &ThreadCursor{l: l, pt: pt, counting: true},
		look: lookEvery, budget: budget}
}

// round counts round r of the sample (sampleRound) and says whether a
// further round may follow. A round after the first runs only where the
// sample so far leaves the estimate uncertain and the round is
// affordable (more), and stops between blocks past twice ptMoreWork.
func (wc *workCount) round(r int) bool {
	added, blocks := sampleRound(wc.l.Blocks(), r)
	if added == 0 || wc.over || r > 0 && !wc.more(added) {
		return false
	}
	for b := range blocks {
		if r > 0 && wc.counted > 2*ptMoreWork {
			return false
		}
		wc.block(b)
		if wc.over {
			return false
		}
	}
	return true
}

// more says whether a further round of added blocks is worth counting:
// the relative standard error of the estimate from the blocks done (a
// simple random sample's, with the finite population correction) is
// above ptSampleError, and counting them, at the mean so far, keeps the
// count within ptMoreWork.
func (wc *workCount) more(added int) bool {
	return wc.spread() > ptSampleError && float64(wc.counted)+wc.mean*float64(added) <= float64(ptMoreWork)
}

// spread is the relative standard error of the estimate from the blocks
// done: a simple random sample's, with the finite population correction,
// the blocks' standard deviation over their mean and the square root of
// their number; 0 for the whole grid or blocks that issue nothing, +Inf
// for a single block of more.
func (wc *workCount) spread() float64 {
	n, nb := float64(wc.done), float64(wc.l.Blocks())
	switch {
	case wc.done >= wc.l.Blocks() || !(wc.mean > 0):
		return 0
	case wc.done < 2:
		return math.Inf(1)
	}
	variance := wc.m2 / (n - 1)
	return math.Sqrt((1-n/nb)*variance/n) / wc.mean
}

// block counts the warps of block b.
func (wc *workCount) block(b int) {
	before := wc.w.insts
	for wi := range wc.l.WarpsPerBlock() {
		wc.warp(b, wi)
		if wc.over {
			break
		}
	}
	wc.done++
	x := wc.w.insts - before
	d := x - wc.mean
	wc.mean += d / float64(wc.done)
	wc.m2 += d * (x - wc.mean)
}

// warp counts warp wi of block b: its warp instructions, memory
// instructions and per-reference issues.
func (wc *workCount) warp(b, wi int) {
	c, w, pt, in := wc.c, wc.w, wc.pt, &wc.in
	c.Reset(b, wi)
	c.cap = wc.budget - wc.counted
	for c.NextTo(in, &in.Addr) {
		n := int64(1)
		switch in.Op {
		case OpCompute:
			n = int64(in.Count)
		case OpLoad, OpStore:
			w.mem++
			w.refs[in.Ref]++
		}
		w.insts += float64(n)
		c.spent += n
		if wc.counted += n; wc.counted > wc.budget {
			break
		}
		if wc.counted >= wc.look {
			if wc.look += lookEvery; stopped(pt.stop) {
				c.over = true
				break
			}
			if pt.counted != nil {
				pt.counted(wc.counted)
			}
		}
	}
	if c.over { // the rest of the warp is past the budget
		wc.counted = wc.budget + 1
		w.insts = max(w.insts, float64(wc.counted))
	}
	wc.over = wc.counted > wc.budget || pt.failed()
}

// scale scales the sample's counts to the grid: exact when the sample is
// the whole grid, counted within the budget and without error.
func (wc *workCount) scale() {
	w, nb := wc.w, wc.l.Blocks()
	if wc.done == 0 {
		w.spread = math.Inf(1)
		return
	}
	scale := float64(nb) / float64(wc.done)
	w.insts *= scale
	w.mem *= scale
	for i := range w.refs {
		w.refs[i] *= scale
	}
	w.exact = wc.done == nb && wc.counted <= wc.budget && !wc.pt.failed()
	w.spread = wc.spread()
	if wc.over {
		w.spread = math.Inf(1)
	}
}

// WorkCount is a per-thread launch's counted work, for a launch bound
// again from the same inputs (SetWorkCount), which then need not count
// it again: a sweep binds each row twice, once to refuse it and estimate
// its time, and once, a batch of rows at a time, to simulate it. Its
// per-reference counts are shared: nothing writes them once counted
// (RefInstructions hands out copies).
type WorkCount struct {
	w  ptWork
	ok bool
}

// WorkCount counts l's work if it is not counted yet and returns the
// count; for a loop nest, whose work has a closed form, nothing.
func (l *Launch) WorkCount() WorkCount {
	if l.pt == nil {
		return WorkCount{}
	}
	return WorkCount{w: *l.threadWork(), ok: true}
}

// SetWorkCount gives l, not yet counted, the count c of a launch bound
// from the same inputs; a count that does not fit l (a loop nest, other
// references, the zero WorkCount) is not taken, and l counts its own.
func (l *Launch) SetWorkCount(c WorkCount) {
	if l.pt == nil || !c.ok || len(c.w.refs) != len(l.Refs) {
		return
	}
	l.pt.once.Do(func() { l.pt.work = c.w })
}
