package sim

import (
	"gpumemsim/sim/dram"
	"math"
	"reflect"
	"slices"
)

// Sampled simulation: a long grid runs in waves (the blocks resident at
// once over the device), and once the waves look alike, the middle of the
// grid adds the same again and again. The sampler reads the counters at
// each wave boundary and turns each wave into rates per memory instruction
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
	// ones, and SkippedInsts the instructions the rates are per (memory
	// instructions, where the kernel has any) that those would have
	// issued.
	Window       int   `json:"window_batches"`
	SkippedInsts int64 `json:"skipped_insts"`
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
	sent       [sentCounts]int64 // requests sent to DRAM (sentFields)
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
	// Indices into counts of the instructions rates are per (memory
	// instructions, or every warp instruction in a kernel without memory
	// references), and of DRAM's reads and writes,
	// and which counters are DRAM's.
	inst, dramReads, dramWrites int
	dram                        []bool
	sentIndex                   []int // per counter, its index in sentFields, or -1
	per                         int64 // blocks per batch of the window
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
	sp.keyIndex, sp.inst = keyCounters(e.res, len(e.res.Refs) > 0)
	r := e.res
	for i, f := range counterFields(r) {
		switch f {
		case &r.DRAM.Reads:
			sp.dramReads = i
		case &r.DRAM.Writes:
			sp.dramWrites = i
		}
		sp.dram = append(sp.dram, slices.Contains(int64Fields(reflect.ValueOf(&r.DRAM).Elem(), ".DRAM"), f))
		sp.sentIndex = append(sp.sentIndex, slices.Index(sentPointers(&r.DRAM), f))
	}
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
	s := snapshot{t: t, sent: sentFields(&e.port.sent)}
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
	sp.per = int64(per) * sp.wave
	first := len(sp.snaps) - 1 - k*per
	out := make([]snapshot, k)
	for j := range out {
		a, b := &sp.snaps[first+j*per], &sp.snaps[first+(j+1)*per]
		d := snapshot{t: b.t - a.t, warpCycles: b.warpCycles - a.warpCycles, counts: make([]int64, len(b.counts))}
		for i := range b.counts {
			d.counts[i] = b.counts[i] - a.counts[i]
		}
		for i := range b.sent {
			d.sent[i] = b.sent[i] - a.sent[i]
		}
		out[j] = d
	}
	return out
}

// Rates of the window other than of counters: cycles and resident
// warp-cycles, per block finished.
const (
	rateCycles     = -1
	rateWarpCycles = -2
)

// rate is the rate over the waves ds of counter i per instruction, or of
// rateCycles or rateWarpCycles per block. Each is taken where it happens:
// counters at issue (the SMs, L1 and L2 count as an instruction issues)
// per instruction issued; time per block finished, since the blocks'
// completions, not the issue that may run ahead of them, mark the
// progress of time; and DRAM's counters, which lag the instructions that
// cause them (requests wait in queues, and on devices without an L2
// nothing bounds those queues), as the DRAM's own per request accepted
// times the requests sent per instruction (the reads, writes, bytes and
// sectors the caches send are counted as they are sent). A window in which a backlog
// grows or drains then still gives the rates of the steady state.
func (sp *sampler) rate(ds []snapshot, i int) float64 {
	var num, insts, accepted, sent, sentI float64
	for j := range ds {
		d := &ds[j]
		insts += float64(d.counts[sp.inst])
		sent += float64(d.sent[0] + d.sent[1])
		if i >= 0 && sp.sentIndex[i] >= 0 {
			sentI += float64(d.sent[sp.sentIndex[i]])
		}
		switch i {
		case rateCycles:
			num += float64(d.t)
		case rateWarpCycles:
			num += float64(d.warpCycles)
		default:
			num += float64(d.counts[i])
			accepted += float64(d.counts[sp.dramReads] + d.counts[sp.dramWrites])
		}
	}
	switch {
	case i < 0:
		return num / float64(int64(len(ds))*sp.per)
	case insts == 0:
		return 0
	case sp.sentIndex[i] >= 0:
		return sentI / insts
	case sp.dram[i]:
		if accepted == 0 {
			return 0
		}
		return num / accepted * sent / insts
	}
	return num / insts
}

