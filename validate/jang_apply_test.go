package validate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// applyJang binds shipped example name (mapping m, block b, params) and
// rewrites it.
func applyJang(t *testing.T, name, m string, b arch.Dim3, params map[string]int64) *JangApplied {
	t.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return applyJangKernel(t, k, m, b, params)
}

func applyJangKernel(t *testing.T, k *kernel.Kernel, m string, b arch.Dim3, params map[string]int64) *JangApplied {
	t.Helper()
	var mp kernel.Mapping
	if m != "" {
		var err error
		if mp, err = kernel.ParseMapping(m); err != nil {
			t.Fatal(err)
		}
	}
	l, err := traces.Bind(k, mp, b, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := ApplyJang(l)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

func placement(t *testing.T, ap *JangApplied, array string) JangPlacement {
	t.Helper()
	for _, p := range ap.Arrays {
		if p.Array == array {
			return p
		}
	}
	t.Fatalf("no placement of %s in %+v", array, ap.Arrays)
	return JangPlacement{}
}

// TestApplyJangMatvecPlacements: J14 Table 3's selection (models.md §2):
// A global with local prefetch, x texture with local prefetch, y global;
// both tiles along i2 with SL = W (1-D work group). A's tile is W × SL,
// padded because a warp reads A_s[threadIdx.x][k], rows apart; x's is SL.
func TestApplyJangMatvecPlacements(t *testing.T) {
	ap := applyJang(t, "matvec", "", arch.Dim3{}, nil)
	want := map[string]JangPlacement{
		"A": {Array: "A", Selected: "global with local prefetch", Space: "global", Tile: "A_s[blockDim.x][blockDim.x + 1]", Strip: "i2"},
		"x": {Array: "x", Selected: "texture with local prefetch", Space: "texture", Tile: "x_s[blockDim.x]", Strip: "i2"},
		"y": {Array: "y", Selected: "global", Space: "global"},
	}
	for name, w := range want {
		if got := placement(t, ap, name); got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	src := ap.Kernel.Source
	for _, line := range []string{
		"x_s[e] = tex1Dfetch(x, i2s + e);",
		"y[i1] += A_s[threadIdx.x][i2 - i2s] * x_s[i2 - i2s];",
		"for (int i2s = 0; i2s < N; i2s += SL) {",
	} {
		if !strings.Contains(src, line) {
			t.Errorf("the rewrite lacks %q:\n%s", line, src)
		}
	}
}

// TestApplyJangMatmulBeta: mapping β (i1→ty, i2→tx) gives the kernel
// models.md §2 reconstructs for Table 1: A staged H×SL, B SL×W along i3,
// SL = min(H, W), the product read from the tiles, C global.
func TestApplyJangMatmulBeta(t *testing.T) {
	ap := applyJang(t, "matmul", "i1=ty,i2=tx", arch.Dim3{X: 16, Y: 8, Z: 1}, nil)
	if p := placement(t, ap, "A"); p.Tile != "A_s[blockDim.y][min(blockDim.x, blockDim.y)]" || p.Strip != "i3" {
		t.Errorf("A: %+v", p)
	}
	if p := placement(t, ap, "B"); p.Tile != "B_s[min(blockDim.x, blockDim.y)][blockDim.x]" || p.Strip != "i3" {
		t.Errorf("B: %+v", p)
	}
	if p := placement(t, ap, "C"); p.Tile != "" || p.Space != "global" {
		t.Errorf("C: %+v", p)
	}
	if !strings.Contains(ap.Kernel.Source, "acc += A_s[threadIdx.y][i3 - i3s] * B_s[i3 - i3s][threadIdx.x];") {
		t.Errorf("the product does not read the tiles:\n%s", ap.Kernel.Source)
	}
}

// TestApplyJangMatvecCounts simulates the rewritten matvec at N = 256,
// block 32, on gt200 (CC 1.3: one transaction per half-warp for 16
// consecutive words, 64 B; 16 banks) and checks the counts derived by
// hand. 8 blocks of one warp, 8 strips of SL = 32 each:
//   - A's tile, 32 × 32, is 32 loads per warp per strip, each one row's
//     32 consecutive floats: 2 transactions (one 64-B segment per
//     half-warp); y is loaded and stored in each of the 256 iterations
//     (2 transactions each). gld_request = 8·(8·32 + 256) = 4096,
//     gld_transactions 8192; gst_request 8·256 = 2048, 4096 transactions.
//   - x: one tex1Dfetch per strip per warp, 32 floats = 4 lines of 32 B:
//     64 requests, 256 lookups.
//   - shared stores: 8·(8·32 + 8) = 2112 requests, conflict-free (row
//     e / 32, column e % 32 of a row of 33): 2 per request, 4224; loads:
//     A_s[tx][k] (bank (33·tx + k) mod 16 differs for the 16 threads of a
//     half-warp, thanks to the padding) and x_s[k] (one word, broadcast),
//     2·256 per warp, 2 transactions each: 8192.
func TestApplyJangMatvecCounts(t *testing.T) {
	ap := applyJang(t, "matvec", "", arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"N": 256})
	d, err := configs.Load("gt200")
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(ap.Kernel, nil, arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"N": 256}, d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), d, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sim.Metrics(d, res, sim.StyleNvprof)
	if err != nil {
		t.Fatal(err)
	}
	got := sim.MetricValues(ms)
	for name, want := range map[string]float64{
		"gld_request": 4096, "gld_transactions": 8192, "gst_request": 2048, "gst_transactions": 4096,
		"sim_tex_requests": 64, "tex_cache_transactions": 256,
		"shared_store_transactions": 4224, "shared_load_transactions": 8192,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
}

// TestApplyJangNotApplied: the parts of a selection the rewrite cannot
// apply stay in the backing space and say why: a prefetch whose
// references differ in their subscripts, texture for a written array; a
// small same-address array goes to constant memory.
func TestApplyJangNotApplied(t *testing.T) {
	src := `name: na
params: {N: 1024}
arrays:
  a: {type: f32, dims: [N + 1]}
  w: {type: f32, dims: [9]}
  b: {type: f32, dims: [4 * N]}
  out: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++)
    for (k = 0; k < N; k++) {
      for (j = 0; j < 9; j++)
        out[i] += (a[k] + a[k + 1]) * w[j];
      b[i * 4] = out[i];
    }
mapping: {i: tx}
block: [64]
`
	k, err := kernel.Parse("na.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ap := applyJangKernel(t, k, "", arch.Dim3{}, nil)
	if p := placement(t, ap, "a"); p.Tile != "" || p.Space != "texture" || !strings.Contains(p.NotApplied, "differ in their subscripts") {
		t.Errorf("a: %+v", p)
	}
	if p := placement(t, ap, "b"); p.Space != "global" || !strings.Contains(p.NotApplied, "cannot store through a texture") {
		t.Errorf("b: %+v", p)
	}
	if p := placement(t, ap, "w"); p.Space != "constant" {
		t.Errorf("w: %+v", p)
	}
	if !strings.Contains(ap.Kernel.Source, "__constant__ float w[9];") || !strings.Contains(ap.Kernel.Source, "if (i < N) {") {
		t.Errorf("source:\n%s", ap.Kernel.Source)
	}
}

// TestApplyJangRefused: a per-thread kernel and a loop nest whose mapped
// loops are not outermost are refused with the reason.
func TestApplyJangRefused(t *testing.T) {
	k, err := kernel.Load("matmul-tiled")
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyJang(l); err == nil || !strings.Contains(err.Error(), "per-thread") {
		t.Errorf("per-thread kernel: got %v", err)
	}
	k, err = kernel.Load("matmul")
	if err != nil {
		t.Fatal(err)
	}
	mp, _ := kernel.ParseMapping("i1=ty,i3=tx")
	if l, err = traces.Bind(k, mp, arch.Dim3{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyJang(l); err == nil || !strings.Contains(err.Error(), "outermost") {
		t.Errorf("i3 mapped: got %v", err)
	}
}

// TestApplyJangExamples: every shipped loop nest, under its own mapping
// and under every permutation of it, is rewritten into a kernel that
// parses, and that binds at the example's block or is refused by one of
// its requires (whole blocks and strips).
func TestApplyJangExamples(t *testing.T) {
	for _, name := range kernel.Examples() {
		k, err := kernel.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if k.Program.Form != kernel.LoopNest || len(k.Launches) > 0 {
			continue
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := ApplyJang(l)
		if slices.ContainsFunc(k.Arrays, func(a *kernel.Array) bool { return a.Struct != nil }) {
			if err == nil || !strings.Contains(err.Error(), "holds structs") {
				t.Errorf("%s, with struct arrays: ApplyJang = %v; want a refusal", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := traces.Bind(ap.Kernel, nil, l.Block, nil, nil); err != nil && !strings.Contains(err.Error(), "requires") {
			t.Errorf("%s: the rewrite does not bind: %v\n%s", name, err, ap.File)
		}
	}
}
