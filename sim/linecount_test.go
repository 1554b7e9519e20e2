package sim

import (
	"math/rand/v2"
	"testing"
)

// TestLineCountsAgainstMap holds lineCounts to a Go map under random
// adds and takes, over few lines that collide often (multiples of the
// table's size among them) and many that grow it, checking every line's
// count and the number of lines after each step.
func TestLineCountsAgainstMap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines int
		steps int
	}{
		{"few", 12, 20000},
		{"grows", 2000, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(tc.lines)))
			var c lineCounts
			want := map[uint64]int32{}
			line := func() uint64 {
				k := uint64(rng.IntN(tc.lines))
				if k%3 == 0 {
					return k * minLineSlots // the same home in a small table
				}
				return k
			}
			for step := range tc.steps {
				l := line()
				// Adds win a little while the table is small, so that it
				// fills and grows; takes of uncounted lines are no-ops.
				if rng.IntN(100) < 55 {
					c.inc(l)
					want[l]++
				} else {
					c.dec(l)
					if want[l] > 1 {
						want[l]--
					} else {
						delete(want, l)
					}
				}
				if c.len() != len(want) {
					t.Fatalf("step %d: %d lines counted, want %d", step, c.len(), len(want))
				}
				if step%97 == 0 {
					for k := range uint64(tc.lines) {
						for _, l := range []uint64{k, k * minLineSlots} {
							if got := c.get(l); got != want[l] {
								t.Fatalf("step %d: count of line %d = %d, want %d", step, l, got, want[l])
							}
						}
					}
				}
			}
			if 2*c.len() > len(c.counts) {
				t.Errorf("%d lines in %d slots: more than half full", c.len(), len(c.counts))
			}
		})
	}
}
