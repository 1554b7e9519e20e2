package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"gpumemsim/internal/svgtest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The 3 devices × 3 blocks sweep the tests share: small enough to
// simulate in well under a second.
var (
	sweepDevices = []string{"gt200", "fermi", "kepler"}
	sweepBlocks  = []string{"64", "128", "256"}
	sweepArgs    = []string{"sweep", "-device", "gt200,fermi,kepler", "-kernel", "vecadd", "-blocks", "64,128,256", "-set", "N=4096"}
)

// runCmd runs gpumemsim with args and returns its stdout, stderr and error.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// mustRun is runCmd that fails the test on an error.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("gpumemsim %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// Each row of the sweep has the metrics run prints for the same flags,
// read from run's JSON: the rows are devices × blocks, the device
// slowest, as the nesting order says.
func TestSweepMatchesRun(t *testing.T) {
	out := mustRun(t, append(sweepArgs, "-format", "json")...)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(sweepDevices)*len(sweepBlocks) {
		t.Fatalf("%d rows; want 3 devices × 3 blocks = 9", len(rows))
	}
	i := 0
	for _, dev := range sweepDevices {
		for _, block := range sweepBlocks {
			row := rows[i]
			if row["device"] != dev || row["block"] != block || row["row"] != float64(i) || row["error"] != "" {
				t.Fatalf("row %d = %v %v %v error %q; want row %d of %s block %s, no error", i, row["row"], row["device"], row["block"], row["error"], i, dev, block)
			}
			var single struct{ Metrics map[string]float64 }
			js := mustRun(t, "run", "-device", dev, "-kernel", "vecadd", "-block", block, "-set", "N=4096", "-format", "json")
			if err := json.Unmarshal([]byte(js), &single); err != nil {
				t.Fatal(err)
			}
			n := 0
			for name, want := range single.Metrics {
				if got, ok := row[name]; !ok || got != want {
					t.Errorf("%s block %s: %s = %v in the sweep, %v in run", dev, block, name, got, want)
				}
				n++
			}
			if extra := len(row) - len(fixedColumns()); extra != n {
				t.Errorf("%s block %s: %d metrics in the sweep's row, %d in run's", dev, block, extra, n)
			}
			i++
		}
	}
}

// Must show: the sweep split into 3 shards (-shard i/3, Slurm's array
// variables, Kubernetes' completion index) and merged is the whole
// sweep, byte for byte, in CSV and JSON; shard i holds the rows i, i+3,
// i+6.
func TestSweepShardsMerge(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"csv", "json"} {
		whole := mustRun(t, append(sweepArgs, "-format", format)...)
		var files []string
		for i := range 3 {
			f := filepath.Join(dir, fmt.Sprintf("shard%d.%s", i, format))
			mustRun(t, append(sweepArgs, "-format", format, "-shard", fmt.Sprintf("%d/3", i), "-o", f)...)
			files = append(files, f)
			checkShardRows(t, f, i, 3)
		}
		merged := mustRun(t, append([]string{"merge"}, files[2], files[0], files[1])...)
		if merged != whole {
			t.Errorf("%s: the 3 shards merged differ from the whole sweep:\n%s\nwant\n%s", format, merged, whole)
		} else {
			t.Logf("%s: 3 shards merged = the whole sweep, %d bytes", format, len(whole))
		}
	}
	// The schedulers' variables pick the same shards.
	t.Setenv(envSlurmID, "2") // array 1-3: task 2 is shard 1
	t.Setenv(envSlurmMin, "1")
	t.Setenv(envSlurmCount, "3")
	slurm := mustRun(t, sweepArgs...)
	t.Setenv(envSlurmID, "")
	t.Setenv(envK8sIndex, "1")
	k8s := mustRun(t, append(sweepArgs, "-shards", "3")...)
	byFlag := mustRun(t, append(sweepArgs, "-shard", "1/3")...)
	if slurm != byFlag || k8s != byFlag {
		t.Errorf("shard 1 of 3 from Slurm's variables or JOB_COMPLETION_INDEX differs from -shard 1/3")
	}
	t.Setenv(envK8sIndex, "")
}

// checkShardRows checks that file holds exactly the rows i, i+n, ... of
// the 9.
func checkShardRows(t *testing.T, file string, i, n int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := readSweepTable(file, data)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []int
	for _, r := range tab.Records {
		got = append(got, r.Index)
	}
	for r := i; r < 9; r += n {
		want = append(want, r)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("shard %d/%d holds rows %v; want %v", i, n, got, want)
	}
}

