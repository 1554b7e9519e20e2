package constmem

import (
	"math/rand/v2"
	"testing"

	"gpumemsim/arch"
)

// BenchmarkPasses: a warp's constant read under CC 2.0 (one request of
// 32 lanes) and CC 1.3 (two half-warps), in warp reads per second, for
// the address shapes kernels make: one address (a uniform read), a row
// of words, a stride, lanes that fall, and addresses at random.
func BenchmarkPasses(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, p := range []struct {
		name string
		elem func(l uint64) uint64
	}{
		{"uniform", func(uint64) uint64 { return 5 }},
		{"words", func(l uint64) uint64 { return l }},
		{"stride", func(l uint64) uint64 { return 33 * l }},
		{"falling", func(l uint64) uint64 { return 31 - l }},
		{"random", func(uint64) uint64 { return rng.Uint64N(64) }},
	} {
		a := lanes(p.elem)
		for _, r := range []arch.CoalescingRule{arch.RuleCC20, arch.RuleCC13} {
			b.Run(p.name+"/"+r.String(), func(b *testing.B) {
				dst := make([]uint64, 0, 32)
				for b.Loop() {
					dst = Passes(r, 0xFFFFFFFF, a, dst[:0])
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "warp-reads/s")
			})
		}
	}
}
