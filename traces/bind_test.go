package traces

import (
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

func TestBindExamples(t *testing.T) {
	for _, n := range kernel.Examples() {
		k, err := kernel.Load(n)
		if err != nil {
			t.Fatalf("kernel.Load(%s): %v", n, err)
		}
		if len(k.Launches) > 0 {
			if _, err := BindSequence(k, nil, arch.Dim3{}, nil, nil); err != nil {
				t.Errorf("BindSequence(%s) with defaults: %v", n, err)
			}
			continue
		}
		if _, err := Bind(k, nil, arch.Dim3{}, nil, nil); err != nil {
			t.Errorf("Bind(%s) with defaults: %v", n, err)
		}
	}
}

// TestArrayPlacement binds a kernel whose arrays give align and base.
func TestArrayPlacement(t *testing.T) {
	src := `name: chase
params: {N: 100}
arrays:
  A: {type: u64, dims: [N], align: 4096}
  B: {type: i8, dims: [N]}
  C: {type: u16, dims: [N], base: 0x20000000}
  D: {type: i32, dims: [N]}
source: |
  for (i = 0; i < N; i++) {
    C[i] = A[i] + B[i];
    D[i] = 1;
  }
mapping: {i: tx}
block: [64]
dependent: true
`
	k, err := kernel.Parse("chase.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A at DefaultBase (already 4096-aligned), 800 bytes; B at the next
	// 256 boundary (+1024); C fixed; D after the highest end so far, C's:
	// 0x20000000 + 200 rounded up to 256.
	want := []uint64{DefaultBase, DefaultBase + 1024, 0x20000000, 0x20000100}
	for i, a := range l.Arrays {
		if a.Base != want[i] {
			t.Errorf("array %s at %#x; want %#x", a.Name, a.Base, want[i])
		}
	}
	if !l.Dependent || l.Refs[0].Width != 8 || l.Refs[1].Width != 1 || l.Refs[2].Width != 2 {
		t.Errorf("dependent %v widths %d %d %d; want true 8 1 2", l.Dependent, l.Refs[0].Width, l.Refs[1].Width, l.Refs[2].Width)
	}
	if l.Refs[0].Op != OpLoad || l.Refs[2].Op != OpStore {
		t.Errorf("ops %v %v; want load, store", l.Refs[0].Op, l.Refs[2].Op)
	}
	bad := strings.Replace(src, "base: 0x20000000", "base: 0x10000100", 1)
	k, err = kernel.Parse("chase.yaml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(k, nil, arch.Dim3{}, nil, nil); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping arrays: Bind error %v; want an overlap error", err)
	}
}

// TestBindErrors checks errors of mappings, blocks and params given at
// bind time (the -map, -block, -set flags).
func TestBindErrors(t *testing.T) {
	dev := &arch.Device{Name: "testdev", SM: arch.SMLimits{MaxThreadsPerBlock: 512, MaxBlockDim: arch.Dim3{X: 512, Y: 512, Z: 64}}}
	k, err := kernel.Load("matmul")
	if err != nil {
		t.Fatal(err)
	}
	mustMap := func(s string) kernel.Mapping {
		m, err := kernel.ParseMapping(s)
		if err != nil {
			t.Fatalf("ParseMapping(%q): %v", s, err)
		}
		return m
	}
	cases := []struct {
		name   string
		m      kernel.Mapping
		block  arch.Dim3
		params map[string]int64
		want   string
	}{
		{"unknown loop", mustMap("i1=ty,i9=tx"), arch.Dim3{}, nil, "unknown loop i9"},
		{"mapped twice", kernel.Mapping{{Loop: "i1", Axis: kernel.AxisX}, {Loop: "i1", Axis: kernel.AxisY}}, arch.Dim3{}, nil, "loop i1 mapped twice"},
		{"one axis", kernel.Mapping{{Loop: "i1", Axis: kernel.AxisX}, {Loop: "i2", Axis: kernel.AxisX}}, arch.Dim3{}, nil, "both mapped to tx"},
		{"too many threads", nil, arch.Dim3{X: 32, Y: 32, Z: 1}, nil, "1024 threads; testdev runs at most 512"},
		{"block extent", nil, arch.Dim3{X: 1, Y: 1, Z: 128}, nil, "exceeds the largest block extents"},
		{"unknown param", nil, arch.Dim3{}, map[string]int64{"Q": 3}, "unknown param Q"},
		{"zero dims", nil, arch.Dim3{}, map[string]int64{"P": 0}, "extents must be positive"},
	}
	for _, tc := range cases {
		_, err := Bind(k, tc.m, tc.block, tc.params, dev)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Bind(%s) error = %v; want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// kernelYAML builds a kernel file around a source text; arrays are f32
// with the given dims.
func kernelYAML(params, arrays, source, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: t\nparams: {%s}\narrays:\n", params)
	for _, a := range strings.Split(arrays, ";") {
		name, dims, _ := strings.Cut(a, "=")
		fmt.Fprintf(&b, "  %s: {type: f32, dims: [%s]}\n", strings.TrimSpace(name), dims)
	}
	b.WriteString("source: |\n")
	for _, line := range strings.Split(strings.TrimSpace(source), "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString(extra)
	return b.String()
}

func mustParse(t *testing.T, params, arrays, source, extra string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.Parse("t.yaml", []byte(kernelYAML(params, arrays, source, extra)))
	if err != nil {
		t.Fatalf("kernel.Parse: %v\n%s", err, kernelYAML(params, arrays, source, extra))
	}
	return k
}

// TestBlockBounds: without a device a block may have at most
// MaxBlockThreads = 2^20 threads, checked before anything is allocated
// for it and without overflowing (2147483647^2 does not fit in 32 bits,
// 10^27 not in 64).
func TestBlockBounds(t *testing.T) {
	k, err := kernel.Load("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int64{"N": 1000}
	for _, b := range []arch.Dim3{
		{X: 2147483647, Y: 2147483647, Z: 1},
		{X: 1 << 20, Y: 1 << 20, Z: 1 << 20},
		{X: 1<<20 + 1, Y: 1, Z: 1},
		{X: 1 << 10, Y: 1 << 10, Z: 2},
		{X: 1, Y: 1, Z: 1<<20 + 1},
	} {
		if _, err := Bind(k, nil, b, n, nil); err == nil || !strings.Contains(err.Error(), "more than 1048576 threads") {
			t.Errorf("Bind(block %v) error = %v; want more than 1048576 threads", b, err)
		}
	}
	for _, b := range []arch.Dim3{{X: 1 << 20, Y: 1, Z: 1}, {X: 1 << 10, Y: 1 << 9, Z: 2}} {
		l, err := Bind(k, nil, b, n, nil)
		if err != nil {
			t.Fatalf("Bind(block %v): %v", b, err)
		}
		if got := l.WarpsPerBlock(); got != 1<<15 {
			t.Errorf("block %v: %d warps per block; want 2^20/32 = 32768", b, got)
		}
	}
	src := kernelYAML("N: 100", "A=N", "for (i = 0; i < N; i++)\n  A[i] = 1;", "mapping: {i: tx}\nblock: [1000000000, 1000000000, 1000000000]\n")
	k, err = kernel.Parse("big.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(k, nil, arch.Dim3{}, nil, nil); err == nil || !strings.Contains(err.Error(), "more than 1048576 threads") {
		t.Errorf("Bind(block: [1e9, 1e9, 1e9]) error = %v; want more than 1048576 threads", err)
	}
}

// TestGridBounds: a grid of more than 2^31-1 blocks is refused, also
// when the product of its extents overflows 64 bits.
func TestGridBounds(t *testing.T) {
	k := mustParse(t, "X: 4, Y: 4, Z: 4", "A=1", "for (x = 0; x < X; x++)\n  for (y = 0; y < Y; y++)\n    for (z = 0; z < Z; z++)\n      A[0] = 1;",
		"mapping: {x: tx, y: ty, z: tz}\nblock: [1, 1, 1]\n")
	for _, p := range []map[string]int64{
		{"X": 1 << 31},                               // 2^31 blocks along x
		{"X": 1 << 16, "Y": 1 << 16},                 // 2^32 blocks
		{"X": 1 << 40, "Y": 1 << 40, "Z": 1 << 40},   // 2^120: overflows int64
		{"X": 1 << 21, "Y": 1 << 21, "Z": 1<<22 + 1}, // 2^64+: wraps to a small product
	} {
		if _, err := Bind(k, nil, arch.Dim3{}, p, nil); err == nil || !strings.Contains(err.Error(), "more than 2147483647 blocks") {
			t.Errorf("Bind(%v) error = %v; want more than 2147483647 blocks", p, err)
		}
	}
	l, err := Bind(k, nil, arch.Dim3{}, map[string]int64{"X": 1 << 10, "Y": 1 << 10, "Z": 1<<11 - 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Blocks(), (1<<10)*(1<<10)*(1<<11-1); got != want {
		t.Errorf("%d blocks; want %d", got, want)
	}
}

// TestNoMapping: a kernel without a mapping would run as one thread; Bind
// refuses it unless the caller gives one.
func TestNoMapping(t *testing.T) {
	k := mustParse(t, "N: 64", "A=N", "for (i = 0; i < N; i++)\n  A[i] = 1;", "")
	if _, err := Bind(k, nil, arch.Dim3{}, nil, nil); err == nil || !strings.Contains(err.Error(), "maps no loop to threads") || !strings.Contains(err.Error(), "t.yaml:1:1: ") {
		t.Errorf("Bind without a mapping: error %v; want t.yaml:1:1: ... maps no loop to threads", err)
	}
	l, err := Bind(k, kernel.Mapping{{Loop: "i", Axis: kernel.AxisX}}, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 64 threads in one block of the default 128.
	if l.Blocks() != 1 || l.Loops[0].Extent != 64 {
		t.Errorf("with i=tx: %d blocks, extent %d; want 1, 64", l.Blocks(), l.Loops[0].Extent)
	}
}

// TestConstantMemoryLimit: the constant arrays of a launch hold at most
// 64 KiB together (PG42 Table F-2), checked when the params size them,
// at the array that does not fit. N floats are 4N bytes: 16384 floats
// are 64 KiB exactly.
func TestConstantMemoryLimit(t *testing.T) {
	src := `name: consts
params: {N: 16384, M: 0}
arrays:
  a: {type: f32, dims: [N]}
  b: {type: f32, dims: [M + 1]}
  out: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++)
    out[i] = a[i] + b[0];
mapping: {i: tx}
`
	for _, tc := range []struct {
		n, m int64
		want string // "" when it binds
	}{
		{16384, 0, "consts.yaml:5:3: constant arrays a, b have 65540 bytes together"},
		{16383, 0, ""}, // 65532 + 4 bytes
		{16385, 0, "consts.yaml:4:3: constant array a has 65540 bytes"},
		{1, 16384, "consts.yaml:5:3: constant array b has 65540 bytes"},
		{8192, 8191, ""}, // 32 KiB + 32 KiB
		{8192, 8192, "consts.yaml:5:3: constant arrays a, b have 65540 bytes together"},
	} {
		k, err := kernel.Parse("consts.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		k.Arrays[0].Space, k.Arrays[1].Space = kernel.SpaceConstant, kernel.SpaceConstant
		_, err = Bind(k, nil, arch.Dim3{}, map[string]int64{"N": tc.n, "M": tc.m}, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("N=%d M=%d: %v; want it bound", tc.n, tc.m, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "hint: ")):
			t.Errorf("N=%d M=%d: %v; want %q... with a hint", tc.n, tc.m, err, tc.want)
		}
	}
}

// TestConstantDeclExtents: a __constant__ declaration must have its
// array's extents under the launch's params, checked at the extent.
func TestConstantDeclExtents(t *testing.T) {
	src := `name: decl
params: {N: 64, K: 64}
arrays:
  c: {type: f32, dims: [N]}
  out: {type: f32, dims: [N]}
source: |
  __constant__ float c[K];
  __global__ void k(float *out) {
    out[threadIdx.x] = c[threadIdx.x];
  }
block: [64]
grid: [1]
`
	k, err := kernel.Parse("decl.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if k.Arrays[0].Space != kernel.SpaceConstant || k.Arrays[1].Space != kernel.SpaceGlobal {
		t.Errorf("spaces %v, %v; want constant, global", k.Arrays[0].Space, k.Arrays[1].Space)
	}
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := l.Refs[0]; r.Array != "c" || r.Space != kernel.SpaceConstant || r.Op != OpLoad {
		t.Errorf("reference %+v; want a load of c in constant memory", r)
	}
	want := "decl.yaml:7:24: __constant__ c: extent K = 64, but arrays: gives c extent 128 there; hint: "
	if _, err := Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 128}, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("N=128: %v; want %q...", err, want)
	}
}
