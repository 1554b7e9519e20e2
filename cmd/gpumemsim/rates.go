package main

import (
	"context"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
	"gpumemsim/validate"
)

// The time a launch's simulation takes is estimated as a sum of terms,
// each a count of its work times a rate in seconds. Which counts depends
// on the class of the launch and of its device (rateClass): a loop nest's
// global transactions have a closed form, a per-thread kernel's are
// counted on a sample of its blocks; a device with an L2 for global
// memory stops misses that a device without one sends to the DRAM model.
type rateClass int

const (
	nestL2 rateClass = iota
	nestDRAM
	threadL2
	threadDRAM
	rateClasses
)

// terms is a launch's work in its class's units, or the seconds each
// unit costs, in the order of the term indices below; a class leaves the
// terms it does not use 0.
type terms [5]float64

// A loop nest's terms: its memory instructions, its global load and
// store transactions, and its memory instructions times its resident
// warps in thousands (as a per-thread kernel's threadCrowd, below).
const (
	nestMem = iota
	nestLoad
	nestStore
	nestCrowd
)

// A per-thread kernel's terms: its warp instructions (the interpreter and
// issue); the same times its resident warps in thousands (the warps,
// issued in turn, evict each other's state from the host's caches: a100's
// 6,912 resident warps ran matmul-ryoo-b 2.5 times slower than kepler's
// 832 for the same instructions and transactions, while a100 with one
// block an SM, 864 warps, ran at kepler's speed; docs/speed-log.md,
// "What sets it is the number of warps resident"); its global load and
// store transactions; and its shared-memory instructions and constant
// and texture passes.
const (
	threadInst = iota
	threadCrowd
	threadLoad
	threadStore
	threadOther
)

// termNames names each class's terms for the fit (ratefit_test.go): a
// loop nest's with an L2 or without, a per-thread kernel's likewise.
var termNames = [rateClasses][]string{nestL2: nestTermNames, nestDRAM: nestTermNames, threadL2: threadTermNames, threadDRAM: threadTermNames}

var (
	nestTermNames   = []string{"memory instruction", "load transaction", "store transaction", "memory instruction × 1000 resident warps"}
	threadTermNames = []string{"warp instruction", "warp instruction × 1000 resident warps", "load transaction", "store transaction", "shared instruction or constant/texture pass"}
)

// className names a class in the fit's output.
var className = [rateClasses]string{"loop nests with an L2", "loop nests without", "per-thread with an L2", "per-thread without"}

// rates are the seconds per unit of each class's terms. Calibrated, not
// predicted: `ROWS=/tmp/rows make fit-rates` (ratefit_test.go) on the
// development machine on 2026-12-02, 01:09 to 01:33 UTC. It timed sim.Run
// of every shipped example at its own size, and of three loop nests at
// other sizes (rateExtra), on g80, gt200, fermi, kepler, maxwell and
// a100, in user seconds, and fitted each class to its runs of at least
// 0.1 s by non-negative least squares of the relative error, scaled to a
// median of actual over estimated of 1; it timed the probe of the host's
// speed beside them (hostspeed.go: probeReference). Actual over estimated
// on the runs fitted, then on each kernel under rates fitted without it,
// then under the rates before (fitted on 2026-11-29, whose rows are
// testdata/rates-2026-11-29.tsv); the rows are
// testdata/rates-2026-12-02.tsv:
//
//	loop nests with an L2  53 runs  0.31 to 7.97, 39 within 2×   0.28 to 10.6, 34   0.15 to 2.82, median 0.48, 20
//	loop nests without     26 runs  0.61 to 1.89, all within 2×  0.53 to 1.92, 26   0.32 to 1.06, median 0.56, 20
//	per-thread with an L2  71 runs  0.44 to 5.39, 39 within 2×   0.05 to 6.15, 31   0.08 to 2.00, median 0.31, 23
//	per-thread without     36 runs  0.51 to 17.3, 30 within 2×   0.39 to 23.1, 24   0.18 to 7.79, median 0.47, 14
//
// The rates before ran two to three times slow on this sitting's runs:
// the host ran faster than on 2026-11-29 (the loop nests without an L2,
// whose code changed least between, took 0.56 of the time), and the
// per-thread kernels' cursor had become faster still (0.31). What no
// term sees is the traffic the caches fail to stop: kmeans-peng on a100,
// fermi and maxwell took 6.3 to 8.0 times its fitted estimate, matvec on
// fermi 6.0, siddon (gathers along rays) on a100 5.0, and most of all
// kmeans-rodinia-row (each lane a row, through the texture caches) on g80
// and gt200 13.5 to 17.3. The fit gives per-thread stores on the L2
// devices no weight (no shipped per-thread kernel stores much), nor the
// per-thread kernels' term per resident warp without an L2.
var rates = [rateClasses]terms{
	nestL2:     {nestMem: 173e-9, nestLoad: 36.1e-9, nestStore: 325e-9, nestCrowd: 326e-9},
	nestDRAM:   {nestMem: 254e-9, nestLoad: 156e-9, nestStore: 241e-9, nestCrowd: 15.5e-9},
	threadL2:   {threadInst: 28.4e-9, threadCrowd: 31.6e-9, threadLoad: 113e-9, threadStore: 0, threadOther: 35.2e-9},
	threadDRAM: {threadInst: 46.1e-9, threadCrowd: 0, threadLoad: 282e-9, threadStore: 316e-9, threadOther: 38.9e-9},
}

