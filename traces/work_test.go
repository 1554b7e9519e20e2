package traces

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// streamWork counts, by streaming, what WarpInstructions, MemoryInstructions
// and ActiveWarps compute in closed form.
func streamWork(l *Launch) (issued, mem, warps int64) {
	lastB, lastW := -1, -1
	for w := range l.Stream() {
		if w.Block != lastB || w.Warp != lastW {
			warps++
			lastB, lastW = w.Block, w.Warp
		}
		if w.Op == OpCompute {
			issued += int64(w.Count)
			continue
		}
		issued++
		mem++
	}
	return issued, mem, warps
}

// TestWorkMatchesStream: on every stream case the closed form equals the
// streamed count when the in-thread loops have constant bounds, and is at
// least the streamed count for the divergent and triangular kernels
// (divnest, mixed).
func TestWorkMatchesStream(t *testing.T) {
	bounded := map[string]bool{"divnest": true, "divnest 2d": true, "divnest huge block": true,
		"mixed": true, "mixed odd block": true, "mixed j": true}
	for _, tc := range streamCases() {
		l := bindCase(t, tc)
		issued, mem, warps := streamWork(l)
		gotI, gotM := l.WarpInstructions(), l.MemoryInstructions()
		if bounded[tc.name] {
			if gotI < float64(issued) || gotM < float64(mem) {
				t.Errorf("%s: estimate %v instructions, %v memory; the stream has %d, %d: want at least those", tc.name, gotI, gotM, issued, mem)
			}
			continue
		}
		if gotI != float64(issued) || gotM != float64(mem) {
			t.Errorf("%s: %v instructions, %v memory; the stream has %d, %d", tc.name, gotI, gotM, issued, mem)
		}
		if got := l.ActiveWarps(); got != warps {
			t.Errorf("%s: %d active warps; %d warps have instructions", tc.name, got, warps)
		}
	}
}

// TestWorkByHand checks launches too large to stream against counts
// worked out by hand.
func TestWorkByHand(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		block                arch.Dim3
		params               map[string]int64
		warps                int64
		issued, memory       float64
		perWarpI, perWarpMem float64
	}{
		// matmul at 1024³, block 16x16: 64·64 blocks of 8 warps. A warp:
		// acc = 0 (1), then 1024 × (2 loads, 2 addresses + * + += = 4,
		// 3 loop control), then C = acc (1 address, 1 store).
		{"matmul", arch.Dim3{}, nil, 64 * 64 * 8, 0, 0, 1 + 1024*(2+4+3) + 2, 1024*2 + 1},
		// vecadd N=1000, block 128: threads 0..999 fill ceil(1000/32) =
		// 32 warps; a warp: 2 loads, 3 addresses + 1 add, 1 store.
		{"vecadd", arch.Dim3{}, map[string]int64{"N": 1000}, 32, 0, 0, 2 + 4 + 1, 3},
		// transpose N=40, block 16x16: 3 block columns of 8 + 8 + 4 warps
		// with rows below 40; a warp: load, 2 addresses, store.
		{"transpose", arch.Dim3{}, map[string]int64{"N": 40}, 60, 0, 0, 1 + 2 + 1, 2},
		// vecadd N=2^25 in blocks of 96x1x1: 2^25/96 = 349525.33 blocks;
		// the last holds 32 threads, one warp.
		{"vecadd", arch.Dim3{X: 96, Y: 1, Z: 1}, nil, 349525*3 + 1, 0, 0, 7, 3},
	} {
		l := bindExample(t, tc.name, nil, tc.block, tc.params)
		if got := l.ActiveWarps(); got != tc.warps {
			t.Errorf("%s %v: %d active warps; want %d", tc.name, tc.params, got, tc.warps)
		}
		w := float64(tc.warps)
		if got := l.WarpInstructions(); got != w*tc.perWarpI {
			t.Errorf("%s %v: %v warp instructions; want %v × %v = %v", tc.name, tc.params, got, w, tc.perWarpI, w*tc.perWarpI)
		}
		if got := l.MemoryInstructions(); got != w*tc.perWarpMem {
			t.Errorf("%s %v: %v memory instructions; want %v × %v = %v", tc.name, tc.params, got, w, tc.perWarpMem, w*tc.perWarpMem)
		}
	}
}

