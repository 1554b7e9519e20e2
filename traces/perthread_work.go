package traces

// The work of a per-thread kernel has no closed form: its loops and
// branches may depend on the thread. It is counted by streaming sample
// blocks, which costs what generating their trace costs (far less than
// simulating it): every block when the grid has at most ptSampleBlocks,
// else ptSampleBlocks blocks spread evenly from the first to the last,
// scaled to the grid (then an estimate, not exact).

// ptSampleBlocks is the number of blocks counted for a larger grid.
const ptSampleBlocks = 16

// ptCountBudget bounds the warp instructions counted: a kernel past it is
// far beyond any -max-work, and a loop that never ends stops here.
const ptCountBudget = 1 << 31

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
		blocks := nb
		if nb > ptSampleBlocks {
			blocks = ptSampleBlocks
		}
		w := &pt.work
		w.refs = make([]float64, len(l.Refs))
		c := &ThreadCursor{l: l, pt: pt}
		var in WarpInst
		var counted int64
		done := 0
		for k := range blocks {
			b := k
			if blocks < nb {
				b = int(int64(k) * int64(nb-1) / int64(blocks-1))
			}
			for wi := range l.WarpsPerBlock() {
				c.Reset(b, wi)
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
					if counted += n; counted > ptCountBudget {
						break
					}
				}
			}
			done++
			if counted > ptCountBudget {
				break
			}
		}
		scale := float64(nb) / float64(done)
		w.insts *= scale
		w.mem *= scale
		for i := range w.refs {
			w.refs[i] *= scale
		}
		w.exact = done == nb && counted <= ptCountBudget
	})
	return &pt.work
}
