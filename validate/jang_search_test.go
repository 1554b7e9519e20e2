package validate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

func jangLoad(t testing.TB, name string) *arch.Device {
	t.Helper()
	d, err := configs.Load(name)
	if err != nil {
		t.Fatalf("configs.Load(%q): %v", name, err)
	}
	return d
}

// jangShape writes a block as J14 prints it: ty×tx, or the size alone for
// a 1-D work group.
func jangShape(b arch.Dim3) string {
	if b.Y == 1 {
		return fmt.Sprint(b.X)
	}
	return fmt.Sprintf("%dx%d", b.Y, b.X)
}

func jangShapes(bs []arch.Dim3) []string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = jangShape(b)
	}
	return s
}

// J14's shape lists (ty×tx), models.md §2.
var (
	j14Table1Shapes = []string{"2x256", "4x128", "8x64", "16x32", "32x16", "2x128", "4x64", "8x32", "16x16", "2x64", "4x32", "8x16"}
	j14Table4Shapes = []string{"2x128", "4x64", "8x32", "16x16", "2x64", "4x32", "8x16", "2x32", "4x16", "2x16"}
	j14Table5Shapes = append(slices.Clone(j14Table1Shapes), "2x32", "4x16", "2x16")
)

func TestJangShapes(t *testing.T) {
	tests := []struct {
		max, min, dims int
		want           []string
	}{
		{512, 128, 2, j14Table1Shapes},
		{512, 16, 2, j14Table5Shapes},
		{512, 16, 1, []string{"512", "256", "128", "64", "32", "16"}},
		{32, 16, 2, []string{"2x16"}},
	}
	for _, tc := range tests {
		got, err := JangShapes(tc.max, tc.min, tc.dims)
		if err != nil {
			t.Fatalf("JangShapes(%d, %d, %d): %v", tc.max, tc.min, tc.dims, err)
		}
		if s := jangShapes(got); !slices.Equal(s, tc.want) {
			t.Errorf("JangShapes(%d, %d, %d) = %v; want %v", tc.max, tc.min, tc.dims, s, tc.want)
		}
	}
	for _, tc := range []struct {
		max, min, dims int
		want           string
	}{
		{512, 16, 3, "1-D and 2-D"},
		{500, 16, 2, "powers of two"},
		{64, 128, 1, "exceeds"},
	} {
		if _, err := JangShapes(tc.max, tc.min, tc.dims); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("JangShapes(%d, %d, %d) error %v; want one containing %q", tc.max, tc.min, tc.dims, err, tc.want)
		}
	}
}

