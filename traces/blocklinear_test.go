package traces

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// TestBlockLinearOffset: texels placed by hand from the Tegra X1 TRM's
// GOB formula, blocks one GOB high. f32 rows of 64 texels are 256 bytes,
// 4 GOBs across.
func TestBlockLinearOffset(t *testing.T) {
	for _, tc := range []struct {
		x, y, width, elem, want int64
	}{
		{0, 0, 64, 4, 0},
		{3, 0, 64, 4, 12},    // bytes 12-15 of row 0: sector 0
		{0, 1, 64, 4, 16},    // row 1 is the second half of sector 0
		{3, 1, 64, 4, 28},    // last texel of sector 0
		{4, 0, 64, 4, 32},    // x byte 16: the next sector, (16%32/16)·32
		{8, 0, 64, 4, 256},   // x byte 32: the GOB's right half, (32%64/32)·256
		{0, 2, 64, 4, 64},    // rows 2-3: (2%8/2)·64
		{16, 0, 64, 4, 512},  // x byte 64: the next GOB
		{0, 8, 64, 4, 2048},  // row 8: the next GOB row, 4 GOBs down
		{17, 9, 64, 4, 2580}, // GOB (9/8)·4 + 68/64 = 5 → 2560; + (9%2)·16 + 68%16 = 20
		{1, 1, 64, 8, 24},    // f64: 2×2 texels a sector, 16 + 8
		{2, 0, 64, 8, 32},
		{3, 5, 10, 4, 0*512 + 0*256 + 2*64 + 0*32 + 16 + 12}, // one GOB across: 40 bytes pad to 64
	} {
		if got := BlockLinearOffset(tc.x, tc.y, tc.width, tc.elem); got != tc.want {
			t.Errorf("BlockLinearOffset(%d, %d, width %d, %d B) = %d; want %d", tc.x, tc.y, tc.width, tc.elem, got, tc.want)
		}
	}
}

// TestBlockLinearShifts holds blockLinear, the cursor's shifts and
// masks, to BlockLinearOffset, the TRM's formula as printed, on texels
// of every width up to 16 bytes in arrays of widths around GOB edges.
func TestBlockLinearShifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		elem := int64(1) << rng.IntN(5)
		width := 1 + rng.Int64N(300)
		x, y := rng.Int64N(width), rng.Int64N(1<<20)
		rowGOBs := uint64((width*elem + gobWidth - 1) / gobWidth)
		if got, want := blockLinear(uint64(x), uint64(y), rowGOBs, uint64(elem)), BlockLinearOffset(x, y, width, elem); got != uint64(want) {
			t.Fatalf("blockLinear(%d, %d) in rows of %d texels of %d B = %d; BlockLinearOffset %d", x, y, width, elem, got, want)
		}
	}
}

// TestBlockLinearCovers: every texel of a 40×13 f32 array has its own
// offset inside BlockLinearSize (160 bytes a row pad to 192, 13 rows to
// 16: 3072 bytes), and each 32-byte sector holds 4 columns of 2 rows.
func TestBlockLinearCovers(t *testing.T) {
	const w, h = 40, 13
	size, ok := BlockLinearSize(w, h, 4)
	if !ok || size != 3072 {
		t.Fatalf("BlockLinearSize(40, 13, 4) = %d, %v; want 3072, true", size, ok)
	}
	seen := map[int64]bool{}
	for y := range int64(h) {
		for x := range int64(w) {
			off := BlockLinearOffset(x, y, w, 4)
			if off < 0 || off+4 > size || seen[off] {
				t.Fatalf("texel (%d, %d) at %d: outside [0, %d) or taken", x, y, off, size)
			}
			seen[off] = true
			if corner := BlockLinearOffset(x&^3, y&^1, w, 4); off/32 != corner/32 {
				t.Errorf("texel (%d, %d) in sector %d, its 4×2 tile's corner in %d", x, y, off/32, corner/32)
			}
		}
	}
	if _, ok := BlockLinearSize(1, 1<<60, 4); ok {
		t.Error("BlockLinearSize(1, 2^60, 4) fits; want 2^66 bytes refused")
	}
}

