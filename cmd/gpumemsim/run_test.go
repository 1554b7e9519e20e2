package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRunGolden(t *testing.T) {
	small := "M=64,N=64,P=64"
	// The tiled matmul whose tiles follow the block, and J14 Table 1's
	// twelve work groups, x first (J14 prints ty×tx: 2×256 is 256x2).
	tiled := "matmul-tiled"
	table1 := "256x2,128x4,64x8,32x16,16x32,128x2,64x4,32x8,16x16,64x2,32x4,16x8"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run-matmul-fermi", []string{"run", "-device", "fermi", "-kernel", "matmul", "-set", small}},
		{"run-matmul-gt200-alpha", []string{"run", "-device", "gt200", "-kernel", "matmul", "-map", "i1=tx,i2=ty", "-set", small}},
		{"run-vecadd-maxwell-csv", []string{"run", "-device", "maxwell", "-kernel", "vecadd", "-set", "N=65536", "-format", "csv"}},
		// A per-thread kernel has no mapping: the Kernel column names its block alone.
		{"run-transpose-shared-fermi-csv", []string{"run", "-device", "fermi", "-kernel", "transpose-shared", "-set", "N=64", "-format", "csv"}},
		{"run-vecadd-kepler-ncu", []string{"run", "-device", "kepler", "-kernel", "vecadd", "-set", "N=65536", "-metrics", "ncu"}},
		{"run-vecadd-fermi-describe", []string{"run", "-device", "fermi", "-kernel", "vecadd", "-set", "N=65536", "-describe"}},
		{"run-vecadd-fermi-gpgpusim", []string{"run", "-device", "fermi", "-kernel", "vecadd", "-set", "N=65536", "-metrics", "gpgpusim"}},
		{"run-err-metrics", []string{"run", "-metrics", "nsight"}},
		{"run-err-format", []string{"run", "-format", "xml"}},
		{"run-err-regs", []string{"run", "-device", "fermi", "-regs", "64", "-set", small}},
		// 60 registers × 512 threads = 30720; an SM of gt200 has 16384.
		{"run-err-regs-per-block", []string{"run", "-device", "gt200", "-kernel", "vecadd", "-block", "512", "-regs", "60", "-set", "N=4096"}},
		{"run-err-set", []string{"run", "-set", "M=abc"}},
		{"estimate-matmul-alpha", []string{"estimate", "-device", "gt200", "-kernel", "matmul-naive", "-map", "i1=tx,i2=ty", "-block", "32x8", "-set", small}},
		{"estimate-matvec", []string{"estimate", "-device", "gt200", "-kernel", "matvec", "-set", "N=256"}},
		{"validate-vecadd-gt200", []string{"validate", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536"}},
		{"validate-matmul-maps", []string{"validate", "-device", "fermi", "-kernel", "matmul", "-maps", "all", "-blocks", "16x16,32x8,8x32", "-set", small, "-format", "csv"}},
		{"validate-err-maps", []string{"validate", "-maps", "some"}},
		{"validate-err-blocks", []string{"validate", "-blocks", "16x"}},
		{"validate-err-blocks-twice", []string{"validate", "-blocks", "16x16,8x8,16x16"}},
		{"validate-err-block", []string{"validate", "-block", "8x8"}},
		// Per-thread kernels: the static models read their affine view.
		{"estimate-perthread-tiled", []string{"estimate", "-device", "fermi", "-kernel", tiled, "-set", "M=64,N=64,P=64"}},
		{"estimate-perthread-err-not-affine", []string{"estimate", "-device", "fermi", "-kernel", "testdata/kernels/not-affine.yaml"}},
		{"validate-perthread-table1", []string{"validate", "-device", "gt200", "-kernel", tiled, "-blocks", table1, "-set", "M=32,N=256,P=32"}},
		{"validate-perthread-skipped", []string{"validate", "-device", "gt200", "-kernel", "matmul-tiled", "-set", "M=64,N=64,P=64"}},
		{"validate-perthread-err-block", []string{"validate", "-device", "gt200", "-kernel", "matmul-tiled", "-set", "M=64,N=64,P=64", "-blocks", "128x2"}},
		{"validate-perthread-err-maps", []string{"validate", "-kernel", tiled, "-maps", "all"}},
		// Struct arrays and their layouts (PEN's Table III groupings).
		{"run-vecadd-peng-soa", []string{"run", "-device", "fermi", "-kernel", "vecadd-peng", "-layout", "soa", "-set", "N=65536"}},
		{"run-err-layout", []string{"run", "-kernel", "vecadd-peng", "-layout", "soaos"}},
		{"run-err-layout-none", []string{"run", "-kernel", "vecadd", "-layout", "soa"}},
		{"validate-layouts-nbody", []string{"validate", "-device", "fermi-m2050", "-kernel", "nbody-peng", "-layouts", "all", "-set", "N=1024"}},
		{"validate-layouts-err-list", []string{"validate", "-kernel", "nbody-peng", "-layouts", "aos,sao"}},
		{"validate-layouts-err-maps", []string{"validate", "-kernel", "nbody-peng", "-layouts", "all", "-maps", "all"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// runTwice runs the command twice and returns its output, failing the
// test when the two runs differ by a byte.
func runTwice(t *testing.T, args ...string) []byte {
	t.Helper()
	var out [2]bytes.Buffer
	for i := range out {
		if err := run(context.Background(), args, &out[i], &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("gpumemsim %v: two runs print different output", args)
	}
	return out[0].Bytes()
}

// The JSON of run carries the fields programs rely on, and two runs print
// the same bytes.
func TestRunJSON(t *testing.T) {
	out := runTwice(t, "run", "-device", "fermi", "-kernel", "transpose", "-set", "N=96", "-format", "json")
	var v struct {
		Device     string             `json:"device"`
		Kernel     string             `json:"kernel"`
		Launch     map[string]any     `json:"launch"`
		Metrics    map[string]float64 `json:"metrics"`
		References []map[string]any   `json:"references"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Device != "fermi" || v.Kernel != "transpose" || v.Launch["mapping"] == nil {
		t.Errorf("run -format json: device %q, kernel %q, launch %v", v.Device, v.Kernel, v.Launch)
	}
	for _, k := range []string{"sim_cycles", "sim_time_ms", "gld_transactions", "dram_read_transactions", "achieved_occupancy"} {
		if _, ok := v.Metrics[k]; !ok {
			t.Errorf("run -format json: metrics lack %s", k)
		}
	}
	// transpose at N=96 on fermi: one load and one store reference, each
	// requested once per warp: 96·96/32 = 288 requests.
	if len(v.References) != 2 || v.References[0]["requests"] != 288.0 {
		t.Errorf("run -format json: references %v; want 2 with 288 requests each", v.References)
	}
}

// validate's JSON has rows with the static and simulated ranks and a
// summary, and does not depend on the order parallel runs finish in.
func TestValidateJSON(t *testing.T) {
	out := runTwice(t, "validate", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536", "-format", "json")
	var v struct {
		Rows []struct {
			Mapping    string  `json:"mapping"`
			Block      string  `json:"block"`
			StaticRank int     `json:"static_rank"`
			SimCycles  int64   `json:"sim_cycles"`
			SimTimeMS  float64 `json:"sim_time_ms"`
		} `json:"rows"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	// J14 Table 2's OR column: 512, 256, 128, 64, 32, 16 rank 3, 2, 1, 4, 5, 5.
	want := []struct {
		block string
		rank  int
	}{{"512", 3}, {"256", 2}, {"128", 1}, {"64", 4}, {"32", 5}, {"16", 5}}
	if len(v.Rows) != len(want) {
		t.Fatalf("validate vecadd: %d rows; want %d", len(v.Rows), len(want))
	}
	for i, w := range want {
		r := v.Rows[i]
		if r.Block != w.block || r.StaticRank != w.rank || r.Mapping != "i=tx" || r.SimCycles <= 0 || r.SimTimeMS <= 0 {
			t.Errorf("row %d: %+v; want block %s, static rank %d, mapping i=tx, positive time", i, r, w.block, w.rank)
		}
	}
	for _, k := range []string{"spearman", "kendall_tau_b", "top1_agree", "regret"} {
		if _, ok := v.Summary[k]; !ok {
			t.Errorf("validate summary lacks %s", k)
		}
	}
}

// TestValidateJSONNotRun: the shapes of Algorithm 2 the tiled matmul's
// requires: refuses at N = 64 (128 and 256 wide) are listed, with the
// condition, under not_run.
func TestValidateJSONNotRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"validate", "-device", "gt200", "-kernel", "matmul-tiled", "-set", "M=64,N=64,P=64", "-format", "json"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var v struct {
		NotRun []struct{ Block, Reason string } `json:"not_run"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, n := range v.NotRun {
		blocks = append(blocks, n.Block)
		if !strings.Contains(n.Reason, "it requires N % blockDim.x == 0") {
			t.Errorf("not run %s: %q; want the requires: condition", n.Block, n.Reason)
		}
	}
	if want := []string{"256x2", "128x4", "128x2"}; !slices.Equal(blocks, want) {
		t.Errorf("not_run blocks %v; want %v", blocks, want)
	}
}

// J14's point, on Fermi: with every assignment of the loops to thread
// dimensions, the mapping that puts tx on the contiguous dimension
// (i1=ty,i2=tx) wins in the static model and in the simulation.
func TestValidateMatmulMaps(t *testing.T) {
	skipUnderRace(t)
	args := []string{"validate", "-device", "fermi", "-kernel", "matmul", "-maps", "all", "-set", "M=96,N=96,P=96", "-format", "json"}
	var out bytes.Buffer
	if err := run(context.Background(), args, &out, &out); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Rows []struct {
			Mapping    string `json:"mapping"`
			Block      string `json:"block"`
			StaticRank int    `json:"static_rank"`
			SimCycles  int64  `json:"sim_cycles"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	bestStatic, bestSim := 0, 0
	seen := map[string]bool{}
	for i, r := range v.Rows {
		seen[r.Mapping] = true
		if r.StaticRank < v.Rows[bestStatic].StaticRank {
			bestStatic = i
		}
		if r.SimCycles < v.Rows[bestSim].SimCycles {
			bestSim = i
		}
	}
	if !seen["i1=ty,i2=tx"] || !seen["i1=tx,i2=ty"] {
		t.Fatalf("validate -maps all: mappings %v; want both assignments of i1, i2", seen)
	}
	if m := v.Rows[bestStatic].Mapping; m != "i1=ty,i2=tx" {
		t.Errorf("static model prefers %s %s; want i1=ty,i2=tx", m, v.Rows[bestStatic].Block)
	}
	if m := v.Rows[bestSim].Mapping; m != "i1=ty,i2=tx" {
		t.Errorf("simulation prefers %s %s; want i1=ty,i2=tx", m, v.Rows[bestSim].Block)
	}
}

// run's text fits 100 columns on every device and in the nvprof and ncu
// styles, with and without the descriptions.
func TestRunFitsWidth(t *testing.T) {
	for _, device := range []string{"g80", "gt200", "fermi", "kepler", "maxwell"} {
		for _, style := range []string{"nvprof", "ncu", "gpgpusim"} {
			for _, describe := range []bool{false, true} {
				args := []string{"run", "-device", device, "-kernel", "matmul", "-set", "M=32,N=32,P=32", "-metrics", style}
				if describe {
					args = append(args, "-describe")
				}
				var out bytes.Buffer
				if err := run(context.Background(), args, &out, &out); err != nil {
					t.Fatal(err)
				}
				for i, line := range strings.Split(out.String(), "\n") {
					if n := utf8.RuneCountInString(line); n > textWidth {
						t.Errorf("gpumemsim %s: line %d has %d columns; want at most %d:\n%s", strings.Join(args, " "), i+1, n, textWidth, line)
					}
				}
			}
		}
	}
}

// Repeated list flags add up, as sweep's repeated -set do, where the
// flag package would keep only the last (-set M=64,N=64,P=64 -set M=64
// -set N=32 ran M=1024,N=32,P=1024, sixteen times the work asked); a
// name given twice across them is refused, as within one; and -data
// and -remap refuse an array given twice.
func TestRepeatedListFlags(t *testing.T) {
	out := mustRun(t, "run", "-kernel", "matmul", "-set", "M=64,P=64", "-set", "N=32", "-format", "json")
	var res struct {
		Launch struct {
			Params string `json:"params"`
		} `json:"launch"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Launch.Params != "M=64,N=32,P=64" {
		t.Errorf("-set M=64,P=64 -set N=32 ran %s; want M=64,N=32,P=64", res.Launch.Params)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-kernel", "matmul", "-set", "M=64,N=64,P=64", "-set", "M=32"}, "-set: param M set twice"},
		{[]string{"occupancy", "-kernel", "matmul-tiled", "-set", "M=64", "-set", "M=32"}, "param M set twice"},
		{[]string{"run", "-kernel", "matmul-tiled", "-set", "M=64,N=64,P=64", "-remap", "A=row2col", "-remap", "A=col2row"}, "-remap: array A set twice"},
		{[]string{"run", "-kernel", "nms", "-data", "OFF=permutation:seed=1", "-data", "OFF=permutation:seed=2"}, "-data: array OFF given twice"},
		{[]string{"run", "-kernel", "nms", "-data", "OFF=permutation:seed=1", "-data", " OFF = permutation:seed=2"}, "-data: array OFF given twice"},
		{[]string{"run", "-kernel", "matmul-tiled", "-set", "M=64,N=64,P=64", "-remap", "A=row2col, A =col2row"}, "-remap: array A set twice"},
		{[]string{"run", "-kernel", "matmul", "-set", "M=64,N=64,P=64", "-spaces", "jang", "-spaces", "A=constant"}, "-spaces: jang stands alone"},
	} {
		_, _, err := runCmd(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