func TestJangDefaultShapes(t *testing.T) {
	// GT200: 512 threads per block, the range J14 searches.
	got, err := JangDefaultShapes(jangLoad(t, "gt200"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if s := jangShapes(got); !slices.Equal(s, j14Table5Shapes) {
		t.Errorf("JangDefaultShapes(gt200, 2-D) = %v; want %v", s, j14Table5Shapes)
	}
	// Fermi: 1024 threads per block; 1024 adds 2×512 … 64×16.
	got, err = JangDefaultShapes(jangLoad(t, "fermi"), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"2x512", "4x256", "8x128", "16x64", "32x32", "64x16"}, j14Table5Shapes...)
	if s := jangShapes(got); !slices.Equal(s, want) {
		t.Errorf("JangDefaultShapes(fermi, 2-D) = %v; want %v", s, want)
	}
}

// jangNoLocalMemory is the cost and gain of the kernels of J14 Tables 2, 4
// and 5: "Cost and Gain are all zeros".
func jangNoLocalMemory(arch.Dim3) (int64, int64) { return 0, 0 }

// TestJangSearchJ14Tables reproduces AWG, OC and OR of J14 Tables 2, 4
// and 5 from their register counts through the GT200 occupancy
// calculator. The expected AWG and OC are J14's printed columns; by hand
// (models.md §1.1.5) AWG = min(8, 1024/WGS, 16384/(regs·WGS)) and
// OC = ceil(WGS/32)·AWG/32.
func TestJangSearchJ14Tables(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	tests := []struct {
		name   string
		dims   int
		regs   int
		shapes []string
		awg    []int
		oc     []float64
		rank   []int
	}{
		{"Table 2 (vector addition, 3 registers)", 1, 3,
			[]string{"512", "256", "128", "64", "32", "16"},
			[]int{2, 4, 8, 8, 8, 8},
			[]float64{1, 1, 1, 0.5, 0.25, 0.25},
			[]int{3, 2, 1, 4, 5, 5}},
		// 28 registers: 512 threads would hold 1 WG (28·512·2 > 16384),
		// so the search starts at 256.
		{"Table 4 (radiological path, 28 registers)", 2, 28, j14Table4Shapes,
			[]int{2, 2, 2, 2, 4, 4, 4, 8, 8, 8},
			[]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25},
			[]int{3, 3, 3, 3, 2, 2, 2, 1, 1, 4}},
		{"Table 5 (NMS, 15 registers)", 2, 15, j14Table5Shapes,
			[]int{2, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8},
			[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.25},
			[]int{3, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 4, 4, 5}},
	}
	for _, tc := range tests {
		shapes, err := JangDefaultShapes(gt200, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		cands, err := JangSearch(gt200, shapes, tc.regs, 4, jangNoLocalMemory)
		if err != nil {
			t.Fatalf("%s: JangSearch: %v", tc.name, err)
		}
		var got []string
		for _, c := range cands {
			got = append(got, jangShape(c.Block))
		}
		if !slices.Equal(got, tc.shapes) {
			t.Fatalf("%s: candidates %v; want %v", tc.name, got, tc.shapes)
		}
		for i, c := range cands {
			if !c.Valid || c.AWG != tc.awg[i] || c.Occupancy != tc.oc[i] || c.Rank != tc.rank[i] {
				t.Errorf("%s: %s: valid %v, AWG %d, OC %g, OR %d; want true, %d, %g, %d",
					tc.name, got[i], c.Valid, c.AWG, c.Occupancy, c.Rank, tc.awg[i], tc.oc[i], tc.rank[i])
			}
		}
	}
}

func TestJangSearchJ14Table1(t *testing.T) {
	// Matmul, mapping β, sizes 512 to 128: cost 0 everywhere, gain
	// min(H,W)² for each of A and B. J14 does not state the register
	// count; its AWG column implies at most 16, and 16 is the edge case
	// where a 512-thread work group fills the register file exactly
	// (16·512·2 = 16384) and J14 still counts 2 active work groups.
	gt200 := jangLoad(t, "gt200")
	shapes, err := JangShapes(512, 128, 2)
	if err != nil {
		t.Fatal(err)
	}
	betaMatmul := func(b arch.Dim3) (int64, int64) {
		return 0, JangPrefetchGain(b, 2, 2) + JangPrefetchGain(b, 2, 2)
	}
	cands, err := JangSearch(gt200, shapes, 16, 4, betaMatmul)
	if err != nil {
		t.Fatal(err)
	}
	wantAWG := []int{2, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8}
	wantGain := []int64{8, 32, 128, 512, 512, 8, 32, 128, 512, 8, 32, 128}
	wantOR := []int{9, 6, 3, 1, 1, 10, 7, 4, 2, 11, 8, 5}
	if len(cands) != len(wantOR) {
		t.Fatalf("%d candidates; want %d", len(cands), len(wantOR))
	}
	for i, c := range cands {
		if s := jangShape(c.Block); s != j14Table1Shapes[i] || c.AWG != wantAWG[i] || c.Gain != wantGain[i] ||
			c.Cost != 0 || c.Rank != wantOR[i] || c.ALM != arch.Bytes(4*wantGain[i]) {
			t.Errorf("row %d: %s AWG %d cost %d gain %d ALM %v OR %d; want %s AWG %d cost 0 gain %d ALM %d OR %d",
				i+1, s, c.AWG, c.Cost, c.Gain, c.ALM, c.Rank, j14Table1Shapes[i], wantAWG[i], wantGain[i], 4*wantGain[i], wantOR[i])
		}
	}
}

func TestJangSearchMatVec(t *testing.T) {
	// J14 Table 3: matrix-vector, 1-D, 17 registers; cost W (A is false
	// linear through tx), gain W² + W (A and x prefetched, SL = W), float.
	// Registers: 512 threads need 16 warps·32·17 = 8704 registers, one WG;
	// 256 need 4352 → 4608 after the 512-register unit: 3 WGs, so the
	// search starts at 256. Local memory: 256 and 128 do not fit 16 KiB,
	// 64 needs (64² + 64)·4 = 16640 B > 16384 (J14: "the first valid work
	// group size we can consider is 32"). At 32: 4224 B → 4608 after the
	// 512-B unit → 3 WGs; at 16: 1088 B → 1536 → 10, capped at 8. J14
	// prints AWG 4 for both, which neither registers nor local memory
	// give (models.md §1.1.5 flags it).
	gt200 := jangLoad(t, "gt200")
	shapes, err := JangDefaultShapes(gt200, 1)
	if err != nil {
		t.Fatal(err)
	}
	matvec := func(b arch.Dim3) (int64, int64) {
		return int64(b.X), JangPrefetchGain(b, 1, 2) + JangPrefetchGain(b, 1, 1)
	}
	cands, err := JangSearch(gt200, shapes, 17, 4, matvec)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		shape      string
		valid      bool
		cost, gain int64
		awg, rank  int
	}{
		{"256", false, 256, 256*256 + 256, 0, 0},
		{"128", false, 128, 128*128 + 128, 0, 0},
		{"64", false, 64, 64*64 + 64, 0, 0},
		{"32", true, 32, 1056, 3, 1},
		{"16", true, 16, 272, 8, 2},
	}
	if len(cands) != len(want) {
		t.Fatalf("candidates %v; want %d", cands, len(want))
	}
	for i, w := range want {
		c := cands[i]
		if s := jangShape(c.Block); s != w.shape || c.Valid != w.valid || c.Cost != w.cost || c.Gain != w.gain || c.AWG != w.awg || c.Rank != w.rank {
			t.Errorf("%s: valid %v cost %d gain %d AWG %d OR %d; want %s: %v %d %d %d %d",
				s, c.Valid, c.Cost, c.Gain, c.AWG, c.Rank, w.shape, w.valid, w.cost, w.gain, w.awg, w.rank)
		}
		if !c.Valid && !strings.Contains(c.Reason, "local memory") {
			t.Errorf("%s: reason %q; want one naming local memory", w.shape, c.Reason)
		}
	}
}