// tex2DKernel is a kernel file whose warps read a W×H f32 image (W = 64,
// H = 64) at (threadIdx.x + DX, threadIdx.y + DY), once through tex2D of
// a cudaArray and once from global memory as G[y][x].
func tex2DKernel(t *testing.T, dx, dy string) *kernel.Kernel {
	t.Helper()
	src := fmt.Sprintf(`name: tex2d
params: {W: 64, H: 64}
arrays:
  I: {type: f32, dims: [H, W], space: texture}
  G: {type: f32, dims: [H, W]}
  O: {type: f32, dims: [H, W]}
  N: {type: f32, dims: [16]}
source: |
  __global__ void k(float *O, const float *I, const float *G, float *N) {
    int x = threadIdx.x, y = threadIdx.y;
    O[y][x] = tex2D(I, x + %s, y + %s) + G[min(max(y + %s, 0), H - 1)][min(max(x + %s, 0), W - 1)];
  }
grid: [1]
`, dx, dy, dy, dx)
	k, err := kernel.Parse("tex2d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// lines32 counts the distinct 32-byte lines of the active lanes of in.
func lines32(in WarpInst) int {
	seen := map[uint64]bool{}
	for l := range WarpSize {
		if in.Active&(1<<l) != 0 {
			seen[in.Addr[l]/32] = true
		}
	}
	return len(seen)
}

// TestTex2DLines: the distinct 32-byte lines of warp 0's tex2D (4×2
// floats a sector) against its row-major global read (8 floats of one
// row a line), by block shape, counted by hand: a 32×1 warp reads 32
// texels of one row, 8 sectors but 4 lines; 16×2 rows 0-1, 4 sectors
// and 2 lines a row; 8×4 2×2 sectors and 4 lines; 4×8 1×4 sectors and
// 8 half lines; 1×32 a column, 16 sectors and 32 lines.
func TestTex2DLines(t *testing.T) {
	k := tex2DKernel(t, "0", "0")
	for _, tc := range []struct {
		block     arch.Dim3
		tex, glob int
	}{
		{arch.Dim3{X: 32, Y: 1, Z: 1}, 8, 4},
		{arch.Dim3{X: 16, Y: 2, Z: 1}, 4, 4},
		{arch.Dim3{X: 8, Y: 4, Z: 1}, 4, 4},
		{arch.Dim3{X: 4, Y: 8, Z: 1}, 4, 8},
		{arch.Dim3{X: 1, Y: 32, Z: 1}, 16, 32},
	} {
		l, err := Bind(k, nil, tc.block, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		insts := memInsts(l, 0, 0)
		if len(insts) != 3 {
			t.Fatalf("block %s: %d memory instructions; want 3", tc.block, len(insts))
		}
		if tex, glob := lines32(insts[0]), lines32(insts[1]); tex != tc.tex || glob != tc.glob {
			t.Errorf("block %s: tex2D %d lines, global %d; want %d, %d", tc.block, tex, glob, tc.tex, tc.glob)
		}
	}
}

// TestTex2DClamp: coordinates outside the image read its edge texels
// (cudaAddressModeClamp): warp 0 of a 32×1 block reading (x - 1, y - 1)
// gives lane 0 texel (0, 0) and lane l texel (l - 1, 0), at the
// block-linear offsets; the cudaArray takes 64 rows of 256 bytes (8
// GOB rows of 4 GOBs, 16384 bytes) and the next array starts after it.
func TestTex2DClamp(t *testing.T) {
	k := tex2DKernel(t, "-1", "-1")
	l, err := Bind(k, nil, arch.Dim3{X: 32, Y: 1, Z: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := l.Arrays[0]
	if i.Name != "I" || !i.BlockLinear || i.Size != 16384 || l.Arrays[1].Base < i.Base+16384 {
		t.Fatalf("I %+v, G at %#x; want a block-linear 16384-byte I before G", i, l.Arrays[1].Base)
	}
	in := memInsts(l, 0, 0)[0]
	for lane := range WarpSize {
		x := max(int64(lane)-1, 0)
		if want := i.Base + uint64(BlockLinearOffset(x, 0, 64, 4)); in.Addr[lane] != want {
			t.Errorf("lane %d at %#x; want texel (%d, 0) at %#x", lane, in.Addr[lane], x, want)
		}
	}
	if err := l.Err(); err != nil {
		t.Errorf("Err() = %v; want none: tex2D clamps", err)
	}
	if !strings.Contains(l.Refs[0].Text, "tex2D(I,x+-1,y+-1)") {
		t.Errorf("ref text %q; want tex2D(I,x+-1,y+-1)", l.Refs[0].Text)
	}
}

// TestTex2DTexels: inside the image, lane l of a 16×2 block reads texel
// (l%16 + 1, l/16 + 2), at the block-linear offset the TRM's formula
// gives, however the cursor forms the subscripts.
func TestTex2DTexels(t *testing.T) {
	l, err := Bind(tex2DKernel(t, "1", "2"), nil, arch.Dim3{X: 16, Y: 2, Z: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := memInsts(l, 0, 0)[0]
	for lane := range WarpSize {
		x, y := int64(lane%16+1), int64(lane/16+2)
		if want := l.Arrays[0].Base + uint64(BlockLinearOffset(x, y, 64, 4)); in.Addr[lane] != want {
			t.Errorf("lane %d at %#x; want texel (%d, %d) at %#x", lane, in.Addr[lane], x, y, want)
		}
	}
}

// TestTex2DAffineView: the static models see tex2D(I, x + 1, y + 2) as
// the element I[y + 2][x + 1] of a row-major array: subscripts over the
// columns (threadIdx.y, threadIdx.x) and the logical byte address base +
// 256·(y + 2) + 4·(x + 1); the block-linear layout is the simulator's.
func TestTex2DAffineView(t *testing.T) {
	l, err := Bind(tex2DKernel(t, "1", "2"), nil, arch.Dim3{X: 16, Y: 2, Z: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range l.AccessColumns() {
		cols = append(cols, c.Var)
	}
	forms, err := l.IndexForms(0)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := l.AddrForm(0)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(cols, forms, addr.Const-int64(l.Arrays[0].Base), addr.Coef)
	if want := "[threadIdx.y threadIdx.x] [{2 [1 0]} {1 [0 1]}] 516 [256 4]"; got != want {
		t.Errorf("view %s; want %s", got, want)
	}
}

// TestTex2DOwed: a local walked by += (x += 1, y += 2: every lane owes it
// the addend until a read settles it, lanes.owed) read in place by one
// subscript of a tex2D and through an expression by the other, which
// settles it: each lane of a 16×2 block reads texel (x, (x·x) mod 64),
// then ((y·y) mod 64, y), with x = l%16 + 1 and y = l/16 + 2 for lane l,
// at the TRM's block-linear offsets, the addend counted once.
func TestTex2DOwed(t *testing.T) {
	k, err := kernel.Parse("owed.yaml", []byte(`name: owed
params: {W: 64, H: 64}
arrays:
  I: {type: f32, dims: [H, W], space: texture}
  O: {type: f32, dims: [H, W]}
source: |
  __global__ void k(float *O, const float *I) {
    int x = threadIdx.x, y = threadIdx.y;
    x += 1;
    y += 2;
    O[0][0] = tex2D(I, x, (x * x) % 64) + tex2D(I, (y * y) % 64, y);
  }
grid: [1]
`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Bind(k, nil, arch.Dim3{X: 16, Y: 2, Z: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	insts := memInsts(l, 0, 0)
	if len(insts) != 3 {
		t.Fatalf("%d memory instructions; want 3", len(insts))
	}
	for lane := range WarpSize {
		x, y := int64(lane%16+1), int64(lane/16+2)
		for i, tx := range [][2]int64{{x, x * x % 64}, {y * y % 64, y}} {
			if want := l.Arrays[0].Base + uint64(BlockLinearOffset(tx[0], tx[1], 64, 4)); insts[i].Addr[lane] != want {
				t.Errorf("fetch %d, lane %d at %#x; want texel (%d, %d) at %#x", i, lane, insts[i].Addr[lane], tx[0], tx[1], want)
			}
		}
	}
}
