package traces

// The work of a per-thread kernel has no closed form: its loops and
// branches may depend on the thread. It is counted by streaming sample
// blocks (far less than simulating them): every block when the grid has
// at most ptSampleBlocks, else ptSampleBlocks blocks spread evenly from
// the first to the last, scaled to the grid (then an estimate, not
// exact). Where the sample's blocks differ (trip counts read from index
// data, a thread's row of a power-law matrix) the count goes on in rounds
// that double the sample (perthread_count.go). Counting forms the
// addresses of the references whose values the kernel reads (index data
// steering control flow), and checks those of the others in each warp's
// first ptChecked instructions (all of most launches' sample; up to 36 ms
// more on the shipped examples' own sizes, docs/design.md): it stops at
// the first error a warp meets (Launch.Err), where it went on to its
// budget, minutes, when a long loop followed an access outside its array,
// and the launch was refused for its cap instead.

// ptSampleBlocks is the number of blocks a larger grid's count begins with.
const ptSampleBlocks = 16

// SampleBlocks is a sample of n blocks of a grid of nb, spread evenly
// from the first to the last (n = 1: the middle one), or every block when
// the grid has at most n.
func SampleBlocks(nb, n int) []int {
	if nb <= n {
		n = nb
	}
	if n < 1 {
		return nil
	}
	bs := make([]int, n)
	for k := range bs {
		switch {
		case n == nb:
			bs[k] = k
		case n == 1:
			bs[k] = nb / 2
		default:
			bs[k] = sampleBlock(nb, n, k)
		}
	}
	return bs
}

// CountSample is the blocks the count of l's work begins with
// (threadWork's first round): every block of a grid of at most
// ptSampleBlocks, else ptSampleBlocks spread over it. An estimate of a
// ratio of a per-thread launch (its transactions per memory instruction)
// counts these.
func (l *Launch) CountSample() []int { return SampleBlocks(l.Blocks(), ptSampleBlocks) }

// ptChecked is the instructions of a warp whose addresses the work count
// checks.
const ptChecked = 1 << 12

// CountBudget bounds the warp instructions counted: a kernel past it is
// far beyond any -max-work, and a loop that never ends stops here.
const CountBudget = 1 << 31

// LimitWork bounds what a per-thread launch may cost, for a caller that
// refuses to simulate more than cap warp instructions: counting its work
// stops past cap (its estimate is then above cap, and it is refused at
// once, not after minutes of counting a loop whose trip count the index
// data make huge), and a warp that issues more than cap instructions ends
// the stream with an error (a warp past the cap puts the launch past it,
// sampled or not). Call it before WarpInstructions; loop nests, whose
// work has a closed form, need no limit.
func (l *Launch) LimitWork(cap float64) {
	if l.pt == nil || !(cap > 0) {
		return
	}
	c := int64(min(cap, float64(maxWarpInsts)))
	l.pt.countBudget, l.pt.warpCap = min(c, CountBudget), c
}

// WatchWork makes counting a per-thread launch's work stop when done is
// closed (the command was interrupted): the count then puts the launch
// past any cap, for the caller, which knows why, to say so. counted, if
// not nil, is told the warp instructions counted so far, compute counts
// summed, every lookEvery of them: a count that takes long can be shown
// to move.
func (l *Launch) WatchWork(done <-chan struct{}, counted func(int64)) {
	if l.pt != nil {
		l.pt.stop, l.pt.counted = done, counted
	}
}

// lookEvery is how many warp instructions counting goes between looks at
// WatchWork's channel: a tenth of a second or so.
const lookEvery = 1 << 20

// stopped says done is closed.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// ptWork is what the sample blocks count.
type ptWork struct {
	insts, mem float64
	refs       []float64
	exact      bool
	// spread is the relative standard error of insts (CountSpread).
	spread float64
}

// threadWork counts the work of a per-thread kernel once.
func (l *Launch) threadWork() *ptWork {
	pt := l.pt
	pt.once.Do(func() {
		wc := newWorkCount(l)
		for r := 0; wc.round(r); r++ {
		}
		wc.scale()
	})
	return &pt.work
}
