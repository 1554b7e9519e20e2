package sim

import (
	"context"
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/sim/cache"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/dram"
	"gpumemsim/traces"
)

// Options adjust one run.
type Options struct {
	// Regs is the registers per thread for the occupancy calculator; 0
	// takes the source's (and no register limit if it has none).
	Regs int
	// Smem is the shared memory per block; 0 takes the source's.
	Smem arch.Bytes
	// Progress, if not nil, is called now and then, from the event loop,
	// with how far the run has got: at every finished block and every few
	// thousand events, so that a grid of a few long blocks is seen to move.
	Progress func(Progress)
	// Sample, when on, simulates whole waves of blocks until they are
	// steady and extrapolates the rest (sample.go).
	Sample SampleOptions
	// Waves, if not nil, is called at the end of each whole wave of
	// blocks with the run's state then (waves.go).
	Waves func(Wave)
	// MaxWork, if not 0, is the most work the run may simulate: warp
	// instructions issued plus 32-B DRAM sectors read and written, summed
	// over a sequence's launches, checked every few thousand events. A run
	// past it stops with a *WorkError (workcap.go), and so does one on
	// course past twice it once 1/64 of a launch's warp instructions, and
	// at least 2^20, have issued, where they are counted exactly or
	// estimated within 5% (a sampled run, which simulates only some of
	// them, is not projected). A per-thread launch's work is counted for
	// it, if it has not been (traces.Launch.WarpInstructions; a command
	// counts it first, within its cap and its context).
	MaxWork float64
}

// Progress is how far a run has got: the blocks finished, and the warp
// instructions issued, its work done. Skipped blocks (sampling) count in
// both as they are counted, or at once where they are extrapolated; their
// instructions are their share of those issued before the skip.
type Progress struct {
	Blocks, WarpInsts int64
}

// Run simulates the launch src on dev and returns its counters. It is
// deterministic: the same inputs give the same Result. It checks its own
// accounting at the end and returns an error if anything does not add up.
func Run(ctx context.Context, dev *arch.Device, src traces.Source, opts Options) (*Result, error) {
	e, err := newDevice(dev)
	if err != nil {
		return nil, err
	}
	if err := e.runLaunch(ctx, dev, src, opts); err != nil {
		return nil, err
	}
	if sp := e.grid.sampler; sp != nil {
		if err := sp.extrapolate(ctx, dev, src); err != nil {
			return nil, err
		}
	}
	return e.res, nil
}

// runLaunch simulates the launch src on the engine's device from the end
// of whatever ran on it before (nothing, or the launches before it in a
// sequence) and checks the launch's own accounting.
func (e *engine) runLaunch(ctx context.Context, dev *arch.Device, src traces.Source, opts Options) error {
	e.start = e.clk.last
	e.clk.now = e.start
	e.clk.q.restart(e.start)
	e.mem0 = e.memCounts()
	if err := e.load(dev, src, opts); err != nil {
		return err
	}
	if err := e.run(ctx); err != nil {
		return err
	}
	if err := streamErr(src); err != nil {
		return err
	}
	e.budget.spent += float64(e.res.WarpInsts + e.launchDRAM())
	e.finish(dev)
	if err := e.check(dev); err != nil {
		return selfCheckFailed(err)
	}
	return nil
}

func selfCheckFailed(err error) error {
	return fmt.Errorf("simulator self-check failed (a bug; please report it with the command line): %w", err)
}

// failing is a Source that may meet an error while streaming (an access
// outside its array in a per-thread kernel); Run reports it.
type failing interface{ Err() error }

// streamErr is the error src met while streaming, if it may meet one.
// The engine and the counter look at it as often as at their context:
// the first error a warp meets ends the run then, not at the launch's
// end, minutes later.
func streamErr(src traces.Source) error {
	if f, ok := src.(failing); ok {
		return f.Err()
	}
	return nil
}

// newDevice builds the units of dev that outlive a launch: the memory
// below the SMs (the L2 slices, the port, DRAM) and the SMs' places.
func newDevice(dev *arch.Device) (*engine, error) {
	co, err := NewCoalescer(dev)
	if err != nil {
		return nil, err
	}
	mem, err := dram.NewMemory(dev)
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", dev.Name, err)
	}
	e := &engine{co: co, blockLaunch: int64(dev.Scheduler.BlockLaunchLatency)}
	e.clk.ahead = int64(dev.Interconnect.Latency)
	e.sms = make(cores, dev.SMs)
	icnt := int64(dev.Interconnect.Latency)
	e.port = &port{clk: &e.clk, mem: mem, at: never, lat: int64(dev.DRAM.Latency), icnt: icnt, sms: e.sms}
	e.direct = &dramOnly{port: e.port}
	e.below, e.texBelow, e.held = e.direct, e.direct, new(int64)
	if dev.L2.Present() {
		if e.l2, err = newL2(dev, e.port, e.sms); err != nil {
			return nil, err
		}
		e.port.l2 = e.l2
		e.texBelow, e.held = e.l2, &e.l2.holdUntil
		if !dev.L2.TextureOnly {
			e.below = e.l2
		}
	}
	return e, nil
}