func TestJangPrefetchGain(t *testing.T) {
	tests := []struct {
		name            string
		block           arch.Dim3
		dims, arrayDims int
		want            int64
	}{
		// Mapping α at 8(ty)×32(tx): "8 (smaller of 32 and 8) × 8 = 64"
		// for each of A and B.
		{"α 8×32, A", arch.Dim3{X: 32, Y: 8, Z: 1}, 2, 2, 64},
		{"β 16×32", arch.Dim3{X: 32, Y: 16, Z: 1}, 2, 2, 256},
		{"β 32×16", arch.Dim3{X: 16, Y: 32, Z: 1}, 2, 2, 256},
		{"β 2×256", arch.Dim3{X: 256, Y: 2, Z: 1}, 2, 2, 4},
		// Matrix-vector, 1-D, SL = W: A gains W², x gains W.
		{"matvec W=32, A", arch.Dim3{X: 32, Y: 1, Z: 1}, 1, 2, 1024},
		{"matvec W=32, x", arch.Dim3{X: 32, Y: 1, Z: 1}, 1, 1, 32},
		{"matvec W=16, A", arch.Dim3{X: 16, Y: 1, Z: 1}, 1, 2, 256},
		{"matvec W=16, x", arch.Dim3{X: 16, Y: 1, Z: 1}, 1, 1, 16},
	}
	for _, tc := range tests {
		if got := JangPrefetchGain(tc.block, tc.dims, tc.arrayDims); got != tc.want {
			t.Errorf("JangPrefetchGain(%s) = %d; want %d", tc.name, got, tc.want)
		}
	}
	if sl := JangStripLength(arch.Dim3{X: 32, Y: 16, Z: 4}, 3); sl != 4 {
		t.Errorf("JangStripLength(32×16×4, 3-D) = %d; want 4", sl)
	}
}

