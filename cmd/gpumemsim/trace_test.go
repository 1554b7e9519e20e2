package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gpumemsim/traces"
)

// Golden outputs of gpumemsim trace; rewrite them with
// go test ./cmd/gpumemsim -run TestTrace -update.
// Sizes are cut down with -set so the whole-kernel counts stay fast.
func TestTraceGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		heavy bool // skipUnderRace
	}{
		// Defaults (fermi, matmul, the kernel's mapping and block, 8
		// instructions) but 128³ instead of 1024³.
		{"trace-matmul-fermi", []string{"trace", "-set", "M=128,N=128,P=128"}, false},
		{"trace-matmul-alpha-gt200", []string{"trace", "-device", "gt200", "-kernel", "matmul", "-map", "i1=tx,i2=ty", "-set", "M=64,N=64,P=64", "-warps", "4"}, false},
		{"trace-vecadd-g80", []string{"trace", "-device", "g80", "-kernel", "vecadd", "-warps", "2", "-set", "N=65536"}, false},
		{"trace-vecadd-partial-gt200", []string{"trace", "-device", "gt200", "-kernel", "vecadd", "-set", "N=40", "-warps", "6"}, false},
		{"trace-stride-maxwell", []string{"trace", "-device", "maxwell", "-kernel", "stride", "-set", "S=3,N=65536", "-warps", "2"}, false},
		{"trace-transpose-kepler-json", []string{"trace", "-device", "kepler", "-kernel", "transpose", "-set", "N=64", "-warps", "1", "-format", "json"}, false},
		// A large kernel shows its first instructions at once. J14's α
		// mapping at 1024³ has 3e8 warp instructions, but its blocks
		// fall into few classes (sim.CountWork), so it is counted
		// without -totals: 2^25 warp loads of A, 32 32-B transactions
		// each (a CC 1.3 half-warp's 16 lanes read a word of 16 rows),
		// and 2^25 of B, 2 each (a half-warp reads one word): 17 × 2^26
		// in all.
		{"trace-matmul-large", []string{"trace", "-device", "gt200", "-kernel", "matmul", "-map", "i1=tx,i2=ty", "-warps", "2"}, false},
		// A triangular nest streams every block: counted only when
		// asked.
		{"trace-triangular-large", []string{"trace", "-device", "gt200", "-kernel", "testdata/kernels/triangular.yaml", "-set", "N=65536", "-warps", "1"}, false},
		{"trace-matmul-totals", []string{"trace", "-device", "gt200", "-kernel", "matmul", "-set", "M=512,N=512,P=512", "-warps", "1", "-totals"}, true},
		// Per-thread kernels: each lane's bank and the passes; on
		// CC 1.x, per half-warp.
		{"trace-reduce-interleaved-gt200", []string{"trace", "-device", "gt200", "-kernel", "reduce-interleaved", "-set", "N=4096", "-warps", "6"}, false},
		{"trace-transpose-shared-fermi", []string{"trace", "-kernel", "transpose-shared", "-set", "N=64", "-warps", "9"}, false},
		{"trace-err-unknown-kernel", []string{"trace", "-kernel", "kernels/matmull.yaml"}, false},
		{"trace-err-bad-map", []string{"trace", "-map", "i1"}, false},
		{"trace-err-unknown-loop", []string{"trace", "-map", "i4=tx"}, false},
		{"trace-err-set-unknown-param", []string{"trace", "-set", "Q=3"}, false},
		{"trace-err-set-bad-value", []string{"trace", "-set", "M=1k"}, false},
		{"trace-err-block-too-large", []string{"trace", "-device", "gt200", "-block", "32x32"}, false},
		{"trace-err-bad-block", []string{"trace", "-block", "16x"}, false},
		{"trace-err-negative-warps", []string{"trace", "-warps", "-1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy {
				skipUnderRace(t)
			}
			runGolden(t, tc.name, tc.args...)
		})
	}
}

