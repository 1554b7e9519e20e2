package sim

import "slices"

// An L2 slice whose MSHR table is full keeps the accesses that find no
// entry in a queue, and every fill of the slice lets them try again in
// order. Most would only wait again: once one finds the whole table
// waiting on DRAM, the others can go on only if their line has been
// given an entry, filled or written since they last tried. The slice
// keeps those lines and leaves the others untried (see blockedFor), and
// stops a try once no access ahead waits for any of them (touchedAhead).

// waitQueue is a slice's queue of accesses waiting for an MSHR entry, in
// arrival order: buf[head:tail]. A try takes them in order and puts back
// those that wait again at out, which never passes the one being tried;
// a try that stops early moves those put back up against the untried
// rest. The queue moves to the front of its array, or to one twice as
// large when it fills half or more, so it allocates only as it grows.
type waitQueue struct {
	buf             []l2Wait
	head, tail, out int
	trying          bool
}

func (q *waitQueue) len() int { return q.tail - q.head }

// add puts w at the back of the queue, or back at out while it is tried.
func (q *waitQueue) add(w l2Wait) {
	if q.trying {
		q.buf[q.out] = w
		q.out++
		return
	}
	if q.tail == len(q.buf) {
		q.makeRoom()
	}
	q.buf[q.tail] = w
	q.tail++
}

func (q *waitQueue) makeRoom() {
	n := q.len()
	buf := q.buf
	if 2*n >= len(buf) {
		buf = make([]l2Wait, max(16, 2*len(buf)))
	}
	copy(buf, q.buf[q.head:q.tail])
	q.buf, q.head, q.tail = buf, 0, n
}

// lineSet is a short list of lines, or all of them (all is set once it
// would list more than touchedCap).
type lineSet struct {
	lines []uint64
	all   bool
}

// touchedCap is the most lines a lineSet lists.
const touchedCap = 16

func (s *lineSet) add(line uint64) {
	switch {
	case s.all:
	case len(s.lines) == touchedCap:
		s.all = true
	default:
		s.lines = append(s.lines, line)
	}
}

func (s *lineSet) has(line uint64) bool {
	if s.all {
		return true
	}
	for _, l := range s.lines {
		if l == line {
			return true
		}
	}
	return false
}

func (s *lineSet) clear() { s.lines, s.all = s.lines[:0], false }

// wait queues w; an access that waits for the first time (not tried
// again) is counted under its line.
func (sl *slice) wait(w l2Wait) {
	if !sl.waitq.trying {
		sl.waiting.inc(w.line)
	}
	sl.waitq.add(w)
}

// unwait takes an access to line that went on off the count.
func (sl *slice) unwait(line uint64) {
	sl.waiting.dec(line)
}

// touch records that line (slice-local) was given an MSHR entry, filled
// or written, if some access waits for an entry (a queue being tried
// keeps its length until the try ends).
func (sl *slice) touch(line uint64) {
	if sl.waitq.len() > 0 {
		sl.touched.add(line)
	}
}

// blockedFor says that an access to line (slice-local) that waits for an
// MSHR entry would wait again, with nothing to do: every entry waits on
// DRAM (the last reap found none back, and none changed since) and line
// was not touched since the access last tried. It waited then either
// with its sectors missing and no entry of its line, or for an entry of
// its line full of requests whose data was not on its way. Its sectors
// become valid only by a write or through an entry of its line, which is
// given first, and that entry frees room or goes only through its fill:
// each touches the line. A waiting table ends only with a fill too.
//
// Within one try, an entry is given only before the first access finds
// the table waiting, and the accesses tried before that to lines without
// an entry did not wait, so every access to a line given an entry tries
// after it: the touches of one try are not needed by the next.
func (sl *slice) blockedFor(line uint64) bool {
	return sl.noneBefore == never && !sl.touched.has(line)
}

// touchedAhead is how many accesses waiting for an MSHR entry are to
// touched lines (each waiting access counts once under its line), or -1
// when every line counts as touched. A try that finds the table waiting
// counts them down as it passes them: those it put back before then are
// counted too, so it may walk on past the last one, never stop short.
func (sl *slice) touchedAhead() int64 {
	if sl.touched.all {
		return -1
	}
	var n int64
	for k, l := range sl.touched.lines {
		if !slices.Contains(sl.touched.lines[:k], l) { // a line touched twice
			n += int64(sl.waiting.get(l))
		}
	}
	return n
}

// retry tries the accesses waiting for an MSHR entry of slice sl again at
// f, in order. Once the table is found waiting on DRAM, only those to
// touched lines are tried, and the try stops where none of them is left
// ahead. The accesses past that point would all wait again, even where a
// merge tried before them has cleared noneBefore (setFill): the table
// stays full of entries waiting on DRAM, and their lines were given no
// entry, fill or write. Nothing a try calls reaches a slice but through
// read (deliver wakes warps by events), so no access joins the queue
// behind the tries, and every read while the queue is tried is one of its
// accesses tried again.
func (c *l2) retry(sl *slice, f int64) {
	q := &sl.waitq
	start, end := q.head, q.tail
	q.trying, q.out = true, start
	looked := c.tryAll
	ahead := int64(-1) // accesses to touched lines ahead, once looked
	i := start
	for ; i < end; i++ {
		if !looked && sl.noneBefore == never {
			looked = true
			ahead = sl.touchedAhead()
		}
		if ahead == 0 {
			break
		}
		w := q.buf[i]
		if ahead > 0 && sl.touched.has(w.line) {
			ahead--
		}
		if !c.tryAll && sl.blockedFor(w.line) {
			q.add(w)
			c.untried++
			continue
		}
		out := q.out
		if t, ok := c.read(f, w.addr, w.size, w.sectors, w.token, int(w.ref)); ok {
			c.sms.deliver(w.token, t+c.icnt)
		}
		if q.out == out {
			sl.unwait(w.line)
		}
	}
	c.untried += int64(end - i)
	if kept := q.out - start; i < end {
		copy(q.buf[i-kept:i], q.buf[start:q.out])
		q.head = i - kept
	} else {
		q.tail = q.out
	}
	q.trying = false
	sl.touched.clear()
}
