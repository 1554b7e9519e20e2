package sim

import (
	"reflect"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// Sampled simulation: a long grid runs in waves (the blocks resident at
// once over the device), and once the waves look alike, the middle of the
// grid adds the same again and again. The sampler reads the counters at
// each wave boundary and turns batches of waves into rates, each where its
// count happens (samplerate.go), which do not depend on how much of the
// in-flight blocks' work a boundary happens to cut. When
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
	// the sampler skips; 0 takes DefaultCyclesTolerance and
	// DefaultCountTolerance.
	CyclesTolerance, CountTolerance float64
	// Warmup is the fewest waves simulated before the window begins; 0
	// or less takes DefaultWarmup. A rate that settles only as the SMs
	// fall out of step (DRAM's row hits on g80's tiled matmuls) moves
	// with the time since the launch began, which only simulated waves
	// advance: a longer warm-up lets the window see it settled.
	Warmup int
}

// warmup is the warm-up o asks for, DefaultWarmup where it leaves Warmup
// 0 or less.
func (o SampleOptions) warmup() int {
	if o.Warmup <= 0 {
		return DefaultWarmup
	}
	return o.Warmup
}

// The sampler's tolerances when SampleOptions leaves them 0: cycles
// within 2%, the main counters within 1%.
const (
	DefaultCyclesTolerance = 0.02
	DefaultCountTolerance  = 0.01
)

// DefaultWarmup waves at least are never part of a window when
// SampleOptions leaves Warmup 0 or less: the first fills the device from
// empty. The warm-up lasts longer while a cache is still filling for the
// first time (warmth.go).
const DefaultWarmup = 1

// SampleMinWindow is the fewest waves a window holds: every wave after
// the warm-up, at least these, in up to sampleBatches batches.
const SampleMinWindow = 4

const sampleBatches = 8

// SampleMinSkip is the least share of the grid a skip leaves out; with
// less to skip a sampled run simulates every block. A skip's error has a
// part the interval bounds, which grows with the skip, and a part it does
// not, which does not shrink with it: the state the caches hand the
// grid's tail (an L2's dirty sectors at the end of a short grid,
// docs/design.md, "Measured error"). A smaller skip saves less than a
// third of the run and may still miss by several percent. The share was
// chosen on the sampling report (2026-11-28): of its 20 cases missing a
// goal, 14 had skipped less than 30% of their grid, and 6 of the 102
// that skipped more.
const SampleMinSkip = 0.3

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
	Window int `json:"window_batches"`
	// WindowWaves are the waves those batches hold: the last ones
	// before the skip. The oldest waves after the warm-up, fewer than
	// the batches, are left out, so that the batches are alike.
	WindowWaves int `json:"window_waves"`
	// WarmupWaves are the first waves, never part of a window: the fill
	// of the empty device, and after it every wave that began with a
	// cache filling at a rate that would have filled it within the skip
	// (warmth.go).
	WarmupWaves  int   `json:"warmup_waves"`
	SkippedInsts int64 `json:"skipped_insts"`
	// CyclesCI95 is the half-width of the 95% confidence interval of
	// Cycles (0 when nothing was skipped).
	CyclesCI95 float64 `json:"cycles_ci95"`
	// CyclesTolerance and CountTolerance are the tolerances the sampler
	// held the window to (SampleOptions, defaults filled in).
	CyclesTolerance float64 `json:"cycles_tolerance"`
	CountTolerance  float64 `json:"count_tolerance"`
	// Counted says the skipped blocks' requests, transactions and passes
	// were counted, exact, rather than extrapolated (samplecount.go).
	Counted bool `json:"counted"`
	// NoWindow, where nothing was skipped, says the grid ran out of
	// waves a skip could leave out before the warm-up and the shortest
	// window were in: the rates were never judged.
	NoWindow bool `json:"no_window,omitempty"`
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
	stores     int64             // store instructions issued
	counts     []int64
}

// sampler watches a run's waves and decides when to skip.
type sampler struct {
	e     *engine
	opts  SampleOptions
	wave  int64 // blocks per wave
	snaps []snapshot
	// warm is the index in snaps of the boundary the window starts at,
	// the end of the warm-up; fill is the caches' free lines at the
	// latest boundary (warmth.go).
	warm     int
	fill     fillState
	decided  bool
	windowed bool // a window was ever judged
	skipped  int64
	skipFrom int64 // the first skipped block
	counting bool  // the skipped blocks are counted (samplecount.go)
	src      traces.Source
	window   []snapshot // deltas of the window's waves
	keyIndex []int      // indices into counts of the counters judged
	// Indices into counts of the instructions rates are per (memory
	// instructions, or every warp instruction in a kernel without memory
	// references), and of DRAM's reads and writes,
	// and which counters are DRAM's.
	inst, dramReads, dramWrites int
	dram                        []bool
	sentIndex                   []int  // per counter, its index in sentFields, or -1
	store                       []bool // per counter, whether stores cause it
	storeReqs                   []int  // indices into counts of the store references' requests
	// refOf is, per counter, the reference whose count it is, or -1;
	// refReqs, per reference, the index into counts of its requests
	// (its instructions), which its counts are per.
	refOf, refReqs []int
	per            int64 // blocks per batch of the window
	skippedWork    int64 // warp instructions the skipped blocks stand for, roughly
}

