package sim_test

import (
	"math"
	"testing"

	"gpumemsim/sim"
)

// The window of a sampled run starts after the L2 has filled, where it
// fills during the grid. An a100 cut to 8 SMs and a 10-MiB L2 runs vecadd
// 2^22 (32,768 blocks of 128 threads, 16 resident per SM: waves of 128
// blocks). Each block reads 512 bytes of A and of B and writes 512 of C,
// 12 lines of 128 bytes, all allocated in the write-allocate L2: 1,536
// lines a wave, so the L2's 81,920 lines are full during wave 54 (53.3 by
// hand; after wave 53, 512 lines, 0.6%, are free: under the 1% count
// tolerance, all but full), and from then on each miss evicts a line, one
// in three dirty.
// Before the window waited for the fill (2026-11-28), the sampler took
// waves 2 to 5, saw no write-back, skipped 31,104 blocks and printed 0
// DRAM writes against the full run's 413,696 sectors, and cycles 6.3%
// over.
func TestSampleWaitsForTheL2ToFill(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a grid twice")
	}
	dev := deviceFrom(t, "a100-small", "base: a100\nname: a100-small\nsms: 8\nl2:\n  size: 10MiB\n")
	l := bindOn(t, dev, "vecadd", "", "", map[string]int64{"N": 1 << 22})
	full := run(t, dev, l, sim.Options{})
	got := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	s := got.Sampling
	if s == nil || s.WaveBlocks != 128 || s.SkippedBlocks == 0 || s.WarmupWaves < 53 || s.WarmupWaves > 55 {
		t.Fatalf("sampling %s: want waves of 128 blocks, a warm-up of 53 to 55 waves (the L2 all but full after the 53rd) and blocks skipped", describe(s))
	}
	if full.DRAM.Writes == 0 {
		t.Fatal("the full run wrote nothing back: the L2 never filled")
	}
	for _, c := range []struct {
		name string
		g, w int64
		tol  float64
	}{
		{"cycles", got.Cycles, full.Cycles, 0.02},
		{"DRAM writes", got.DRAM.Writes, full.DRAM.Writes, 0.01},
		{"L2 write-back sectors", got.L2.WriteBackSectors, full.L2.WriteBackSectors, 0.01},
	} {
		if e := math.Abs(float64(c.g-c.w)) / float64(c.w); e > c.tol {
			t.Errorf("%s: sampled %d, full %d: off by %.2f%%, over %.0f%%", c.name, c.g, c.w, 100*e, 100*c.tol)
		}
	}
}
