package banks

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkTransactions(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	benchPatterns := []struct {
		name  string
		width int
		addr  func(int) uint64
	}{
		{"unit", 4, stride(0, 4)},
		{"broadcast", 4, stride(0x40, 0)},
		{"stride2", 4, stride(0, 8)},
		{"column", 4, stride(0, 4*32)},
		{"padded", 4, stride(0, 4*33)},
		{"tile18", 4, func(l int) uint64 { return 4 * uint64(l/16*18+l%16) }}, // two rows of an 18-wide tile
		{"pairs", 4, func(l int) uint64 { return 4 * uint64(l/2) }},
		{"char", 1, stride(0, 1)},
		{"double", 8, stride(0, 8)},
		{"float4", 16, stride(0, 16)},
		{"random", 4, func(int) uint64 { return 4 * rng.Uint64N(1<<12) }},
	}
	for _, r := range rules {
		for _, p := range benchPatterns {
			addr := lanesAt(p.addr)
			b.Run(r.String()+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Transactions(r, p.width, all, addr)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
			})
		}
	}
}