// TestTraceBankConflicts: the classroom view states each request's
// conflict degree, derived by hand. reduce-interleaved's first
// sdata[index] load reads words 2·lane: on CC 1.x (16 banks) the lanes l
// and l+8 of a half-warp share bank 2l mod 16 with different words, so
// each half-warp is a 2-way conflict. transpose-shared reads
// tile[threadIdx.x][j]: 32 words 32 apart, all in bank j on Fermi, a
// 32-way conflict; the padded tile's rows of 33 words put them in 32
// banks.
func TestTraceBankConflicts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-device", "gt200", "-kernel", "reduce-interleaved", "-set", "N=4096", "-warps", "3"},
			"shared memory: 4 transactions through the banks for 128 B requested\n        half-warp 0 (lanes 0-15): a 2-way bank conflict\n        half-warp 1 (lanes 16-31): a 2-way bank conflict\n"},
		{[]string{"-kernel", "transpose-shared", "-set", "N=64", "-warps", "9"},
			"shared memory: 32 transactions through the banks (a 32-way bank conflict) for 128 B requested\n"},
		{[]string{"-kernel", "transpose-shared-padded", "-set", "N=64", "-warps", "9"},
			"shared memory: 1 transaction through the banks (no bank conflict) for 128 B requested\n"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"trace", "-totals=false"}, c.args...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
		}
		out := stdout.String()
		last := strings.LastIndex(out, "#"+c.args[len(c.args)-1]+" ")
		if last < 0 || !strings.Contains(out[last:], c.want) {
			t.Errorf("gpumemsim %s: instruction #%s does not show\n%s", strings.Join(args, " "), c.args[len(c.args)-1], c.want)
		}
	}
}

// traceMetrics runs trace -format json and returns its metrics.
func traceMetrics(t *testing.T, args ...string) (map[string]float64, map[string]any) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"trace", "-format", "json"}, args...)
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
	}
	var out struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var all map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	return out.Metrics, all
}

// The profiler metrics of each family, with values derived by hand from
// the coalescing rules (shared/reference/hardware.md §2).
func TestTraceMetrics(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want map[string]float64
	}{
		// vecadd, N = 4096: 128 warps, 32 consecutive words each. cc10: both
		// half-warps read word k of an aligned 64-B segment, coalesced: 2
		// coherent half-warps per warp instruction, 2 loads and 1 store per
		// warp.
		{"vecadd-g80", []string{"-device", "g80", "-kernel", "vecadd", "-set", "N=4096"}, map[string]float64{
			"gld_coherent": 2 * 128 * 2, "gld_incoherent": 0, "gst_coherent": 128 * 2, "gst_incoherent": 0,
		}},
		// transpose, N = 64, on g80: the store out[i2][i1] has lanes 4N bytes
		// apart, never coalesced; the load is.
		{"transpose-g80", []string{"-device", "g80", "-kernel", "transpose", "-set", "N=64"}, map[string]float64{
			"gld_coherent": 128 * 2, "gld_incoherent": 0, "gst_coherent": 0, "gst_incoherent": 128 * 2,
		}},
		// matmul α (i1→tx, i2→ty), n = 64: 128 warps × 64 iterations = 8192
		// instructions per load reference. cc13: A, 16 rows 256 B apart
		// per half-warp: 32 × 32 B; B, a broadcast per half-warp: 2 × 32 B;
		// the store of C: 32 × 32 B per warp.
		{"matmul-alpha-gt200", []string{"-device", "gt200", "-map", "i1=tx,i2=ty", "-set", "M=64,N=64,P=64"}, map[string]float64{
			"gld_request": 2 * 8192, "gld_32b": 8192 * (32 + 2), "gld_64b": 0, "gld_128b": 0,
			"gst_request": 128, "gst_32b": 128 * 32, "gst_64b": 0, "gst_128b": 0,
		}},
		// matmul β, n = 64, fermi (loads through L1, 128-B lines): A two
		// lines, B one line per warp instruction: 1.5 per request; the 256
		// requested bytes come in 3 × 128: 66.67%. The store of C: rows r
		// and r+1, 64 B each in two 128-B segments, each reduced to 64 B: 2
		// per request, 100%.
		{"matmul-beta-fermi", []string{"-device", "fermi", "-set", "M=64,N=64,P=64"}, map[string]float64{
			"inst_executed_global_loads": 2 * 8192, "inst_executed_global_stores": 128,
			"gld_transactions": 8192 * 3, "gst_transactions": 128 * 2,
			"gld_transactions_per_request": 1.5, "gst_transactions_per_request": 2,
			"gld_efficiency": 100 * 2.0 / 3.0, "gst_efficiency": 100,
		}},
		// transpose, N = 64, kepler (32-B segments): the load is 4 sectors
		// per warp, the store 16 (word pairs 256 B apart): 25%.
		{"transpose-kepler", []string{"-device", "kepler", "-kernel", "transpose", "-set", "N=64"}, map[string]float64{
			"inst_executed_global_loads": 128, "inst_executed_global_stores": 128,
			"gld_transactions": 512, "gst_transactions": 2048,
			"gld_transactions_per_request": 4, "gst_transactions_per_request": 16,
			"gld_efficiency": 100, "gst_efficiency": 25,
		}},
		// matmul β, n = 64, maxwell: A is a broadcast per half-warp, two
		// words read by 16 lanes each, in 2 sectors: 128 requested bytes
		// over 64 transferred, 200% as nvprof counts it; B 2 sectors, 200%
		// too.
		{"matmul-beta-maxwell", []string{"-device", "maxwell", "-set", "M=64,N=64,P=64"}, map[string]float64{
			"gld_transactions": 8192 * 4, "gld_transactions_per_request": 2, "gld_efficiency": 200,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := traceMetrics(t, tc.args...)
			for name, want := range tc.want {
				g, ok := got[name]
				if !ok {
					t.Errorf("trace %s: no metric %s", strings.Join(tc.args, " "), name)
					continue
				}
				if diff := g - want; diff > 1e-9 || diff < -1e-9 {
					t.Errorf("trace %s: %s = %g; want %g", strings.Join(tc.args, " "), name, g, want)
				}
			}
		})
	}
}

