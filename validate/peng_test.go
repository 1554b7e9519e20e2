package validate

import (
	"encoding/json"
	"slices"
	"testing"

	"gpumemsim/arch"
)

func pengEstimate(t testing.TB, device, kernel, mapping string, block arch.Dim3, params map[string]int64) PengResult {
	t.Helper()
	r, err := PengEstimate(jangLoad(t, device), jangBind(t, kernel, mapping, block, params))
	if err != nil {
		t.Fatalf("PengEstimate(%s, %s): %v", device, kernel, err)
	}
	return r
}

// TestPengVecAdd: vector addition, N = 4096, blocks of 128 on a Tesla
// M2050 (Fermi weights 1/30/100). By hand: 32 blocks × 4 warps = 128
// warps; A[i], B[i], C[i] stride 4 B from 256-B aligned bases, 1
// transaction each per warp; every array is touched once per thread, so
// no access has a previous access to its array: all miss L1 and L2.
// Reads 2·128 requests × 100 = 25600, writes 128 × 100 = 12800, total
// 38400, all of complexity degree 0.
func TestPengVecAdd(t *testing.T) {
	r := pengEstimate(t, "fermi-m2050", "vecadd", "", arch.Dim3{X: 128, Y: 1, Z: 1}, map[string]int64{"N": 4096})
	if r.Weights.L1 != 1 || r.Weights.L2 != 30 || r.Weights.DRAM != 100 {
		t.Errorf("weights %v; want 1, 30, 100", r.Weights)
	}
	// 3 registers: min(8, 1536/128 = 12, 32768/3/128 = 85) = 8.
	if r.BlocksPerSM != 8 || r.L1Size != 16<<10 || r.L2Size != 768<<10 || r.L1Line != 128 || r.L2Line != 32 {
		t.Errorf("blocks/SM %d, L1 %v/%v, L2 %v/%v; want 8, 16KiB/128B, 768KiB/32B", r.BlocksPerSM, r.L1Size, r.L1Line, r.L2Size, r.L2Line)
	}
	for _, a := range r.Accesses {
		if a.Transactions != 1 || a.Stride != 4 || a.Warps != 128 || a.Executions != 1 || a.L1Hits != 0 || a.L2Hits != 0 || a.Cost != 12800 {
			t.Errorf("%s: %d transactions/warp, stride %d, %d warps, %d executions, hits %d/%d, cost %g; want 1, 4, 128, 1, 0/0, 12800",
				a.Text, a.Transactions, a.Stride, a.Warps, a.Executions, a.L1Hits, a.L2Hits, a.Cost)
		}
	}
	if r.ReadRequests != 256 || r.WriteRequests != 128 || r.ReadCost != 25600 || r.WriteCost != 12800 || r.Cost != 38400 {
		t.Errorf("requests %d/%d, cost %g + %g = %g; want 256/128, 25600 + 12800 = 38400",
			r.ReadRequests, r.WriteRequests, r.ReadCost, r.WriteCost, r.Cost)
	}
	if !slices.Equal(r.CostVector, PengCostVector{38400}) {
		t.Errorf("cost vector %v; want (38400)", r.CostVector)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("json.Marshal: %v", err)
	}
}

// TestPengNoCaches: GT200 has neither an L1 nor an L2 for global loads,
// so every weight is 1 (all levels cost a DRAM access) and the cost counts
// transactions: vecadd at N = 4096 has 3 · 128 of them.
func TestPengNoCaches(t *testing.T) {
	r := pengEstimate(t, "gt200", "vecadd", "", arch.Dim3{X: 128, Y: 1, Z: 1}, map[string]int64{"N": 4096})
	if r.L1Size != 0 || r.L2Size != 0 || r.Weights.L2 != 1 || r.Weights.DRAM != 1 || r.Cost != 384 {
		t.Errorf("gt200: L1 %v L2 %v weights %v cost %g; want 0, 0, all 1, 384", r.L1Size, r.L2Size, r.Weights, r.Cost)
	}
}

