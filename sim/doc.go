// Package sim replays the warp stream of a bound kernel through a device's
// memory hierarchy: SMs with warp schedulers and a load/store unit, the
// coalescer, per-SM L1 caches with MSHRs, sliced sectored L2 caches and
// DRAM channels. Run returns profiler-style counters and cycles and checks
// its own accounting; Count gives the coalescer's counts alone; Metrics
// names the counters as nvprof, Nsight Compute or GPGPU-Sim would.
//
// Time is an integer count of core cycles driven by an event queue, so
// idle components cost nothing; docs/design.md describes the model.
package sim
