package dram

import "testing"

// TestRingGrows fills a ring past its size with its head in the middle of
// its buffer, growing it as the channel does, and wants the completions
// back in the order they were added.
func TestRingGrows(t *testing.T) {
	r := ring{buf: make([]completion, 3)}
	next, want := int64(0), int64(0)
	add := func() {
		if r.full() {
			r.grow()
		}
		r.add().seq = next
		next++
	}
	drop := func() {
		if got := r.front().seq; got != want {
			t.Fatalf("front %d, want %d", got, want)
		}
		r.drop()
		want++
	}
	add()
	add()
	drop() // the head is now at 1 of 3
	for range 10 {
		add()
	}
	if r.n != 11 || len(r.buf) < 11 {
		t.Fatalf("%d completions in a ring of %d, want 11 in at least 11", r.n, len(r.buf))
	}
	if got := r.back().seq; got != 11 {
		t.Fatalf("back %d, want 11", got)
	}
	for r.n > 0 {
		drop()
	}
	if want != 12 {
		t.Fatalf("dropped up to %d, want 12", want)
	}
}
