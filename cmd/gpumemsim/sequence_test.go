package main

import (
	"encoding/json"
	"strconv"
	"testing"
)

// nwFile is Needleman-Wunsch, a kernel file with a sequence of launches.
const nwFile = "nw-shared"

// TestSequenceGolden: run prints a line per launch of a sequence and the
// total; the commands that take one launch say how to get one.
func TestSequenceGolden(t *testing.T) {
	small := "N=64" // 7 launches of 1 to 4 tiles
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run-nw-fermi", []string{"run", "-device", "fermi", "-kernel", nwFile, "-set", small}},
		{"run-nw-gt200-csv", []string{"run", "-device", "gt200", "-kernel", nwFile, "-set", small, "-format", "csv"}},
		{"run-nw-kepler-gpgpusim", []string{"run", "-device", "kepler", "-kernel", nwFile, "-set", "N=32", "-metrics", "gpgpusim"}},
		{"trace-nw-launch", []string{"trace", "-device", "fermi", "-kernel", nwFile, "-set", small, "-launch", "6", "-warps", "2"}},
		{"seq-err-trace", []string{"trace", "-kernel", nwFile}},
		{"seq-err-trace-launch", []string{"trace", "-kernel", nwFile, "-set", small, "-launch", "8"}},
		{"seq-err-launch-one", []string{"trace", "-kernel", "vecadd", "-launch", "1"}},
		{"seq-err-launch-zero", []string{"trace", "-kernel", nwFile, "-set", small, "-launch", "0"}},
		{"seq-err-estimate", []string{"estimate", "-kernel", nwFile}},
		{"seq-err-grid", []string{"run", "-kernel", nwFile, "-grid", "4"}},
		{"seq-err-sample", []string{"run", "-kernel", nwFile, "-set", small, "-sample"}},
		{"seq-err-set", []string{"run", "-kernel", nwFile, "-set", "i=3"}},
		{"seq-err-work", []string{"run", "-kernel", nwFile, "-max-work", "1e6"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// The JSON of a sequence has a launch per launch, with its grid, what it
// set and its metrics, and the total's metrics, which add the launches'.
func TestSequenceJSON(t *testing.T) {
	out := runTwice(t, "run", "-device", "fermi", "-kernel", nwFile, "-set", "N=64", "-format", "json")
	var v struct {
		Kernel   string `json:"kernel"`
		Launches []struct {
			Grid    string             `json:"grid"`
			Set     map[string]int64   `json:"set"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"launches"`
		Metrics    map[string]float64 `json:"metrics"`
		References []map[string]any   `json:"references"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	grids := []int64{1, 2, 3, 4, 3, 2, 1} // needle.cu's i

	if v.Kernel != "nw-shared" || len(v.Launches) != len(grids) {
		t.Fatalf("kernel %q with %d launches; want nw-shared with %d", v.Kernel, len(v.Launches), len(grids))
	}
	sums := map[string]float64{}
	for i, l := range v.Launches {
		phase := int64(1)
		if i >= 4 {
			phase = 2
		}
		if l.Grid != strconv.FormatInt(grids[i], 10) || l.Set["i"] != grids[i] || l.Set["phase"] != phase {
			t.Errorf("launch %d: grid %s set %v; want grid %d, i=%d, phase=%d", i+1, l.Grid, l.Set, grids[i], grids[i], phase)
		}
		for _, k := range []string{"sim_cycles", "gld_transactions", "gst_transactions", "l2_read_transactions", "dram_read_transactions"} {
			sums[k] += l.Metrics[k]
		}
	}
	for k, sum := range sums {
		if v.Metrics[k] != sum {
			t.Errorf("total %s = %v; the launches add up to %v", k, v.Metrics[k], sum)
		}
	}
	if len(v.References) == 0 {
		t.Error("no references")
	}
}