// deepNest is a kernel of n loops: i mapped (N iterations), the other
// n-1 nested inside each thread with M iterations each, around one store.
func deepNest(t testing.TB, n int) *kernel.Kernel {
	var src strings.Builder
	src.WriteString("for (i = 0; i < N; i++)\n")
	for d := range n - 1 {
		fmt.Fprintf(&src, "for (l%d = 0; l%d < M; l%d++)\n", d, d, d)
	}
	src.WriteString("A[i] = 1;")
	k, err := kernel.Parse("deep.yaml", []byte(kernelYAML("N: 32, M: 2", "A=N", src.String(), "mapping: {i: tx}\nblock: [32]\n")))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestWorkDeepNest: 60 nested loops of 100000 iterations each are
// counted in closed form. A warp issues 3·N^d of loop control at depth d =
// 1..59 and 2 (the store and its address) N^59 times; N/32 = 3125 warps.
func TestWorkDeepNest(t *testing.T) {
	const n, N = 60, 100000
	l, err := Bind(deepNest(t, n), nil, arch.Dim3{}, map[string]int64{"N": N, "M": N}, nil)
	if err != nil {
		t.Fatal(err)
	}
	perWarp, pow := new(big.Float), new(big.Float).SetInt64(1)
	for range n - 1 {
		pow.Mul(pow, big.NewFloat(N))
		perWarp.Add(perWarp, new(big.Float).Mul(pow, big.NewFloat(3)))
	}
	perWarp.Add(perWarp, new(big.Float).Mul(pow, big.NewFloat(2)))
	want, _ := new(big.Float).Mul(perWarp, big.NewFloat(N/32)).Float64()
	if got := l.WarpInstructions(); math.Abs(got-want) > 1e-12*want {
		t.Errorf("%d nested loops of %d: %v warp instructions; want %v", n, N, got, want)
	}
	// 64 loops of 2^60 iterations: 2^3780 is past float64, so +Inf, not a
	// wrapped small number.
	l, err = Bind(deepNest(t, 64), nil, arch.Dim3{}, map[string]int64{"M": 1 << 60}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.WarpInstructions(); !math.IsInf(got, 1) {
		t.Errorf("64 nested loops of 2^60: %v warp instructions; want +Inf", got)
	}
}

// BenchmarkWarpInstructions: the estimate's cost does not grow with the
// iterations it counts.
func BenchmarkWarpInstructions(b *testing.B) {
	l, err := Bind(deepNest(b, 60), nil, arch.Dim3{}, map[string]int64{"N": 100000, "M": 100000}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.WarpInstructions()
	}
}

// A sample of n blocks spreads from the first to the last, steps of
// (nb-1)/(n-1) rounded down; a grid of at most n is taken whole.
func TestSampleBlocks(t *testing.T) {
	for _, tc := range []struct {
		nb, n int
		want  []int
	}{
		{0, 16, nil},
		{1, 16, []int{0}},
		{5, 16, []int{0, 1, 2, 3, 4}},
		{16, 16, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{10, 4, []int{0, 3, 6, 9}},     // 9/3 = 3 apart
		{100, 4, []int{0, 33, 66, 99}}, // 99/3 = 33 apart
		{11, 3, []int{0, 5, 10}},
		{7, 1, []int{3}}, // one block: the middle one
		{4096, 2, []int{0, 4095}},
	} {
		if got := SampleBlocks(tc.nb, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("SampleBlocks(%d, %d) = %v; want %v", tc.nb, tc.n, got, tc.want)
		}
	}
}
