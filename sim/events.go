package sim

// Event kinds of the simulator's queue.
const (
	evSchedule uint8 = iota // a warp scheduler may issue (a = SM, b = scheduler)
	evDRAMPush              // a request reaches its DRAM channel (a = request tag)
	evDRAM                  // the DRAM has something due
	evLSURetry              // an SM's stalled load/store unit may go on (a = SM)
)

// event is one entry of the queue. Ties in time are broken by seq, the
// order in which events were scheduled, so runs are reproducible.
type event struct {
	t    int64
	seq  uint64
	kind uint8
	a, b int32
}

func (x *event) before(y *event) bool {
	return x.t < y.t || (x.t == y.t && x.seq < y.seq)
}

// eventQueue is a 4-ary min-heap of events ordered by (t, seq). The order
// is total (seq is unique), so the order of pops does not depend on the
// shape of the heap; four children per node halve its depth against a
// binary heap, and sifting moves a hole instead of swapping.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

// peek is the time of the earliest event; only valid when len() > 0.
func (q *eventQueue) peek() int64 { return q.h[0].t }

func (q *eventQueue) push(t int64, kind uint8, a, b int32) {
	q.seq++
	x := event{t: t, seq: q.seq, kind: kind, a: a, b: b}
	q.h = append(q.h, x)
	h := q.h
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

func (q *eventQueue) pop() event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.h = h
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
