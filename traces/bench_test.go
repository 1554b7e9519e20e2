package traces

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

func bindExample(tb testing.TB, name string, m kernel.Mapping, block arch.Dim3, params map[string]int64) *Launch {
	tb.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := Bind(k, m, block, params, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// BenchmarkStream iterates whole launches through Stream: loop nests
// through their affine cursor, per-thread kernels through the SIMT one.
func BenchmarkStream(b *testing.B) {
	cases := []struct {
		name   string
		params map[string]int64
	}{
		{"matmul", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"vecadd", map[string]int64{"N": 1 << 20}},
		{"matvec", map[string]int64{"N": 1024}},
		{"matmul-tiled", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"transpose-shared", map[string]int64{"N": 1024}},
		{"reduce-interleaved", map[string]int64{"N": 1 << 20}},
		{"matmul-ryoo-a", map[string]int64{"W": 256}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			l := bindExample(b, tc.name, nil, arch.Dim3{}, tc.params)
			b.ReportAllocs()
			var n, sink int64
			for b.Loop() {
				for w := range l.Stream() {
					n++
					sink += int64(w.Addr[31])
				}
			}
			_ = sink
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "warp-insts/s")
		})
	}
}

// BenchmarkWarpCursor measures one warp's instructions through a reused
// cursor, the way a simulator consumes them.
func BenchmarkWarpCursor(b *testing.B) {
	l := bindExample(b, "matmul", nil, arch.Dim3{}, map[string]int64{"M": 256, "N": 256, "P": 4096})
	var c WarpCursor
	var w WarpInst
	b.ReportAllocs()
	var n int64
	blk := 0
	for b.Loop() {
		c.Start(l, blk%l.Blocks(), blk%l.WarpsPerBlock())
		blk++
		for c.Next(&w) {
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "warp-insts/s")
}

// BenchmarkThreadWork counts per-thread launches' work (threadWork) on
// fresh launches, the count every run of one does before it simulates:
// the sample blocks streamed, the addresses of each warp's first
// ptChecked instructions formed and checked.
func BenchmarkThreadWork(b *testing.B) {
	for _, tc := range []struct {
		name   string
		params map[string]int64
	}{
		{"matmul-tiled", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"stencil-shared", map[string]int64{"N": 512}},
		{"mri-q-k-outer", nil},
		{"kmeans-rodinia-row", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n float64
			for b.Loop() {
				b.StopTimer()
				l := bindExample(b, tc.name, nil, arch.Dim3{}, tc.params)
				b.StartTimer()
				n += l.threadWork().insts
			}
			b.ReportMetric(n/b.Elapsed().Seconds(), "warp-insts/s")
		})
	}
}
