package sim_test

import (
	"context"
	"testing"

	"gpumemsim/sim"
)

// BenchmarkSequence reports launches simulated per second of a wavefront
// sequence, Rodinia's nw at N=256: nw-dymaxion's 511 launches of one
// block, one per anti-diagonal of cells, whose set-up weighs as much as
// their work, and nw-shared's 31 of up to 16 blocks of one warp, one per
// anti-diagonal of tiles; on a device of many SMs (a100, 108) and of few
// (fermi, 15).
func BenchmarkSequence(b *testing.B) {
	for _, name := range []string{"nw-dymaxion", "nw-shared"} {
		for _, device := range []string{"a100", "fermi"} {
			b.Run(name+"/"+device, func(b *testing.B) {
				dev, ls := bindExample(b, device, name, map[string]int64{"N": 256})
				srcs := sources(ls)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := sim.RunSequence(context.Background(), dev, srcs, sim.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*len(srcs))/b.Elapsed().Seconds(), "launches/s")
			})
		}
	}
}
