package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
	"gpumemsim/validate"
)

// defaultMaxWork is the most warp instructions a command simulates unless
// -max-work says more: about four minutes of the full hierarchy (Fermi,
// matmul: 9 million warp instructions per second on one core of this
// project's machine) and twenty of the DRAM-bound path (GT200: 1.7
// million). The cap refuses at once, from the launch's closed-form
// estimate, the runs that would take hours: a typo in -set, a nest of
// deep loops, a validate sweep over large sizes.
const defaultMaxWork = 2e9

// workFlag is -max-work, the cap on the estimated warp instructions.
func workFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("max-work", defaultMaxWork, "the most warp `instructions` to simulate, as the launch's closed-form estimate counts them (e.g. 1e10); larger runs are refused at once")
}

// checkCap checks the value of -max-work.
func checkCap(cap float64) error {
	if !(cap > 0) {
		return fmt.Errorf("-max-work: want a positive number of warp instructions, e.g. 1e10; got %v", cap)
	}
	return nil
}

// workOf is the warp instructions of l. A per-thread kernel's are
// counted on sample blocks, which stop past cap, and its warps may not
// issue more than cap while it is simulated (traces.Launch.LimitWork).
func workOf(l *traces.Launch, cap float64) float64 {
	l.LimitWork(cap)
	return l.WarpInstructions()
}

// checkWork refuses work (estimated warp instructions) above the cap,
// naming what it is for and the ways forward.
func checkWork(what string, work, cap float64) error {
	if work <= cap {
		return nil
	}
	return fmt.Errorf("%s: about %s warp instructions to simulate, more than the cap of %s (-max-work), which keeps a run within minutes; use smaller sizes (-set), or raise the cap with -max-work %s",
		what, sci(work), sci(cap), raisedCap(work, cap))
}

// raisedCap is the cap to suggest for work: the least multiple of cap
// that holds it.
func raisedCap(work, cap float64) string {
	return sci(math.Ceil(work/cap) * cap)
}