// TestPengStride: the stride microbenchmark a[S*i + O] (N = 4096, 128
// threads a block, a at 0x10000000). Peng's table: stride 4·S bytes gives
// 1 transaction for S = 1 (aligned), S for 1 < S < 32, 32 for S ≥ 32
// (stride ≥ 128 B). Misaligned unit stride (O = 1) is the general case:
// lanes cover bytes 4 … 131, two 128-B segments.
func TestPengStrideKernel(t *testing.T) {
	tests := []struct {
		s, o  int64
		trans int
	}{
		{1, 0, 1}, {2, 0, 2}, {3, 0, 3}, {31, 0, 31}, {32, 0, 32}, {33, 0, 32}, {64, 0, 32}, {1, 1, 2},
	}
	for _, tc := range tests {
		r := pengEstimate(t, "fermi-m2050", "stride", "", arch.Dim3{X: 128, Y: 1, Z: 1},
			map[string]int64{"N": 4096, "S": tc.s, "O": tc.o})
		a := r.Accesses[0]
		if a.Transactions != tc.trans || a.Stride != 4*tc.s {
			t.Errorf("stride S=%d O=%d: %d transactions per warp, stride %d B; want %d, %d",
				tc.s, tc.o, a.Transactions, a.Stride, tc.trans, 4*tc.s)
		}
		// One load per thread, no reuse: 128 warps × T × 100.
		if want := float64(128 * tc.trans * 100); r.Cost != want {
			t.Errorf("stride S=%d O=%d: cost %g; want %g", tc.s, tc.o, r.Cost, want)
		}
	}
}

// TestPengTransactions exercises the table and the general case directly.
func TestPengTransactions(t *testing.T) {
	lanes := func(n int, base, stride int64) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = base + int64(i)*stride
		}
		return s
	}
	// A warp of a 16×16 block reading A[ty][i3] with rows 256 B apart:
	// two addresses, two segments.
	twoRows := append(lanes(16, 0, 0), lanes(16, 256, 0)...)
	tests := []struct {
		name  string
		lanes []int64
		width int64
		want  int
	}{
		{"broadcast", lanes(32, 1000, 0), 4, 1},
		{"unit aligned", lanes(32, 1024, 4), 4, 1},
		{"unit misaligned", lanes(32, 1028, 4), 4, 2},
		{"stride 8", lanes(32, 0, 8), 4, 2},
		{"stride 8 misaligned (table: N = 2)", lanes(32, 4, 8), 4, 2},
		{"stride 128", lanes(32, 0, 128), 4, 32},
		{"reverse unit within a segment", lanes(32, 124, -4), 4, 1},
		{"reverse unit across segments", lanes(32, 128, -4), 4, 2},
		{"two rows", twoRows, 4, 2},
		{"half warp unit", lanes(16, 0, 4), 4, 1},
		{"8-B elements straddling", lanes(1, 124, 0), 8, 2},
		{"no lanes", nil, 4, 0},
	}
	for _, tc := range tests {
		if got := PengTransactions(tc.lanes, tc.width); got != tc.want {
			t.Errorf("PengTransactions(%s) = %d transactions; want %d", tc.name, got, tc.want)
		}
	}
}

