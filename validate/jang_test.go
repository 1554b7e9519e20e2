package validate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// jangBind binds a shipped kernel (or inline kernel source when name
// holds a newline) with a mapping ("" for the kernel's), a block and
// param overrides.
func jangBind(t testing.TB, name, mapping string, block arch.Dim3, params map[string]int64) *traces.Launch {
	t.Helper()
	var k *kernel.Kernel
	var err error
	if strings.Contains(name, "\n") {
		k, err = kernel.Parse("inline.yaml", []byte(name))
	} else {
		k, err = kernel.Load(name)
	}
	if err != nil {
		t.Fatalf("kernel: %v", err)
	}
	var m kernel.Mapping
	if mapping != "" {
		if m, err = kernel.ParseMapping(mapping); err != nil {
			t.Fatal(err)
		}
	}
	l, err := traces.Bind(k, m, block, params, nil)
	if err != nil {
		t.Fatalf("Bind(%s, %s, %v): %v", k.Name, mapping, block, err)
	}
	return l
}

func jangModel(t testing.TB, name, mapping string, block arch.Dim3, params map[string]int64) *JangModel {
	t.Helper()
	m, err := NewJangModel(jangBind(t, name, mapping, block, params))
	if err != nil {
		t.Fatalf("NewJangModel(%s, %s): %v", name, mapping, err)
	}
	return m
}

