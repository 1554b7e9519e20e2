package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// runWaves runs run with args, -waves to a temporary file and -format
// json, and returns the JSON and the file's records.
func runWaves(t *testing.T, args ...string) ([]byte, [][]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "waves.csv")
	var stdout, stderr bytes.Buffer
	args = append(append([]string{"run"}, args...), "-waves", path, "-format", "json")
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return stdout.Bytes(), recs
}

// run -waves writes one row per whole wave: vecadd 2^16 on gt200 runs 512
// blocks in waves of 240 (8 blocks of 128 threads on each of 30 SMs), so
// two rows, at 240 and 480 blocks; the rows' cycles lie within the run's.
func TestRunWaves(t *testing.T) {
	_, recs := runWaves(t, "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536")
	if len(recs) != 3 || len(recs[0]) != 1+len(waveColumns) {
		t.Fatalf("%d records of %d fields, want a header and 2 rows of %d", len(recs), len(recs[0]), 1+len(waveColumns))
	}
	if recs[0][0] != "phase" || recs[1][0] != "" || recs[2][0] != "" {
		t.Errorf("phases %q, %q under %q: want none in a full run", recs[1][0], recs[2][0], recs[0][0])
	}
	col := func(row int, name string) int64 {
		for i, h := range recs[0] {
			if h == name {
				v, err := strconv.ParseInt(recs[row][i], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		t.Fatalf("no column %s in %v", name, recs[0])
		return 0
	}
	for row, want := range []int64{240, 480} {
		if got := col(row+1, "blocks"); got != want {
			t.Errorf("row %d: %d blocks, want %d", row+1, got, want)
		}
	}
	if a, b := col(1, "cycle"), col(2, "cycle"); !(0 < a && a < b) {
		t.Errorf("cycles %d then %d, want rising", a, b)
	}
	if col(2, "dram_reads_sent") > 512*16 {
		t.Errorf("%d reads sent by 480 blocks, more than the grid's 8,192", col(2, "dram_reads_sent"))
	}
}

// -waves is refused where there are no waves to report, and before the
// run where its file could not be written.
func TestRunWavesRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"err-waves-no-dir", []string{"run", "-device", "gt200", "-kernel", "vecadd", "-waves", "no/such/dir/w.csv"}},
		{"err-waves-stdout", []string{"run", "-device", "gt200", "-kernel", "vecadd", "-waves", "-"}},
		{"err-waves-dir", []string{"run", "-device", "gt200", "-kernel", "vecadd", "-waves", "testdata"}},
		{"err-waves-sequence", []string{"run", "-device", "gt200", "-kernel", "nw-dymaxion", "-remap-cost", "include", "-waves", "w.csv"}},
		{"err-waves-trace", []string{"run", "-device", "maxwell", "-trace", "testdata/accelsim/kernel-1.traceg", "-waves", "w.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
	if _, err := os.Stat("w.csv"); err == nil {
		t.Error("a refused run wrote w.csv")
	}
}

// A sampled run's rows name their phase as its sampling reports it: the
// warm-up's waves first, then (after the oldest left out) the window's,
// the last of them the wave at whose end it skipped, then the tail, the
// first of whose rows is a skip and a wave further on. By the rule
// (sim.deltas) the window is the batches' whole waves: the waves after
// the warm-up up to the skip, less fewer than a batch's worth.
func TestRunWavesPhases(t *testing.T) {
	stdout, recs := runWaves(t, "-device", "gt200", "-kernel", "copy", "-set", "N=4194304", "-sample")
	var out struct {
		Sampling struct {
			WaveBlocks    int64 `json:"wave_blocks"`
			SkippedBlocks int64 `json:"skipped_blocks"`
			Window        int64 `json:"window_batches"`
			WindowWaves   int64 `json:"window_waves"`
			WarmupWaves   int64 `json:"warmup_waves"`
		} `json:"sampling"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatal(err)
	}
	s := out.Sampling
	if s.SkippedBlocks == 0 {
		t.Fatalf("sampling %+v: want a skip", s)
	}
	num := func(r []string, i int) int64 {
		v, err := strconv.ParseInt(r[i], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// phase, wave, cycle, blocks, skipped_blocks
	var decided, lastWindow, firstTail []string
	for _, r := range recs[1:] {
		switch r[0] {
		case "window":
			lastWindow = r
		case "tail":
			if firstTail == nil {
				firstTail = r
			}
		}
		if num(r, 4) == 0 {
			decided = r
		}
	}
	count := map[string]int64{}
	prev := ""
	order := []string{}
	for _, r := range recs[1:] {
		count[r[0]]++
		if r[0] != prev {
			order = append(order, r[0])
			prev = r[0]
		}
	}
	if count["warm-up"] != s.WarmupWaves || count["window"] != s.WindowWaves || count["tail"] == 0 {
		t.Errorf("rows by phase %v; sampling %+v", count, s)
	}
	want := []string{"warm-up", "", "window", "tail"}
	if len(order) == 3 {
		want = []string{"warm-up", "window", "tail"}
	}
	if !slices.Equal(order, want) {
		t.Errorf("phases in the order %q, want %q", order, want)
	}
	after := num(decided, 1) - s.WarmupWaves
	if per := after / s.Window; s.WindowWaves != s.Window*per || after-s.WindowWaves >= s.Window {
		t.Errorf("window of %d waves in %d batches, %d waves after the warm-up", s.WindowWaves, s.Window, after)
	}
	if lastWindow[1] != decided[1] || num(firstTail, 3) != num(decided, 3)+s.SkippedBlocks+s.WaveBlocks {
		t.Errorf("last window row %v, decided at %v, first tail row %v", lastWindow, decided, firstTail)
	}
}