// The output does not depend on the rows simulated at once.
func TestSweepWorkers(t *testing.T) {
	one := mustRun(t, append(sweepArgs, "-j", "1")...)
	two := mustRun(t, append(sweepArgs, "-j", "2")...)
	if one != two {
		t.Errorf("-j 1 and -j 2 give different bytes")
	}
	if file := mustRun(t, "sweep", "-f", "testdata/sweep/three-by-three.yaml"); file != one {
		t.Errorf("the sweep file three-by-three.yaml gives other bytes than the flags")
	}
}

// -resume keeps the rows of the file and simulates only the others. A
// kept row's value is changed in the file, so that the output shows it
// was not simulated again: the count of changed values in the output is
// the count of rows kept.
func TestSweepResume(t *testing.T) {
	dir := t.TempDir()
	whole := mustRun(t, append(sweepArgs, "-format", "json")...)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(whole), &rows); err != nil {
		t.Fatal(err)
	}
	// Keep rows 0, 4 and 8 with a mark; lose the other six.
	var partial []map[string]any
	for _, i := range []int{0, 4, 8} {
		rows[i]["sim_cycles"] = float64(-1)
		partial = append(partial, rows[i])
	}
	prev := filepath.Join(dir, "prev.json")
	data, _ := json.Marshal(partial)
	if err := os.WriteFile(prev, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, append(sweepArgs, "-format", "json", "-resume", prev)...)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweep: -resume: 3 of 9 rows kept, 6 to simulate\n"; stderr != want {
		t.Errorf("stderr %q; want %q", stderr, want)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	marked := 0
	for i, r := range got {
		if r["sim_cycles"] == float64(-1) {
			marked++
			if i%4 != 0 {
				t.Errorf("row %d kept from the file; only 0, 4 and 8 were there", i)
			}
		}
	}
	if len(got) != 9 || marked != 3 {
		t.Errorf("%d rows, %d kept from the file; want 9 and 3", len(got), marked)
	}
	// Unmarked, the output is the whole sweep.
	var whole2 []map[string]any
	json.Unmarshal([]byte(whole), &whole2)
	for _, i := range []int{1, 2, 3, 5, 6, 7} {
		if fmt.Sprint(got[i]) != fmt.Sprint(whole2[i]) {
			t.Errorf("row %d simulated on resume differs from the whole sweep's", i)
		}
	}
}

// A row that cannot run (a block of 1024 threads on GT200, which runs
// 512) is recorded with its error; the others run; the exit status is 1.
func TestSweepFailedRow(t *testing.T) {
	runGolden(t, "sweep-failed-row", "sweep", "-device", "gt200,fermi", "-kernel", "vecadd", "-blocks", "1024", "-set", "N=256", "-metrics", "gpgpusim")
}

