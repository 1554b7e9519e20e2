package sim

import (
	"math"
	"reflect"
)

// Sampled simulation: a long grid runs in waves (the blocks resident at
// once over the device), and once the waves look alike, the middle of the
// grid adds the same again and again. The sampler reads the counters at
// each wave boundary and turns each wave into rates per warp instruction
// issued (cycles, hits, DRAM reads per instruction), which do not depend on
// how much of the in-flight blocks' work a boundary happens to cut. When
// the window of waves since the warm-up pins every main rate down well
// enough that the extrapolated totals are within the tolerances at 95%
// confidence, it skips whole middle waves: block ids jump forward, so the
// grid's real tail, its partial last wave, is still simulated. The
// run then adds the skipped instructions times the window's rates.

// SampleOptions turn on sampled simulation.
type SampleOptions struct {
	// On enables sampling; off, every block is simulated.
	On bool
	// CyclesTolerance and CountTolerance are the largest relative 95%
	// half-widths of the extrapolated cycles and main counters at which
	// the sampler skips; 0 takes 2% and 1%.
	CyclesTolerance, CountTolerance float64
}

const (
	// sampleWarmup waves are never part of a window: the first fills the
	// device from empty.
	sampleWarmup = 1
	// A window holds every wave after the warm-up, at least
	// sampleMinWindow of them, in up to sampleBatches batches.
	sampleMinWindow = 4
	sampleBatches   = 8
)

// Sampling says how a sampled run went.
type Sampling struct {
	// WaveBlocks is the blocks resident at once over the device.
	WaveBlocks int64 `json:"wave_blocks"`
	// SimulatedBlocks ran; SkippedBlocks (whole waves from the middle
	// of the grid) did not, and their counters are extrapolated.
	SimulatedBlocks int64 `json:"simulated_blocks"`
	SkippedBlocks   int64 `json:"skipped_blocks"`
	// Window is the batches of waves whose rates stand for the skipped
	// ones, and SkippedInsts the warp instructions those would have
	// issued.
	Window       int   `json:"window_batches"`
	SkippedInsts int64 `json:"skipped_warp_insts"`
	// CyclesCI95 is the half-width of the 95% confidence interval of
	// Cycles (0 when nothing was skipped).
	CyclesCI95 float64 `json:"cycles_ci95"`
	// replicates are the run as extrapolated from the rates of each wave
	// of the window alone; Metrics turns their spread into intervals.
	// probe is the run with the skipped share doubled: a metric it leaves
	// alone does not depend on extrapolated counts.
	replicates []*Result
	probe      *Result
}

// snapshot is the counters at a wave boundary.
type snapshot struct {
	t          int64
	warpCycles int64
	counts     []int64
}

// sampler watches a run's waves and decides when to skip.
type sampler struct {
	e        *engine
	opts     SampleOptions
	wave     int64 // blocks per wave
	snaps    []snapshot
	decided  bool
	skipped  int64
	window   []snapshot // deltas of the window's waves
	keyIndex []int      // indices into counts of the counters judged
	inst     int        // index into counts of WarpInsts
}

func newSampler(e *engine, opts SampleOptions, wave int64) *sampler {
	if opts.CyclesTolerance == 0 {
		opts.CyclesTolerance = 0.02
	}
	if opts.CountTolerance == 0 {
		opts.CountTolerance = 0.01
	}
	sp := &sampler{e: e, opts: opts, wave: wave}
	sp.snaps = append(sp.snaps, snapshot{counts: make([]int64, len(counterFields(e.res)))})
	sp.keyIndex, sp.inst = keyCounters(e.res)
	return sp
}

// observe is called when the grid has finished a whole number of waves,
// the last block finishing at t.
func (sp *sampler) observe(g *grid, t int64) {
	if sp.decided {
		return
	}
	sp.snaps = append(sp.snaps, sp.take(t))
	// Skip whole waves and leave the grid's partial last wave, if any, to
	// follow the wave in flight, so the grid ends as it would.
	m := int64(g.total-g.next) / sp.wave
	if m < 1 {
		sp.decided = true // too late to skip anything
		return
	}
	deltas := sp.deltas()
	if len(deltas) < sampleMinWindow || !sp.steady(deltas, m, g) {
		return
	}
	sp.decided = true
	sp.skipped = m * sp.wave
	sp.window = deltas
	g.next += int(sp.skipped)
	g.done += int(sp.skipped)
}

// take reads the counters at a wave boundary at t.
func (sp *sampler) take(t int64) snapshot {
	e := sp.e
	e.res.DRAM = e.port.mem.Stats().Total
	s := snapshot{t: t}
	for i := range e.sms {
		s.warpCycles += e.sms[i].warpCycles
	}
	for _, f := range counterFields(e.res) {
		s.counts = append(s.counts, *f)
	}
	return s
}

