package traces

import (
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// The transforms against Che's formulas worked by hand (models.md
// §1.5.2): row2col with height 4, width 3 maps 0..11 to
// [0,4,8,1,5,9,2,6,10,3,7,11]; the diagonal strip of dim 4 sends (r, c)
// to 4(r + c) + r: rows 0..3 of the original are 0 4 8 12 | 5 9 13 17 |
// 10 14 18 22 | 15 19 23 27, distinct, the largest 27, so 28 slots.
// col2row with height 4, width 3 reads old as column-major, (r, c) =
// (old % 4, old / 4), and puts it at 3r + c: 0..11 go to
// [0,3,6,9,1,4,7,10,2,5,8,11].
func TestRemapTransforms(t *testing.T) {
	cases := []struct {
		m    remapping
		want []int64
	}{
		{remapping{kernel.RemapRow2Col, 4, 3, [2]int64{}}, []int64{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}},
		{remapping{kernel.RemapCol2Row, 4, 3, [2]int64{}}, []int64{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}},
		{remapping{kernel.RemapDiagonal, 4, 4, [2]int64{}}, []int64{0, 4, 8, 12, 5, 9, 13, 17, 10, 14, 18, 22, 15, 19, 23, 27}},
		// 2×2 tiles of a 4×4: tile (r/2, c/2) is number
		// 2(r/2) + c/2, 4 elements each, row-major inside.
		{remapping{kernel.RemapTile, 4, 4, [2]int64{2, 2}}, []int64{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}},
		// 2×3 tiles of a 4×6 array: rows 0, 1 are tiles 0 and 1 (elements
		// 0..5 and 6..11), rows 2, 3 tiles 2 and 3.
		{remapping{kernel.RemapTile, 4, 6, [2]int64{2, 3}}, []int64{0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11, 12, 13, 14, 18, 19, 20, 15, 16, 17, 21, 22, 23}},
	}
	for _, c := range cases {
		for old, want := range c.want {
			if got := c.m.apply(int64(old)); got != want {
				t.Errorf("%s: T(%d) = %d; want %d", c.m.kind, old, got, want)
			}
		}
	}
}

// TestRemapCol2RowInvertsRow2Col: col2row undoes row2col (and row2col
// col2row) on every element of arrays of several shapes, square or not.
func TestRemapCol2RowInvertsRow2Col(t *testing.T) {
	for _, hw := range [][2]int64{{1, 1}, {4, 3}, {3, 4}, {7, 5}, {16, 16}, {1, 9}} {
		r2c := remapping{kind: kernel.RemapRow2Col, height: hw[0], width: hw[1]}
		c2r := remapping{kind: kernel.RemapCol2Row, height: hw[0], width: hw[1]}
		for old := range hw[0] * hw[1] {
			if got := c2r.apply(r2c.apply(old)); got != old {
				t.Errorf("%dx%d: col2row(row2col(%d)) = %d", hw[0], hw[1], old, got)
			}
			if got := r2c.apply(c2r.apply(old)); got != old {
				t.Errorf("%dx%d: row2col(col2row(%d)) = %d", hw[0], hw[1], old, got)
			}
		}
	}
}

// remapKernel is a kernel file whose thread t reads A[t / W][t % W] (a
// row of the original, row-major order) with A remapped as remap.
func remapKernel(remap string) string {
	return `name: remapped
params: {H: 4, W: 4}
arrays:
  A: {type: f32, dims: [H, W], remap: ` + remap + `}
  B: {type: f32, dims: [H * W]}
source: |
  __global__ void k(const float *A, float *B)
  {
    int t = threadIdx.x;
    B[t] = A[t / W][t % W];
  }
block: [16]
grid: [1]
`
}

// TestRemapAddresses: the addresses of a remapped array in the warp
// stream are base + T(old)·4, for 2-D subscripts; the diagonal array
// takes (2·4 − 1)·4 = 28 slots and row2col its 16.
func TestRemapAddresses(t *testing.T) {
	cases := []struct {
		remap string
		elems string
		size  int64
	}{
		{"row2col", "0,4,8,12,1,5,9,13,2,6,10,14,3,7,11,15", 16 * 4},
		{"diagonal", "0,4,8,12,5,9,13,17,10,14,18,22,15,19,23,27", 28 * 4},
		{"{tile: [2, W / 2]}", "0,1,4,5,2,3,6,7,8,9,12,13,10,11,14,15", 16 * 4},
	}
	for _, c := range cases {
		k, _ := loadFiles(t, map[string]string{"k.yaml": remapKernel(c.remap)})
		l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a := l.arrayNamed("A", kernel.SpaceGlobal); a.Size != c.size {
			t.Errorf("%s: A has %d bytes; want %d", c.remap, a.Size, c.size)
		}
		got := memTrace(t, l, 0, 0)
		if want := "A[t/W][t%W] load " + strings.Repeat("1", 16) + " " + c.elems; got[0] != want {
			t.Errorf("%s: %s; want %s", c.remap, got[0], want)
		}
	}
}

// TestGatherRewrite: with V gathered through COL, V[COL[i]] reads V'[i]
// (element i of an array of COL's 6 elements), and COL is not read.
func TestGatherRewrite(t *testing.T) {
	k, _ := loadFiles(t, map[string]string{"k.yaml": `name: gathered
params: {N: 6}
arrays:
  COL: {type: i32, dims: [N], data: {gen: permutation, seed: 3}}
  V: {type: f32, dims: [N], remap: {gather: COL}}
  R: {type: f32, dims: [N]}
source: |
  __global__ void k(const int *COL, const float *V, float *R)
  {
    int i = threadIdx.x;
    R[i] = V[COL[i]];
  }
block: [6]
grid: [1]
`})
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(memTrace(t, l, 0, 0), "; ")
	if want := "V[COL[i]] load 111111 0,1,2,3,4,5; R[i] store 111111 0,1,2,3,4,5"; got != want {
		t.Errorf("trace %s; want %s", got, want)
	}
}

// TestSoAIsChesStructRemap: Dymaxion's AoS → SoA (map_arrstruct) is the
// struct layout soa, not a remap. With equal-size members Che's member m
// of node tid sits at index m·num_nodes + tid (models.md §1.5.2 [I]);
// nbody-peng's six f32 fields under soa, N = 4096 (16 KiB a field, a
// multiple of the 256-byte alignment, so the groups lie end to end), put
// b[tid].field_m at base + (m·4096 + tid)·4.
func TestSoAIsChesStructRemap(t *testing.T) {
	k, err := kernel.Load("nbody-peng")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SelectLayout("soa"); err != nil {
		t.Fatal(err)
	}
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4096
	if len(l.Arrays) != 6 {
		t.Fatalf("%d arrays under soa; want 6", len(l.Arrays))
	}
	base := l.Arrays[0].Base
	for m, a := range l.Arrays {
		for _, tid := range []uint64{0, 1, 31, n - 1} {
			if got, want := a.Base+tid*uint64(a.ElemSize()), base+(uint64(m)*n+tid)*4; got != want {
				t.Errorf("%s of node %d at %#x; Che's m·num_nodes + tid puts it at %#x", a.Name, tid, got, want)
			}
		}
	}
}

// TestRemapZeroAllocs: a reused cursor allocates nothing per
// instruction on remapped arrays (diagonal strips, a gather).
func TestRemapZeroAllocs(t *testing.T) {
	nw, err := kernel.Load("nw-dymaxion")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := BindSequence(nw, nil, arch.Dim3{}, map[string]int64{"N": 64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spmv := bindExample(t, "spmv-csr-dymaxion", nil, arch.Dim3{}, nil)
	for _, l := range []*Launch{ls[63], spmv} {
		c := l.NewWarp()
		var in WarpInst
		n := 0
		allocs := testing.AllocsPerRun(10, func() {
			c.Reset(0, 1)
			for c.NextTo(&in, &in.Addr) {
				n++
			}
		})
		if allocs != 0 || n == 0 {
			t.Errorf("%s: one warp (%d instructions) allocates %v times; want 0", l.Kernel.Name, n/11, allocs)
		}
	}
}

// TestRemapAffineView: the static models' view of a remapped array is
// its remapped layout, worked by hand for a block of 8×4 threads (tx,
// ty) reading A once, and equal lane by lane to the warp stream's
// addresses (the cursor's T, tested above against Che's formulas):
//   - row2col of A[4][8] read A[ty][tx]: (r, c) = (ty, tx) lives at
//     c·4 + r, so the view reads A'[tx][ty] of a 8×4 array, address
//     4·(4tx + ty);
//   - col2row of A[4][8] read A[tx*4 + ty] (column-major: r = ty, c = tx)
//     lives at r·8 + c, the view A'[ty][tx], address 4·(8ty + tx): true
//     linear once remapped;
//   - diagonal of A[8][8] read A[ty][tx]: 8·(ty + tx) + ty, the view
//     A'[ty + tx][ty] of a 15×8 array, address 4·(8tx + 9ty);
//   - the gather of V through COL read V[COL[ty*8 + tx]]: V'[ty*8 + tx],
//     address 4·(8ty + tx), and COL's read is left out (Unissued).
func TestRemapAffineView(t *testing.T) {
	cases := []struct {
		name, decl, ref string
		tx, ty          int64 // the address's coefficients, in bytes
		param           string
	}{
		{"row2col", "A: {type: f32, dims: [4, 8], remap: row2col}", "A[ty][tx]", 16, 4, ""},
		{"col2row", "A: {type: f32, dims: [4, 8], remap: col2row}", "A[tx * 4 + ty]", 4, 32, ""},
		{"diagonal", "A: {type: f32, dims: [8, 8], remap: diagonal}", "A[ty][tx]", 32, 36, ""},
		{"gather", "COL: {type: i32, dims: [32], data: {gen: permutation, seed: 5}}\n  A: {type: f32, dims: [64], remap: {gather: COL}}", "A[COL[ty * 8 + tx]]", 4, 32, ", const int *COL"},
	}
	for _, c := range cases {
		k, _ := loadFiles(t, map[string]string{"k.yaml": `name: view
arrays:
  ` + c.decl + `
  B: {type: f32, dims: [32]}
source: |
  __global__ void k(const float *A, float *B` + c.param + `)
  {
    int tx = threadIdx.x, ty = threadIdx.y;
    B[ty * 8 + tx] = ` + c.ref + `;
  }
block: [8, 4]
grid: [1]
`})
		l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref := slices.IndexFunc(l.Refs, func(r Ref) bool { return r.Array == "A" })
		addr, err := l.AddrForm(ref)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cols := l.AccessColumns()
		coef := func(ax kernel.Axis) int64 {
			return addr.Coef[slices.IndexFunc(cols, func(col AccessColumn) bool { return col.Thread && col.Axis == ax })]
		}
		base := int64(l.arrayNamed("A", kernel.SpaceGlobal).Base)
		if gx, gy := coef(kernel.AxisX), coef(kernel.AxisY); gx != c.tx || gy != c.ty || addr.Const != base {
			t.Errorf("%s: address %d + %d·tx + %d·ty; want %d + %d·tx + %d·ty", c.name, addr.Const, gx, gy, base, c.tx, c.ty)
		}
		if c.name == "gather" && !slices.ContainsFunc(l.Refs, func(r Ref) bool { return r.Array == "COL" && r.Unissued }) {
			t.Errorf("gather: COL's read is not marked unissued")
		}
		cur := l.NewWarp()
		var in WarpInst
		for w := range l.WarpsPerBlock() {
			cur.Reset(0, w)
			for cur.NextTo(&in, &in.Addr) {
				if in.Op != OpLoad || l.Refs[in.Ref].Array != "A" {
					continue
				}
				for lane := range WarpSize {
					tid := int64(w*WarpSize + lane)
					if want := base + c.tx*(tid%8) + c.ty*(tid/8); int64(in.Addr[lane]) != want {
						t.Errorf("%s: thread %d: the stream reads %#x; the view %#x", c.name, tid, in.Addr[lane], want)
					}
				}
			}
		}
	}
}