func TestRankJangDense(t *testing.T) {
	b := func(x, y int) arch.Dim3 { return arch.Dim3{X: x, Y: y, Z: 1} }
	// Without local memory: low cost, then high occupancy, then high AWG.
	c := []JangCandidate{
		{Block: b(64, 1), Cost: 0, Occupancy: 0.5, AWG: 8, Valid: true},   // 2
		{Block: b(128, 1), Cost: 0, Occupancy: 1, AWG: 8, Valid: true},    // 1
		{Block: b(256, 1), Cost: 0, Occupancy: 1, AWG: 8, Valid: true},    // 1 (WGS plays no role)
		{Block: b(512, 1), Cost: 32, Occupancy: 1, AWG: 8, Valid: true},   // 4
		{Block: b(16, 1), Cost: 0, Occupancy: 0.5, AWG: 4, Valid: true},   // 3
		{Block: b(32, 1), Cost: 0, Occupancy: 1, AWG: 8, Valid: false},    // 0
		{Block: b(1024, 1), Cost: 64, Occupancy: 1, AWG: 8, Valid: true},  // 6
		{Block: b(2048, 1), Cost: 64, Occupancy: 1, AWG: 16, Valid: true}, // 5: more active WGs
	}
	RankJang(c, false)
	want := []int{2, 1, 1, 4, 3, 0, 6, 5}
	for i := range c {
		if c[i].Rank != want[i] {
			t.Errorf("no local memory: candidate %d (%v) rank %d; want %d", i, c[i].Block, c[i].Rank, want[i])
		}
	}
	// With local memory: high gain, then low cost, then large WGS.
	c = []JangCandidate{
		{Block: b(16, 16), Gain: 512, Cost: 0, Valid: true},  // 2
		{Block: b(16, 32), Gain: 512, Cost: 0, Valid: true},  // 1
		{Block: b(32, 16), Gain: 512, Cost: 0, Valid: true},  // 1
		{Block: b(32, 16), Gain: 512, Cost: 16, Valid: true}, // 3
		{Block: b(64, 8), Gain: 128, Cost: 0, Valid: true},   // 4
	}
	RankJang(c, true)
	want = []int{2, 1, 1, 3, 4}
	for i := range c {
		if c[i].Rank != want[i] {
			t.Errorf("local memory: candidate %d (%v) rank %d; want %d", i, c[i].Block, c[i].Rank, want[i])
		}
	}
}

func TestJangSearchStartFallbackAndErrors(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	// 512 threads with 17 registers hold one WG: no shape allows 2, so the
	// search keeps the largest one that runs.
	cands, err := JangSearch(gt200, []arch.Dim3{{X: 512, Y: 1, Z: 1}}, 17, 4, jangNoLocalMemory)
	if err != nil || len(cands) != 1 || !cands[0].Valid || cands[0].AWG != 1 || cands[0].Rank != 1 {
		t.Errorf("single 512 shape at 17 registers: %+v, %v; want one valid candidate with AWG 1, rank 1", cands, err)
	}
	// 40 registers × 512 threads exceed the register file: nothing runs.
	_, err = JangSearch(gt200, []arch.Dim3{{X: 512, Y: 1, Z: 1}}, 40, 4, jangNoLocalMemory)
	if err == nil || !strings.Contains(err.Error(), "no candidate shape runs on gt200") {
		t.Errorf("512 threads × 40 registers: error %v; want one saying no shape runs", err)
	}
	if _, err := JangSearch(gt200, nil, 10, 4, jangNoLocalMemory); err == nil {
		t.Error("no shapes: no error")
	}
	if _, err := JangSearch(gt200, []arch.Dim3{{X: 32, Y: 1, Z: 1}}, 10, 0, jangNoLocalMemory); err == nil {
		t.Error("element size 0: no error")
	}
}

func ExampleJangShapes() {
	shapes, err := JangShapes(256, 32, 2)
	if err != nil {
		panic(err)
	}
	for _, b := range shapes {
		fmt.Printf("%dx%d ", b.Y, b.X)
	}
	fmt.Println()
	// Output:
	// 2x128 4x64 8x32 16x16 2x64 4x32 8x16 2x32 4x16 2x16
}