// load makes the launch src the engine's: a Result to count into, its
// grid, and SMs built afresh for its occupancy, so that their L1s start
// empty.
func (e *engine) load(dev *arch.Device, src traces.Source, opts Options) error {
	info := src.Info()
	occ, err := launchOccupancy(dev, info, opts)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	res := &Result{Device: dev.Name, Kernel: info.Kernel, Mapping: info.Mapping, PerThread: info.PerThread,
		Block: info.Block, Grid: info.Grid, Occupancy: occ, Refs: make([]RefStats, len(info.Refs))}
	space, rule, err := launchSpaces(dev, info)
	if err != nil {
		return err
	}
	for i, r := range info.Refs {
		res.Refs[i].Ref = r.Text
		res.Refs[i].Op = r.Op.String()
		if space[i] != spaceGlobal {
			res.Refs[i].Space = r.Space.String()
		}
	}
	e.countInto(res)
	e.shapes.reset(len(info.Refs))
	e.activeBlks = occ.ActiveBlocks
	e.grid = grid{total: info.Blocks(), progress: opts.Progress, res: res}
	e.failing, _ = src.(failing)
	e.budget.launch(src, opts)
	e.warpCycles, e.activeCycles, e.idleSMs = 0, 0, 0
	if opts.Sample.On || opts.Waves != nil {
		e.grid.wave = waveBlocks(dev, occ)
		e.grid.boundary = func(t int64) { e.boundary(t, opts.Waves) }
	}
	if opts.Sample.On {
		e.grid.sampler = newSampler(e, src, opts.Sample, e.grid.wave)
	}
	spec := &smSpec{icnt: int64(dev.Interconnect.Latency), dependent: info.Dependent, warpsPerBlock: info.WarpsPerBlock(),
		space: space, texShare: dev.Texture.SMsPerCache(), touched: opts.Sample.On, src: src,
		blocks: occ.ActiveBlocks, scheds: dev.Scheduler.PerSM, ipc: int64(dev.Scheduler.IssuePerCycle), gto: dev.Scheduler.Policy == arch.PolicyGTO}
	for i := range e.sms {
		s := &e.sms[i]
		l1 := s.l1 // the last launch's, emptied when s first takes a block
		if l1 != nil {
			l1.stale = true
		}
		*s = sm{id: i, spec: spec, clk: &e.clk, grid: &e.grid, mem: e.below, texMem: e.texBelow, held: e.held, co: e.co, shapes: &e.shapes, res: res, firstStart: -1,
			shared: sharedMem{rule: rule, latency: int64(dev.SM.SharedLatency)}, l1: l1}
		if err := s.newL1(dev); err != nil {
			return err
		}
		if err := s.newConstUnit(dev, space); err != nil {
			return err
		}
	}
	return e.sms.newTexUnits(dev, space, res)
}

// launchOccupancy is the occupancy of a launch described by info on dev,
// with opts' registers per thread and shared memory per block where set,
// else the launch's own.
func launchOccupancy(dev *arch.Device, info *traces.Info, opts Options) (arch.Occupancy, error) {
	regs, smem := opts.Regs, opts.Smem
	if regs == 0 {
		regs = info.Regs
	}
	if smem == 0 {
		smem = info.Smem
	}
	return dev.Occupancy(info.Block, regs, smem)
}

// waveBlocks is the blocks resident at once over dev at occupancy occ.
func waveBlocks(dev *arch.Device, occ arch.Occupancy) int64 {
	return int64(occ.ActiveBlocks) * int64(dev.SMs)
}

// countInto makes every unit that counts count into res.
func (e *engine) countInto(res *Result) {
	e.res, e.direct.res = res, res
	if e.l2 != nil {
		e.l2.res = res
	}
}

