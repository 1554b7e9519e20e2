package main

import (
	"flag"
	"fmt"
	"strconv"

	"gpumemsim/sim"
)

// The flags of the sampler's tolerances, in percent of the total
// (sim.SampleOptions); a half-width of more than half the total says
// nothing of it.
const (
	cyclesTolFlag = "sample-cycles-tol"
	countTolFlag  = "sample-count-tol"
	maxSampleTol  = 50
	warmupFlag    = "sample-warmup"
	maxWarmup     = 1 << 20
)

// sampleFlags are -sample and its tolerances, shared by run and validate.
type sampleFlags struct {
	on             *bool
	cycles, counts *float64
	warmup         *int
}

func addSampleFlags(fs *flag.FlagSet) *sampleFlags {
	return &sampleFlags{
		on:     fs.Bool("sample", false, "simulate whole waves of blocks until they are steady (cycles and counts within -"+cyclesTolFlag+" and -"+countTolFlag+" at 95% confidence), skip middle waves and extrapolate them (their transactions counted exactly where that is cheap); extrapolated metrics get 95% confidence intervals"),
		cycles: fs.Float64(cyclesTolFlag, 100*sim.DefaultCyclesTolerance, "with -sample, the largest 95% confidence half-width of the extrapolated cycles, in `percent` of the total, at which the sampler skips (larger: fewer waves simulated, wider intervals)"),
		counts: fs.Float64(countTolFlag, 100*sim.DefaultCountTolerance, "with -sample, the same for the extrapolated L1 and L2 hits and misses and DRAM reads and writes, in `percent`"),
		warmup: fs.Int(warmupFlag, sim.DefaultWarmup, "with -sample, the fewest `waves` simulated before the window whose rates stand for the skipped waves begins (longer: a window past rates that settle late, such as DRAM's row hits as the SMs fall out of step; -waves shows a run's waves)"),
	}
}

// options checks the tolerances and the warm-up fs parsed and returns the
// sampler's options: each needs -sample; a tolerance lies above 0 and at
// most maxSampleTol percent, a warm-up from 1 to maxWarmup waves.
func (f *sampleFlags) options(fs *flag.FlagSet) (sim.SampleOptions, error) {
	tols := []struct {
		name string
		v    float64
	}{{cyclesTolFlag, *f.cycles}, {countTolFlag, *f.counts}}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, t := range tols {
		if set[t.name] && !*f.on {
			return sim.SampleOptions{}, fmt.Errorf("-%s: a tolerance of the sampler needs -sample; hint: add -sample, or leave out -%s", t.name, t.name)
		}
		if !(t.v > 0 && t.v <= maxSampleTol) { // NaN fails too
			return sim.SampleOptions{}, fmt.Errorf("-%s: want a percentage above 0 and at most %d; got %v", t.name, maxSampleTol, t.v)
		}
	}
	if set[warmupFlag] && !*f.on {
		return sim.SampleOptions{}, fmt.Errorf("-%s: the sampler's warm-up needs -sample; hint: add -sample, or leave out -%s", warmupFlag, warmupFlag)
	}
	if *f.warmup < 1 || *f.warmup > maxWarmup {
		return sim.SampleOptions{}, fmt.Errorf("-%s: want a number of waves from 1 to %d; got %d", warmupFlag, maxWarmup, *f.warmup)
	}
	return sim.SampleOptions{On: *f.on, CyclesTolerance: *f.cycles / 100, CountTolerance: *f.counts / 100, Warmup: *f.warmup}, nil
}

// samplingLine says what a sampled run simulated.
func samplingLine(s *sim.Sampling) string {
	if s.SkippedBlocks == 0 && s.NoWindow {
		return fmt.Sprintf("Sampled  all %d blocks simulated (exact): the grid is too short for the warm-up (%s), a window of %d waves and a skip of %.0f%% of it", s.SimulatedBlocks, waveCount(s.WarmupWaves), sim.SampleMinWindow, 100*sim.SampleMinSkip)
	}
	if s.SkippedBlocks == 0 {
		return fmt.Sprintf("Sampled  all %d blocks simulated (exact): the rates were not steady while a skip could still leave out %.0f%% of the grid", s.SimulatedBlocks, 100*sim.SampleMinSkip)
	}
	how := "extrapolated"
	if s.Counted {
		how = "counted"
	}
	return fmt.Sprintf("Sampled  %d of %d blocks simulated (waves of %d; %d waves skipped, rates from %d batches of the waves before, after a warm-up of %d; their transactions %s); cycles ± %.0f (95%% CI)",
		s.SimulatedBlocks, s.SimulatedBlocks+s.SkippedBlocks, s.WaveBlocks, s.SkippedBlocks/s.WaveBlocks, s.Window, s.WarmupWaves, how, s.CyclesCI95)
}

// waveCount is n waves in words: "1 wave", "12 waves".
func waveCount(n int) string {
	if n == 1 {
		return "1 wave"
	}
	return strconv.Itoa(n) + " waves"
}

// valueText is a metric's value, with its 95% confidence interval when it
// has one.
func valueText(m sim.Metric) string {
	if m.CI95 == nil {
		return formatValue(m)
	}
	return formatValue(m) + " ± " + formatCI(m)
}

// formatCI is the half-width of a metric's interval, "" when exact.
func formatCI(m sim.Metric) string {
	if m.CI95 == nil {
		return ""
	}
	v := strconv.FormatFloat(*m.CI95, 'g', 3, 64)
	if m.Unit == "%" {
		v += "%"
	}
	return v
}
