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
)

// sampleFlags are -sample and its tolerances, shared by run and validate.
type sampleFlags struct {
	on             *bool
	cycles, counts *float64
}

func addSampleFlags(fs *flag.FlagSet) *sampleFlags {
	return &sampleFlags{
		on:     fs.Bool("sample", false, "simulate whole waves of blocks until they are steady (cycles and counts within -"+cyclesTolFlag+" and -"+countTolFlag+" at 95% confidence), skip middle waves and extrapolate them (their transactions counted exactly where that is cheap); extrapolated metrics get 95% confidence intervals"),
		cycles: fs.Float64(cyclesTolFlag, 100*sim.DefaultCyclesTolerance, "with -sample, the largest 95% confidence half-width of the extrapolated cycles, in `percent` of the total, at which the sampler skips (larger: fewer waves simulated, wider intervals)"),
		counts: fs.Float64(countTolFlag, 100*sim.DefaultCountTolerance, "with -sample, the same for the extrapolated L1 and L2 hits and misses and DRAM reads and writes, in `percent`"),
	}
}

// options checks the tolerances fs parsed and returns the sampler's
// options: a tolerance needs -sample, and lies above 0 and at most
// maxSampleTol percent.
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
	return sim.SampleOptions{On: *f.on, CyclesTolerance: *f.cycles / 100, CountTolerance: *f.counts / 100}, nil
}

// samplingLine says what a sampled run simulated.
func samplingLine(s *sim.Sampling) string {
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
