package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// perThread is an inline per-thread kernel file over f32 arrays A, B, C of
// dims and params N, P: the body of its __global__ function, its grid
// and regs.
func perThread(dims, body, grid string, regs int) string {
	src := "name: pt\nparams: {N: 64, P: 64}\narrays:\n"
	for _, a := range []string{"A", "B", "C"} {
		src += "  " + a + ": {type: f32, dims: " + dims + "}\n"
	}
	src += "source: |\n  __global__ void pt(float *C, const float *A, const float *B, int N, int P)\n  {\n"
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		src += "    " + line + "\n"
	}
	src += "  }\ngrid: " + grid + "\n"
	if regs > 0 {
		src += "regs: " + strconv.Itoa(regs) + "\n"
	}
	return src
}

// Matmul written by hand per thread, J14's mappings: β (i1→ty, i2→tx)
// and α (i1→tx, i2→ty), with flat subscripts.
var (
	perThreadBeta = perThread("[N, N]", `
int row = blockIdx.y * blockDim.y + threadIdx.y;
int col = blockIdx.x * blockDim.x + threadIdx.x;
float acc = 0;
for (int k = 0; k < N; k++)
  acc += A[row * N + k] * B[k * N + col];
C[row * N + col] = acc;`, `["N / blockDim.x", "N / blockDim.y"]`, 16)
	perThreadAlpha = perThread("[N, N]", `
int i1 = blockIdx.x * blockDim.x + threadIdx.x;
int i2 = blockIdx.y * blockDim.y + threadIdx.y;
float acc = 0;
for (int i3 = 0; i3 < N; i3++)
  acc += A[i1 * N + i3] * B[i3 * N + i2];
C[i1 * N + i2] = acc;`, `["N / blockDim.x", "N / blockDim.y"]`, 16)
)

// TestJangPerThreadMatmul: J14's rules by hand on the per-thread matmul,
// columns (threadIdx.y, threadIdx.x, k). β: Listing 1's matrices, A tx
// not involved, B and C true linear, cost 0. α: A[tx][i3] false linear
// (cost W = 32), B[i3][ty] tx not involved (0), C[tx][ty] false linear
// (H·W = 256), total 288 at 8(ty)×32(tx). Both prefetch A and B along the
// problem-size loop with SL = min(8, 32) = 8: gain 8·8 each, 128.
func TestJangPerThreadMatmul(t *testing.T) {
	block := arch.Dim3{X: 32, Y: 8, Z: 1}
	tests := []struct {
		name, src string
		m         map[string][][]int64
		class     map[string]string
		cost      map[string]int64
	}{
		{"β", perThreadBeta,
			map[string][][]int64{"A": {{1, 0, 0}, {0, 0, 1}}, "B": {{0, 0, 1}, {0, 1, 0}}, "C": {{1, 0, 0}, {0, 1, 0}}},
			map[string]string{"A": JangTxNotInvolved, "B": JangTrueLinear, "C": JangTrueLinear},
			map[string]int64{"A": 0, "B": 0, "C": 0}},
		{"α", perThreadAlpha,
			map[string][][]int64{"A": {{0, 1, 0}, {0, 0, 1}}, "B": {{0, 0, 1}, {1, 0, 0}}, "C": {{0, 1, 0}, {1, 0, 0}}},
			map[string]string{"A": JangFalseLinear, "B": JangTxNotInvolved, "C": JangFalseLinear},
			map[string]int64{"A": 32, "B": 0, "C": 256}},
	}
	for _, tc := range tests {
		m := jangModel(t, tc.src, "", block, nil)
		if len(m.Loops) != 3 || !slices.Equal(m.Loops[:2], []string{"threadIdx.y", "threadIdx.x"}) ||
			!slices.Equal(m.InterAxes, []string{"tx", "ty"}) || m.Dims != 2 || !slices.Equal(m.ProblemSize, m.IntraLoops) {
			t.Errorf("%s: loops %v, inter axes %v, dims %d, problem size %v; want threadIdx.y, threadIdx.x, the loop; tx, ty; 2; the loop",
				tc.name, m.Loops, m.InterAxes, m.Dims, m.ProblemSize)
		}
		for _, r := range m.Refs {
			if !slices.EqualFunc(r.M, tc.m[r.Array], slices.Equal) || !slices.Equal(r.O, []int64{0, 0}) ||
				r.Class != tc.class[r.Array] || r.Cost != tc.cost[r.Array] {
				t.Errorf("%s: %s: M %v o %v %q cost %d; want %v [0 0] %q %d", tc.name, r.Text, r.M, r.O, r.Class, r.Cost,
					tc.m[r.Array], tc.class[r.Array], tc.cost[r.Array])
			}
		}
		wantCost := tc.cost["A"] + tc.cost["B"] + tc.cost["C"]
		if a, b := jangArrayNamed(t, m, "A"), jangArrayNamed(t, m, "B"); m.Cost != wantCost || m.Gain != 128 || a.Gain != 64 || b.Gain != 64 || !a.Prefetch {
			t.Errorf("%s: cost %d gain %d (A %d, B %d, A prefetched %v); want %d, 128 (64, 64, true)", tc.name, m.Cost, m.Gain, a.Gain, b.Gain, a.Prefetch, wantCost)
		}
	}
}

