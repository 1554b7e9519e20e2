package sim

// Wave is a run's state when its k-th whole wave of blocks has finished:
// when k times the blocks resident at once over the device (active blocks
// per SM × SMs, the sampler's wave) have finished. Counts are cumulative
// from the launch's start; the caches' free lines and the DRAM requests in
// flight are the state at that moment. A sampled run's skipped blocks
// count in Blocks and SkippedBlocks from the skip on, while the counts
// stay those of the simulated blocks. The rows of a run show what the
// sampler judges steady (docs/design.md, "Sampled simulation"): each
// wave's cycles and counts are one row's less the row before's.
type Wave struct {
	Wave          int64 // k, from 1
	Cycle         int64 // the launch's cycle at which the k-th wave's last block finished
	Blocks        int64 // k × the wave's blocks
	SkippedBlocks int64
	WarpInsts     int64
	MemInsts      int64
	// WarpCycles are the cycles each finished warp was resident, summed
	// (achieved occupancy's numerator: a wave's, over its cycles times
	// the SMs' warp slots, is its achieved occupancy).
	WarpCycles int64
	// L1's hits and misses of global loads (Result.L1), the L2's read
	// hit and miss sectors and write-back sectors (Result.L2).
	L1Hits, L1Misses                                  int64
	L2ReadHitSectors, L2ReadMissSectors, L2WriteBacks int64
	// The requests the caches sent to DRAM, reads and writes; those
	// DRAM accepted into a channel's queue; those whose completion has
	// come back (to the L2, or to the SMs where no L2 caches them);
	// those sent and not yet back (on their way, queued at the port or
	// in DRAM).
	DRAMReadsSent, DRAMWritesSent int64
	DRAMAccepted, DRAMCompleted   int64
	DRAMInFlight                  int64
	// DRAM's row hits, read/write turnarounds and busy data-bus
	// transfer slots (dram.ChannelStats).
	DRAMRowHits, DRAMTurnarounds, DRAMBusBusy int64
	// The lines never filled of the SMs' L1s and of the L2's slices,
	// summed (the sampler's warm-up follows them, warmth.go).
	L1FreeLines, L2FreeLines int64
}

// waveRow is the run's Wave at the end of wave k, the last block
// finishing at t.
func (e *engine) waveRow(k, t int64) Wave {
	g := &e.grid
	r := e.res
	m := e.memCounts().since(e.mem0)
	fill := e.fillState()
	w := Wave{Wave: k, Cycle: t - e.start, Blocks: int64(g.done), WarpInsts: r.WarpInsts, MemInsts: r.MemInsts,
		WarpCycles: e.sms.warpCycles(), L1Hits: r.L1.Hits, L1Misses: r.L1.Misses,
		L2ReadHitSectors: r.L2.ReadHitSectors, L2ReadMissSectors: r.L2.ReadMissSectors, L2WriteBacks: r.L2.WriteBackSectors,
		DRAMReadsSent: m.sent.Reads, DRAMWritesSent: m.sent.Writes,
		DRAMAccepted: m.dram.Reads + m.dram.Writes, DRAMInFlight: int64(e.port.inFlight),
		DRAMRowHits: m.dram.RowHits, DRAMTurnarounds: m.dram.Turnarounds, DRAMBusBusy: m.dram.BusBusyTransfers,
		L1FreeLines: fill.free[fillL1], L2FreeLines: fill.free[fillL2]}
	// DRAM's own count of completions runs ahead of these while it hands
	// them back: a block may finish in the middle of that.
	w.DRAMCompleted = w.DRAMReadsSent + w.DRAMWritesSent - w.DRAMInFlight
	if sp := g.sampler; sp != nil {
		w.SkippedBlocks = sp.skipped
	}
	return w
}

// boundary is called when the grid has finished a whole number of waves,
// the last block finishing at t: it reports the wave to waves, when not
// nil, and then lets the sampler, when sampling, judge it (and perhaps
// skip, so that the next wave reported is one after the skip).
func (e *engine) boundary(t int64, waves func(Wave)) {
	g := &e.grid
	if waves != nil {
		waves(e.waveRow(int64(g.done)/g.wave, t))
	}
	if g.sampler != nil {
		g.sampler.observe(g, t)
	}
}
