package traces

import (
	"math"
	"math/bits"
	"os"
	"runtime"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// warpInsts collects all instructions of one warp.
func warpInsts(l *Launch, b, w int) []WarpInst {
	var out []WarpInst
	c := l.Warp(b, w)
	var wi WarpInst
	for c.Next(&wi) {
		out = append(out, wi)
	}
	return out
}

const base0 = DefaultBase

// TestMatmulWarpAddresses checks warp 1 of block 0 of matmul (i1→ty,
// i2→tx, block 16x16, M=N=P=64, f32, row-major) against addresses derived
// by hand: the warp covers ty=2..3, tx=0..15; lane l has ty = 2 + l/16,
// tx = l%16. A is at DefaultBase, B 64·64·4 = 0x4000 bytes later, C
// another 0x4000 later.
func TestMatmulWarpAddresses(t *testing.T) {
	l := bindExample(t, "matmul", nil, arch.Dim3{}, map[string]int64{"M": 64, "N": 64, "P": 64})
	A, B, C := base0, base0+0x4000, base0+0x8000
	ins := warpInsts(l, 0, 1)
	// compute(acc = 0), then per i3: load A, load B, compute; then
	// compute (C = acc) and store C.
	if want := 1 + 3*64 + 2; len(ins) != want {
		t.Fatalf("warp 1 has %d instructions; want %d", len(ins), want)
	}
	if ins[0].Op != OpCompute || ins[0].Count != 1 {
		t.Errorf("instruction 0 = %v count %d; want compute 1 (acc = 0)", ins[0].Op, ins[0].Count)
	}
	for i3 := range 64 {
		a, b, c := ins[1+3*i3], ins[2+3*i3], ins[3+3*i3]
		if a.Op != OpLoad || l.Refs[a.Ref].Text != "A[i1][i3]" || b.Op != OpLoad || l.Refs[b.Ref].Text != "B[i3][i2]" {
			t.Fatalf("i3=%d: got %v %s, %v %s; want loads of A[i1][i3] and B[i3][i2]", i3, a.Op, l.Refs[a.Ref].Text, b.Op, l.Refs[b.Ref].Text)
		}
		// 2 addresses + * + += and 3 for loop control.
		if c.Op != OpCompute || c.Count != 7 || c.Ref != -1 {
			t.Errorf("i3=%d: third instruction %v count %d ref %d; want compute 7 ref -1", i3, c.Op, c.Count, c.Ref)
		}
		for lane := range 32 {
			ty, tx := uint64(2+lane/16), uint64(lane%16)
			if want := A + 4*(64*ty+uint64(i3)); a.Addr[lane] != want {
				t.Fatalf("i3=%d lane %d: A address %#x; want %#x", i3, lane, a.Addr[lane], want)
			}
			if want := B + 4*(64*uint64(i3)+tx); b.Addr[lane] != want {
				t.Fatalf("i3=%d lane %d: B address %#x; want %#x", i3, lane, b.Addr[lane], want)
			}
		}
		if a.Active != 0xffffffff || a.Width != 4 || a.Block != 0 || a.Warp != 1 {
			t.Errorf("i3=%d: active %#x width %d block %d warp %d; want all lanes, 4, 0, 1", i3, a.Active, a.Width, a.Block, a.Warp)
		}
	}
	st := ins[len(ins)-1]
	if st.Op != OpStore || l.Refs[st.Ref].Text != "C[i1][i2]" || ins[len(ins)-2].Count != 1 {
		t.Fatalf("last two: %v count %d, %v; want compute 1 and the store of C", ins[len(ins)-2].Op, ins[len(ins)-2].Count, st.Op)
	}
	for lane := range 32 {
		ty, tx := uint64(2+lane/16), uint64(lane%16)
		if want := C + 4*(64*ty+tx); st.Addr[lane] != want {
			t.Errorf("lane %d: C address %#x; want %#x", lane, st.Addr[lane], want)
		}
	}
}

// refTotals counts, over the whole stream, instructions and active lanes
// per reference, and OpCompute instructions and their counts.
type refTotals struct {
	insts, lanes     []int64
	computes, counts int64
	warps            int64
}

func totals(l *Launch) refTotals {
	t := refTotals{insts: make([]int64, len(l.Refs)), lanes: make([]int64, len(l.Refs))}
	lastB, lastW := -1, -1
	for w := range l.Stream() {
		if w.Block != lastB || w.Warp != lastW {
			t.warps++
			lastB, lastW = w.Block, w.Warp
		}
		if w.Op == OpCompute {
			t.computes++
			t.counts += int64(w.Count)
			continue
		}
		t.insts[w.Ref]++
		t.lanes[w.Ref] += int64(bits.OnesCount32(w.Active))
	}
	return t
}

// TestStreamTotals compares whole-kernel totals with closed forms.
func TestStreamTotals(t *testing.T) {
	alpha, _ := kernel.ParseMapping("i1=tx,i2=ty")
	cases := []struct {
		name   string
		m      kernel.Mapping
		block  arch.Dim3
		params map[string]int64
		// warps: warps with an active lane; per: instructions per warp of
		// each reference; lanes: active lanes per reference over the kernel;
		// count: sum of OpCompute counts per warp.
		warps int64
		per   []int64
		lanes []int64
		count int64
	}{
		// matmul β, M=40 (ty), N=24 (tx), block 16x16: grid 2x3; a warp
		// covers two rows of 16: x-blocks 0,1 hold 16 and 8 active
		// columns (all warps have a lane), y-blocks hold 16, 16, 8 rows ->
		// 8+8+4 warps; 2*20 = 40 warps. Each thread: P loads of A and B,
		// one store of C: lanes = M·N·P and M·N.
		{"matmul", nil, arch.Dim3{X: 16, Y: 16, Z: 1}, map[string]int64{"M": 40, "N": 24, "P": 8},
			40, []int64{8, 8, 1}, []int64{40 * 24 * 8, 40 * 24 * 8, 40 * 24}, 1 + 8*7 + 1},
		// matmul α, i1 (M=40) → tx, i2 (N=24) → ty: grid 3x2; y-blocks hold
		// 16 and 8 rows -> 8+4 warps, times 3 x-blocks = 36 warps.
		{"matmul", alpha, arch.Dim3{X: 16, Y: 16, Z: 1}, map[string]int64{"M": 40, "N": 24, "P": 8},
			36, []int64{8, 8, 1}, []int64{40 * 24 * 8, 40 * 24 * 8, 40 * 24}, 1 + 8*7 + 1},
		// matmul with only i1 mapped (i1 → tx, M=32, block 32): one warp
		// runs the i2 loop (N=4) and, inside, the i3 loop (P=2). Per i2
		// iteration: 3 loop control + 1 (acc = 0) + P·(4 + 3) + 1 (C = acc).
		{"matmul", kernel.Mapping{{Loop: "i1", Axis: kernel.AxisX}}, arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"M": 32, "N": 4, "P": 2},
			1, []int64{8, 8, 4}, []int64{32 * 8, 32 * 8, 32 * 4}, 4 * (3 + 1 + 2*7 + 1)},
		// matmul-naive: per i3 C load, A load, B load, C store; compute =
		// 4 addresses + * + (+=) + 3 loop control = 9.
		{"matmul-naive", nil, arch.Dim3{X: 16, Y: 16, Z: 1}, map[string]int64{"M": 32, "N": 32, "P": 5},
			32, []int64{5, 5, 5, 5}, []int64{32 * 32 * 5, 32 * 32 * 5, 32 * 32 * 5, 32 * 32 * 5}, 5 * 9},
		// vecadd N=1000, block 128: threads 0..999 fill 32 warps (the last
		// with 8 lanes); 3 addresses + 1 add.
		{"vecadd", nil, arch.Dim3{}, map[string]int64{"N": 1000},
			32, []int64{1, 1, 1}, []int64{1000, 1000, 1000}, 4},
		// matvec N=50, block 32: 2 warps; per i2: y, A, x loads, y store;
		// 4 addresses + * + (+=) + 3 = 9.
		{"matvec", nil, arch.Dim3{}, map[string]int64{"N": 50},
			2, []int64{50, 50, 50, 50}, []int64{2500, 2500, 2500, 2500}, 50 * 9},
		// transpose N=40, block 16x16: grid 3x3, rows per y-block 16,16,8 ->
		// 20 warps per x-block column... x-blocks all have lane 0 active:
		// 3*(8+8+4) = 60 warps; 2 addresses.
		{"transpose", nil, arch.Dim3{}, map[string]int64{"N": 40},
			60, []int64{1, 1}, []int64{1600, 1600}, 2},
		// stride: one load per thread, no store; 1 address.
		{"stride", nil, arch.Dim3{}, map[string]int64{"N": 256, "S": 3, "O": 1},
			8, []int64{1}, []int64{256}, 1},
		// copies: rows=100 threads, block 64 -> 4 warps (the last with 4
		// lanes); cols=3 iterations of load, compute 2+3, store.
		{"copy-rowmajor", nil, arch.Dim3{X: 64, Y: 1, Z: 1}, map[string]int64{"rows": 100, "cols": 3},
			4, []int64{3, 3}, []int64{300, 300}, 3 * 5},
		{"copy-colmajor", nil, arch.Dim3{X: 64, Y: 1, Z: 1}, map[string]int64{"rows": 100, "cols": 3},
			4, []int64{3, 3}, []int64{300, 300}, 3 * 5},
	}
	for _, tc := range cases {
		l := bindExample(t, tc.name, tc.m, tc.block, tc.params)
		got := totals(l)
		if got.warps != tc.warps {
			t.Errorf("%s %v: %d warps with instructions; want %d", tc.name, l.Mapping, got.warps, tc.warps)
		}
		if len(l.Refs) != len(tc.per) {
			t.Fatalf("%s: %d refs; want %d", tc.name, len(l.Refs), len(tc.per))
		}
		for r := range l.Refs {
			if want := tc.warps * tc.per[r]; got.insts[r] != want {
				t.Errorf("%s %v: %s: %d instructions; want %d warps × %d = %d", tc.name, l.Mapping, l.Refs[r].Text, got.insts[r], tc.warps, tc.per[r], want)
			}
			if got.lanes[r] != tc.lanes[r] {
				t.Errorf("%s %v: %s: %d active lanes; want %d", tc.name, l.Mapping, l.Refs[r].Text, got.lanes[r], tc.lanes[r])
			}
		}
		if want := tc.warps * tc.count; got.counts != want {
			t.Errorf("%s %v: compute count %d; want %d warps × %d = %d", tc.name, l.Mapping, got.counts, tc.warps, tc.count, want)
		}
	}
}

