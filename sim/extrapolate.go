package sim

import (
	"math"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// extrapolate adds the skipped waves to the finished, checked run: the
// instructions they would have issued times the window's rates, with a
// replicate run per window wave for the intervals. The counts the source
// knows in closed form are set exactly.
func (sp *sampler) extrapolate(dev *arch.Device, src traces.Source) {
	e := sp.e
	info := &Sampling{WaveBlocks: sp.wave, SimulatedBlocks: int64(e.grid.total) - sp.skipped, SkippedBlocks: sp.skipped}
	e.res.Sampling = info
	if sp.skipped == 0 {
		return
	}
	base := e.res.clone()
	skip := sp.skippedInsts(src)
	grow := func(ds []snapshot, factor float64) *Result {
		r := base.clone()
		sp.add(dev, src, r, ds, factor*skip, factor*float64(sp.skipped))
		return r
	}
	point := grow(sp.window, 1)
	for j := range sp.window {
		info.replicates = append(info.replicates, grow(sp.window[j:j+1], 1))
	}
	info.probe = grow(sp.window, 2)
	info.Window = len(sp.window)
	info.SkippedInsts = int64(math.Round(skip))
	ts := make([]float64, len(info.replicates))
	for j, r := range info.replicates {
		ts[j] = float64(r.Cycles)
	}
	_, info.CyclesCI95 = meanCI(ts)
	*e.res = *point
	e.res.Sampling = info
}

// skippedInsts is the instructions rates are per (memory instructions in
// a kernel with memory references) of the skipped blocks: what the
// closed form says the launch issues less what was simulated, or where
// there is no exact closed form the simulated blocks' mean per block.
func (sp *sampler) skippedInsts(src traces.Source) float64 {
	r := sp.e.res
	done := float64(r.WarpInsts)
	if len(r.Refs) > 0 {
		done = float64(r.MemInsts)
	}
	if c, ok := src.(traces.Counted); ok && c.ExactWork() {
		total := c.WarpInstructions()
		if len(r.Refs) > 0 {
			total = 0
			for _, n := range c.RefInstructions() {
				total += n
			}
		}
		return total - done
	}
	simulated := float64(int64(sp.e.grid.total) - sp.skipped)
	return float64(sp.skipped) * done / simulated
}

// add grows r, the simulated part of a run, by insts more instructions
// and blocks more blocks at the rates of the waves ds.
func (sp *sampler) add(dev *arch.Device, src traces.Source, r *Result, ds []snapshot, insts, blocks float64) {
	e := sp.e
	for i, f := range counterFields(r) {
		*f += int64(math.Round(insts * sp.rate(ds, i)))
	}
	dt := int64(math.Round(blocks * sp.rate(ds, rateCycles)))
	r.Cycles += dt
	// The skipped waves kept every SM busy: each SM that had blocks was
	// active that much longer; one that never had any idled.
	r.Stalls.Idle += e.idleSMs * dt
	active := e.activeCycles + (int64(len(e.sms))-e.idleSMs)*dt
	warpCycles := e.warpCycles + int64(math.Round(blocks*sp.rate(ds, rateWarpCycles)))
	exactCounts(r, src)
	sumRefs(r)
	derive(dev, r, warpCycles, active)
}

// exactCounts sets the instruction counts of r from src's closed form,
// where it has an exact one.
func exactCounts(r *Result, src traces.Source) {
	c, ok := src.(traces.Counted)
	if !ok || !c.ExactWork() {
		return
	}
	r.WarpInsts = int64(c.WarpInstructions())
	r.MemInsts = 0
	for i, n := range c.RefInstructions() {
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