// Simulation speed, in memory instructions per second on one core, for
// what neither class covers (a loop nest outside the closed form, a
// sample that cannot be counted, an Accel-Sim trace). Rough figures,
// measured on the project's 2-core development machine with
//
//	cd sim && go test -run XXX -bench BenchmarkRun -benchtime 1x -count 5
//
// and rounded from the medians: BenchmarkRun/matmul/fermi (2.0 M/s) for
// devices with an L2, BenchmarkRun/matmul/gt200 (0.57 M/s) for those
// without, whose every miss goes straight to the DRAM model. The kernel
// matters as much as the device: per memory instruction, vecadd/fermi
// runs 3× slower than matmul/fermi, transpose/fermi (uncoalesced stores)
// 12×, matmul-uncoalesced/gt200 4× slower than matmul/gt200.
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

// simSeconds is the time to simulate launch l of mem memory instructions
// on dev, its set-up aside: its terms at their class's rates, or mem at
// the device's rate where it has no terms.
func simSeconds(dev *arch.Device, l *traces.Launch, mem float64) float64 {
	if c, x, ok := termsOf(dev, l); ok {
		return rates[c].price(x)
	}
	return mem / simRate(dev)
}

// price is the seconds of work x at rates r.
func (r terms) price(x terms) float64 {
	var s float64
	for i := range r {
		s += r[i] * x[i]
	}
	return s
}

// termsOf is l's class on dev and its work in that class's terms; ok is
// false for a launch of neither class.
func termsOf(dev *arch.Device, l *traces.Launch) (c rateClass, x terms, ok bool) {
	l2 := dev.L2.CachesGlobal()
	if loads, stores, ok := globalTransactions(dev, l); ok {
		c = nestDRAM
		if l2 {
			c = nestL2
		}
		mem := l.MemoryInstructions()
		return c, terms{nestMem: mem, nestLoad: loads, nestStore: stores,
			nestCrowd: mem * float64(residentWarps(dev, l)) / 1000}, true
	}
	if l.Kernel.Program.Form != kernel.PerThread {
		return 0, x, false
	}
	counts, scale, ok := threadCounts(dev, l)
	if !ok {
		return 0, x, false
	}
	c = threadDRAM
	if l2 {
		c = threadL2
	}
	return c, threadTerms(dev, l, counts, scale), true
}

// threadTerms is per-thread launch l's work on dev: its warp instructions,
// its resident warps and the counts c of its sample, scaled by scale
// (threadCounts).
func threadTerms(dev *arch.Device, l *traces.Launch, c *sim.Counts, scale float64) terms {
	other := c.Shared.LoadRequests + c.Shared.StoreRequests + c.Constant.Passes + c.Texture.Passes
	inst := l.WarpInstructions()
	return terms{
		threadInst:  inst,
		threadCrowd: inst * float64(residentWarps(dev, l)) / 1000,
		threadLoad:  scale * float64(c.Loads.Transactions),
		threadStore: scale * float64(c.Stores.Transactions),
		threadOther: scale * float64(other),
	}
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
// the blocks the count of its work begins with (Launch.CountSample, 16
// spread over it), each streamed for at most txnSampleSteps over their
// number steps of its cursor (its first warps whole where the block is
// large).
// Counting takes at most 0.03 s on every shipped per-thread example but
// siddon (under 0.1 s: its rays are set up first) on the development
// machine, where 16 times the steps took up to 0.39 s for the same counts
// within 2% (the stores at the end of Ryoo's matmuls aside, which the
// shorter sample does not reach).
const txnSampleSteps = 1 << 16

// threadCounts is the coalescer's counts of a per-thread launch l on dev,
// counted on a sample of its blocks (above); scale is the launch's memory
// instructions over the sample's, which scales the sample's counts to the
// whole grid. ok is false when counting fails (the simulation then says
// why) or the sample issues no memory instruction.
func threadCounts(dev *arch.Device, l *traces.Launch) (c *sim.Counts, scale float64, ok bool) {
	blocks := l.CountSample()
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