// TestInactiveLanes: N=33 threads with blocks of 32 make 2 blocks; block 1
// has one active lane. A 16x3 block has 48 threads, so its warp 1 has 16
// lanes.
func TestInactiveLanes(t *testing.T) {
	l := bindExample(t, "vecadd", nil, arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"N": 33})
	if g := l.Grid(); g != (arch.Dim3{X: 2, Y: 1, Z: 1}) || l.Blocks() != 2 || l.WarpsPerBlock() != 1 {
		t.Fatalf("grid %v, %d blocks, %d warps per block; want 2x1x1, 2, 1", g, l.Blocks(), l.WarpsPerBlock())
	}
	ins := warpInsts(l, 1, 0)
	if len(ins) != 4 {
		t.Fatalf("block 1 has %d instructions; want 4", len(ins))
	}
	A := base0
	for _, w := range ins {
		if w.Active != 1 {
			t.Errorf("block 1 %v: active %#x; want 0x1", w.Op, w.Active)
		}
		for lane := 1; lane < 32 && w.Op != OpCompute; lane++ {
			if w.Addr[lane] != 0 {
				t.Errorf("block 1 %v: inactive lane %d has address %#x; want 0", w.Op, lane, w.Addr[lane])
			}
		}
	}
	if ins[0].Addr[0] != A+4*32 {
		t.Errorf("block 1 lane 0 reads A at %#x; want %#x", ins[0].Addr[0], A+4*32)
	}

	// 2-D block 16x3 over a 16x3 transpose: warp 1 holds threads 32..47.
	l = bindExample(t, "transpose", nil, arch.Dim3{X: 16, Y: 3, Z: 1}, map[string]int64{"N": 16})
	if l.WarpsPerBlock() != 2 {
		t.Fatalf("block 16x3: %d warps; want 2", l.WarpsPerBlock())
	}
	ins = warpInsts(l, 0, 1)
	if len(ins) == 0 || ins[0].Active != 0xffff {
		t.Fatalf("block 16x3 warp 1: %d instructions, active %#x; want 0xffff", len(ins), ins[0].Active)
	}
	// in[i1][i2] with i1 = ty = 2, i2 = tx = lane.
	for lane := range 16 {
		if want := base0 + 4*uint64(16*2+lane); ins[0].Addr[lane] != want {
			t.Errorf("block 16x3 warp 1 lane %d: %#x; want %#x", lane, ins[0].Addr[lane], want)
		}
	}
	// A warp whose lanes are all past the extent yields nothing: N=20
	// with block 16x16 leaves block (1,1) rows 4..15 empty: warps 2..7.
	l = bindExample(t, "transpose", nil, arch.Dim3{X: 16, Y: 16, Z: 1}, map[string]int64{"N": 20})
	for w := range 8 {
		n := len(warpInsts(l, 3, w))
		if want := map[bool]int{true: 3, false: 0}[w < 2]; n != want {
			t.Errorf("transpose N=20 block 3 warp %d: %d instructions; want %d", w, n, want)
		}
	}
}

