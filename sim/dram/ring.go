package dram

type completion struct {
	req    Request
	seq    int64
	finish int64 // slot inside a channel, core cycle in Memory.due
	ch     int
}

// before orders completions by finish cycle, then channel, then arrival.
func (c *completion) before(o *completion) bool {
	if c.finish != o.finish {
		return c.finish < o.finish
	}
	if c.ch != o.ch {
		return c.ch < o.ch
	}
	return c.seq < o.seq
}

// ring is a FIFO of completions in finish order that grows only when full.
type ring struct {
	buf     []completion
	head, n int
}

// at returns the index in buf of the i-th completion, i < len(buf).
func (r *ring) at(i int) int {
	j := r.head + i
	if j >= len(r.buf) {
		j -= len(r.buf)
	}
	return j
}

// add appends a completion and returns it to be filled in. The ring
// must not be full: a caller grows it first, a call of its own so that
// add is inlined.
func (r *ring) add() *completion {
	c := &r.buf[r.at(r.n)]
	r.n++
	return c
}

func (r *ring) full() bool { return r.n == len(r.buf) }

// grow doubles the ring.
//
//go:noinline
func (r *ring) grow() {
	grown := make([]completion, 2*len(r.buf)+4)
	for i := range r.n {
		grown[i] = r.buf[r.at(i)]
	}
	r.buf, r.head = grown, 0
}

func (r *ring) front() *completion { return &r.buf[r.head] }

func (r *ring) back() *completion { return &r.buf[r.at(r.n-1)] }

// drop removes the front completion.
func (r *ring) drop() {
	r.head = r.at(1)
	r.n--
}
