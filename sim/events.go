package sim

import (
	"fmt"
	"math/bits"
)

// Event kinds of the simulator's queue.
const (
	evSchedule  uint8 = iota // a warp scheduler may issue (a = SM, b = scheduler)
	evDRAMPush               // a request reaches its DRAM channel (a = request tag)
	evDRAM                   // the DRAM has something due
	evLSURetry               // an SM's stalled load/store unit may go on (a = SM)
	evBlockDone              // a block finished on an SM, which takes the next one (a = SM)
)

// event is one entry of the queue. Ties in time are broken by seq, the
// order in which events were scheduled, so runs are reproducible.
//
// The kind rides in the low byte of order, below seq: four fields in
// three words, which the compiler keeps in registers. With a fifth field
// an event lived in memory wherever it was copied, stored field by field
// and read back in wider loads, which the host cannot forward from its
// store buffer, at every pop. A seq must stay below 2^56 for order to
// keep its order: a run would have to push 2^56 events, centuries at
// this simulator's tens of millions a second.
type event struct {
	t     int64
	order uint64 // seq<<8 | kind
	a, b  int32
}

func newEvent(t int64, seq uint64, kind uint8, a, b int32) event {
	return event{t: t, order: seq<<8 | uint64(kind), a: a, b: b}
}

func (x *event) seq() uint64 { return x.order >> 8 }

func (x *event) kind() uint8 { return uint8(x.order) }

// before orders by time, then seq: order compares as seq does, the
// seqs being distinct.
func (x *event) before(y *event) bool {
	return x.t < y.t || (x.t == y.t && x.order < y.order)
}

// nearSlots is the span of cycles, from the time of the last pop, that
// the queue keeps in per-cycle buckets; a power of two.
const nearSlots = 1024

// qnode is an event in a bucket's list; next is the index+1 of the next
// node (0: none).
type qnode struct {
	ev   event
	next int32
}

// eventQueue pops events in (t, seq) order. The simulator never schedules
// an event before the time of the last one popped, so the queue is
// monotone: events less than nearSlots cycles after the last pop go to a
// ring of per-cycle FIFO buckets (a bucket holds one time only, and its
// events are in seq order because they were pushed in that order), later
// ones to a 4-ary min-heap. A pop takes the earlier of the first bucket's
// head and the heap's top, ties in time going to the smaller seq, so the
// order of pops is exactly that of one heap ordered by (t, seq). A bitmap
// of non-empty buckets finds the next bucket without visiting empty ones.
// The zero value is an empty queue.
type eventQueue struct {
	seq  uint64
	base int64 // time of the last pop; no queued event is earlier
	n    int   // events queued

	// near events
	nodes   []qnode
	free    int32 // index+1 of the first free node (0: none)
	head    [nearSlots]int32
	tail    [nearSlots]int32
	occ     [nearSlots / 64]uint64 // bit i: bucket i is not empty
	nearN   int
	nearMin int64 // time of the earliest near event, when nearN > 0

	far []event // 4-ary min-heap by (t, seq)
}

func (q *eventQueue) len() int { return q.n }

// restart makes the empty queue take events from cycle t on, t earlier
// than the last pop included: a launch of a sequence starts when the one
// before it finished, and superseded wake-ups of that one may have been
// popped later.
func (q *eventQueue) restart(t int64) {
	if q.n != 0 {
		panic(fmt.Sprintf("sim: event queue restarted at cycle %d with %d events queued", t, q.n))
	}
	q.base = t
}

// peek is the time of the earliest event; only valid when len() > 0.
func (q *eventQueue) peek() int64 {
	if q.nearN > 0 && (len(q.far) == 0 || q.nearMin <= q.far[0].t) {
		return q.nearMin
	}
	return q.far[0].t
}

// lastAt is the event of kind last queued for cycle t, when no other
// event has been queued for t since, or nil. An event pushed now for t
// would pop right after it: nothing queued later for t can come between
// them (a bucket keeps its cycle's events in the order they were pushed,
// and an event for t goes to the far heap only when pushed before any
// near one for t), so what such an event carries may join it instead
// and be handled in the same order. Only near events are looked at.
func (q *eventQueue) lastAt(t int64, kind uint8) *event {
	if d := t - q.base; d < 0 || d >= nearSlots {
		return nil
	}
	i := q.tail[t&(nearSlots-1)]
	if i == 0 {
		return nil
	}
	ev := &q.nodes[i-1].ev
	if ev.t != t || ev.kind() != kind {
		return nil
	}
	return ev
}

func (q *eventQueue) push(t int64, kind uint8, a, b int32) {
	q.seq++
	q.n++
	d := t - q.base
	if d < 0 {
		panic(fmt.Sprintf("sim: event at cycle %d scheduled after cycle %d was handled", t, q.base))
	}
	if d >= nearSlots {
		q.pushFar(newEvent(t, q.seq, kind, a, b))
		return
	}
	var i int32
	if q.free != 0 {
		i = q.free
		q.free = q.nodes[i-1].next
	} else {
		q.nodes = append(q.nodes, qnode{})
		i = int32(len(q.nodes))
	}
	nd := &q.nodes[i-1]
	nd.ev = newEvent(t, q.seq, kind, a, b)
	nd.next = 0
	bk := t & (nearSlots - 1)
	if q.tail[bk] == 0 {
		q.head[bk] = i
		q.occ[bk>>6] |= 1 << (bk & 63)
	} else {
		q.nodes[q.tail[bk]-1].next = i
	}
	q.tail[bk] = i
	if q.nearN == 0 || t < q.nearMin {
		q.nearMin = t
	}
	q.nearN++
}

func (q *eventQueue) pop() event {
	q.n--
	if q.nearN > 0 {
		bk := q.nearMin & (nearSlots - 1)
		i := q.head[bk]
		nd := &q.nodes[i-1]
		if len(q.far) == 0 || nd.ev.before(&q.far[0]) {
			ev := nd.ev
			q.head[bk] = nd.next
			nd.next = q.free
			q.free = i
			q.nearN--
			q.base = ev.t
			if q.head[bk] == 0 {
				q.tail[bk] = 0
				q.occ[bk>>6] &^= 1 << (bk & 63)
				if q.nearN > 0 {
					q.nearMin = ev.t + q.gap(bk)
				}
			}
			return ev
		}
	}
	ev := q.popFar()
	q.base = ev.t
	return ev
}

// gap is the distance in buckets from bucket bk to the next non-empty
// bucket in ring order; there must be one.
func (q *eventQueue) gap(bk int64) int64 {
	const words = nearSlots / 64
	w := int(bk >> 6)
	if m := q.occ[w] >> (bk & 63); m != 0 {
		return int64(bits.TrailingZeros64(m))
	}
	d := 64 - bk&63
	for k := 1; k <= words; k++ {
		if m := q.occ[(w+k)&(words-1)]; m != 0 {
			return (d + int64(bits.TrailingZeros64(m))) & (nearSlots - 1)
		}
		d += 64
	}
	panic("sim: event queue lost its near events")
}

func (q *eventQueue) pushFar(x event) {
	q.far = append(q.far, x)
	h := q.far
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !x.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

func (q *eventQueue) popFar() event {
	h := q.far
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.far = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return top
}