// TestColMajor: A is f64 col-major 10x12 (960 bytes, so B starts at the
// next 256-byte boundary, 1024 bytes later), B is f32 row-major.
func TestColMajor(t *testing.T) {
	src := `name: colmajor
params: {M: 10, N: 12}
arrays:
  A: {type: f64, dims: [M, N], layout: col-major}
  B: {type: f32, dims: [M, N]}
source: |
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      B[i][j] = A[i][j];
mapping: {i: ty, j: tx}
block: [16, 16]
`
	k, err := kernel.Parse("colmajor.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Arrays[1].Base != base0+1024 || l.Arrays[0].Size != 960 {
		t.Fatalf("A size %d, B base %#x; want 960, %#x", l.Arrays[0].Size, l.Arrays[1].Base, base0+1024)
	}
	for w := range 5 { // rows 0..9 over 16-wide rows: warps 0..4
		ins := warpInsts(l, 0, w)
		if len(ins) != 3 {
			t.Fatalf("warp %d: %d instructions; want 3", w, len(ins))
		}
		for lane := range 32 {
			i, j := uint64(2*w+lane/16), uint64(lane%16)
			active := i < 10 && j < 12
			if got := ins[0].Active&(1<<lane) != 0; got != active {
				t.Fatalf("warp %d lane %d: active %v; want %v", w, lane, got, active)
			}
			if !active {
				continue
			}
			if want := base0 + 8*(i+10*j); ins[0].Addr[lane] != want {
				t.Errorf("warp %d lane %d: A[%d][%d] at %#x; want %#x", w, lane, i, j, ins[0].Addr[lane], want)
			}
			if want := base0 + 1024 + 4*(12*i+j); ins[2].Addr[lane] != want {
				t.Errorf("warp %d lane %d: B[%d][%d] at %#x; want %#x", w, lane, i, j, ins[2].Addr[lane], want)
			}
		}
		if ins[0].Width != 8 || ins[2].Width != 4 {
			t.Errorf("widths %d, %d; want 8, 4", ins[0].Width, ins[2].Width)
		}
	}
}