func jangArrayNamed(t testing.TB, m *JangModel, name string) JangArray {
	t.Helper()
	for _, a := range m.Arrays {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("%s: no array %s in %v", m.Kernel, name, m.Arrays)
	return JangArray{}
}

func jangRefNamed(t testing.TB, m *JangModel, text, op string) JangRef {
	t.Helper()
	for _, r := range m.Refs {
		if r.Text == text && r.Op == op {
			return r
		}
	}
	t.Fatalf("%s: no %s reference %s", m.Kernel, op, text)
	return JangRef{}
}

// TestJangMatmulListing1 checks J14 Listing 1's access matrices and the
// classes of mappings α and β (models.md §1.1.1, §1.1.4): α: A[tx][i3]
// false linear, B[i3][ty] tx not involved, C[tx][ty] false linear; β:
// A[ty][i3] tx not involved, B[i3][tx] and C[ty][tx] true linear.
func TestJangMatmulListing1(t *testing.T) {
	wantM := map[string][][]int64{
		"A": {{1, 0, 0}, {0, 0, 1}},
		"B": {{0, 0, 1}, {0, 1, 0}},
		"C": {{1, 0, 0}, {0, 1, 0}},
	}
	tests := []struct {
		mapping string
		class   map[string]string
		// inter-thread columns ordered (tx, ty), intra-thread (i3)
		inter map[string][][]int64
		intra map[string][][]int64
	}{
		{"i1=tx,i2=ty",
			map[string]string{"A": JangFalseLinear, "B": JangTxNotInvolved, "C": JangFalseLinear},
			map[string][][]int64{"A": {{1, 0}, {0, 0}}, "B": {{0, 0}, {0, 1}}, "C": {{1, 0}, {0, 1}}},
			map[string][][]int64{"A": {{0}, {1}}, "B": {{1}, {0}}, "C": {{0}, {0}}}},
		{"i1=ty,i2=tx",
			map[string]string{"A": JangTxNotInvolved, "B": JangTrueLinear, "C": JangTrueLinear},
			map[string][][]int64{"A": {{0, 1}, {0, 0}}, "B": {{0, 0}, {1, 0}}, "C": {{0, 1}, {1, 0}}},
			map[string][][]int64{"A": {{0}, {1}}, "B": {{1}, {0}}, "C": {{0}, {0}}}},
	}
	for _, kernel := range []string{"matmul-naive", "matmul"} {
		for _, tc := range tests {
			m := jangModel(t, kernel, tc.mapping, arch.Dim3{X: 32, Y: 8, Z: 1}, nil)
			if !slices.Equal(m.Loops, []string{"i1", "i2", "i3"}) || !slices.Equal(m.InterAxes, []string{"tx", "ty"}) ||
				!slices.Equal(m.IntraLoops, []string{"i3"}) {
				t.Errorf("%s %s: loops %v, inter axes %v, intra %v; want [i1 i2 i3], [tx ty], [i3]",
					kernel, tc.mapping, m.Loops, m.InterAxes, m.IntraLoops)
			}
			for _, r := range m.Refs {
				if !slices.EqualFunc(r.M, wantM[r.Array], slices.Equal) || !slices.Equal(r.O, []int64{0, 0}) {
					t.Errorf("%s %s: %s: M %v o %v; want %v, [0 0]", kernel, tc.mapping, r.Text, r.M, r.O, wantM[r.Array])
				}
				if r.Class != tc.class[r.Array] {
					t.Errorf("%s %s: %s: class %q; want %q", kernel, tc.mapping, r.Text, r.Class, tc.class[r.Array])
				}
				if !slices.EqualFunc(r.Inter, tc.inter[r.Array], slices.Equal) || !slices.EqualFunc(r.Intra, tc.intra[r.Array], slices.Equal) {
					t.Errorf("%s %s: %s: inter %v intra %v; want %v, %v", kernel, tc.mapping, r.Text, r.Inter, r.Intra,
						tc.inter[r.Array], tc.intra[r.Array])
				}
			}
		}
	}
}

// TestJangMatmulCostGain: J14 §III's worked example. Mapping α at
// 8(ty)×32(tx): A costs W = 32, B 0, C H·W = 256; A and B are prefetched
// with SL = min(8, 32) = 8, gaining 8·8 = 64 each. Mapping β costs 0
// everywhere; at 16×32 the gains are 16·16 twice (Table 1 row 4).
func TestJangMatmulCostGain(t *testing.T) {
	tests := []struct {
		kernel, mapping string
		block           arch.Dim3
		cost, gain      map[string]int64
		totalCost       int64
		totalGain       int64
	}{
		{"matmul-naive", "i1=tx,i2=ty", arch.Dim3{X: 32, Y: 8, Z: 1},
			map[string]int64{"A": 32, "B": 0, "C": 256}, map[string]int64{"A": 64, "B": 64, "C": 0}, 288, 128},
		{"matmul", "i1=tx,i2=ty", arch.Dim3{X: 32, Y: 8, Z: 1},
			map[string]int64{"A": 32, "B": 0, "C": 256}, map[string]int64{"A": 64, "B": 64, "C": 0}, 288, 128},
		{"matmul-naive", "i1=ty,i2=tx", arch.Dim3{X: 32, Y: 8, Z: 1},
			map[string]int64{"A": 0, "B": 0, "C": 0}, map[string]int64{"A": 64, "B": 64, "C": 0}, 0, 128},
		{"matmul", "i1=ty,i2=tx", arch.Dim3{X: 32, Y: 16, Z: 1},
			map[string]int64{"A": 0, "B": 0, "C": 0}, map[string]int64{"A": 256, "B": 256, "C": 0}, 0, 512},
	}
	for _, tc := range tests {
		m := jangModel(t, tc.kernel, tc.mapping, tc.block, nil)
		for _, name := range []string{"A", "B", "C"} {
			a := jangArrayNamed(t, m, name)
			if a.Cost != tc.cost[name] || a.Gain != tc.gain[name] {
				t.Errorf("%s %s %dx%d: array %s cost %d gain %d; want %d, %d", tc.kernel, tc.mapping, tc.block.Y, tc.block.X,
					name, a.Cost, a.Gain, tc.cost[name], tc.gain[name])
			}
		}
		if m.Cost != tc.totalCost || m.Gain != tc.totalGain {
			t.Errorf("%s %s: total cost %d gain %d; want %d, %d", tc.kernel, tc.mapping, m.Cost, m.Gain, tc.totalCost, tc.totalGain)
		}
		if c, g := m.CostGain(tc.block); c != tc.totalCost || g != tc.totalGain {
			t.Errorf("%s %s: CostGain = %d, %d; want %d, %d", tc.kernel, tc.mapping, c, g, tc.totalCost, tc.totalGain)
		}
	}
	// matmul-naive's C[i1][i2] is loaded and stored: one instance, both
	// references priced W·H = 256 but the array only once.
	m := jangModel(t, "matmul-naive", "i1=tx,i2=ty", arch.Dim3{X: 32, Y: 8, Z: 1}, nil)
	for _, op := range []string{"load", "store"} {
		if r := jangRefNamed(t, m, "C[i1][i2]", op); r.Cost != 256 || !slices.Equal(r.CostAxes, []string{"tx", "ty"}) {
			t.Errorf("matmul-naive α: C %s: cost %d axes %v; want 256 [tx ty]", op, r.Cost, r.CostAxes)
		}
	}
	if a := jangArrayNamed(t, m, "C"); a.Instances != 1 || a.Access != JangReadWrite {
		t.Errorf("matmul-naive α: C: %d instances, %s; want 1, read-write", a.Instances, a.Access)
	}
	// At moves the evaluation: α at 16(ty)×16(tx): A 16, C 256, gains
	// 16·16 twice.
	if at := m.At(arch.Dim3{X: 16, Y: 16, Z: 1}); at.Cost != 16+256 || at.Gain != 512 || m.Cost != 288 {
		t.Errorf("At(16x16): cost %d gain %d (original cost %d); want 272, 512 (288)", at.Cost, at.Gain, m.Cost)
	}
}

// TestJangMatVec: J14 Table 3. A[i1][i2] is false linear through tx (cost
// W) with a linear intra-thread walk over the problem-size loop i2; x[i2]
// is intra-thread only and prefetched; y[i1] is true linear. Gains W² + W:
// 1056 at W = 32, 272 at W = 16. Memory spaces as J14 selects them: y
// global; x texture with local prefetch; A global with local prefetch.
func TestJangMatVec(t *testing.T) {
	for _, w := range []int{32, 16} {
		m := jangModel(t, "matvec", "", arch.Dim3{X: w, Y: 1, Z: 1}, nil)
		wantCost, wantGain := int64(w), int64(w*w+w)
		if m.Cost != wantCost || m.Gain != wantGain {
			t.Errorf("matvec W=%d: cost %d gain %d; want %d, %d", w, m.Cost, m.Gain, wantCost, wantGain)
		}
		if m.Dims != 1 {
			t.Errorf("matvec: %d thread dimensions; want 1", m.Dims)
		}
	}
	m := jangModel(t, "matvec", "", arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	tests := []struct {
		array, access, class string
		selected             []string
		space                string
		prefetch             bool
		gain                 int64
	}{
		{"y", JangReadWrite, JangTrueLinear, []string{JangGlobal}, JangGlobal, false, 0},
		{"x", JangReadOnly, JangIntraThreadOnly, []string{JangTexture, JangLocal}, JangTexture, true, 32},
		{"A", JangReadOnly, JangFalseLinear, []string{JangGlobal, JangLocal}, JangGlobal, true, 1024},
	}
	for _, tc := range tests {
		a := jangArrayNamed(t, m, tc.array)
		if a.Access != tc.access || !slices.Equal(a.Selected, tc.selected) || a.Space != tc.space || a.Prefetch != tc.prefetch || a.Gain != tc.gain {
			t.Errorf("matvec %s: %s, selected %v, space %s, prefetch %v, gain %d; want %s, %v, %s, %v, %d",
				tc.array, a.Access, a.Selected, a.Space, a.Prefetch, a.Gain, tc.access, tc.selected, tc.space, tc.prefetch, tc.gain)
		}
		for _, r := range m.Refs {
			if r.Array == tc.array && (r.Class != tc.class || r.Space != tc.space) {
				t.Errorf("matvec %s: class %q space %s; want %q, %s", r.Text, r.Class, r.Space, tc.class, tc.space)
			}
		}
	}
	if !slices.Equal(m.ProblemSize, []string{"i1", "i2"}) {
		t.Errorf("matvec: problem-size loops %v; want [i1 i2]", m.ProblemSize)
	}
}

// TestJangEstimateVecAdd runs Algorithm 2 through the model's callback on
// GT200 for vector addition (3 registers): J14 Table 2's ranks 3, 2, 1,
// 4, 5, 5 over 512 … 16, all costs and gains 0 (every array true linear,
// no intra-thread pattern).
func TestJangEstimateVecAdd(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	e, err := NewJangEstimate(gt200, jangBind(t, "vecadd", "", arch.Dim3{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	wantShapes := []string{"512", "256", "128", "64", "32", "16"}
	wantRank := []int{3, 2, 1, 4, 5, 5}
	if len(e.Candidates) != len(wantRank) {
		t.Fatalf("vecadd: %d candidates; want %d", len(e.Candidates), len(wantRank))
	}
	for i, c := range e.Candidates {
		if s := jangShape(c.Block); s != wantShapes[i] || c.Rank != wantRank[i] || c.Cost != 0 || c.Gain != 0 {
			t.Errorf("vecadd row %d: %s cost %d gain %d OR %d; want %s 0 0 %d", i+1, s, c.Cost, c.Gain, c.Rank, wantShapes[i], wantRank[i])
		}
	}
	for _, r := range e.Model.Refs {
		if r.Class != JangTrueLinear || r.Space != JangGlobal {
			t.Errorf("vecadd %s: %q in %s; want true linear in global", r.Text, r.Class, r.Space)
		}
	}
	if _, err := json.Marshal(e); err != nil {
		t.Errorf("json.Marshal(estimate): %v", err)
	}
}

// TestJangEstimateTables: matrix-vector on GT200 through the model (Table
// 3: only 32 and 16 fit local memory, ranked 1 and 2), and matmul β over
// Table 1's shapes (OR 9, 6, 3, 1, 1, 10, 7, 4, 2, 11, 8, 5).
func TestJangEstimateTables(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	e, err := NewJangEstimate(gt200, jangBind(t, "matvec", "", arch.Dim3{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var valid []string
	for _, c := range e.Candidates {
		if c.Valid {
			valid = append(valid, jangShape(c.Block)+":"+string(rune('0'+c.Rank)))
		}
	}
	if want := []string{"32:1", "16:2"}; !slices.Equal(valid, want) {
		t.Errorf("matvec on gt200: valid candidates %v; want %v", valid, want)
	}

	m := jangModel(t, "matmul", "i1=ty,i2=tx", arch.Dim3{}, nil)
	shapes, err := JangShapes(512, 128, 2)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := JangSearch(gt200, shapes, m.Regs, m.ElemSize, m.CostGain)
	if err != nil {
		t.Fatal(err)
	}
	wantOR := []int{9, 6, 3, 1, 1, 10, 7, 4, 2, 11, 8, 5}
	wantGain := []int64{8, 32, 128, 512, 512, 8, 32, 128, 512, 8, 32, 128}
	for i, c := range cands {
		if c.Rank != wantOR[i] || c.Gain != wantGain[i] || c.Cost != 0 {
			t.Errorf("matmul β %s: cost %d gain %d OR %d; want 0 %d %d", jangShape(c.Block), c.Cost, c.Gain, c.Rank, wantGain[i], wantOR[i])
		}
	}
}

// TestJangClasses covers the classes the shipped kernels do not reach,
// with inline kernels (N = 1024, row-major unless stated). An
// uncoalesced reference costs the product of the extents of its thread
// dimensions when its array stays in global memory, and 0 when
// Algorithm 1 places it in texture (J10 Table 1's "N/A§", § "An
// uncoalesced memory access is considered only in global memory").
func TestJangClasses(t *testing.T) {
	kernel := func(arrays, source, mapping string) string {
		return "name: k\nparams: {N: 1024, K: 8}\narrays:\n" + arrays + "source: |\n  " + source + "\nmapping: {" + mapping + "}\nblock: [32, 4]\n"
	}
	tests := []struct {
		name, src string
		ref       int
		class     string
		cost      int64 // at 4(ty)×32(tx)
		space     string
	}{
		{"stride 2", kernel("  a: {type: f32, dims: [2*N]}\n  b: {type: f32, dims: [N]}\n",
			"for (i = 0; i < N; i++) b[i] = a[2*i];", "i: tx"), 0, JangTrueNonUnitStride, 0, JangTexture},
		{"reverse", kernel("  a: {type: f32, dims: [N]}\n  b: {type: f32, dims: [N]}\n",
			"for (i = 0; i < N; i++) b[i] = a[N-1-i];", "i: tx"), 0, JangTrueReverseLinear, 0, JangGlobal},
		{"shifted", kernel("  a: {type: f32, dims: [N+1]}\n  b: {type: f32, dims: [N]}\n",
			"for (i = 0; i < N; i++) b[i] = a[i+1];", "i: tx"), 0, JangTrueShifted, 0, JangTexture},
		{"row offset keeps linear", kernel("  a: {type: f32, dims: [N+1, N]}\n  b: {type: f32, dims: [N, N]}\n",
			"for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[i][j] = a[i+1][j];", "i: ty, j: tx"), 0, JangTrueLinear, 0, JangGlobal},
		{"overlapping", kernel("  a: {type: f32, dims: [2*N, 2*N]}\n  b: {type: f32, dims: [N]}\n",
			"for (i = 0; i < N; i++) b[i] = a[i][i];", "i: tx"), 0, JangTrueOverlapping, 0, JangTexture},
		{"col-major true linear", kernel("  a: {type: f32, dims: [N, N], layout: col-major}\n  b: {type: f32, dims: [N, N]}\n",
			"for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[j][i] = a[i][j];", "i: tx, j: ty"), 0, JangTrueLinear, 0, JangGlobal},
		{"false non-unit stride", kernel("  a: {type: f32, dims: [2*N, N]}\n  b: {type: f32, dims: [N, N]}\n",
			"for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[j][i] = a[2*i][j];", "i: tx, j: ty"), 0, JangFalseNonUnitStride, 0, JangTexture},
		// Same address across threads, fixed-length loop, small array:
		// constant memory.
		{"constant", kernel("  c: {type: f32, dims: [K]}\n  b: {type: f32, dims: [N]}\n",
			"for (i = 0; i < N; i++) for (k = 0; k < 8; k++) b[i] += c[k];", "i: tx"), 1, JangIntraThreadOnly, 0, JangConstant},
		// Written only, uncoalesced: texture as printed. A false linear
		// store stays in global (J10 Table 1 selects global for it).
		{"write-only stride 2", kernel("  a: {type: f32, dims: [N]}\n  b: {type: f32, dims: [2*N]}\n",
			"for (i = 0; i < N; i++) b[2*i] = a[i];", "i: tx"), 1, JangTrueNonUnitStride, 0, JangTexture},
		{"write-only false linear", kernel("  a: {type: f32, dims: [N, N]}\n  b: {type: f32, dims: [N, N]}\n",
			"for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[i][j] = a[j][i];", "i: tx, j: ty"), 1, JangFalseLinear, 128, JangGlobal},
	}
	for _, tc := range tests {
		m := jangModel(t, tc.src, "", arch.Dim3{X: 32, Y: 4, Z: 1}, nil)
		r := m.Refs[tc.ref]
		if r.Class != tc.class || r.Cost != tc.cost || r.Space != tc.space {
			t.Errorf("%s: %s: class %q cost %d space %s; want %q, %d, %s", tc.name, r.Text, r.Class, r.Cost, r.Space, tc.class, tc.cost, tc.space)
		}
	}
	// The same kernel with a problem-size intra-thread loop: x is no
	// longer same-address but a prefetch candidate.
	m := jangModel(t, kernel("  c: {type: f32, dims: [N]}\n  b: {type: f32, dims: [N]}\n",
		"for (i = 0; i < N; i++) for (k = 0; k < N; k++) b[i] += c[k];", "i: tx"), "", arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	if r := m.Refs[1]; r.SameAddress || !r.Prefetch || r.Space != JangTexture || r.Gain != 32 {
		t.Errorf("problem-size loop: %s: same-address %v prefetch %v space %s gain %d; want false, true, texture, 32",
			r.Text, r.SameAddress, r.Prefetch, r.Space, r.Gain)
	}
}

func TestJangEstimateErrors(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	src := "name: k3\nparams: {N: 64}\narrays:\n  a: {type: f32, dims: [N, N, N]}\nsource: |\n" +
		"  for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++) a[i][j][k] = 1;\n" +
		"mapping: {k: tx, j: ty, i: tz}\nblock: [16, 4, 2]\n"
	if _, err := NewJangEstimate(gt200, jangBind(t, src, "", arch.Dim3{}, nil)); err == nil || !strings.Contains(err.Error(), "3-D") {
		t.Errorf("3-D mapping: err %v; want one naming the 3-D mapping", err)
	}
}

// BenchmarkJangCostGain: Algorithm 2's callback, once per candidate shape.
func BenchmarkJangCostGain(b *testing.B) {
	m := jangModel(b, "matmul-naive", "i1=tx,i2=ty", arch.Dim3{}, nil)
	block := arch.Dim3{X: 32, Y: 8, Z: 1}
	for b.Loop() {
		m.CostGain(block)
	}
	b.ReportAllocs()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "shapes/s")
}
