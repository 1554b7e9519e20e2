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

// eventQueue is a binary min-heap of events ordered by (t, seq).
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

// peek is the time of the earliest event; only valid when len() > 0.
func (q *eventQueue) peek() int64 { return q.h[0].t }

func (q *eventQueue) push(t int64, kind uint8, a, b int32) {
	q.seq++
	q.h = append(q.h, event{t: t, seq: q.seq, kind: kind, a: a, b: b})
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].before(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.h[r].before(&q.h[l]) {
			m = r
		}
		if !q.h[m].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}