// The JSON form carries the documented fields.
func TestTraceJSONFields(t *testing.T) {
	_, all := traceMetrics(t, "-kernel", "vecadd", "-set", "N=1024", "-warps", "3")
	for _, k := range []string{"device", "kernel", "launch", "warps", "metrics", "references"} {
		if _, ok := all[k]; !ok {
			t.Errorf("trace -format json lacks %q", k)
		}
	}
	launch, _ := all["launch"].(map[string]any)
	for _, k := range []string{"mapping", "block", "grid", "params"} {
		if _, ok := launch[k]; !ok {
			t.Errorf("trace -format json: launch lacks %q", k)
		}
	}
	refs, _ := all["references"].([]any)
	if len(refs) != 3 {
		t.Fatalf("vecadd: %d references; want 3", len(refs))
	}
	for _, r := range refs {
		m, _ := r.(map[string]any)
		for _, k := range []string{"ref", "op", "requests", "transactions", "bytes"} {
			if _, ok := m[k]; !ok {
				t.Errorf("trace -format json: reference %v lacks %q", m["ref"], k)
			}
		}
		// N = 1024: 32 warps, one instruction per reference each.
		if m["requests"] != 32.0 {
			t.Errorf("vecadd N=1024: reference %v has %v requests; want 32", m["ref"], m["requests"])
		}
	}
	warps, _ := all["warps"].([]any)
	mem := 0
	for _, w := range warps {
		if m, _ := w.(map[string]any); m["op"] != "compute" {
			mem++
		}
	}
	if mem != 3 {
		t.Errorf("trace -warps 3: %d memory instructions shown; want 3", mem)
	}
}

// A barrier shows in the JSON form as an instruction of its own, without
// a reference (trace -format json panicked on every kernel with
// __syncthreads()). transpose-shared's warp 0 copies its four rows of
// the tile (for j = 0; j < 32; j += 8: a load of idata and a store to
// the tile each), then waits at the barrier: the barrier follows its
// eighth memory instruction, all 32 lanes active.
func TestTraceJSONBarrier(t *testing.T) {
	_, all := traceMetrics(t, "-kernel", "transpose-shared", "-set", "N=64", "-warps", "10")
	warps, _ := all["warps"].([]any)
	mem, barriers := 0, 0
	for _, w := range warps {
		m, _ := w.(map[string]any)
		switch m["op"] {
		case "compute":
		case "barrier":
			barriers++
			if mem != 8 || m["warp"] != 0.0 || m["block"] != 0.0 || m["active"] != float64(0xffffffff) {
				t.Errorf("barrier %v after %d memory instructions; want warp 0 of block 0, all lanes, after 8", m, mem)
			}
			if _, ok := m["ref"]; ok {
				t.Errorf("barrier %v has a reference", m)
			}
		default:
			mem++
		}
	}
	if barriers != 1 || mem != 10 {
		t.Errorf("%d barriers and %d memory instructions shown; want 1 and 10", barriers, mem)
	}
}

