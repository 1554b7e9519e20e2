package coalesce

import (
	"math/rand/v2"
	"testing"
)

// TestTranslate: moving every lane address of a warp by a multiple of 128
// bytes moves its transactions by as much and changes nothing else, under
// every rule, path and op. Units are aligned to at most 128 bytes (the
// CUDA guide's segments and lines: hardware.md §2), and nothing in the
// rules looks at an address beyond its offset in such a unit and its
// distance to the others. sim's counter relies on it to count a warp
// instruction by the shape of its addresses (sim/countmemo.go).
func TestTranslate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	a := make([]Txn, 0, MaxTxns)
	b := make([]Txn, 0, MaxTxns)
	checked := 0
	for range 20000 {
		w := affineWarp(rng)
		shift := 128 * rng.Uint64N(1<<24)
		moved := w
		wraps := false
		for l := range w.Addr {
			moved.Addr[l] += shift
			// A real launch's addresses lie in its arrays: none wraps
			// past 2^64, which would reorder lanes.
			wraps = wraps || w.Addr[l] >= 1<<62
		}
		if wraps {
			continue
		}
		for r := CC10; r <= CC50; r++ {
			for _, path := range []Path{L1, L2} {
				got := Coalesce(r, path, &moved, b[:0])
				want := Coalesce(r, path, &w, a[:0])
				checked++
				if len(got) != len(want) {
					t.Fatalf("rule %v path %v, width %d, active %#08x, addr %#x: %d transactions; moved by %#x: %d",
						r, path, w.Width, w.Active, w.Addr, len(want), shift, len(got))
				}
				for i := range got {
					x, y := want[i], got[i]
					x.Addr += shift
					if x != y {
						t.Fatalf("rule %v path %v, width %d, active %#08x, addr %#x: transaction %d is %+v; moved by %#x: %+v",
							r, path, w.Width, w.Active, w.Addr, i, want[i], shift, got[i])
					}
				}
			}
		}
	}
	if checked < 100000 {
		t.Errorf("checked %d warps and rules; the draws wrap too often", checked)
	}
}
