package main

import (
	"encoding/json"
	"testing"
)

// TestSpacesGolden: constant memory in the outputs. -spaces moves arrays
// into constant memory on every command that runs a kernel; run's
// references say their space, trace shows the passes through the
// constant cache, per half-warp on CC 1.x, and what -spaces cannot do is
// refused naming the flag. The MRI-Q examples declare theirs __constant__.
func TestSpacesGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"spaces-run-matvec-gt200", []string{"run", "-device", "gt200", "-kernel", "matvec", "-spaces", "x=constant", "-set", "N=512"}},
		{"spaces-trace-matvec-gt200", []string{"trace", "-device", "gt200", "-kernel", "matvec", "-spaces", "x=constant", "-set", "N=64", "-block", "64", "-warps", "3", "-totals"}},
		{"run-mri-q-gt200", []string{"run", "-device", "gt200", "-kernel", "mri-q", "-set", "NX=2048,NK=64"}},
		{"trace-mri-q-k-outer-gt200", []string{"trace", "-device", "gt200", "-kernel", "mri-q-k-outer", "-set", "NX=64,NK=256", "-warps", "6"}},
		{"spaces-err-unknown-array", []string{"run", "-kernel", "matvec", "-spaces", "x=constant,q=global"}},
		{"spaces-err-pair", []string{"validate", "-kernel", "matvec", "-spaces", "x"}},
		{"spaces-err-store", []string{"trace", "-kernel", "matvec", "-spaces", "y=constant"}},
		{"spaces-err-too-large", []string{"run", "-kernel", "matvec", "-spaces", "x=constant", "-set", "N=16385"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// TestSpacesMatvec: J14's matvec on gt200 at N = 512 with x in constant
// memory, counted by hand. The grid is 512/32 = 16 blocks of one warp,
// one per SM of the 30. Each warp loads x[i2] once per i2: 16 · 512 =
// 8192 requests, in which every lane reads one address; CC 1.3 splits
// each into two half-warps of one address, 16384 passes. A warp's next
// iteration issues after the loads of this one are back, so each 64-byte
// line of x (16 floats) misses on its first element's two passes (the
// second merges into the first's miss) and hits on the other 15
// elements' 30: 32 lines · 2 = 64 misses and 960 hits per SM, 1024 and
// 15360 in all, and 32 fills of 2 sectors per SM, 1024 sectors from DRAM.
func TestSpacesMatvec(t *testing.T) {
	out := runTwice(t, "run", "-device", "gt200", "-kernel", "matvec", "-spaces", "x=constant", "-set", "N=512", "-format", "json")
	var v struct {
		Metrics    map[string]float64 `json:"metrics"`
		References []map[string]any   `json:"references"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"sim_const_requests": 8192, "sim_const_passes": 16384, "sim_const_passes_per_request": 2,
		"sim_const_hits": 15360, "sim_const_misses": 1024, "sim_const_fill_sectors": 1024,
		// The global loads are y and A only: 2 · 8192 requests.
		"gld_request": 16384}
	for k, w := range want {
		if got, ok := v.Metrics[k]; !ok || got != w {
			t.Errorf("%s = %v; want %v", k, got, w)
		}
	}
	x := v.References[2]
	if x["ref"] != "x[i2]" || x["space"] != "constant" || x["const_hits"] != 15360.0 || x["dram_read_sectors"] != 1024.0 {
		t.Errorf("reference x[i2]: %v; want space constant, 15360 hits, 1024 DRAM sectors", x)
	}
}

// TestTraceConstantJSON: trace's JSON gives a constant read's passes per
// request: mri-q's warp reads one sample, one pass per half-warp on
// gt200; mri-q-k-outer's warp reads 32 samples, 32 passes in one request
// on fermi.
func TestTraceConstantJSON(t *testing.T) {
	for _, tc := range []struct {
		device, kernel string
		want           []any
	}{
		{"gt200", "mri-q", []any{1.0, 1.0}},
		{"fermi", "mri-q-k-outer", []any{32.0}},
	} {
		out := runTwice(t, "trace", "-device", tc.device, "-kernel", tc.kernel, "-set", "NX=256,NK=256", "-warps", "6", "-format", "json")
		var v struct {
			Warps []map[string]any `json:"warps"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, w := range v.Warps {
			if w["ref"] == "ck[kIndex][0]" {
				got, _ = w["constant_passes"].([]any)
				break
			}
		}
		if len(got) != len(tc.want) || got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1] {
			t.Errorf("%s on %s: ck[kIndex][0] passes %v; want %v", tc.kernel, tc.device, got, tc.want)
		}
	}
}

// TestConstantLimitCUDA: a __constant__ array of the CUDA form is held
// to the 64 KB of constant memory too, at its entry under arrays:. ck
// has NK rows of 4 floats: 4097 rows are 65552 bytes.
func TestConstantLimitCUDA(t *testing.T) {
	runGolden(t, "spaces-err-cuda-too-large", "run", "-device", "fermi", "-kernel", "mri-q", "-set", "NX=256,NK=4097")
}