// -o writes the whole file or nothing: a sweep refused before running
// leaves an existing file as it was.
func TestSweepOutputWhole(t *testing.T) {
	f := filepath.Join(t.TempDir(), "out.csv")
	if err := os.WriteFile(f, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "sweep", "-kernel", "vecadd", "-set", "N=64", "-format", "xml", "-o", f); err == nil {
		t.Fatal("-format xml accepted")
	}
	if data, _ := os.ReadFile(f); string(data) != "before\n" {
		t.Errorf("a refused sweep changed -o's file: %q", data)
	}
	mustRun(t, "sweep", "-kernel", "vecadd", "-set", "N=64", "-blocks", "32", "-o", f)
	data, _ := os.ReadFile(f)
	if !strings.HasPrefix(string(data), "sweep,row,rows,device,kernel,map,block,set,layout,spaces,error,") || strings.Count(string(data), "\n") != 2 {
		t.Errorf("-o's file: %q; want a header and one row", data)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(f), ".gpumemsim-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The rows come in the nesting order devices › kernels › maps › blocks ›
// set › layouts › spaces, the last fastest, and the product of -set's
// parameters has the first slowest.
func TestSweepRowOrder(t *testing.T) {
	a := sweepAxes{Devices: []string{"d1", "d2"}, Kernels: []string{"k"}, Blocks: []string{"b1", "b2"},
		Set: []setAxis{{"M", []int64{1, 2}}, {"N", []int64{3}}}, Spaces: []string{"", "A=texture"}}
	rows, err := a.withDefaults().rows()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, rowText(r))
	}
	want := []string{
		"d1 k block b1 set M=1,N=3", "d1 k block b1 set M=1,N=3 spaces A=texture",
		"d1 k block b1 set M=2,N=3", "d1 k block b1 set M=2,N=3 spaces A=texture",
		"d1 k block b2 set M=1,N=3", "d1 k block b2 set M=1,N=3 spaces A=texture",
		"d1 k block b2 set M=2,N=3", "d1 k block b2 set M=2,N=3 spaces A=texture",
	}
	if len(got) != 16 || strings.Join(got[:8], "|") != strings.Join(want, "|") {
		t.Errorf("rows:\n%s\nwant 16, starting\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got[8] != "d2 k block b1 set M=1,N=3" {
		t.Errorf("row 8 = %q; want the second device's first", got[8])
	}
}

// Bad flags, sweep files, shards and merges are refused with goldens.
func TestSweepErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"sweep-err-shard-range", []string{"sweep", "-shard", "3/3"}},
		{"sweep-err-shard-form", []string{"sweep", "-shard", "1of3"}},
		{"sweep-err-shard-and-shards", []string{"sweep", "-shard", "0/3", "-shards", "3"}},
		{"sweep-err-shards-alone", []string{"sweep", "-shards", "3"}},
		{"sweep-err-workers", []string{"sweep", "-j", "-1"}},
		{"sweep-err-cache-config", []string{"sweep", "-cache-config", "prefer-l2"}},
		{"sweep-err-format", []string{"sweep", "-format", "text"}},
		{"sweep-err-empty-item", []string{"sweep", "-device", "fermi,,kepler"}},
		{"sweep-err-set", []string{"sweep", "-set", "N=64,x"}},
		{"sweep-err-set-twice", []string{"sweep", "-set", "N=64", "-set", "N=128"}},
		{"sweep-err-file-and-flags", []string{"sweep", "-f", "testdata/sweep/three-by-three.yaml", "-device", "fermi"}},
		{"sweep-err-file-unknown-key", []string{"sweep", "-f", "testdata/sweep/unknown-key.yaml"}},
		{"sweep-err-file-bad-set", []string{"sweep", "-f", "testdata/sweep/bad-set.yaml"}},
		{"sweep-err-file-dup-key", []string{"sweep", "-f", "testdata/sweep/dup-key.yaml"}},
		{"sweep-err-file-not-list", []string{"sweep", "-f", "testdata/sweep/not-list.yaml"}},
		{"sweep-err-file-empty-item", []string{"sweep", "-f", "testdata/sweep/empty-item.yaml"}},
		{"sweep-err-file-two-documents", []string{"sweep", "-f", "testdata/sweep/two-documents.yaml"}},
		{"sweep-err-resume-other", []string{"sweep", "-kernel", "vecadd", "-blocks", "32,64,128", "-set", "N=256", "-resume", "testdata/sweep/shard0.csv"}},
		{"merge-err-missing", []string{"merge", "testdata/sweep/shard0.csv", "testdata/sweep/shard2.csv"}},
		{"merge-err-overlap", []string{"merge", "testdata/sweep/whole.csv", "testdata/sweep/shard1.csv"}},
		{"merge-err-file-twice", []string{"merge", "testdata/sweep/shard0.csv", "testdata/sweep/shard1.csv", "testdata/sweep/shard0.csv"}},
		{"sweep-err-twice", []string{"sweep", "-blocks", "64,128,64"}},
		{"sweep-err-file-set-twice", []string{"sweep", "-f", "testdata/sweep/set-twice.yaml"}},
		{"merge-err-mixed", []string{"merge", "testdata/sweep/shard0.csv", "testdata/sweep/shard1.csv", "testdata/sweep/other-shard2.json"}},
		{"merge-err-no-files", []string{"merge"}},
		{"merge-err-not-sweep", []string{"merge", "testdata/sweep/three-by-three.yaml"}},
		// An -o that cannot be written is refused before the work, which
		// it used to follow (with the temporary file's name).
		{"sweep-err-out-dir", []string{"sweep", "-kernel", "vecadd", "-set", "N=256", "-o", "testdata/sweep"}},
		{"merge-err-out-dir", []string{"merge", "-o", "testdata/sweep", "testdata/sweep/shard0.csv"}},
		// A plot of a sweep none of whose rows ran says so, after their
		// errors, not that the metric is missing.
		{"sweep-err-plot-none-ran", []string{"sweep", "-kernel", "nw-shared", "-set", "N=64", "-plot", "testdata/sweep/none-ran.svg"}},
		// A row whose DRAM sectors take it past -max-work is stopped and
		// recorded with its error; the row within it runs (vecadd on gt200
		// at 2^16: 2,048 warps of 7 warp instructions and 12 sectors,
		// 38,912 units of work; at 2^10, 608).
		{"sweep-err-dram-work", []string{"sweep", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536,1024", "-max-work", "2e4"}},
		{"sweep-err-plot-no-rows", []string{"sweep", "-kernel", "vecadd", "-blocks", "64,128", "-set", "N=256", "-shard", "3/4", "-plot", "testdata/sweep/no-rows.svg"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
	for _, tc := range []struct{ name, env, value string }{
		{"sweep-err-env-slurm", envSlurmID, "two"},
		{"sweep-err-env-k8s", envK8sIndex, "-1"},
		{"sweep-err-env-k8s-no-shards", envK8sIndex, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			args := []string{"sweep"}
			if tc.name == "sweep-err-env-k8s" {
				args = append(args, "-shards", "3")
			}
			runGolden(t, tc.name, args...)
		})
	}
}

// merge of the committed shards in any order is the three rows in order.
func TestMergeOrder(t *testing.T) {
	a := mustRun(t, "merge", "testdata/sweep/shard2.csv", "testdata/sweep/shard0.csv", "testdata/sweep/shard1.csv")
	b := mustRun(t, "merge", "testdata/sweep/shard0.csv", "testdata/sweep/shard1.csv", "testdata/sweep/shard2.csv")
	if a != b || strings.Count(a, "\n") != 4 {
		t.Errorf("merge depends on the order of its files, or lost rows:\n%s\n%s", a, b)
	}
	j := mustRun(t, "merge", "-format", "json", "testdata/sweep/shard0.csv", "testdata/sweep/shard1.csv", "testdata/sweep/shard2.csv")
	back := mustRun(t, "merge", "-format", "csv", writeTemp(t, "m.json", j))
	if back != b {
		t.Errorf("CSV → JSON → CSV changed the table:\n%s\nwant\n%s", back, b)
	}
}

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSweepPlot: sweep -plot draws a heat map of the rows' metric over the
// two varying axes, a 2-D block's width and height: one cell per row,
// each holding the row's sim_cycles as the CSV written beside it gives
// it, the axes the shapes' extents. A sweep with three varying axes is
// refused before simulating, and so is a metric the rows do not have.
func TestSweepPlot(t *testing.T) {
	dir := t.TempDir()
	svgPath, csvPath := filepath.Join(dir, "shapes.svg"), filepath.Join(dir, "shapes.csv")
	mustRun(t, "sweep", "-device", "gt200", "-kernel", "matmul-tiled", "-set", "M=32", "-set", "N=32", "-set", "P=32",
		"-blocks", "16x16,32x8,8x32", "-plot", svgPath, "-o", csvPath)
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "sim_cycles")
	var want []string
	for _, r := range recs[1:] {
		want = append(want, r[col])
	}
	doc, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	svg := svgtest.Parse(t, doc)
	got := svgtest.Texts(svg.All("text", "value"))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cells %v; want the rows' sim_cycles %v", got, want)
	}
	if x := svgtest.Texts(svg.All("text", "x-label")); strings.Join(x, " ") != "8 16 32" {
		t.Errorf("x labels %v; want the widths 8 16 32", x)
	}
	if y := svgtest.Texts(svg.All("text", "y-label")); strings.Join(y, " ") != "8 16 32" {
		t.Errorf("y labels %v; want the heights 8 16 32", y)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"sweep", "-device", "gt200,fermi", "-kernel", "vecadd", "-blocks", "64x2,128x2", "-set", "N=1024,2048", "-plot", svgPath}},
		{[]string{"sweep", "-device", "gt200", "-kernel", "vecadd", "-blocks", "64,128", "-set", "N=1024", "-plot", svgPath, "-plot-metric", "no_such_metric"}},
	} {
		if _, _, err := runCmd(t, c.args...); err == nil {
			t.Errorf("gpumemsim %s: no error", strings.Join(c.args, " "))
		}
	}
}
