package sim_test

import (
	"testing"

	"gpumemsim/sim"
)

// An access that waits for an L2 MSHR entry counts once in MSHRWaits,
// however many fills it is retried at. A kepler cut to one SM, one DRAM
// channel and one L2 slice with a single MSHR entry runs one warp whose
// 32 lanes read 32 different lines (stride 32 floats, 128 bytes): kepler's
// L1 does not cache global loads, so the warp sends 32 one-sector reads to
// the L2, one a cycle. The first takes the entry; the other 31 find it
// taken, its data not yet on its way, and wait. Each fill frees the entry
// for the first in the queue and the rest wait on: 31 accesses waited, in
// 31 + 30 + ... + 1 = 496 tries, as the metric counted before
// (2026-11-28). All 32 are read requests in the end, each missing once.
func TestL2MSHRWaitsCountAccesses(t *testing.T) {
	dev := deviceFrom(t, "kepler-one-slice", "base: kepler\nname: kepler-one-slice\nsms: 1\n"+
		"l2:\n  size: 1MiB\n  slices: 1\n  mshr_entries: 1\ndram:\n  channels: 1\n")
	l := bindOn(t, dev, "stride", "", "32", map[string]int64{"N": 32, "S": 32, "O": 0})
	r := run(t, dev, l, sim.Options{})
	if r.L2.MSHRWaits != 31 || r.L2.ReadRequests != 32 || r.L2.ReadMissSectors != 32 {
		t.Errorf("L2: %d accesses waited, %d read requests, %d miss sectors; want 31, 32, 32", r.L2.MSHRWaits, r.L2.ReadRequests, r.L2.ReadMissSectors)
	}
}