func newSampler(e *engine, src traces.Source, opts SampleOptions, wave int64) *sampler {
	if opts.CyclesTolerance == 0 {
		opts.CyclesTolerance = DefaultCyclesTolerance
	}
	if opts.CountTolerance == 0 {
		opts.CountTolerance = DefaultCountTolerance
	}
	sp := &sampler{e: e, src: src, opts: opts, wave: wave, warm: opts.warmup(), fill: e.fillState()}
	sp.snaps = append(sp.snaps, snapshot{counts: make([]int64, len(counterFields(e.res)))})
	sp.keyIndex, sp.inst = keyCounters(e.res, len(e.res.Refs) > 0)
	r := e.res
	sp.refOf, sp.refReqs = refCounters(r)
	stores := storeSide(r)
	dram := int64Fields(reflect.ValueOf(&r.DRAM).Elem(), ".DRAM", notExtrapolated)
	for i, f := range counterFields(r) {
		switch f {
		case &r.DRAM.Reads:
			sp.dramReads = i
		case &r.DRAM.Writes:
			sp.dramWrites = i
		}
		sp.dram = append(sp.dram, slices.Contains(dram, f))
		sp.sentIndex = append(sp.sentIndex, slices.Index(sentPointers(&r.DRAM), f))
		sp.store = append(sp.store, slices.Contains(stores, f))
	}
	for k, i := range sp.refReqs {
		if r.Refs[k].Op == traces.OpStore.String() {
			sp.storeReqs = append(sp.storeReqs, i)
		}
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
	m := skippable(int64(g.total), int64(g.next), sp.wave)
	if !worthSkipping(m*sp.wave, int64(g.total)) {
		sp.decided = true // too late to skip enough: every block runs
		return
	}
	fill := sp.e.fillState()
	if filling(sp.fill, fill, m, sp.opts.CountTolerance) {
		sp.warm = max(sp.warm, len(sp.snaps)) // the next wave fills it further: not part of a window either
	}
	sp.fill = fill
	deltas := sp.deltas()
	if len(deltas) < SampleMinWindow {
		return
	}
	sp.windowed = true
	if !sp.steady(deltas, m, g) {
		return
	}
	sp.decided = true
	sp.skipped = m * sp.wave
	sp.skipFrom = int64(g.next)
	sp.window = deltas
	perBlock := float64(sp.e.res.MemInsts) / float64(g.done)
	sp.counting = worthCounting(sp.src, sp.skipFrom, sp.skipped, int64(g.total), perBlock)
	// The skipped blocks' work, for the progress reported: their share
	// of what the blocks done so far issued, in at once where it is
	// extrapolated, as the blocks are counted otherwise.
	sp.skippedWork = sp.skipped * sp.e.res.WarpInsts / int64(g.done)
	g.next += int(sp.skipped)
	g.done += int(sp.skipped)
	if sp.counting {
		g.uncounted = int(sp.skipped)
	} else {
		g.credit = sp.skippedWork
	}
}

// take reads the counters at a wave boundary at t.
func (sp *sampler) take(t int64) snapshot {
	e := sp.e
	e.res.DRAM = e.port.mem.Total()
	s := snapshot{t: t, warpCycles: e.sms.warpCycles(), sent: sentFields(&e.port.sent)}
	for _, f := range counterFields(e.res) {
		s.counts = append(s.counts, *f)
	}
	for _, i := range sp.storeReqs {
		s.stores += s.counts[i]
	}
	return s
}

// deltas are the window's batches: the waves after the warm-up, split
// into at most sampleBatches batches of whole waves (the oldest left over
// go), each the change of the counters over its waves. Batch means keep
// the interval honest for counters that come in bursts (write-backs,
// DRAM row hits), whose single waves swing far more than their mean.
func (sp *sampler) deltas() []snapshot {
	waves := len(sp.snaps) - 1 - sp.warm
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
		d.stores = b.stores - a.stores
		out[j] = d
	}
	return out
}

// skippable is the waves a sampler deciding when next of total blocks have
// been handed out may skip: whole waves, leaving the grid's partial last
// wave, if any, to follow the wave in flight, so the grid ends as it
// would.
func skippable(total, next, wave int64) int64 { return (total - next) / wave }

// worthSkipping says whether a skip of blocks of a grid of total is at
// least one block and SampleMinSkip of the grid.
func worthSkipping(blocks, total int64) bool {
	return blocks >= 1 && float64(blocks) >= SampleMinSkip*float64(total)
}

// SampledAtLeast is the fewest blocks a sampled run of src on dev
// simulates with opts (regs as in Options, 0 for the kernel's own): the
// warm-up and the shortest window, the wave in flight when the sampler
// decides, and
// the grid's partial last wave; every block of a grid where that would
// leave out less than SampleMinSkip of it. The sampler simulates more
// while the window's rates are not yet steady (or a cache is filling), so
// the time of these blocks is a lower bound on a sampled run's.
func SampledAtLeast(dev *arch.Device, src traces.Source, regs int, opts SampleOptions) (int64, error) {
	info := src.Info()
	occ, err := launchOccupancy(dev, info, Options{Regs: regs})
	if err != nil {
		return 0, err
	}
	total, wave := int64(info.Blocks()), waveBlocks(dev, occ)
	next := min(total, (int64(opts.warmup())+SampleMinWindow+1)*wave) // the decision's waves done and the wave in flight
	skip := skippable(total, next, wave) * wave
	if !worthSkipping(skip, total) {
		return total, nil
	}
	return total - skip, nil
}
