package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue pops in (time, scheduling order), the order a sort of
// everything pushed gives, whatever the mix of near and far events, as
// long as nothing is pushed before the last pop (the simulator's rule).
func TestEventQueueOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		spread int64 // pushes land up to this far after the last pop
		pushes int   // pushes per pop, at most
	}{
		{"same cycle", 1, 3},
		{"near", 64, 2},
		{"across the ring", nearSlots + 5, 2},
		{"mostly far", 50 * nearSlots, 2},
		{"mixed", 3 * nearSlots, 4},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(c.spread)))
		var q eventQueue
		var pushed, popped []event
		var seq uint64
		now := int64(0)
		push := func() {
			tm := now + rng.Int64N(c.spread)
			if rng.IntN(4) == 0 {
				tm = now // ties with the current cycle are common
			}
			seq++
			q.push(tm, evSchedule, int32(seq), 0)
			pushed = append(pushed, newEvent(tm, seq, evSchedule, int32(seq), 0))
		}
		for range 20 {
			push()
		}
		for range 20000 {
			if q.len() == 0 {
				push()
			}
			want := q.peek()
			ev := q.pop()
			if ev.t != want {
				t.Fatalf("%s: pop() at cycle %d after peek() = %d", c.name, ev.t, want)
			}
			now = ev.t
			popped = append(popped, ev)
			for range rng.IntN(c.pushes + 1) {
				push()
			}
		}
		for q.len() > 0 {
			popped = append(popped, q.pop())
		}
		slices.SortFunc(pushed, func(x, y event) int {
			return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.seq(), y.seq()))
		})
		if len(popped) != len(pushed) {
			t.Fatalf("%s: popped %d events; want %d", c.name, len(popped), len(pushed))
		}
		for i := range pushed {
			if popped[i].t != pushed[i].t || popped[i].seq() != pushed[i].seq() || popped[i].a != pushed[i].a {
				t.Fatalf("%s: pop %d = (t %d, seq %d); want (t %d, seq %d)",
					c.name, i, popped[i].t, popped[i].seq(), pushed[i].t, pushed[i].seq())
			}
		}
	}
}

// What joins the event lastAt returns pops exactly where an event of its
// own would have: two kinds of events pushed at random, near and far,
// those of one kind joining the last event of their cycle when lastAt
// offers it, pop in the order of a sort of everything pushed once each
// event's joiners are put right after it. A test that joined any event
// of the kind at the cycle, not only the last, fails here.
func TestEventQueueLastAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	var q eventQueue
	var pushed []event
	joined := map[int32][]int32{} // an event's id → the ids that joined it
	var seq uint64
	now := int64(0)
	push := func() {
		tm := now + rng.Int64N(3*nearSlots)
		if rng.IntN(2) == 0 {
			tm = now + rng.Int64N(3)
		}
		kind := evSchedule
		if rng.IntN(3) > 0 {
			kind = evDRAMPush
		}
		seq++
		id := int32(seq)
		pushed = append(pushed, newEvent(tm, seq, 0, id, 0))
		if kind == evDRAMPush {
			if ev := q.lastAt(tm, kind); ev != nil {
				joined[ev.a] = append(joined[ev.a], id)
				return
			}
		}
		q.push(tm, kind, id, 0)
	}
	var popped []int32
	for range 20000 {
		if q.len() == 0 {
			push()
		}
		ev := q.pop()
		now = ev.t
		popped = append(popped, ev.a)
		popped = append(popped, joined[ev.a]...)
		for range rng.IntN(4) {
			push()
		}
	}
	for q.len() > 0 {
		ev := q.pop()
		popped = append(popped, ev.a)
		popped = append(popped, joined[ev.a]...)
	}
	slices.SortFunc(pushed, func(x, y event) int {
		return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.seq(), y.seq()))
	})
	if len(joined) == 0 {
		t.Fatal("no event was joined")
	}
	if len(popped) != len(pushed) {
		t.Fatalf("handled %d events; want %d", len(popped), len(pushed))
	}
	for i := range pushed {
		if popped[i] != pushed[i].a {
			t.Fatalf("event %d handled is %d; want %d (cycle %d)", i, popped[i], pushed[i].a, pushed[i].t)
		}
	}
}

// Pushing before the last pop breaks the queue's contract and panics.
func TestEventQueuePastPanics(t *testing.T) {
	var q eventQueue
	q.push(10, evDRAM, 0, 0)
	q.pop()
	defer func() {
		if recover() == nil {
			t.Fatal("push(9) after popping cycle 10 did not panic")
		}
	}()
	q.push(9, evDRAM, 0, 0)
}

// Pushing and popping allocate nothing once the queue has grown.
func TestEventQueueAllocs(t *testing.T) {
	var q eventQueue
	now := int64(0)
	step := func() {
		for i := range 8 {
			q.push(now+int64(i*300), evSchedule, 0, 0)
		}
		for range 8 {
			now = q.pop().t
		}
	}
	for range 100 {
		step()
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Errorf("push and pop allocate %.1f times per 8 events; want 0", n)
	}
}

// An event stays a value the compiler keeps in registers
// (TestHotValuesFitRegisters): with a fifth field every pop went through
// memory, stored by fields and read back whole, a store-forwarding stall
// that cost 3 to 5% of every run. So the kind and seq share a word, and
// each reads back what newEvent was given.
func TestEventPacksKindAndSeq(t *testing.T) {
	for _, c := range []struct {
		seq  uint64
		kind uint8
	}{{0, evSchedule}, {1, evBlockDone}, {1<<56 - 1, evLSURetry}, {12345, 255}} {
		ev := newEvent(7, c.seq, c.kind, -1, 3)
		if ev.seq() != c.seq || ev.kind() != c.kind || ev.t != 7 || ev.a != -1 || ev.b != 3 {
			t.Errorf("newEvent(7, %d, %d, -1, 3) reads back seq %d, kind %d, t %d, a %d, b %d",
				c.seq, c.kind, ev.seq(), ev.kind(), ev.t, ev.a, ev.b)
		}
	}
	// Order follows seq whatever the kinds.
	x, y := newEvent(5, 9, 255, 0, 0), newEvent(5, 10, 0, 0, 0)
	if !x.before(&y) || y.before(&x) {
		t.Error("an event of seq 9 and kind 255 does not come before one of seq 10 and kind 0 at the same time")
	}
}