// TestDivergentLoops: in-thread loops whose bounds depend on the mapped
// variable mask lanes off at their own bound.
func TestDivergentLoops(t *testing.T) {
	const N = 40
	for _, tc := range []struct {
		name, loop string
		// first value of j for lane l; active while j < end(l)
		start, end func(l int) int
	}{
		{"triangular upper", "for (j = 0; j <= i; j++)", func(int) int { return 0 }, func(l int) int { return l + 1 }},
		{"triangular lower", "for (j = i; j < N; j++)", func(l int) int { return l }, func(int) int { return N }},
	} {
		src := "for (i = 0; i < N; i++)\n  " + tc.loop + "\n    x[i] += A[i][j];"
		k := mustParse(t, "N: 40", "x=N; A=N, N", src, "mapping: {i: tx}\nblock: [32]\n")
		l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Loops[1].Divergent {
			t.Fatalf("%s: loop j not divergent", tc.name)
		}
		ins := warpInsts(l, 0, 0)
		// The warp iterates while any lane does: max over lanes of the
		// trip count.
		trips := 0
		for lane := range 32 {
			trips = max(trips, tc.end(lane)-tc.start(lane))
		}
		if len(ins) != 4*trips {
			t.Fatalf("%s: %d instructions; want 4 × %d", tc.name, len(ins), trips)
		}
		A := base0 + 256 // x is 160 bytes; A at the next 256-byte boundary
		for k := range trips {
			a := ins[4*k+1]
			var mask uint32
			for lane := range 32 {
				if tc.start(lane)+k < tc.end(lane) {
					mask |= 1 << lane
					j := tc.start(lane) + k
					if want := A + 4*uint64(N*lane+j); a.Addr[lane] != want {
						t.Errorf("%s k=%d lane %d: %#x; want %#x", tc.name, k, lane, a.Addr[lane], want)
					}
				} else if a.Addr[lane] != 0 {
					t.Errorf("%s k=%d: inactive lane %d has %#x", tc.name, k, lane, a.Addr[lane])
				}
			}
			for _, w := range ins[4*k : 4*k+4] {
				if w.Active != mask {
					t.Errorf("%s k=%d %v: active %#x; want %#x", tc.name, k, w.Op, w.Active, mask)
				}
			}
		}
	}
}

