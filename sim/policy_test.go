package sim

import (
	"math/rand/v2"
	"testing"
)

// randomTime is a warp's own time: never about one time in four, else a
// cycle in a small range so that ties with the probe cycles are common.
func randomTime(rng *rand.Rand) int64 {
	if rng.IntN(4) == 0 {
		return never
	}
	return rng.Int64N(40)
}

// TestLRRPick holds loose round robin's pick to its rule, by a plain
// scan: the first warp in slot order after the last issued one, wrapping
// around, whose own time without the LSU is due, or with the LSU when the
// LSU is free (gate) by then. The minima it leaves must be those of a
// scan too.
func TestLRRPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 5, 16, 24, 32, 63, 64} {
		sc := newScheduler(&lrr{}, 1, n)
		for slot := range n {
			sc.add(slot)
		}
		for step := range 3000 {
			// A warp's next instruction needs the LSU or not: one of its
			// times is never.
			a, l := randomTime(rng), int64(never)
			if rng.IntN(2) == 0 {
				a, l = l, a
			}
			sc.set(rng.IntN(n), a, l)
			sc.last = rng.IntN(n+1) - 1
			now, gate := rng.Int64N(40), rng.Int64N(60)
			want := -1
			for d := 1; d <= n; d++ {
				j := (sc.last + d + n) % n
				if sc.alu[j] <= now || (sc.lsu[j] <= now && gate <= now) {
					want = j
					break
				}
			}
			if got := sc.policy.pick(&sc, now, gate); got != want {
				t.Fatalf("n=%d step %d: pick at %d (gate %d, last %d) = %d, want %d; alu %v lsu %v", n, step, now, gate, sc.last, got, want, sc.alu, sc.lsu)
			}
			wa, wl := minima(sc.alu, sc.lsu)
			if ga, gl := sc.minima(); ga != wa || gl != wl {
				t.Fatalf("n=%d step %d: minima %d, %d; want %d, %d", n, step, ga, gl, wa, wl)
			}
		}
	}
}
