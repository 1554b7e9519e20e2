package sim

// pool hands out indices into items, reusing released ones, so that a
// unit's records (requests in flight, MSHR waiters) are kept in one slice
// that grows to its working size and then allocates nothing.
type pool[T any] struct {
	items []T
	free  []int32
}

// take returns the index of an unused item.
func (p *pool[T]) take() int32 {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i
	}
	var zero T
	p.items = append(p.items, zero)
	return int32(len(p.items) - 1)
}

// release makes item i unused.
func (p *pool[T]) release(i int32) { p.free = append(p.free, i) }

// fifo is a first-in first-out queue over one slice: popping moves a head
// index instead of the items, so a long queue drained a few at a time
// costs what is popped, not what is left.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }

func (q *fifo[T]) push(v T) { q.items = append(q.items, v) }

// front is the oldest item; the queue must not be empty.
func (q *fifo[T]) front() T { return q.items[q.head] }

// pop drops the oldest item. The slice is rewound when the queue empties
// and compacted when the dead head is over half of it, so its length stays
// within twice the queue's largest size.
func (q *fifo[T]) pop() {
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head > len(q.items)/2 && q.head >= 64:
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
}
