package coalesce

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkCoalesce(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	scattered := func(int) uint64 { return base + 4*rng.Uint64N(1<<20) }
	benchPatterns := []struct {
		name  string
		width int
		addr  func(int) uint64
	}{
		{"unit", 4, affine(0, 4)},
		{"misaligned", 4, affine(4, 4)},
		{"stride2", 4, affine(0, 8)},
		{"stride32", 4, affine(0, 128)},
		{"broadcast", 4, affine(0, 0)},
		{"unit16B", 16, affine(0, 16)},
		{"block16x16", 4, func(l int) uint64 { return base + uint64(l/16)*4096 + 4*uint64(l%16) }},
		// matmul's A[ty][k] and B[k][tx] in a 16x16 block: each half-warp
		// a broadcast of its own row; both half-warps on the same 64 B.
		{"rows16x16-bcast", 4, func(l int) uint64 { return base + uint64(l/16)*1024 }},
		{"rows16x16-same", 4, func(l int) uint64 { return base + 4*uint64(l%16) }},
		{"block32x8", 4, func(l int) uint64 { return base + uint64(l/8)*4096 + 4*uint64(l%8) }},
		{"random", 4, scattered},
	}
	rules := []struct {
		name string
		r    Rule
		path Path
		op   Op
	}{
		{"cc10", CC10, L1, Load},
		{"cc13", CC13, L1, Load},
		{"cc20-l1", CC20, L1, Load},
		{"cc20-l2", CC20, L2, Load},
		{"cc20-store", CC20, L1, Store},
		{"cc30", CC30, L2, Load},
		{"cc50", CC50, L1, Load},
	}
	for _, rule := range rules {
		for _, p := range benchPatterns {
			w := warpOf(rule.op, p.width, all, p.addr)
			dst := make([]Txn, 0, MaxTxns)
			b.Run(rule.name+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					dst = Coalesce(rule.r, rule.path, &w, dst[:0])
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-insts/s")
			})
		}
	}
}
