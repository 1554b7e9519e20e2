// Package sim replays the warp instructions of a traces.Source through a
// device's memory hierarchy and returns profiler-style counters and cycles,
// checking its own accounting at the end (Run; RunAll runs many in
// parallel; RunSequence runs launches one after the other on one device,
// whose L2 and DRAM keep their state between them). Count gives the coalescer's counts alone; Metrics names the
// counters as nvprof, Nsight Compute or GPGPU-Sim would.
//
// The engine is an event loop over units that each own their constants and
// state: SMs with warp contexts, warp schedulers with their policies, the
// load/store unit, cache levels (the L1), the L2 slices, the port to DRAM
// (sim/dram); sim/coalesce and sim/cache hold the pure rules and arrays
// they use. Time is an integer count of core cycles, so idle units cost
// nothing; docs/design.md describes the model.
//
// With Options.Sample a run simulates whole waves of blocks until their
// rates are steady, after a warm-up that lasts while a cache is still
// filling (warmth.go), skips the middle waves (at least SampleMinSkip of
// the grid, or none) and extrapolates them, with a
// 95% interval per metric (sample.go, samplerate.go, extrapolate.go),
// counts what the skipped blocks' addresses decide (samplecount.go) and
// fits the extrapolated counters to the identities of the self-check
// (reconcile.go, totals.go), which the extrapolated run must pass too.
package sim