// TestStepAndLowerBound: a mapped loop with lower bound 2 and step 3 gives
// thread g the value 2 + 3g.
func TestStepAndLowerBound(t *testing.T) {
	k := mustParse(t, "N: 100", "x=N", "for (i = 2; i < N; i += 3)\n  x[i] = 1;", "mapping: {i: tx}\nblock: [32]\n")
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// i = 2, 5, ..., 98: 33 iterations -> 2 blocks, block 1 has 1 lane.
	if l.Loops[0].Extent != 33 || l.Blocks() != 2 {
		t.Fatalf("extent %d, blocks %d; want 33, 2", l.Loops[0].Extent, l.Blocks())
	}
	ins := warpInsts(l, 1, 0)
	st := ins[len(ins)-1]
	if st.Active != 1 || st.Addr[0] != base0+4*98 {
		t.Errorf("block 1: active %#x addr %#x; want 0x1, %#x", st.Active, st.Addr[0], base0+4*98)
	}
}

// TestZeroAllocs: a reused cursor allocates nothing per instruction.
func TestZeroAllocs(t *testing.T) {
	l := bindExample(t, "matmul", nil, arch.Dim3{}, map[string]int64{"M": 64, "N": 64, "P": 256})
	var c WarpCursor
	var w WarpInst
	c.Start(l, 0, 0)
	n := 0
	allocs := testing.AllocsPerRun(10, func() {
		c.Start(l, 1, 3)
		for c.Next(&w) {
			n++
		}
	})
	if allocs != 0 || n == 0 {
		t.Errorf("one warp (%d instructions) allocates %v times; want 0", n/11, allocs)
	}
}

// TestStreamHeapBounded iterates about 10^7 instructions and checks that
// the heap does not grow with the trace.
func TestStreamHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 10^7 warp instructions")
	}
	// 16·16 blocks × 8 warps × (3·P + 3) instructions, P = 1600: 9.8e6.
	l := bindExample(t, "matmul", nil, arch.Dim3{}, map[string]int64{"M": 256, "N": 256, "P": 1600})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var n int64
	for range l.Stream() {
		n++
	}
	runtime.ReadMemStats(&after)
	if want := int64(16 * 16 * 8 * (3*1600 + 3)); n != want {
		t.Errorf("%d instructions; want %d", n, want)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 1<<20 {
		t.Errorf("heap in use grew by %d bytes over %d instructions; want < 1 MiB", grew, n)
	}
	if after.Mallocs-before.Mallocs > 100 {
		t.Errorf("%d allocations over %d instructions; want a constant few", after.Mallocs-before.Mallocs, n)
	}
}

