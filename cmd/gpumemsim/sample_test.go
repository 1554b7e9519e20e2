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