// A name that is neither a shipped example nor a file lists the examples
// (not a golden file: the list grows with the examples).
func TestTraceUnknownKernelName(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"trace", "-kernel", "matmull"}, &stdout, &stderr)
	if err == nil {
		t.Fatal("trace -kernel matmull: no error")
	}
	for _, want := range []string{`"matmull"`, "no shipped example", "matmul-naive"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("trace -kernel matmull: error %q does not mention %s", err, want)
		}
	}
}

func TestLaneRanges(t *testing.T) {
	for _, tc := range []struct {
		mask uint32
		want string
	}{
		{0, "none"},
		{0xFFFFFFFF, "0-31"},
		{0x0000FFFF, "0-15"},
		{0xFFFF0000, "16-31"},
		{0x00FF00FF, "0-7,16-23"},
		{0x80000001, "0,31"},
		{0b1011_0100, "2,4-5,7"},
	} {
		if got := laneRanges(tc.mask); got != tc.want {
			t.Errorf("laneRanges(%#x) = %q; want %q", tc.mask, got, tc.want)
		}
	}
}

func TestAddressPattern(t *testing.T) {
	warp := func(active uint32, addr func(lane int) uint64) *traces.WarpInst {
		in := &traces.WarpInst{Op: traces.OpLoad, Width: 4, Active: active}
		for l := range traces.WarpSize {
			if active&(1<<l) != 0 {
				in.Addr[l] = addr(l)
			}
		}
		return in
	}
	for _, tc := range []struct {
		name string
		in   *traces.WarpInst
		want string
	}{
		{"unit stride", warp(0xFFFFFFFF, func(l int) uint64 { return 0x1000 + 4*uint64(l) }), "0x1000 + 4×lane"},
		{"broadcast", warp(0xFFFFFFFF, func(int) uint64 { return 0x2000 }), "0x2000 + 0×lane"},
		{"descending", warp(0xFFFFFFFF, func(l int) uint64 { return 0x2000 - 8*uint64(l) }), "0x2000 - 8×lane"},
		// Lane 4 is the first active lane; the base is where lane 0 would be.
		{"partial", warp(0x0000FFF0, func(l int) uint64 { return 0x1000 + 128*uint64(l) }), "0x1000 + 128×lane"},
		{"two rows", warp(0xFFFFFFFF, func(l int) uint64 { return 0x1000 + 0x100*uint64(l/16) + 4*uint64(l%16) }),
			"lanes 0-15: 0x1000 + 4×lane; lanes 16-31: 0x1100 + 4×(lane-16)"},
		{"one lane", warp(1<<9, func(int) uint64 { return 0x3000 }), "lane 9: 0x3000"},
		{"one lane per half", warp(1|1<<20, func(l int) uint64 { return 0x3000 + uint64(l)*0x40 }), "0x3000 + 64×lane"},
		{"one lane and a row", warp(1|0xFF0000, func(l int) uint64 { return 0x3000 + uint64(l%16)*4 }), "lane 0: 0x3000; lanes 16-31: 0x3000 + 4×(lane-16)"},
		{"irregular", warp(0xFFFFFFFF, func(l int) uint64 { return 0x1000 + uint64(l*l) }), ""},
		{"not a multiple", warp(0b101, func(l int) uint64 { return 0x1000 + uint64(l/2)*3 }), ""},
	} {
		if got := addressPattern(tc.in); got != tc.want {
			t.Errorf("addressPattern(%s) = %q; want %q", tc.name, got, tc.want)
		}
	}
}
