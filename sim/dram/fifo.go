package dram

// fifo is a first-in first-out queue in a ring that grows only when full:
// a long queue drained a few at a time costs what is pushed and popped,
// and its items are never moved but to grow it (a slice compacted from a
// dead head instead copied half the queue, long out of the host's caches,
// every time the head passed the middle).
type fifo[T any] struct {
	items   []T
	head, n int
}

func (q *fifo[T]) len() int { return q.n }

// add appends an item and returns it to be filled in. A caller fills the
// slot field by field: an item built aside and copied in is stored by
// parts and read back whole, which the host cannot forward from its
// store buffer, and each push waited for those stores to land (pprof
// put 5% of the DRAM-bound path's time on that copy).
func (q *fifo[T]) add() *T {
	if q.n == len(q.items) {
		grown := make([]T, 2*len(q.items)+16)
		k := copy(grown, q.items[q.head:])
		copy(grown[k:], q.items[:q.head])
		q.items, q.head = grown, 0
	}
	j := q.head + q.n
	if j >= len(q.items) {
		j -= len(q.items)
	}
	q.n++
	return &q.items[j]
}

// front is the oldest item; the queue must not be empty.
func (q *fifo[T]) front() *T { return &q.items[q.head] }

// pop drops the oldest item.
func (q *fifo[T]) pop() {
	q.n--
	if q.head++; q.head == len(q.items) || q.n == 0 {
		q.head = 0
	}
}
