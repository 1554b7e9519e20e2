package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// run -waves writes one row per whole wave: vecadd 2^16 on gt200 runs 512
// blocks in waves of 240 (8 blocks of 128 threads on each of 30 SMs), so
// two rows, at 240 and 480 blocks; the rows' cycles lie within the run's.
func TestRunWaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "waves.csv")
	var stdout, stderr bytes.Buffer
	args := []string{"run", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536", "-waves", path, "-format", "json"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || len(recs[0]) != len(waveColumns) {
		t.Fatalf("%d records of %d fields, want a header and 2 rows of %d", len(recs), len(recs[0]), len(waveColumns))
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