// build makes s's warp slots (their cursors come with their first
// warps: launchBlock), block slots and schedulers, and empties the L1 the
// last launch left; launchBlock calls it for s's first block, so that an
// SM the grid leaves idle (most of a100's 108 in a step of a wavefront
// sequence) costs the launch nothing.
func (s *sm) build() {
	sp := s.spec
	s.warps = make([]warp, sp.blocks*sp.warpsPerBlock)
	s.blocks = make([]blockCtx, sp.blocks)
	for b := sp.blocks - 1; b >= 0; b-- {
		s.freeBlk = append(s.freeBlk, int32(b))
	}
	var p policy = &lrr{}
	if sp.gto {
		p = &gto{}
	}
	s.scheds = make([]scheduler, sp.scheds)
	per := (len(s.warps) + len(s.scheds) - 1) / len(s.scheds)
	for si := range s.scheds {
		s.scheds[si] = newScheduler(p, sp.ipc, per)
	}
	for w := range s.warps {
		wp := &s.warps[w]
		si := w % len(s.scheds)
		wp.sched = int32(si)
		wp.local = s.scheds[si].add(w)
	}
	s.lsu.txns = make([]coalesce.Txn, 0, coalesce.MaxTxns)
	if s.l1 != nil && s.l1.stale {
		s.l1.reset(&s.res.L1)
	}
}

// newL1 gives s an L1 where dev caches global loads and s has none from
// a launch before.
func (s *sm) newL1(dev *arch.Device) error {
	if !dev.Coalescer.CacheGlobalLoads || s.l1 != nil {
		return nil
	}
	lv, err := newLevel(dev.L1, dev.L1.Sets(), &s.res.L1)
	if err != nil {
		return fmt.Errorf("device %s: l1: %w", dev.Name, err)
	}
	if dev.Coalescer.Rule == arch.RuleCC50 {
		// The cc50 rule sends the L1 one 32-byte transaction per sector, not
		// a line's worth of sectors in one lookup, so an MSHR entry tracks
		// a sector (as GPGPU-Sim's sector caches key theirs): a lookup of
		// another sector of a line in flight is a miss of its own, which
		// fetches that sector, not a merge into a fetch without it.
		lv.inFlight = lv.sector
	}
	s.l1 = lv
	return nil
}

// newLevel builds a cache level described by c with the given sets,
// counting into stats.
func newLevel(c arch.Cache, sets int, stats *L1Stats) (*level, error) {
	ch, err := cache.New(cache.FromArch(c, sets))
	if err != nil {
		return nil, err
	}
	m, err := cache.NewMSHR(c.MSHREntries, c.MSHRMerges)
	if err != nil {
		return nil, err
	}
	g := ch.Geometry()
	return &level{levelSpec: levelSpec{line: uint64(c.Line), sector: uint64(g.SectorBytes), hit: int64(c.HitLatency), inFlight: uint64(c.Line)},
		cache: ch, sec: newSectoring(ch), mshr: *m, fill: unknownFills(c.MSHREntries), stats: stats, firstFill: never, firstExact: true}, nil
}

// newL2 builds the L2 slices of dev.
func newL2(dev *arch.Device, p *port, sms cores) (*l2, error) {
	per := dev.L2.Slices / dev.DRAM.Channels
	il := uint64(dev.DRAM.Interleave)
	c := &l2{l2Spec: l2Spec{line: uint64(dev.L2.Line), sector: uint64(dev.L2.Sector), perLine: int(dev.L2.Line / dev.L2.Sector), hit: int64(dev.L2.HitLatency), icnt: int64(dev.Interconnect.Latency),
		dramLat: int64(dev.DRAM.Latency), queue: int64(dev.L2.QueueDepth), merges: int32(dev.L2.MSHRMerges)},
		chMap: dram.NewAddressMap(il, uint64(dev.DRAM.Channels)), subMap: dram.NewAddressMap(il, uint64(per)),
		perChannel: per, slices: make([]slice, dev.L2.Slices), port: p, sms: sms}
	g := cache.FromArch(dev.L2.Cache, dev.L2.SetsPerSlice())
	n := dev.L2.MSHREntries
	for i := range c.slices {
		s := &c.slices[i]
		var err error
		if s.l2, err = cache.New(g); err != nil {
			return nil, fmt.Errorf("device %s: l2: %w", dev.Name, err)
		}
		m, err := cache.NewMSHR(n, dev.L2.MSHRMerges)
		if err != nil {
			return nil, fmt.Errorf("device %s: l2: %w", dev.Name, err)
		}
		s.mshr = *m
		s.makeEntries(n)
	}
	c.sec = newSectoring(c.slices[0].l2)
	return c, nil
}
