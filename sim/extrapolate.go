package sim

import (
	"context"
	"math"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// counted is countSkipped's report of the blocks counted so far, which
// passes them on as progress: nil when nobody asks for progress.
func (sp *sampler) counted() func(n int64) {
	g := &sp.e.grid
	if g.progress == nil {
		return nil
	}
	return func(n int64) {
		g.uncounted = int(sp.skipped - n)
		g.credit = sp.skippedWork * n / sp.skipped
		g.report()
	}
}

// extrapolate adds the skipped waves to the finished, checked run: the
// instructions they would have issued times the window's rates, with a
// replicate run per window wave for the intervals. The counts the source
// knows in closed form are set exactly, and so are those the skipped
// blocks' addresses decide (samplecount.go), which it counts.
func (sp *sampler) extrapolate(ctx context.Context, dev *arch.Device, src traces.Source) error {
	e := sp.e
	info := &Sampling{WaveBlocks: sp.wave, SimulatedBlocks: int64(e.grid.total) - sp.skipped, SkippedBlocks: sp.skipped,
		CyclesTolerance: sp.opts.CyclesTolerance, CountTolerance: sp.opts.CountTolerance}
	e.res.Sampling = info
	if sp.skipped == 0 {
		info.WarmupWaves, info.NoWindow = sp.warm, !sp.windowed
		return nil
	}
	base := e.res.clone()
	exact := closedFormOf(src)
	skip, stores, refs := sp.skippedInsts(exact)
	var counted *Counts   // the whole launch's, when the skipped blocks are counted
	requests := int64(-1) // the skipped blocks' DRAM requests, where counted and direct
	if sp.counting {
		c, err := countSkipped(ctx, dev, src, sp.skipFrom, sp.skipFrom+sp.skipped, sp.counted())
		if err != nil {
			return err
		}
		counted = simulatedCounts(base)
		for i := range e.sms {
			counted.storeSectors += e.sms[i].storeSectors
		}
		counted.add(c)
		if err := checkRequests(counted, exact); err != nil {
			return selfCheckFailed(err)
		}
		if len(base.Refs) > 0 {
			for k := range refs {
				refs[k] = float64(c.Refs[k].Requests)
			}
			skip, stores = refInsts(base.Refs, refs)
		}
		requests = c.directRequests(dev, base.Refs)
		info.Counted = true
	}
	grow := func(ds []snapshot, factor float64) *Result {
		r := base.clone()
		sk := skipped{insts: factor * skip, stores: factor * stores, blocks: factor * float64(sp.skipped),
			refs: make([]float64, len(refs)), requests: -1}
		for k := range refs {
			sk.refs[k] = factor * refs[k]
		}
		if requests >= 0 {
			sk.requests = factor * float64(requests)
		}
		sp.add(dev, exact, counted, r, ds, sk)
		return r
	}
	point := grow(sp.window, 1)
	for j := range sp.window {
		info.replicates = append(info.replicates, grow(sp.window[j:j+1], 1))
	}
	info.probe = grow(sp.window, 2)
	for _, r := range append([]*Result{point, info.probe}, info.replicates...) {
		if err := r.checkExtrapolated(dev); err != nil {
			return selfCheckFailed(err)
		}
	}
	info.Window, info.WarmupWaves = len(sp.window), sp.warm
	info.WindowWaves = len(sp.window) * int(sp.per/sp.wave)
	info.SkippedInsts = int64(math.Round(skip))
	ts := make([]float64, len(info.replicates))
	for j, r := range info.replicates {
		ts[j] = float64(r.Cycles)
	}
	_, info.CyclesCI95 = meanCI(ts)
	*e.res = *point
	e.res.Sampling = info
	return nil
}

// skippedInsts is, of the skipped blocks, the instructions rates are per
// (memory instructions in a kernel with memory references), the store
// instructions and each reference's instructions: what the closed form
// says the launch issues less what was simulated, or where there is no
// exact closed form the simulated blocks' mean per block.
func (sp *sampler) skippedInsts(exact *closedForm) (insts, stores float64, refs []float64) {
	r := sp.e.res
	share := float64(sp.skipped) / float64(int64(sp.e.grid.total)-sp.skipped)
	refs = make([]float64, len(r.Refs))
	for k := range r.Refs {
		done := float64(r.Refs[k].Requests)
		refs[k] = done * share
		if exact != nil {
			refs[k] = exact.refInsts[k] - done
		}
	}
	insts, stores = refInsts(r.Refs, refs)
	if len(r.Refs) == 0 { // rates are per warp instruction
		insts = float64(r.WarpInsts) * share
		if exact != nil {
			insts = exact.warpInsts - float64(r.WarpInsts)
		}
	}
	return insts, stores, refs
}

// refInsts is the memory instructions and the store instructions among n,
// instructions per reference of refs.
func refInsts(refs []RefStats, n []float64) (insts, stores float64) {
	for k := range refs {
		insts += n[k]
		if refs[k].Op == traces.OpStore.String() {
			stores += n[k]
		}
	}
	return insts, stores
}

// skipped is what the skipped waves would have issued: instructions (those
// rates are per), store instructions, each reference's instructions, and
// blocks; and where their transactions were counted on a device that
// sends each to DRAM as it is (Counts.directRequests), the DRAM requests
// (reads and writes, scaled with the skipped share like insts) that
// DRAM's own counters are per, else -1.
type skipped struct {
	insts, stores, blocks float64
	refs                  []float64
	requests              float64
}

// add grows r, the simulated part of a run, by what the skipped waves sk
// would have issued at the rates of the waves ds.
func (sp *sampler) add(dev *arch.Device, exact *closedForm, counted *Counts, r *Result, ds []snapshot, sk skipped) {
	e := sp.e
	for i, f := range counterFields(r) {
		n := sk.insts
		if sp.store[i] {
			n = sk.stores
		}
		ref := sp.refOf[i]
		if ref >= 0 {
			n = sk.refs[ref]
		}
		switch {
		case ref >= 0 && i == sp.refReqs[ref]:
			*f += int64(math.Round(n)) // a reference's own instructions, at one each
		case sk.requests >= 0 && sp.dram[i]:
			*f += int64(math.Round(sk.requests * sp.perAccepted(ds, i)))
		default:
			*f += int64(math.Round(n * sp.rate(ds, i)))
		}
	}
	blocks := sk.blocks
	dt := int64(math.Round(blocks * sp.rate(ds, rateCycles)))
	r.Cycles += dt
	// The skipped waves kept every SM busy: each SM that had blocks was
	// active that much longer; one that never had any idled.
	r.Stalls.Idle += e.idleSMs * dt
	active := e.activeCycles + (int64(len(e.sms))-e.idleSMs)*dt
	warpCycles := e.warpCycles + int64(math.Round(blocks*sp.rate(ds, rateWarpCycles)))
	exactCounts(r, exact)
	counted.setIn(r)
	sumRefs(r)
	stores := touchedSectorsOf(e.res, r)
	if counted != nil {
		stores = counted.storeSectors
	}
	reconcile(dev, r, stores)
	derive(dev, r, warpCycles, active)
}

// touchedSectorsOf estimates the sectors the global stores of r, an
// extrapolated run whose skipped blocks were not counted, touch: those of
// the simulated part, whose SMs counted them (its L2 write sectors, which
// engine.check holds to that count), and of the skipped store
// transactions, whose sectors r holds, the share the simulated part's
// touched. Where those touched every sector, as most kernels' stores do,
// it is exact; a rate per store instruction, with stores to shared memory
// among them, followed where the window cut the blocks (kepler's
// matmul-ryoo-d: 1.06% low). Where the simulated part stored nothing it
// is -1.
func touchedSectorsOf(simulated, r *Result) int64 {
	done, sectors := simulated.L2.WriteSectors, simulated.Stores.Sectors
	if sectors == 0 {
		return -1
	}
	return done + int64(math.Round(float64(r.Stores.Sectors-sectors)*float64(done)/float64(sectors)))
}

// closedForm is a launch's instruction counts in closed form: all warp
// instructions and, per reference, its warp instructions.
type closedForm struct {
	warpInsts float64
	refInsts  []float64
}

// closedFormOf is src's closed form where it has an exact one, else nil.
func closedFormOf(src traces.Source) *closedForm {
	c, ok := src.(traces.Counted)
	if !ok || !c.ExactWork() {
		return nil
	}
	return &closedForm{warpInsts: c.WarpInstructions(), refInsts: c.RefInstructions()}
}

// exactCounts sets the instruction counts of r from the exact closed
// form, if there is one.
func exactCounts(r *Result, exact *closedForm) {
	if exact == nil {
		return
	}
	r.WarpInsts = int64(exact.warpInsts)
	r.MemInsts = 0
	for i, n := range exact.refInsts {
		r.Refs[i].Requests = int64(n)
		r.MemInsts += int64(n)
	}
}

// clone is a deep copy of r.
func (r *Result) clone() *Result {
	c := *r
	c.Refs = append([]RefStats(nil), r.Refs...)
	return &c
}

// withIntervals gives each metric of a sampled run the half-width of its
// 95% confidence interval: the spread of the metric over the replicates,
// each extrapolated from one wave of the window, as the spread of a mean.
// A metric the probe (twice the skipped share) leaves unchanged does not
// depend on what was extrapolated and stays exact.
func withIntervals(dev *arch.Device, s *Sampling, style string, ms []Metric) error {
	probe, err := pointMetrics(dev, s.probe, style)
	if err != nil {
		return err
	}
	reps := make([][]Metric, len(s.replicates))
	for j, r := range s.replicates {
		if reps[j], err = pointMetrics(dev, r, style); err != nil {
			return err
		}
	}
	xs := make([]float64, len(reps))
	for i := range ms {
		if probe[i].Value == ms[i].Value {
			continue
		}
		for j := range reps {
			xs[j] = reps[j][i].Value
		}
		_, half := meanCI(xs)
		ms[i].CI95 = &half
	}
	return nil
}
