package validate

import (
	"testing"

	"gpumemsim/arch"
)

// TestPengNNLayouts: PEN's estimate of Rodinia's nn (Che's Nearest
// Neighbor) over struct latLong {float lat, lng} on the GTX 480, 65536
// records in blocks of 256: 2048 warps. By hand, as vecadd-peng: as an
// array of structures lat and lng are 8 bytes apart from thread to
// thread, 2 transactions a warp each; lng reads the struct lat just
// brought in (same index, (0+2)·8 ≤ 128: L1-beneficial, within at most
// 8 blocks · 256 threads · 8 bytes = 16 KiB, the L1's size), so it hits
// L1. As a structure of arrays each is 1 transaction and misses to
// DRAM. The store of the distance is 1 transaction to DRAM. Costs
// (weights 1/30/100): AoS 2·2048·100 + 2·2048·1 + 2048·100 = 618496;
// SoA 3·2048·100 = 614400.
func TestPengNNLayouts(t *testing.T) {
	for _, c := range []struct {
		layout string
		txn    int64
		lngL1  int64
		cost   float64
	}{
		{"aos", 2, 1, 618496},
		{"soa", 1, 0, 614400},
	} {
		r := pengLayout(t, "fermi", "nn", c.layout, arch.Dim3{}, nil)
		if len(r.Accesses) != 3 {
			t.Fatalf("%s: %d accesses; want lat, lng and the store", c.layout, len(r.Accesses))
		}
		lat, lng := r.Accesses[0], r.Accesses[1]
		for _, a := range []PengAccess{lat, lng} {
			if int64(a.Transactions) != c.txn {
				t.Errorf("%s %s: %v transactions a warp; want %d", c.layout, a.Text, a.Transactions, c.txn)
			}
		}
		if lng.L1Hits != c.lngL1 || lat.L1Hits != 0 {
			t.Errorf("%s: lng %v L1 hits, lat %v; want %d, 0", c.layout, lng.L1Hits, lat.L1Hits, c.lngL1)
		}
		if r.Cost != c.cost {
			t.Errorf("%s: cost %g; want %g", c.layout, r.Cost, c.cost)
		}
	}
}
