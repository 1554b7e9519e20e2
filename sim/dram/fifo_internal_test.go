package dram

import (
	"math/rand/v2"
	"testing"
)

// TestFifoOrder pushes and pops at random, through growth and wrap-around,
// and holds every item against a plain slice used as the queue.
func TestFifoOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q fifo[int]
	var want []int
	next := 0
	for step := range 20000 {
		// Drift from pushing more to popping more and back, so the
		// queue grows past several capacities, wraps and empties.
		if push := rng.IntN(100) < 55-step/2000%2*10; push || len(want) == 0 {
			*q.add() = next
			want = append(want, next)
			next++
		} else {
			if got := *q.front(); got != want[0] {
				t.Fatalf("step %d: front %d, want %d", step, got, want[0])
			}
			q.pop()
			want = want[1:]
		}
		if q.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(want))
		}
	}
	for len(want) > 0 {
		if got := *q.front(); got != want[0] {
			t.Fatalf("drain: front %d, want %d", got, want[0])
		}
		q.pop()
		want = want[1:]
	}
	if q.len() != 0 {
		t.Fatalf("len %d after draining", q.len())
	}
}