// TestPengMatmulBeta: matmul, mapping β (C[ty][tx] = Σ A[ty][i3]·B[i3][tx]),
// M = N = P = 64, blocks of 32(tx)×8(ty), 16 registers. Derivation by hand:
//
//   - Grid 2×8 = 16 blocks of 8 warps: 128 warps. Each warp is one row of
//     32 threads: A[ty][i3] is the same address in all lanes (stride 0, 1
//     transaction), B[i3][tx] and C[ty][tx] unit stride from aligned rows
//     (1 transaction).
//   - Blocks per SM (Tesla M2050): min(8, 1536/256 = 6, 32768/16/256 = 8)
//     = 6.
//   - Thread 0 runs A[0][0], B[0][0], A[0][1], B[1][0], …, then C[0][0].
//     For A[0][k], k ≥ 1, the previous access to A is A[0][k−1]: index
//     difference 1, and between them (inclusive) A[0][k−1], B[k−1][0],
//     A[0][k]: 3 unique 4-B locations = 12 B per thread. L1 distance 6 ·
//     256 · 12 = 18432 B > 16 KiB: no L1 hit; L2 distance 16 · 256 · 12 =
//     49152 B ≤ 768 KiB and (1 + 2) · 4 = 12 ≤ 32 (L2 line): an L2 hit.
//     A[0][0] has no previous access: DRAM. Cost A = 128 · (100 + 63 · 30)
//     = 254720.
//   - For B[k][0] the previous B is B[k−1][0], 64 elements away: (64 + 2)
//     · 4 = 264 B exceeds both lines, so every B access goes to DRAM: 128
//     · 64 · 100 = 819200.
//   - C is stored once, no earlier C access: 128 · 100 = 12800.
//   - Total 1086720; A and B sit in the param-length i3 loop (degree 1 of
//     1 loop), C in no in-thread loop: cost vector (12800, 1073920).
//
// With the 48 KiB L1 (fermi-l1-48k) the L1 distance 18432 B fits, and 12 ≤
// 128 (L1 line), so A's 63 later accesses hit L1: A = 128 · (100 + 63) =
// 20864, total 852864.
func TestPengMatmulBeta(t *testing.T) {
	params := map[string]int64{"M": 64, "N": 64, "P": 64}
	block := arch.Dim3{X: 32, Y: 8, Z: 1}
	tests := []struct {
		device      string
		costA       float64
		l1HitsA     int64
		l2HitsA     int64
		total       float64
		totalVector PengCostVector
	}{
		{"fermi-m2050", 254720, 0, 63, 1086720, PengCostVector{12800, 1073920}},
		{"fermi-l1-48k", 20864, 63, 0, 852864, PengCostVector{12800, 840064}},
	}
	for _, tc := range tests {
		r := pengEstimate(t, tc.device, "matmul", "i1=ty,i2=tx", block, params)
		if r.BlocksPerSM != 6 {
			t.Errorf("%s: %d blocks per SM; want 6", tc.device, r.BlocksPerSM)
		}
		a, b, c := r.Accesses[0], r.Accesses[1], r.Accesses[2]
		if a.Text != "A[i1][i3]" || b.Text != "B[i3][i2]" || c.Text != "C[i1][i2]" {
			t.Fatalf("%s: accesses %s, %s, %s; want A, B, C", tc.device, a.Text, b.Text, c.Text)
		}
		if a.L1Distance != 18432 || a.L2Distance != 49152 || a.IndexDiff != 1 || !a.IndexKnown || a.Previous != "A[i1][i3]" {
			t.Errorf("%s: A: distances %d/%d, index diff %d (known %v), previous %q; want 18432/49152, 1 (true), A[i1][i3]",
				tc.device, a.L1Distance, a.L2Distance, a.IndexDiff, a.IndexKnown, a.Previous)
		}
		if a.Cost != tc.costA || a.L1Hits != tc.l1HitsA || a.L2Hits != tc.l2HitsA || a.Executions != 64 || a.Transactions != 1 {
			t.Errorf("%s: A: cost %g, hits %d/%d, %d executions, %d transactions; want %g, %d/%d, 64, 1",
				tc.device, a.Cost, a.L1Hits, a.L2Hits, a.Executions, a.Transactions, tc.costA, tc.l1HitsA, tc.l2HitsA)
		}
		if b.Cost != 819200 || b.IndexDiff != 64 || b.L1Accordant || b.L2Accordant || b.L1Hits+b.L2Hits != 0 {
			t.Errorf("%s: B: cost %g, index diff %d, accordant %v/%v, hits %d/%d; want 819200, 64, false/false, 0/0",
				tc.device, b.Cost, b.IndexDiff, b.L1Accordant, b.L2Accordant, b.L1Hits, b.L2Hits)
		}
		if c.Cost != 12800 || c.Degree != 0 || a.Degree != 1 || !slices.Equal(a.Loops, []string{"i3"}) {
			t.Errorf("%s: C cost %g degree %d, A degree %d loops %v; want 12800, 0, 1, [i3]", tc.device, c.Cost, c.Degree, a.Degree, a.Loops)
		}
		if r.Cost != tc.total || !slices.Equal(r.CostVector, tc.totalVector) {
			t.Errorf("%s: total %g, vector %v; want %g, %v", tc.device, r.Cost, r.CostVector, tc.total, tc.totalVector)
		}
		// Hit ratios: R_L1 = L1 hits / 64, R_L2 over the L1 misses.
		if want := float64(tc.l1HitsA) / 64; a.L1HitRatio != want {
			t.Errorf("%s: A: R_L1 %g; want %g", tc.device, a.L1HitRatio, want)
		}
	}
}

