package traces

// The work of a per-thread kernel has no closed form: its loops and
// branches may depend on the thread. It is counted by streaming sample
// blocks (far less than simulating them): every block when the grid has
// at most ptSampleBlocks, else ptSampleBlocks blocks spread evenly from
// the first to the last, scaled to the grid (then an estimate, not
// exact). Counting forms the addresses of the references whose values
// the kernel reads (index data steering control flow), and checks those
// of the others in each warp's first ptChecked instructions (all of
// most launches' sample; up to 36 ms more on the shipped examples' own
// sizes, docs/design.md): it stops at the first error
// a warp meets (Launch.Err), where it went on to its budget, minutes,
// when a long loop followed an access outside its array, and the launch
// was refused for its cap instead.

// ptSampleBlocks is the number of blocks counted for a larger grid.
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
			bs[k] = int(int64(k) * int64(nb-1) / int64(n-1))
		}
	}
	return bs
}

// WorkSample is the blocks the work of l is counted on (threadWork):
// every block of a grid of at most ptSampleBlocks, else ptSampleBlocks
// spread over it. An estimate that counts more of a per-thread launch
// (its transactions) counts the same blocks.
func (l *Launch) WorkSample() []int { return SampleBlocks(l.Blocks(), ptSampleBlocks) }

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
}

// threadWork counts the work of a per-thread kernel once.
func (l *Launch) threadWork() *ptWork {
	pt := l.pt
	pt.once.Do(func() {
		nb := l.Blocks()
		w := &pt.work
		w.refs = make([]float64, len(l.Refs))
		c := &ThreadCursor{l: l, pt: pt, counting: true}
		var in WarpInst
		var counted int64
		look := int64(lookEvery) // the next multiple of lookEvery: look at stop, tell counted
		budget := int64(CountBudget)
		if pt.countBudget > 0 {
			budget = pt.countBudget
		}
		done := 0
		for _, b := range l.WorkSample() {
			for wi := range l.WarpsPerBlock() {
				c.Reset(b, wi)
				c.cap = budget - counted
				for c.NextTo(&in, &in.Addr) {
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
					if counted += n; counted > budget {
						break
					}
					if counted >= look {
						if look += lookEvery; stopped(pt.stop) {
							c.over = true
							break
						}
						if pt.counted != nil {
							pt.counted(counted)
						}
					}
				}
				if c.over { // the rest of the warp is past the budget
					counted = budget + 1
					w.insts = max(w.insts, float64(counted))
				}
				if pt.failed() {
					break
				}
			}
			done++
			if counted > budget || pt.failed() {
				break
			}
		}
		scale := float64(nb) / float64(done)
		w.insts *= scale
		w.mem *= scale
		for i := range w.refs {
			w.refs[i] *= scale
		}
		w.exact = done == nb && counted <= budget && !pt.failed()
	})
	return &pt.work
}