// TestJangPerThreadTable1: the tiled matmul whose tiles follow the block
// (J14's strip-mined β, SL = min(H, W)) over Table 1's twelve shapes on
// GT200: cost 0, gain min(H,W)² for each of A and B, and Table 1's OR
// column, each shape's model from the kernel bound at that shape.
func TestJangPerThreadTable1(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	l := jangBind(t, "matmul-tiled", "", arch.Dim3{}, nil)
	m, err := NewJangModel(l)
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := JangShapes(512, 128, 2)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := JangSearchLaunch(gt200, l, m, shapes)
	if err != nil {
		t.Fatal(err)
	}
	wantOR := []int{9, 6, 3, 1, 1, 10, 7, 4, 2, 11, 8, 5}
	wantAWG := []int{2, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8}
	for i, c := range cands {
		sl := int64(min(c.Block.X, c.Block.Y))
		if s := jangShape(c.Block); s != j14Table1Shapes[i] || c.Cost != 0 || c.Gain != 2*sl*sl || c.Rank != wantOR[i] || c.AWG != wantAWG[i] {
			t.Errorf("row %d: %s cost %d gain %d AWG %d OR %d; want %s 0 %d %d %d", i+1, s, c.Cost, c.Gain, c.AWG, c.Rank,
				j14Table1Shapes[i], 2*sl*sl, wantAWG[i], wantOR[i])
		}
	}
	for _, r := range m.Refs {
		want := JangTrueLinear
		if r.Class != want || r.Cost != 0 || r.Prefetch != (r.Op == "load") {
			t.Errorf("%s: %q cost %d prefetch %v; want %q 0 %v", r.Text, r.Class, r.Cost, r.Prefetch, want, r.Op == "load")
		}
	}
}

// TestJangPerThreadTiledFile: the shipped tiled matmul at its own block
// (16x16, H = W = SL = 16): A[a + K*ty + tx] is A[ty][a + tx] and
// B[b + N*ty + tx] is B[a + ty][tx] over (threadIdx.y, threadIdx.x, a,
// k), both true linear and prefetched along a: cost 0, gain 16² twice.
func TestJangPerThreadTiledFile(t *testing.T) {
	m := jangModel(t, "matmul-tiled", "", arch.Dim3{}, map[string]int64{"M": 256, "N": 256, "P": 256})
	want := map[string][][]int64{"A": {{1, 0, 0, 0}, {0, 1, 1, 0}}, "B": {{1, 0, 1, 0}, {0, 1, 0, 0}}, "C": {{1, 0, 0, 0}, {0, 1, 0, 0}}}
	for _, r := range m.Refs {
		if !slices.EqualFunc(r.M, want[r.Array], slices.Equal) || r.Class != JangTrueLinear {
			t.Errorf("%s: M %v %q; want %v true linear", r.Text, r.M, r.Class, want[r.Array])
		}
	}
	if m.Cost != 0 || m.Gain != 512 {
		t.Errorf("cost %d gain %d; want 0, 512", m.Cost, m.Gain)
	}
}

