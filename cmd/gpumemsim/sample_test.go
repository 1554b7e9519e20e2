package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// run -sample says what it simulated in every format: JSON gives the
// sampling and an interval for extrapolated metrics and none for the exact
// instruction and transaction counts, text a Sampled line and ± on extrapolated values,
// CSV a CI95 column.
func TestRunSampleFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 32768 blocks")
	}
	skipUnderRace(t)
	// vecadd N=2^22 on fermi: 32768 blocks of 128 threads, waves of 120
	// (8 blocks on each of 15 SMs), 2^22/32 = 131072 warps of two loads
	// and one store each.
	args := []string{"run", "-device", "fermi", "-kernel", "vecadd", "-set", "N=4194304", "-sample"}
	var v struct {
		Metrics  map[string]float64 `json:"metrics"`
		CI95     map[string]float64 `json:"ci95"`
		Sampling struct {
			WaveBlocks      int64 `json:"wave_blocks"`
			SimulatedBlocks int64 `json:"simulated_blocks"`
			SkippedBlocks   int64 `json:"skipped_blocks"`
		} `json:"sampling"`
	}
	if err := json.Unmarshal(runTwice(t, append(args, "-format", "json")...), &v); err != nil {
		t.Fatal(err)
	}
	s := v.Sampling
	if s.WaveBlocks != 120 || s.SkippedBlocks == 0 || s.SimulatedBlocks+s.SkippedBlocks != 32768 {
		t.Errorf("sampling %+v: want waves of 120 and some of 32768 blocks skipped", s)
	}
	if v.Metrics["inst_executed_global_loads"] != 2*131072 || v.Metrics["inst_executed_global_stores"] != 131072 {
		t.Errorf("instruction counts %v, %v: want 262144 and 131072 exactly",
			v.Metrics["inst_executed_global_loads"], v.Metrics["inst_executed_global_stores"])
	}
	if _, ok := v.CI95["inst_executed_global_loads"]; ok {
		t.Error("an exact instruction count has an interval")
	}
	// Counted over the skipped blocks: one 128-B line per warp load.
	if _, ok := v.CI95["gld_transactions"]; ok || v.Metrics["gld_transactions"] != 2*131072 {
		t.Errorf("gld_transactions %v (interval: %v): want 262144 exactly, counted", v.Metrics["gld_transactions"], ok)
	}
	if _, ok := v.CI95["sim_cycles"]; !ok {
		t.Error("sim_cycles, extrapolated, has no interval")
	}
	text := string(runTwice(t, args...))
	if !strings.Contains(text, "\nSampled  ") || !strings.Contains(text, " ± ") {
		t.Errorf("text output lacks the Sampled line or an interval:\n%s", text)
	}
	rows, err := csv.NewReader(strings.NewReader(string(runTwice(t, append(args, "-format", "csv")...)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := rows[0]; h[len(h)-1] != "CI95" {
		t.Errorf("CSV header %v: want a last column CI95", h)
	}
}

// The sampler's tolerances trade simulated blocks for the width of the
// interval: on gt200's transpose at N=2048 (16,384 blocks of 256 threads,
// waves of 4 × 30 = 120), the default 2% needs many waves, while 50%
// stops within a wave of the least a sampled run simulates (the warm-up,
// four waves, the one in flight: 720, then 130 whole waves of the 15,664
// left skipped, the 64 after them simulated: 784). The JSON says which
// tolerances held, and the instruction count, exact, does not move.
func TestRunSampleTolerances(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates thousands of blocks twice")
	}
	skipUnderRace(t)
	type out struct {
		Metrics  map[string]float64 `json:"metrics"`
		Sampling struct {
			SimulatedBlocks int64   `json:"simulated_blocks"`
			SkippedBlocks   int64   `json:"skipped_blocks"`
			CyclesCI95      float64 `json:"cycles_ci95"`
			CyclesTolerance float64 `json:"cycles_tolerance"`
			CountTolerance  float64 `json:"count_tolerance"`
			WarmupWaves     int     `json:"warmup_waves"`
		} `json:"sampling"`
	}
	sampled := func(tols ...string) out {
		args := append([]string{"run", "-device", "gt200", "-kernel", "transpose", "-set", "N=2048", "-sample", "-format", "json"}, tols...)
		var v out
		if err := json.Unmarshal(runTwice(t, args...), &v); err != nil {
			t.Fatal(err)
		}
		if s := v.Sampling; s.SimulatedBlocks+s.SkippedBlocks != 16384 || s.SkippedBlocks%120 != 0 {
			t.Fatalf("tolerances %v: sampling %+v, want 16384 blocks, whole waves of 120 skipped", tols, s)
		}
		// 2048²/32 warps, one load and one store each.
		if got := v.Metrics["inst_executed_global_loads"]; got != 2048*2048/32 {
			t.Errorf("tolerances %v: %v warp loads, want 131072", tols, got)
		}
		return v
	}
	def, loose := sampled(), sampled("-sample-cycles-tol", "50", "-sample-count-tol", "50")
	if d := def.Sampling; d.CyclesTolerance != 0.02 || d.CountTolerance != 0.01 {
		t.Errorf("default tolerances %v, %v: want 0.02 and 0.01", d.CyclesTolerance, d.CountTolerance)
	}
	l := loose.Sampling
	if l.CyclesTolerance != 0.5 || l.CountTolerance != 0.5 {
		t.Errorf("tolerances %v, %v: want the 50%% asked for", l.CyclesTolerance, l.CountTolerance)
	}
	if l.SimulatedBlocks < 784 || l.SimulatedBlocks > 784+120 {
		t.Errorf("at 50%%: %d blocks simulated, want within a wave above the least, 784", l.SimulatedBlocks)
	}
	if def.Sampling.SimulatedBlocks < 2*l.SimulatedBlocks {
		t.Errorf("at 2%%: %d blocks simulated, want at least twice the %d at 50%%", def.Sampling.SimulatedBlocks, l.SimulatedBlocks)
	}
	if rel := def.Sampling.CyclesCI95 / def.Metrics["sim_cycles"]; rel > 0.02 {
		t.Errorf("at 2%%: cycles ± %.2f%%, want within the tolerance", 100*rel)
	}
	if def.Sampling.CyclesCI95 >= l.CyclesCI95 {
		t.Errorf("cycles ± %v at 2%%, ± %v at 50%%: want the looser tolerance's wider", def.Sampling.CyclesCI95, l.CyclesCI95)
	}
	// A warm-up of 6 waves: 11 before the skip (the warm-up, four, the
	// wave in flight), 1,320 blocks, and the 64 of the partial last
	// wave: 1,384 at the least.
	w := sampled("-sample-cycles-tol", "50", "-sample-count-tol", "50", "-sample-warmup", "6").Sampling
	if w.WarmupWaves < 6 || w.SimulatedBlocks < 1384 || w.SimulatedBlocks > 1384+120 {
		t.Errorf("warm-up 6 at 50%%: a warm-up of %d waves and %d blocks simulated, want at least 6 and within a wave above the least, 1,384", w.WarmupWaves, w.SimulatedBlocks)
	}
}

// A sampled run that skips nothing says why: vecadd N=2^16 on fermi is
// 512 blocks, under five waves of 120, too short for the warm-up, a window
// and a skip; the JSON says so as no_window.
func TestRunSampleTooShort(t *testing.T) {
	args := []string{"run", "-device", "fermi", "-kernel", "vecadd", "-set", "N=65536", "-sample"}
	text := string(runTwice(t, args...))
	if want := "Sampled  all 512 blocks simulated (exact): the grid is too short for the warm-up (1 wave), a window of 4 waves and a skip of 30% of it\n"; !strings.Contains(text, want) {
		t.Errorf("text output lacks %q:\n%s", want, text)
	}
	var v struct {
		Sampling struct {
			NoWindow bool `json:"no_window"`
		} `json:"sampling"`
	}
	if err := json.Unmarshal(runTwice(t, append(args, "-format", "json")...), &v); err != nil || !v.Sampling.NoWindow {
		t.Errorf("JSON sampling.no_window %v (%v), want true", v.Sampling.NoWindow, err)
	}
}
