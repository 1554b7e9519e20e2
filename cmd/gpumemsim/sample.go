package main

import (
	"flag"
	"fmt"
	"strconv"

	"gpumemsim/sim"
)

// sampleFlag is -sample, shared by run and validate.
func sampleFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("sample", false, "simulate whole waves of blocks until they are steady (cycles within 2%, counts within 1% at 95% confidence), skip middle waves and extrapolate them (their transactions counted exactly where that is cheap); extrapolated metrics get 95% confidence intervals")
}

// samplingLine says what a sampled run simulated.
func samplingLine(s *sim.Sampling) string {
	if s.SkippedBlocks == 0 {
		return fmt.Sprintf("Sampled  no steady state to extrapolate from: all %d blocks simulated (exact)", s.SimulatedBlocks)
	}
	how := "extrapolated"
	if s.Counted {
		how = "counted"
	}
	return fmt.Sprintf("Sampled  %d of %d blocks simulated (waves of %d; %d waves skipped, rates from %d batches of the waves before; their transactions %s); cycles ± %.0f (95%% CI)",
		s.SimulatedBlocks, s.SimulatedBlocks+s.SkippedBlocks, s.WaveBlocks, s.SkippedBlocks/s.WaveBlocks, s.Window, how, s.CyclesCI95)
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