// deltas are the window's batches: the waves after the warm-up, split
// into at most sampleBatches batches of whole waves (the oldest left over
// go), each the change of the counters over its waves. Batch means keep
// the interval honest for counters that come in bursts (write-backs,
// DRAM row hits), whose single waves swing far more than their mean.
func (sp *sampler) deltas() []snapshot {
	waves := len(sp.snaps) - 1 - sampleWarmup
	if waves <= 0 {
		return nil
	}
	k := min(waves, sampleBatches)
	per := waves / k
	first := len(sp.snaps) - 1 - k*per
	out := make([]snapshot, k)
	for j := range out {
		a, b := &sp.snaps[first+j*per], &sp.snaps[first+(j+1)*per]
		d := snapshot{t: b.t - a.t, warpCycles: b.warpCycles - a.warpCycles, counts: make([]int64, len(b.counts))}
		for i := range b.counts {
			d.counts[i] = b.counts[i] - a.counts[i]
		}
		out[j] = d
	}
	return out
}

// steady reports whether skipping m waves now would leave the
// extrapolated cycles and each main counter within its tolerance at 95%
// confidence: the half-width of the rate per instruction, times the
// instructions skipped, against the projected total.
func (sp *sampler) steady(deltas []snapshot, m int64, g *grid) bool {
	last := &sp.snaps[len(sp.snaps)-1]
	done := float64(last.counts[sp.inst])
	perBlock := done / float64(g.done)
	skip := float64(m*sp.wave) * perBlock
	left := float64(g.total-g.done) * perBlock
	xs := make([]float64, len(deltas))
	ok := func(at func(d *snapshot) int64, sofar int64, tol float64) bool {
		var sum, insts float64
		for j := range deltas {
			d := &deltas[j]
			n := float64(d.counts[sp.inst])
			if n == 0 {
				return false
			}
			xs[j] = float64(at(d)) / n
			sum += float64(at(d))
			insts += n
		}
		_, half := meanCI(xs)
		total := float64(sofar) + sum/insts*left
		return half*skip <= tol*total
	}
	if !ok(func(d *snapshot) int64 { return d.t }, last.t, sp.opts.CyclesTolerance) {
		return false
	}
	for _, i := range sp.keyIndex {
		if !ok(func(d *snapshot) int64 { return d.counts[i] }, last.counts[i], sp.opts.CountTolerance) {
			return false
		}
	}
	return true
}

// meanCI is the mean of xs and the half-width of its 95% confidence
// interval by Student's t.
func meanCI(xs []float64) (mean, half float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	return mean, studentT95(len(xs)-1) * sd / math.Sqrt(n)
}

// studentT95 is the two-sided 95% quantile of Student's t with df degrees
// of freedom (df ≥ 1), from the standard table.
func studentT95(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228}
	if df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

// counterFields are the additive counters of r that sampling extrapolates,
// in a fixed order: every int64 of the result except the launch's shape
// and occupancy and what is worked out at the end of a run (Cycles, idle
// SM cycles, dirty L2 sectors left, and the load and store totals, which
// are sums over the references).
func counterFields(r *Result) []*int64 {
	var out []*int64
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		if notExtrapolated[path] {
			return
		}
		switch v.Kind() {
		case reflect.Int64:
			out = append(out, v.Addr().Interface().(*int64))
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path+"[]")
			}
		}
	}
	walk(reflect.ValueOf(r).Elem(), "")
	return out
}

var notExtrapolated = map[string]bool{
	".Occupancy": true, ".Block": true, ".Grid": true,
	".Cycles": true, ".Stalls.Idle": true, ".L2.DirtySectorsAtEnd": true,
}

func init() {
	for _, f := range reflect.VisibleFields(reflect.TypeOf(RefCounts{})) {
		notExtrapolated[".Loads."+f.Name] = true
		notExtrapolated[".Stores."+f.Name] = true
	}
}

// keyCounters are the indices, among counterFields, of the counters whose
// steadiness decides (the hits and misses of each level and DRAM's reads,
// writes and row hits) and of WarpInsts.
func keyCounters(r *Result) (key []int, inst int) {
	want := []*int64{&r.L1.Hits, &r.L1.Misses, &r.L2.ReadHitSectors, &r.L2.ReadMissSectors,
		&r.L2.WriteSectors, &r.DRAM.Reads, &r.DRAM.Writes, &r.DRAM.RowHits}
	for i, f := range counterFields(r) {
		if f == &r.WarpInsts {
			inst = i
		}
		for _, k := range want {
			if f == k {
				key = append(key, i)
			}
		}
	}
	return key, inst
}