// steady reports whether skipping m waves now would leave the
// extrapolated cycles and each main counter within its tolerance at 95%
// confidence: the half-width of the rate over the batches, times the
// instructions (blocks, for cycles) skipped, against the projected total;
// and whether the rate has stopped moving: the first half of the
// window's against the second half's, likewise.
func (sp *sampler) steady(deltas []snapshot, m int64, g *grid) bool {
	last := &sp.snaps[len(sp.snaps)-1]
	perBlock := float64(last.counts[sp.inst]) / float64(g.done)
	skipBlocks, leftBlocks := float64(m*sp.wave), float64(g.total-g.done)
	xs := make([]float64, len(deltas))
	h := len(deltas) / 2
	ok := func(i int, sofar int64, tol float64) bool {
		for j := range deltas {
			xs[j] = sp.rate(deltas[j:j+1], i)
		}
		_, half := meanCI(xs)
		drift := math.Abs(sp.rate(deltas[:h], i) - sp.rate(deltas[len(deltas)-h:], i))
		skip, left := skipBlocks, leftBlocks
		if i >= 0 {
			skip, left = skip*perBlock, left*perBlock
		}
		total := float64(sofar) + sp.rate(deltas, i)*left
		return max(half, drift)*skip <= tol*total
	}
	if !ok(rateCycles, last.t, sp.opts.CyclesTolerance) {
		return false
	}
	for _, i := range sp.keyIndex {
		if !ok(i, last.counts[i], sp.opts.CountTolerance) {
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

// sentCounts is the number of sentFields.
const sentCounts = 6

// sentFields are the counts of DRAM requests that the port knows as it
// sends them: reads and writes first, then their bytes and sectors.
func sentFields(s *dram.ChannelStats) [sentCounts]int64 {
	var out [sentCounts]int64
	for i, p := range sentPointers(s) {
		out[i] = *p
	}
	return out
}

func sentPointers(s *dram.ChannelStats) []*int64 {
	return []*int64{&s.Reads, &s.Writes, &s.ReadBytes, &s.WriteBytes, &s.ReadSectors, &s.WriteSectors}
}

// counterFields are the additive counters of r that sampling extrapolates,
// in a fixed order: every int64 of the result except the launch's shape
// and occupancy and what is worked out at the end of a run (Cycles, idle
// SM cycles, dirty L2 sectors left, and the load and store totals, which
// are sums over the references).
func counterFields(r *Result) []*int64 {
	return int64Fields(reflect.ValueOf(r).Elem(), "")
}

// int64Fields are the int64 fields within v, whose path from the Result
// is path, less those notExtrapolated.
func int64Fields(v reflect.Value, path string) []*int64 {
	if notExtrapolated[path] {
		return nil
	}
	var out []*int64
	switch v.Kind() {
	case reflect.Int64:
		out = append(out, v.Addr().Interface().(*int64))
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, int64Fields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, int64Fields(v.Index(i), path+"[]")...)
		}
	}
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
// steadiness decides (the hits and misses of each level and DRAM's reads
// and writes) and of the instructions rates are per: memory
// instructions if mem, else all.
func keyCounters(r *Result, mem bool) (key []int, inst int) {
	per := &r.WarpInsts
	if mem {
		per = &r.MemInsts
	}
	want := []*int64{&r.L1.Hits, &r.L1.Misses, &r.L2.ReadHitSectors, &r.L2.ReadMissSectors,
		&r.L2.WriteSectors, &r.DRAM.Reads, &r.DRAM.Writes}
	for i, f := range counterFields(r) {
		if f == per {
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