// TestPengReuseRules covers temporal reuse of the same element, the
// fixed-length loop's degree, stores bypassing L1, a thread-dependent
// index difference and Kepler's disabled L1, with inline kernels.
func TestPengReuseRules(t *testing.T) {
	src := func(arrays, source string) string {
		return "name: k\nparams: {N: 4096}\narrays:\n" + arrays + "source: |\n" + source + "mapping: {i: tx}\nblock: [128]\nregs: 16\n"
	}
	// a[i] read twice in one statement: the second read has the first as
	// previous access, index difference 0, 4 unique bytes: L1 distance
	// 8 · 128 · 4 = 4096 ≤ 16 KiB, accordant (2 · 4 ≤ 128): an L1 hit.
	// b[i] is stored (DRAM), then read: stores do not fill L1, so the read
	// misses L1 and hits L2 (previous access b[i], difference 0).
	k := src("  a: {type: f32, dims: [N]}\n  b: {type: f32, dims: [N]}\n  c: {type: f32, dims: [N]}\n",
		"  for (i = 0; i < N; i++) {\n    b[i] = a[i] * a[i];\n    c[i] = b[i];\n  }\n")
	r := pengEstimate(t, "fermi-m2050", k, "", arch.Dim3{}, nil)
	// refs: a[i], a[i], b[i] (store), b[i] (load), c[i] (store)
	hits := [][2]int64{}
	for _, a := range r.Accesses {
		hits = append(hits, [2]int64{a.L1Hits, a.L2Hits})
	}
	if want := [][2]int64{{0, 0}, {1, 0}, {0, 0}, {0, 1}, {0, 0}}; !slices.Equal(hits, want) {
		t.Errorf("reuse: hits (L1, L2) per access %v; want %v", hits, want)
	}
	if a := r.Accesses[1]; a.L1Distance != 8*128*4 {
		t.Errorf("reuse: a[i] second read: L1 distance %d; want 4096", a.L1Distance)
	}
	// On Kepler the L1 does not serve global loads: the second a[i] read
	// hits L2 instead.
	rk := pengEstimate(t, "kepler", k, "", arch.Dim3{}, nil)
	if a := rk.Accesses[1]; rk.L1Size != 0 || a.L1Hits != 0 || a.L2Hits != 1 {
		t.Errorf("kepler: L1 size %v, a[i] second read hits %d/%d; want 0, 0/1", rk.L1Size, a.L1Hits, a.L2Hits)
	}

	// a[i] then a[N-1-i]: the thread-dependent parts differ, so the index
	// difference is not known at compile time and nothing is accordant.
	k = src("  a: {type: f32, dims: [N]}\n  b: {type: f32, dims: [N]}\n",
		"  for (i = 0; i < N; i++)\n    b[i] = a[i] + a[N-1-i];\n")
	r = pengEstimate(t, "fermi-m2050", k, "", arch.Dim3{}, nil)
	if a := r.Accesses[1]; a.IndexKnown || a.L1Accordant || a.L2Accordant || a.L1Hits+a.L2Hits != 0 {
		t.Errorf("a[N-1-i]: index known %v, accordant %v/%v, hits %d/%d; want false, false/false, 0/0",
			a.IndexKnown, a.L1Accordant, a.L2Accordant, a.L1Hits, a.L2Hits)
	}

	// A fixed-length loop (k < 8) is not variable-length: degree 0 of 1
	// loop, so the cost sits at position 0 of a length-2 vector.
	k = src("  c: {type: f32, dims: [8]}\n  b: {type: f32, dims: [N]}\n",
		"  for (i = 0; i < N; i++)\n    for (k = 0; k < 8; k++)\n      b[i] += c[k];\n")
	r = pengEstimate(t, "fermi-m2050", k, "", arch.Dim3{}, nil)
	c := r.Accesses[1]
	if c.Text != "c[k]" || c.Degree != 0 || len(c.CostVector) != 2 || c.CostVector[0] != c.Cost || c.CostVector[1] != 0 || c.Executions != 8 {
		t.Errorf("c[k]: degree %d, vector %v (cost %g), %d executions; want 0, (cost, 0), 8", c.Degree, c.CostVector, c.Cost, c.Executions)
	}
}

