package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// Sequence is what a sequence of launches did on one device.
type Sequence struct {
	// Launches are the launches' Results, in order.
	Launches []*Result `json:"launches"`
	// Total adds the launches' counts and cycles and works out the
	// rates from the sums. Its DirtySectorsAtEnd is the last launch's
	// (what the sequence leaves in L2), its Block and Occupancy the first
	// launch's, and its Grid zero: each launch has its own.
	Total *Result `json:"total"`
}

// RunSequence simulates the launches srcs one after the other on one
// device, as a host loop of kernel launches on one stream runs: launch
// n+1 starts when launch n has finished (every warp has exited and every
// memory access, write-backs included, has completed). The L2 keeps its
// contents (dirty lines included) and DRAM its open rows and timing
// state from one launch to the next; each SM's L1 starts empty, as the
// L1s are invalidated at a kernel boundary. Each launch's Result counts
// what happened during the launch and passes Run's self-check, and the
// total is checked against what the memory counted over the whole
// sequence. The launches may run different kernels (a Dymaxion remap
// kernel before the kernel it feeds): the total's Refs list the
// references of each run of consecutive launches with the same
// references, summed over the run.
// Sampling (opts.Sample) takes one launch only; one source is Run.
func RunSequence(ctx context.Context, dev *arch.Device, srcs []traces.Source, opts Options) (*Sequence, error) {
	switch {
	case len(srcs) == 0:
		return nil, errors.New("a sequence needs at least one launch")
	case len(srcs) == 1:
		r, err := Run(ctx, dev, srcs[0], opts)
		if err != nil {
			return nil, err
		}
		return &Sequence{Launches: []*Result{r}, Total: r}, nil
	case opts.Sample.On:
		return nil, errors.New("sampling extrapolates the waves of one launch; a sequence's launches are simulated whole; hint: leave out -sample")
	}
	e, err := newDevice(dev)
	if err != nil {
		return nil, err
	}
	seq := &Sequence{}
	var warpCycles, activeCycles int64
	var before Progress // the work of the launches before
	for i, src := range srcs {
		o := opts
		if p := opts.Progress; p != nil {
			o.Progress = func(q Progress) {
				p(Progress{Blocks: before.Blocks + q.Blocks, WarpInsts: before.WarpInsts + q.WarpInsts})
			}
		}
		if err := e.runLaunch(ctx, dev, src, o); err != nil {
			return nil, fmt.Errorf("launch %d of %d: %w", i+1, len(srcs), err)
		}
		seq.Launches = append(seq.Launches, e.res)
		before.Blocks += int64(src.Info().Blocks())
		before.WarpInsts += e.res.WarpInsts
		warpCycles += e.warpCycles
		activeCycles += e.activeCycles
	}
	seq.Total = sumLaunches(dev, seq.Launches, warpCycles, activeCycles)
	if err := e.checkTotal(dev, seq.Total); err != nil {
		return nil, selfCheckFailed(err)
	}
	return seq, nil
}

// runRefs is the references of each run of consecutive launches with the
// same references, summed over the run, run after run.
func runRefs(launches []*Result) []RefStats {
	var out []RefStats
	for start := 0; start < len(launches); {
		run := slices.Clone(launches[start].Refs) // RefStats holds no slices
		end := start + 1
		for ; end < len(launches) && sameRefs(launches[end], launches[start]); end++ {
			for i := range run {
				refCounts.add(&run[i], &launches[end].Refs[i], 1)
			}
		}
		out = append(out, run...)
		start = end
	}
	return out
}

// sameRefs says two launches' results have the same references.
func sameRefs(a, b *Result) bool {
	if len(a.Refs) != len(b.Refs) {
		return false
	}
	for i := range a.Refs {
		x, y := &a.Refs[i], &b.Refs[i]
		if x.Ref != y.Ref || x.Op != y.Op || x.Space != y.Space {
			return false
		}
	}
	return true
}

// sumLaunches is the total of a sequence's results: every count added,
// the rates worked out from the sums and the SMs' resident warp-cycles
// and active cycles over all launches.
func sumLaunches(dev *arch.Device, launches []*Result, warpCycles, activeCycles int64) *Result {
	t := launches[0].clone()
	t.Grid = arch.Dim3{}
	for _, r := range launches[1:] {
		launchCounts.add(t, r, 1)
	}
	t.Refs = runRefs(launches)
	t.L2.DirtySectorsAtEnd = launches[len(launches)-1].L2.DirtySectorsAtEnd
	derive(dev, t, warpCycles, activeCycles)
	return t
}

// checkTotal verifies a sequence's total against what the device counted
// over the whole sequence: the launches' shares must add up to it.
func (e *engine) checkTotal(dev *arch.Device, t *Result) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf("total: "+format, args...)) }
	m := e.memCounts()
	if t.Cycles != e.clk.last {
		fail("the launches' cycles add up to %d; the sequence ended at cycle %d", t.Cycles, e.clk.last)
	}
	if t.DRAM != m.dram {
		fail("DRAM: the launches account for %+v of %+v", t.DRAM, m.dram)
	}
	e.port.check(fail, m)
	t.check(fail, m, e.l2, dev)
	return errors.Join(errs...)
}