// sci writes a count with three significant digits: 2.5e+14, 4.2e+09.
func sci(v float64) string {
	if math.IsInf(v, 1) {
		return "more than 1e308"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Simulation speed, in warp memory instructions simulated per second on
// one core, for the time a run is estimated to take before it starts.
// Rough figures, measured on the project's 2-core development machine
// (Intel Xeon, shared, so the runs vary by ±15%) with
//
//	cd sim && go test -run XXX -bench BenchmarkRun -benchtime 1x -count 5
//
// and rounded from the medians: BenchmarkRun/matmul/fermi (2.0 M/s) for
// devices with an L2, BenchmarkRun/matmul/gt200 (0.57 M/s) for those
// without, whose every miss goes straight to the DRAM model. The kernel
// matters as much as the device: per memory instruction, vecadd/fermi
// runs 3× slower than matmul/fermi, transpose/fermi (uncoalesced stores)
// 12×, matmul-uncoalesced/gt200 4× slower than matmul/gt200. The estimate
// is an order of magnitude, optimistic for uncoalesced kernels. A loop
// nest's estimate counts its transactions instead, and a per-thread
// kernel's those of a sample of its blocks (below); the rates here are
// for what neither covers (a loop nest outside the closed form, a sample
// that cannot be counted).
const (
	memInstsPerSecondL2   = 2.0e6
	memInstsPerSecondDRAM = 0.5e6
)

// simRate is the memory instructions per second the simulator manages on
// dev's class of device.
func simRate(dev *arch.Device) float64 {
	if dev.L2.CachesGlobal() {
		return memInstsPerSecondL2
	}
	return memInstsPerSecondDRAM
}

// workEstimate is the closed-form work of one or more launches and the
// time to simulate it at the measured rates.
type workEstimate struct {
	warpInsts, memInsts float64 // summed over the launches
	blocks              int64
	launches            int
	seconds             float64 // to simulate them all on one core
	longest             float64 // seconds of the longest launch
	// The same for the fewest blocks sampled runs simulate
	// (sim.SampledAtLeast), or every block of a launch run whole;
	// sampled says a launch is sampled.
	leastSeconds, leastLongest float64
	sampled                    bool
}

// A loop nest's global transactions are known in closed form
// (validate.ExactCounts, independent of the launch's size), so its time is
// estimated from its memory instructions and transactions. On a device
// without an L2 for global memory every global transaction is a DRAM
// request; calibrated, not predicted: a least-squares fit of the relative
// error over eight runs on the development machine on 2026-11-25 (user
// seconds of `gpumemsim run ... -format json`: gt200 matmul 512³ and,
// uncoalesced, 256³ and 128×512×256; g80 matmul 512×512×128; vecadd and
// transpose on both), which it meets within −34% (the transposes, whose
// stores cost more) to +21%, where the rate per instruction alone was off
// by −61% to +197%.
const (
	dramSecondsPerInst = 0.387e-6
	dramSecondsPerTxn  = 0.176e-6
)

// With an L2, loads and stores are apart: a load transaction may hit the
// L1 (Fermi) or go to the L2 only, a store transaction goes through to the
// L2 and its write-backs. Calibrated too: a fit of the relative error over
// fifteen runs of the same day (user seconds; fermi, kepler and maxwell:
// matmul 512³ and, uncoalesced, 256³, transpose 2048, vecadd 2^24; on fermi
// also transpose 4096, copy and matvec), which it meets within −93% to +56%,
// median 28%, where the rate per instruction was off by −96% to +56%,
// median 64%. What it cannot see is DRAM traffic the caches do not stop:
// fermi's matvec (every lane a row of a 64-MiB matrix, 33 M DRAM sectors)
// takes 17.3 s against 1.25 s estimated.
const (
	l2SecondsPerInst     = 0.153e-6
	l2SecondsPerLoadTxn  = 0.0437e-6
	l2SecondsPerStoreTxn = 0.291e-6
)

// estimateOf is the work of one launch on dev, counted within cap
// (workOf), and when timed the time to simulate it: only what is shown
// (on a terminal) needs the time, whose per-thread sample costs up to a
// tenth of a second.
func estimateOf(dev *arch.Device, l *traces.Launch, cap float64, timed bool) workEstimate {
	l.LimitWork(cap)
	w := workEstimate{warpInsts: l.WarpInstructions(), memInsts: l.MemoryInstructions(), blocks: int64(l.Blocks()), launches: 1}
	if timed {
		s := launchSeconds(dev, w.blocks) + simSeconds(dev, l, w.memInsts)
		w.seconds, w.longest, w.leastSeconds, w.leastLongest = s, s, s, s
	}
	return w
}

// simSeconds is the time to simulate launch l of mem memory instructions
// on dev, its set-up aside.
func simSeconds(dev *arch.Device, l *traces.Launch, mem float64) float64 {
	if loads, stores, ok := globalTransactions(dev, l); ok {
		if dev.L2.CachesGlobal() {
			return mem*l2SecondsPerInst + loads*l2SecondsPerLoadTxn + stores*l2SecondsPerStoreTxn
		}
		return mem*dramSecondsPerInst + (loads+stores)*dramSecondsPerTxn
	}
	if l.Kernel.Program.Form == kernel.PerThread {
		if c, scale, ok := threadCounts(dev, l); ok {
			return threadSeconds(dev, l, c, scale)
		}
	}
	return mem / simRate(dev)
}

// Setting up a launch takes time of its own, whatever its work: its
// result, the units every SM has, and for each SM the grid gives a block
// its warp slots, block slots and schedulers, and emptying its L1 (an SM
// left idle is not built: sim.sm.build). Calibrated, not predicted: the
// user seconds of nw-dymaxion and nw-rowmajor (511 launches of one block
// each) on the six devices on 2026-11-29 were 0.18 to 0.31 s, about
// 0.35 ms a launch with the process's start; the time per SM is sim's
// CPU profile of 100 launches of vecadd in 16 blocks on a100 (sm.build,
// 24% of 1.07 ms a launch over 16 SMs).
const (
	launchSetupSeconds      = 0.35e-3
	launchSetupSecondsPerSM = 15e-6
)

// launchSeconds is the time to set up a launch of blocks blocks on dev.
func launchSeconds(dev *arch.Device, blocks int64) float64 {
	return launchSetupSeconds + launchSetupSecondsPerSM*float64(min(blocks, int64(dev.SMs)))
}

// globalTransactions is the global load and store transactions of l on
// dev in closed form, when l is a loop nest the closed form covers
// (ExactCounts refuses the rest, per-thread kernels first).
func globalTransactions(dev *arch.Device, l *traces.Launch) (loads, stores float64, ok bool) {
	exact, err := validate.ExactCounts(dev, l)
	if err != nil {
		return 0, 0, false
	}
	for _, e := range exact {
		if l.Refs[e.Ref].Space != kernel.SpaceGlobal {
			continue
		}
		if e.Op == traces.OpStore {
			stores += float64(e.Transactions)
		} else {
			loads += float64(e.Transactions)
		}
	}
	return loads, stores, true
}

// A per-thread kernel's transactions are counted on a sample of its grid:
// the blocks its work is counted on (Launch.WorkSample, 16 spread over
// it), each streamed for at most txnSampleSteps over their number steps
// of its cursor (its first warps whole where the block is large). Counting takes at most 0.03 s on every
// shipped per-thread example but siddon (under 0.1 s: its rays are set up
// first) on the development machine, where 16 times the steps took up to
// 0.39 s for the same counts within 2% (the stores at the end of Ryoo's
// matmuls aside, which the shorter sample does not reach).
const txnSampleSteps = 1 << 16

// threadCounts is the coalescer's counts of a per-thread launch l on dev,
// counted on a sample of its blocks (above); scale is the launch's memory
// instructions over the sample's, which scales the sample's counts to the
// whole grid. ok is false when counting fails (the simulation then says
// why) or the sample issues no memory instruction.
func threadCounts(dev *arch.Device, l *traces.Launch) (c *sim.Counts, scale float64, ok bool) {
	blocks := l.WorkSample()
	if len(blocks) == 0 {
		return nil, 0, false
	}
	c, err := sim.CountBlocks(context.Background(), dev, l, blocks, txnSampleSteps/int64(len(blocks)))
	if err != nil {
		return nil, 0, false
	}
	req := c.Loads.Requests + c.Stores.Requests + c.Shared.LoadRequests + c.Shared.StoreRequests +
		c.Constant.Requests + c.Texture.Requests
	if req == 0 {
		return nil, 0, false
	}
	return c, l.MemoryInstructions() / float64(req), true
}

// threadRates are the seconds a per-thread kernel's simulation takes per
// unit of its work: the interpreter and issue per warp instruction, and
// more per instruction the more warps are resident (per thousand: a100's
// 6,912 resident warps ran matmul-ryoo-b 2.5 times slower than kepler's
// 832, for the same instructions and transactions, while a100 with one
// block an SM (864 warps) runs at kepler's speed: the warps issued in
// turn evict each other's state from the host's caches, docs/design.md
// "Where the time goes"); per global load and store transaction; per
// shared-memory instruction and per constant or texture pass.
type threadRates struct {
	inst, crowd, load, store, other float64
}

// Calibrated, not predicted: a least-squares fit of the relative error
// (non-negative) to the user seconds of sim.Run of every shipped
// per-thread example that took at least 0.1 s, at its own size, on the
// development machine on 2026-11-29: 76 runs on fermi, kepler, maxwell and
// a100 and 38 on g80 and gt200, the counts those of the estimate (sampled,
// threadCounts). With an L2 it meets the runs within 0.51 to 13.2 times
// (median 1.43, 50 of 76 within 2×; the 26 runs of 10 s or more within
// 0.64 to 2.07), where the rate per memory instruction was off by 0.74 to
// 30 times (median 3.1, 25 within 2×); without, within 0.60 to 13.7
// (median 1.24, 30 of 38 within 2×), where the rate was off by 0.18 to
// 15.4 (21 within 2×). With an L2 the fit gave stores no weight of their
// own (no shipped per-thread kernel stores much), so loads and stores
// share one rate. What no count sees is the traffic the caches fail to
// stop: siddon (gathers along rays) is underestimated 6 to 13 times on
// the L2 devices, kmeans-rodinia-row (each lane a row, through the texture
// caches) 14 times on g80 and gt200. make estimate-error measures the
// same of the whole process (docs/design.md, "Work and limits").
var (
	threadRatesL2   = threadRates{inst: 84e-9, crowd: 57e-9, load: 60e-9, store: 60e-9, other: 100e-9}
	threadRatesDRAM = threadRates{inst: 102e-9, crowd: 25e-9, load: 365e-9, store: 182e-9, other: 95e-9}
)

// threadSeconds is the time to simulate per-thread launch l on dev, from
// its warp instructions, its resident warps and the counts c of its
// sample, scaled by scale (threadCounts).
func threadSeconds(dev *arch.Device, l *traces.Launch, c *sim.Counts, scale float64) float64 {
	r := threadRatesDRAM
	if dev.L2.CachesGlobal() {
		r = threadRatesL2
	}
	other := c.Shared.LoadRequests + c.Shared.StoreRequests + c.Constant.Passes + c.Texture.Passes
	inst := r.inst + r.crowd*float64(residentWarps(dev, l))/1000
	return l.WarpInstructions()*inst + scale*(float64(c.Loads.Transactions)*r.load+
		float64(c.Stores.Transactions)*r.store+float64(other)*r.other)
}

// residentWarps is the warps of l resident on dev at once: every SM full
// of blocks, or the whole grid when it is smaller.
func residentWarps(dev *arch.Device, l *traces.Launch) int {
	o, err := dev.Occupancy(l.Block, l.Regs, l.Smem)
	if err != nil {
		return 0 // the simulation says what is wrong with the launch
	}
	return min(l.Blocks(), o.ActiveBlocks*dev.SMs) * l.WarpsPerBlock()
}

// sampledOf is the estimate of launch l on dev, sampled when sample is
// set: its time then runs from that of the fewest blocks the sampler
// simulates (warm-up, shortest window, the wave in flight, the grid's
// partial last wave) up to that of every block, since the sampler goes on
// while the rates are not steady. regs is -regs, 0 for the kernel's own;
// timed as for estimateOf.
func sampledOf(dev *arch.Device, l *traces.Launch, cap float64, sample bool, regs int, timed bool) workEstimate {
	w := estimateOf(dev, l, cap, timed)
	if !timed || !sample || w.blocks < 1 {
		return w
	}
	least, err := sim.SampledAtLeast(dev, l, regs)
	if err != nil {
		return w // the simulation says what is wrong with the launch
	}
	f := float64(least) / float64(w.blocks)
	w.leastSeconds, w.leastLongest, w.sampled = w.seconds*f, w.longest*f, true
	return w
}

// add is the work of w's launches and o's.
func (w workEstimate) add(o workEstimate) workEstimate {
	return workEstimate{warpInsts: w.warpInsts + o.warpInsts, memInsts: w.memInsts + o.memInsts,
		blocks: w.blocks + o.blocks, launches: w.launches + o.launches,
		seconds: w.seconds + o.seconds, longest: max(w.longest, o.longest),
		leastSeconds: w.leastSeconds + o.leastSeconds, leastLongest: max(w.leastLongest, o.leastLongest),
		sampled: w.sampled || o.sampled}
}

// wall is the estimated wall-clock time on workers cores that take the
// launches whole: the work shared out evenly, and never less than the
// longest launch.
func (w workEstimate) wall(workers int) float64 {
	return wallOf(w.seconds, w.longest, w.launches, workers)
}

// wallOf is wall for seconds of work whose longest launch takes longest.
func wallOf(seconds, longest float64, launches, workers int) float64 {
	cores := min(workers, launches)
	if cores < 1 {
		return 0
	}
	return max(seconds/float64(cores), longest)
}

// line is the estimate as printed before simulating on workers cores:
//
//	work: 4.72 M warp instructions (1.05 M memory), 256 blocks; estimated 525 ms
//
// and of sampled runs, where the sampler may skip blocks:
//
//	work: 302 M warp instructions (67.1 M memory), 4096 blocks; estimated 24 s to 2.2 min, sampled
func (w workEstimate) line(workers int) string {
	s := fmt.Sprintf("work: %s warp instructions (%s memory), %d block", count(w.warpInsts), count(w.memInsts), w.blocks)
	if w.blocks != 1 {
		s += "s"
	}
	if w.launches > 1 {
		s += fmt.Sprintf(" in %d simulations", w.launches)
	}
	most := duration(w.wall(workers))
	least := duration(wallOf(w.leastSeconds, w.leastLongest, w.launches, workers))
	ranged := w.sampled && least != most
	if ranged {
		most = least + " to " + most
	}
	s += "; estimated " + most
	if cores := min(workers, w.launches); cores > 1 {
		s += fmt.Sprintf(" on %d cores", cores)
	}
	if ranged {
		s += ", sampled"
	}
	return s
}

// count writes a count with three significant digits and a metric
// prefix: 512, 16.8 k, 8.39 M, 2 G.
func count(v float64) string {
	prefix := ""
	for _, p := range []string{" k", " M", " G", " T"} {
		if v < 999.5 {
			break
		}
		v, prefix = v/1000, p
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + prefix
}

// duration writes seconds with two significant digits in a unit that
// keeps them readable: 40 ms, 3.1 s, 45 s, 2.5 min, 12 h.
func duration(s float64) string {
	switch {
	case s < 1:
		return digits2(s*1000) + " ms"
	case s < 60:
		return digits2(s) + " s"
	case s < 3600:
		return digits2(s/60) + " min"
	}
	return digits2(s/3600) + " h"
}

// digits2 writes v with two significant digits, or as a whole number from
// 10 up.
func digits2(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