// TestPengActiveWarps: partial blocks and unmapped block dimensions.
func TestPengActiveWarps(t *testing.T) {
	tests := []struct {
		kernel string
		block  arch.Dim3
		params map[string]int64
		want   int64
	}{
		// 100 threads in blocks of 64: block 0 has 2 warps, block 1 has
		// 36 threads → 2 warps.
		{"vecadd", arch.Dim3{X: 64, Y: 1, Z: 1}, map[string]int64{"N": 100}, 4},
		// 40 threads in one block of 32×2 where only ty = 0 is used: lanes
		// 0–31 form warp 0 (active), ty = 1 is warp 1 (inactive); block 1
		// (8 threads) has warp 0 active.
		{"vecadd", arch.Dim3{X: 32, Y: 2, Z: 1}, map[string]int64{"N": 40}, 2},
		// matmul 20×20 in blocks of 16×16: 4 blocks; full block 8 warps;
		// x-partial (4 wide) 8 warps; y-partial (4 rows) 2 warps; corner 2.
		{"matmul", arch.Dim3{X: 16, Y: 16, Z: 1}, map[string]int64{"M": 20, "N": 20, "P": 4}, 20},
	}
	for _, tc := range tests {
		l := jangBind(t, tc.kernel, "", tc.block, tc.params)
		if got := pengActiveWarps(l); got != tc.want {
			t.Errorf("%s %v %v: %d active warps; want %d", tc.kernel, tc.block, tc.params, got, tc.want)
		}
	}
}

func TestPengTraceLimit(t *testing.T) {
	// matvec at N = 4096 runs 4 · 4096 accesses per thread: fine. At N =
	// 2^21 it exceeds PengMaxTrace (4 · 2^21 > 2^22) and is refused.
	d := jangLoad(t, "fermi-m2050")
	l := jangBind(t, "matvec", "", arch.Dim3{}, map[string]int64{"N": 1 << 21})
	if _, err := PengEstimate(d, l); err == nil {
		t.Errorf("matvec N=2^21: no error; want the trace limit")
	}
}

// BenchmarkPengEstimate: matrix-vector at N = 4096 unrolls 4 · 4096
// accesses per thread; the metric is unrolled accesses per second.
func BenchmarkPengEstimate(b *testing.B) {
	d := jangLoad(b, "fermi-m2050")
	l := jangBind(b, "matvec", "", arch.Dim3{}, nil)
	var steps int64
	for b.Loop() {
		r, err := PengEstimate(d, l)
		if err != nil {
			b.Fatal(err)
		}
		steps = 0
		for _, a := range r.Accesses {
			steps += a.Executions
		}
	}
	b.ReportAllocs()
	b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}
