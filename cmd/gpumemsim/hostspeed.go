package main

import (
	"context"
	"sync"
	"time"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// The rates (rates.go) are seconds on the machine, and in the sitting,
// they were fitted in; another machine, or the same one on another day
// (its speed moved by up to 2.5 times between sittings,
// docs/speed-log.md), runs every launch faster or slower by much the same
// factor. So the estimate times a small probe first, the same launches
// each time, and scales the rates by its time over the probe's time in
// the sitting of the fit (TestRateRows times it beside the rows, and
// TestRateFit prints the median). It scales only the estimate a terminal
// shows: nothing a run writes depends on it.

// probeReference is the probe's seconds (probeSeconds) in the sitting the
// rates were fitted in: the median of the probe lines of
// testdata/rates-2026-12-02.tsv.
const probeReference = 0.0194

// probeRounds is how many times the probe runs; its time is the fastest,
// which a moment's interruption of the process does not lengthen.
const probeRounds = 3

// probeCase is one launch of the probe: a loop nest through the full
// hierarchy, and one whose every transaction goes to the DRAM model,
// each some ten milliseconds.
type probeCase struct {
	device, kernel string
	n              int64 // M = N = P
}

var probeCases = []probeCase{{"fermi", "matmul", 96}, {"gt200", "matmul", 64}}

// probeLaunches binds the probe's launches.
func probeLaunches() ([]*arch.Device, []*traces.Launch, error) {
	var devs []*arch.Device
	var ls []*traces.Launch
	for _, c := range probeCases {
		dev, err := configs.Load(c.device)
		if err != nil {
			return nil, nil, err
		}
		k, err := kernel.Load(c.kernel)
		if err != nil {
			return nil, nil, err
		}
		l, err := bindLaunch(k, nil, arch.Dim3{}, map[string]int64{"M": c.n, "N": c.n, "P": c.n}, dev)
		if err != nil {
			return nil, nil, err
		}
		devs, ls = append(devs, dev), append(ls, l)
	}
	return devs, ls, nil
}

// probeSeconds is the fastest of probeRounds wall-clock times of the
// probe's launches, run one after the other.
func probeSeconds() (float64, error) {
	devs, ls, err := probeLaunches()
	if err != nil {
		return 0, err
	}
	best := time.Duration(1<<63 - 1)
	for range probeRounds {
		start := time.Now()
		for i, l := range ls {
			if _, err := sim.Run(context.Background(), devs[i], l, sim.Options{}); err != nil {
				return 0, err
			}
		}
		best = min(best, time.Since(start))
	}
	return best.Seconds(), nil
}

// probeWorth is the least work, in seconds at the rates as fitted, whose
// estimate is worth the probe: the probe adds some 70 ms to a command on
// a terminal (binding its launches, three rounds), which a run estimated
// at less than a second would feel, and whose estimate, however scaled,
// says only that it is short.
const probeWorth = 1.0

// onThisHost is w with its times at this host's speed: scaled by
// hostScale, where w is worth the probe.
func (w workEstimate) onThisHost() workEstimate {
	if w.seconds < probeWorth {
		return w
	}
	return w.scaled(hostScale())
}

// hostScale is the factor the rates are scaled by on this host now,
// probed once per process.
var hostScale = sync.OnceValue(func() float64 {
	s, err := probeSeconds()
	if err != nil {
		return 1
	}
	return scaleOf(s, probeReference)
})

// scaleOf is the factor a probe of seconds gives against ref: their
// ratio, within [1/16, 16], or 1 where either is not positive (the rates
// as fitted).
func scaleOf(seconds, ref float64) float64 {
	if !(seconds > 0) || !(ref > 0) {
		return 1
	}
	return min(max(seconds/ref, 1.0/16), 16)
}