// TestJangPerThreadVecAdd: vector addition per thread, 1-D, is J14 Table
// 2's kernel: the same candidates and ranks as the loop nest's.
func TestJangPerThreadVecAdd(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	src := perThread("[N]", `
int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i < N)
  C[i] = A[i] + B[i];`, `["N / blockDim.x"]`, 3)
	src = strings.Replace(src, "{N: 64, P: 64}", "{N: 33554432, P: 1}", 1)
	pt, err := NewJangEstimate(gt200, jangBind(t, src, "", arch.Dim3{X: 128, Y: 1, Z: 1}, nil))
	if err != nil {
		t.Fatal(err)
	}
	nest, err := NewJangEstimate(gt200, jangBind(t, "vecadd", "", arch.Dim3{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if pt.Model.Dims != 1 || !slices.Equal(pt.Candidates, nest.Candidates) {
		t.Errorf("per-thread vecadd: dims %d, candidates %+v; want 1, the loop nest's %+v", pt.Model.Dims, pt.Candidates, nest.Candidates)
	}
}

// TestJangPerThreadNotAffine: a kernel with subscripts that are not
// affine is refused, every such reference named, with one hint.
func TestJangPerThreadNotAffine(t *testing.T) {
	src := perThread("[N]", `
int t = threadIdx.x;
C[t % 8] = A[t * t] + B[t];`, `[1]`, 0)
	l := jangBind(t, src, "", arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	_, errJ := NewJangModel(l)
	_, errP := PengEstimate(jangLoad(t, "fermi"), l)
	for _, err := range []error{errJ, errP} {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		for _, want := range []string{"inline.yaml:11:16: A[t*t]: not affine in thread and block indices: t * t multiplies",
			"inline.yaml:11:5: C[t%8]: not affine in thread and block indices: t % 8 takes the remainder", "hint: "} {
			if !strings.Contains(msg, want) || strings.Count(msg, "hint:") != 1 {
				t.Errorf("error %q; want one containing %q and one hint", msg, want)
			}
		}
	}
}

// TestPengPerThreadMatmulBeta: the per-thread β matmul has the loop
// nest's numbers worked out by hand in TestPengMatmulBeta: A 254720
// (fermi-m2050) or 20864 (48 KiB L1), B 819200, C 12800, total 1086720 or
// 852864, cost vectors (12800, 1073920) and (12800, 840064).
func TestPengPerThreadMatmulBeta(t *testing.T) {
	block := arch.Dim3{X: 32, Y: 8, Z: 1}
	tests := []struct {
		device       string
		costA, total float64
		vector       PengCostVector
	}{
		{"fermi-m2050", 254720, 1086720, PengCostVector{12800, 1073920}},
		{"fermi-l1-48k", 20864, 852864, PengCostVector{12800, 840064}},
	}
	for _, tc := range tests {
		r, err := PengEstimate(jangLoad(t, tc.device), jangBind(t, perThreadBeta, "", block, nil))
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := r.Accesses[0], r.Accesses[1], r.Accesses[2]
		if r.BlocksPerSM != 6 || a.Cost != tc.costA || b.Cost != 819200 || c.Cost != 12800 || r.Cost != tc.total || !slices.Equal(r.CostVector, tc.vector) {
			t.Errorf("%s: %d blocks per SM, costs A %g B %g C %g, total %g %v; want 6, %g 819200 12800, %g %v",
				tc.device, r.BlocksPerSM, a.Cost, b.Cost, c.Cost, r.Cost, r.CostVector, tc.costA, tc.total, tc.vector)
		}
		if a.Stride != 0 || b.Stride != 4 || a.Executions != 64 || a.Transactions != 1 || a.Degree != 1 || !slices.Equal(a.Loops, []string{"k"}) {
			t.Errorf("%s: A stride %d, B stride %d, A %d executions, %d transactions, degree %d, loops %v; want 0, 4, 64, 1, 1, [k]",
				tc.device, a.Stride, b.Stride, a.Executions, a.Transactions, a.Degree, a.Loops)
		}
	}
}

// TestPengPerThreadSkipsShared: the tiled matmul's shared-memory
// references are not accesses of the model; thread 0 reads A and B once
// per tile (K/SL = 16 times) and writes C once.
func TestPengPerThreadSkipsShared(t *testing.T) {
	r, err := PengEstimate(jangLoad(t, "fermi"), jangBind(t, "matmul-tiled", "", arch.Dim3{}, map[string]int64{"M": 256, "N": 256, "P": 256}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range r.Accesses {
		got = append(got, fmt.Sprintf("%s:%d", a.Array, a.Executions))
	}
	if want := []string{"A:16", "B:16", "C:1"}; !slices.Equal(got, want) {
		t.Errorf("accesses %v; want %v", got, want)
	}
}

// TestJangSearchRefusedShapes: Algorithm 2's GT200 candidates for the
// tiled matmul at M = N = P = 64 are the fifteen 2-D shapes of 512 down
// to 32 threads with tx ≥ 16 (5 + 4 + 3 + 2 + 1); the three 128 or 256
// wide do not divide N = 64, so the kernel's requires: refuses them: they
// come back invalid with that reason, and the other twelve are searched.
func TestJangSearchRefusedShapes(t *testing.T) {
	d := jangLoad(t, "gt200")
	l := jangBind(t, "matmul-tiled", "", arch.Dim3{}, map[string]int64{"M": 64, "N": 64, "P": 64})
	est, err := NewJangEstimate(d, l)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	valid := 0
	for _, c := range est.Candidates {
		switch {
		case c.Valid:
			valid++
		case strings.Contains(c.Reason, "it requires N % blockDim.x == 0"):
			refused = append(refused, c.Block.String())
		default:
			t.Errorf("%s: invalid for %q; want valid or refused by requires", c.Block, c.Reason)
		}
	}
	if want := []string{"256x2x1", "128x4x1", "128x2x1"}; !slices.Equal(refused, want) || valid != 12 {
		t.Errorf("refused %v, %d valid; want %v, 12 valid", refused, valid, want)
	}
}
