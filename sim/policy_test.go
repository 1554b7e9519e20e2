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

// fullScheduler is a scheduler of policy p issuing one warp a cycle,
// holding n warps.
func fullScheduler(p policy, n int) scheduler {
	sc := newScheduler(p, 1, n)
	for slot := range n {
		sc.add(slot)
	}
	return sc
}

// randomStep gives one warp of sc new own times, the last issued warp a
// new index (-1 among them), and returns a cycle and an LSU gate to pick
// at, drawn from rng.
func randomStep(rng *rand.Rand, sc *scheduler) (now, gate int64) {
	n := len(sc.slots)
	// A warp's next instruction needs the LSU or not: one of its times
	// is never.
	a, l := randomTime(rng), int64(never)
	if rng.IntN(2) == 0 {
		a, l = l, a
	}
	sc.set(rng.IntN(n), a, l)
	sc.last = rng.IntN(n+1) - 1
	return rng.Int64N(40), rng.Int64N(60)
}

// TestLRRPick holds loose round robin's pick to its rule, by a plain
// scan: the first warp in slot order after the last issued one, wrapping
// around, whose own time without the LSU is due, or with the LSU when the
// LSU is free (gate) by then. The minima it leaves must be those of a
// scan too.
func TestLRRPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 5, 16, 24, 32, 63, 64} {
		sc := fullScheduler(&lrr{}, n)
		for step := range 3000 {
			now, gate := randomStep(rng, &sc)
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

// TestAhead holds each policy's look ahead to its contract: the warp
// its pick gives, or -1. Loose round robin's is -1 exactly where the warp
// after the last issued one cannot go (its own time without the LSU not
// due, and with it not due or the LSU not free); greedy-then-oldest's is
// its pick.
func TestAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range []policy{&lrr{}, &gto{}} {
		for _, n := range []int{1, 5, 24, 64} {
			sc := fullScheduler(p, n)
			lookedAhead := 0
			for step := range 3000 {
				now, gate := randomStep(rng, &sc)
				want := -1
				if k := sc.last + 1; k < n && (sc.alu[k] <= now || (sc.lsu[k] <= now && gate <= now)) {
					want = k
				}
				got := sc.policy.ahead(&sc, now, gate)
				if _, ok := p.(*gto); ok {
					want = sc.policy.pick(&sc, now, gate)
				}
				if got != want {
					t.Fatalf("%T n=%d step %d: ahead at %d (gate %d, last %d) = %d, want %d; alu %v lsu %v", p, n, step, now, gate, sc.last, got, want, sc.alu, sc.lsu)
				}
				if got >= 0 {
					lookedAhead++
					if pk := sc.policy.pick(&sc, now, gate); pk != got {
						t.Fatalf("%T n=%d step %d: ahead %d, pick %d", p, n, step, got, pk)
					}
				}
			}
			if lookedAhead == 0 {
				t.Fatalf("%T n=%d: no look ahead found a warp in 3000 steps", p, n)
			}
		}
	}
}