// TestExampleAddresses checks the shipped copies and transpose against
// their index expressions, evaluated by hand per lane.
func TestExampleAddresses(t *testing.T) {
	const rows, cols = 100, 3
	src, des := base0, base0+1280 // 1200 bytes, rounded up to 256
	for _, tc := range []struct {
		name string
		elem func(tid, i int) uint64 // element index
	}{
		{"copy-rowmajor", func(tid, i int) uint64 { return uint64(cols*tid + i) }},
		{"copy-colmajor", func(tid, i int) uint64 { return uint64(rows*i + tid) }},
	} {
		l := bindExample(t, tc.name, nil, arch.Dim3{X: 64, Y: 1, Z: 1}, map[string]int64{"rows": rows, "cols": cols})
		ins := warpInsts(l, 1, 1) // threads 96..127: tid 96..99 active
		if len(ins) != 3*cols {
			t.Fatalf("%s: %d instructions; want %d", tc.name, len(ins), 3*cols)
		}
		for i := range cols {
			ld, st := ins[3*i], ins[3*i+2]
			if ld.Active != 0xf || st.Active != 0xf {
				t.Errorf("%s i=%d: active %#x, %#x; want 0xf", tc.name, i, ld.Active, st.Active)
			}
			for lane := range 4 {
				e := tc.elem(96+lane, i)
				if ld.Addr[lane] != src+4*e || st.Addr[lane] != des+4*e {
					t.Errorf("%s i=%d lane %d: %#x, %#x; want %#x, %#x", tc.name, i, lane, ld.Addr[lane], st.Addr[lane], src+4*e, des+4*e)
				}
			}
		}
	}
	// transpose N=64, block 16x16: block 5 is (bx=1, by=1); warp 3 has
	// ty = 6..7 -> i1 = 22..23, i2 = 16 + lane%16.
	l := bindExample(t, "transpose", nil, arch.Dim3{}, map[string]int64{"N": 64})
	ins := warpInsts(l, 5, 3)
	out := base0 + 64*64*4
	for lane := range 32 {
		i1, i2 := uint64(16+6+lane/16), uint64(16+lane%16)
		if want := base0 + 4*(64*i1+i2); ins[0].Addr[lane] != want {
			t.Errorf("transpose lane %d: in at %#x; want %#x", lane, ins[0].Addr[lane], want)
		}
		if want := out + 4*(64*i2+i1); ins[2].Addr[lane] != want {
			t.Errorf("transpose lane %d: out at %#x; want %#x", lane, ins[2].Addr[lane], want)
		}
	}
}

// TestPendingPastCount: loop control gathered by an empty loop of 2^30
// iterations, 3·2^30, is more than an OpCompute's Count holds; it comes
// out in two computes, the first of 2^31-1, and nothing is lost. The
// cursor takes about 10 s over the iterations, so the test runs with
// GPUMEMSIM_LONG=1.
func TestPendingPastCount(t *testing.T) {
	if os.Getenv("GPUMEMSIM_LONG") != "1" {
		t.Skip("long: 2^30 loop iterations; set GPUMEMSIM_LONG=1")
	}
	k := mustParse(t, "N: 32, M: 1073741824", "A=N", "for (i = 0; i < N; i++) {\n  for (j = 0; j < M; j++)\n    ;\n  A[i] = 1;\n}", "mapping: {i: tx}\nblock: [32]\n")
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int32
	for _, w := range warpInsts(l, 0, 0) {
		if w.Op == OpCompute {
			counts = append(counts, w.Count)
		}
	}
	// The statement's count is 1 (the address of A[i]).
	const total = 3<<30 + 1
	if len(counts) != 2 || counts[0] != math.MaxInt32 || int64(counts[1]) != total-math.MaxInt32 {
		t.Errorf("computes %v; want [%d %d]", counts, math.MaxInt32, total-math.MaxInt32)
	}
	if got := l.WarpInstructions(); got != total+1 {
		t.Errorf("WarpInstructions = %v; want %d (and the store)", got, total+1)
	}
}
