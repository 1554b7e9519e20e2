package dram

import (
	"math"

	"gpumemsim/internal/truth"
)

// Directions of the data bus, as set by the last column command.
const (
	busIdle = iota // no column command yet
	busRead
	busWrite
)

// Which channel-wide bound applies to a bank's next command, an index into
// the bases computed by run: a read or write column command (after the
// last column command and the turnaround) or a row command (activate or
// precharge, after the last row command).
const (
	baseRead = iota
	baseWrite
	baseRow
)

// gateAct indexes the channel's gates: the earliest activate (tRRD).
const gateAct = 0

// Busy banks are on one of two sides: those whose next command is a
// column command and those whose next is a row command (activate or
// precharge). Each side has its own command bus and its own first command.
const (
	sideColumn = 0
	sideRow    = 1
)

// plan records the rules for the next command b's request needs that only
// b's own state sets: whether it is a column or a row command, which
// gate (per group or channel-wide) applies to it, and the earliest slot b
// itself allows it; it puts b on its side and offers it as that side's
// first command. It must be called whenever b's state changes.
func (ch *channel) plan(b *bank) {
	switch {
	case b.openRow == b.cur.row:
		b.base = baseRead
		if b.cur.req.Write {
			b.base = baseWrite
		}
		b.gate = b.colGate
		b.ready = max(b.colReady, b.since)
	case b.openRow < 0:
		b.base, b.gate = baseRow, &ch.gates[gateAct]
		b.ready = max(b.actReady, b.since)
	default:
		b.base, b.gate = baseRow, b.preGate
		b.ready = max(b.preReady, b.since)
	}
	ch.enlist(b)
}

// enlist moves b to the side of its next command and offers it as that
// side's first.
func (ch *channel) enlist(b *bank) {
	side := b.base >> 1
	if b.side != side {
		if b.side >= 0 {
			ch.sides[b.side].remove(b)
		}
		ch.sides[side].add(b)
		b.side = side
	}
	// Most often the side's first is not known (a command was just
	// issued): asked here, so that offer is called only to compare.
	if ch.known[side] {
		ch.offer(side, b)
	}
}

// legalAt is the earliest slot at which every rule allows b's next
// command.
func (ch *channel) legalAt(b *bank) int64 {
	var base int64
	switch b.base {
	case baseRead:
		base = max(ch.nextCol, ch.nextRead)
	case baseWrite:
		base = max(ch.nextCol, ch.nextWrite)
	default:
		base = ch.nextRow
	}
	return max(b.ready, *b.gate, base)
}

// offer makes b the first command of side, whose first is known, if it is
// legal earlier than the known first, or as early and its request is
// older.
func (ch *channel) offer(side int32, b *bank) {
	at := ch.legalAt(b)
	if f := ch.first[side]; f == nil || at < ch.firstAt[side] || (at == ch.firstAt[side] && b.cur.seq < f.cur.seq) {
		ch.first[side], ch.firstAt[side] = b, at
	}
}

// find looks through the banks of side for its first legal command, the
// oldest request's among those legal at the same slot.
func (ch *channel) find(side int32) {
	// A fourth, unused base lets b.base&3 index without a bounds check.
	bases := [4]int64{max(ch.nextCol, ch.nextRead), max(ch.nextCol, ch.nextWrite), ch.nextRow}
	var first *bank
	firstAt, firstSeq := int64(math.MaxInt64), int64(math.MaxInt64)
	for _, b := range ch.sides[side].list {
		at, seq := max(b.ready, *b.gate, bases[b.base&3]), b.cur.seq
		// Without a branch: which bank is first is as likely one as the
		// other, and a mispredicted branch costs more than the moves.
		better := truth.Bit(at < firstAt)|truth.Bit(at == firstAt)&truth.Bit(seq < firstSeq) != 0
		if better {
			first = b
		}
		firstAt, firstSeq = min(firstAt, at), choose(better, seq, firstSeq)
	}
	ch.first[side], ch.firstAt[side], ch.known[side] = first, firstAt, true
}

// dispatchTime is the earliest slot at which a waiting request can be
// handed to its bank, or math.MaxInt64. Requests arrive in queue order, so
// under FR-FCFS it is the arrival of the oldest request to a free bank: the
// earliest arrival among the heads of the free banks' lists.
func (m *Memory) dispatchTime(ch *channel) int64 {
	if !m.frfcfs {
		if ch.queued > 0 {
			if e := &ch.pool[ch.fifo[ch.fifoHead]]; !ch.banks[e.bank].busy {
				return max(e.arrival, ch.clock)
			}
		}
		return math.MaxInt64
	}
	if len(ch.ready.list) == 0 {
		return math.MaxInt64
	}
	t := int64(math.MaxInt64)
	for _, b := range ch.ready.list {
		t = min(t, ch.pool[b.head].arrival)
	}
	return max(t, ch.clock)
}

// run performs ch's decisions and commands up to and including slot limit
// and returns the slot of its next decision or command (after limit), or
// math.MaxInt64. At each slot it first hands waiting requests to free
// banks, then issues at most one row and one column command, the oldest
// request's first.
func (m *Memory) run(ch *channel, limit int64) int64 {
	for {
		// The first command of each side is kept between calls and
		// looked for again only after a change that may have delayed
		// it; every bound of the channel only grows, so a change that
		// leaves the known first's own time alone leaves it first.
		if !ch.known[sideColumn] {
			ch.find(sideColumn)
		}
		if !ch.known[sideRow] {
			ch.find(sideRow)
		}
		col, row := ch.first[sideColumn], ch.first[sideRow]
		colAt, rowAt := ch.firstAt[sideColumn], ch.firstAt[sideRow]
		dq := m.dispatchTime(ch)
		t := min(colAt, rowAt, dq)
		if t > limit {
			return t
		}
		ch.clock = t
		if dq == t {
			// New requests in banks may be older than the ones found
			// ready: look again.
			m.dispatch(ch, t)
			continue
		}
		if rowAt == t {
			// The next row command waits for nextRow: look again. A
			// bank that now needs a column command was offered to the
			// column side by plan; no other column rule changed.
			ch.known[sideRow] = false
			m.issueRow(ch, row, t)
		}
		if colAt == t {
			// A column command moves every column bound; of the row
			// rules only the precharges of its bank group may move.
			ch.known[sideColumn] = false
			m.issueColumn(ch, col, t)
			if ch.known[sideRow] && ch.first[sideRow] != nil && ch.legalAt(ch.first[sideRow]) != rowAt {
				ch.known[sideRow] = false
			}
		}
	}
}

func (m *Memory) issueRow(ch *channel, b *bank, t int64) {
	ch.nextRow = t + m.tm.rowCmd
	if b.openRow >= 0 {
		b.openRow = -1
		b.actReady = t + m.tm.rp
		ch.stats.Precharges++
		ch.plan(b)
		return
	}
	b.openRow = b.cur.row
	b.colReady = t + m.tm.rcd
	b.preReady = t + m.tm.ras
	ch.gates[gateAct] = t + m.tm.rrd
	ch.stats.Activates++
	ch.plan(b)
}

// issueColumn issues the next column command (one burst) of b's request
// and frees the bank after the last one.
func (m *Memory) issueColumn(ch *channel, b *bank, t int64) {
	ch.nextCol = t + m.tm.colSpacing
	*b.colGate = t + m.tm.groupColSpacing
	ch.stats.BusBusyTransfers += m.tm.burst
	var finish int64
	dir := busRead
	if b.cur.req.Write {
		dir = busWrite
		finish = t + m.tm.wl + m.tm.burst
		b.preReady = max(b.preReady, finish+m.tm.wr)
		ch.nextRead = max(ch.nextRead, t+m.tm.writeToRead)
	} else {
		finish = t + m.tm.cl + m.tm.burst
		b.preReady = max(b.preReady, t+m.tm.burst)
		*b.preGate = max(*b.preGate, t+m.tm.rtpl)
		ch.nextWrite = max(ch.nextWrite, t+m.tm.readToWrite)
	}
	if ch.dir != dir {
		if ch.dir != busIdle {
			ch.stats.Turnarounds++
		}
		ch.dir = dir
	}
	b.left--
	if b.left > 0 {
		return
	}
	if ch.inflight.n > 0 && ch.inflight.back().finish > finish {
		panic("dram: turnaround rules let a request finish before an earlier one")
	}
	if ch.inflight.full() {
		ch.inflight.grow()
	}
	c := ch.inflight.add()
	c.req, c.seq, c.finish, c.ch = b.cur.req, b.cur.seq, finish, ch.id
	b.busy = false
	// Under FR-FCFS a bank freed at t with a request arrived by then
	// takes it now, as the dispatch at t would: no other bank is free
	// with an arrived request at t (each took one at its arrival), and
	// the freed bank's next command is later than t (the column bus is
	// taken at t, and its precharge waits for the burst). It stays on
	// its side meanwhile: enlist moves it only if its next command is of
	// the other kind, which a row hit's is not.
	if m.frfcfs && b.head >= 0 && ch.pool[b.head].arrival <= t {
		ch.handOver(b, t)
		return
	}
	ch.sides[b.side].remove(b)
	b.side = -1
	if b.head >= 0 {
		ch.ready.add(b)
	}
}

// dispatch hands waiting requests that have arrived by slot t to free banks.
func (m *Memory) dispatch(ch *channel, t int64) {
	if len(ch.ready.list) == 0 {
		return
	}
	if !m.frfcfs {
		for ch.queued > 0 {
			idx := ch.fifo[ch.fifoHead]
			e := &ch.pool[idx]
			b := &ch.banks[e.bank]
			if e.arrival > t || b.busy {
				return
			}
			if b.head != idx {
				panic("dram: the oldest request is not the first of its bank")
			}
			ch.fifoHead++
			if ch.fifoHead == len(ch.fifo) {
				ch.fifoHead = 0
			}
			ch.ready.remove(b)
			ch.take(b, -1, idx, t)
		}
		return
	}
	// Each free bank takes its oldest arrived request to its open row,
	// else its oldest arrived request. Going backwards keeps the walk
	// valid while the current bank leaves the list.
	for k := len(ch.ready.list) - 1; k >= 0; k-- {
		b := ch.ready.list[k]
		if ch.pool[b.head].arrival <= t {
			ch.ready.remove(b)
			ch.handOver(b, t)
		}
	}
}

// handOver gives free bank b, whose oldest waiting request has arrived by
// t, its oldest request arrived by t to its open row, else that oldest;
// b is not in the set of ready banks (take).
func (ch *channel) handOver(b *bank, t int64) {
	first := b.head
	pick, prev := first, int32(-1)
	for i, p := first, int32(-1); i >= 0; p, i = i, ch.pool[i].next {
		e := &ch.pool[i]
		if e.arrival > t {
			break
		}
		if e.row == b.openRow {
			pick, prev = i, p
			break
		}
	}
	ch.take(b, prev, pick, t)
}

// take removes entry idx (after prev, or first when prev is -1) from b's
// list and gives it to b at slot t, classifying it as a row hit or miss.
// b is in no set of ready banks: a caller that takes it from the set
// removes it first.
func (ch *channel) take(b *bank, prev, idx int32, t int64) {
	e := &ch.pool[idx]
	if prev < 0 {
		b.head = e.next
	} else {
		ch.pool[prev].next = e.next
	}
	if b.tail == idx {
		b.tail = prev
	}
	switch {
	case b.openRow == e.row:
		ch.stats.RowHits++
	case b.openRow < 0:
		ch.stats.RowMisses++
	default:
		ch.stats.RowMisses++
		ch.stats.RowConflicts++
	}
	b.busy = true
	b.cur = *e
	b.left = e.bursts
	b.since = t
	ch.plan(b)
	ch.queued--
	// The free stack has room for the whole queue: no append needed.
	n := len(ch.free)
	ch.free = ch.free[:n+1]
	ch.free[n] = idx
}

// choose returns a if c, else b, in a conditional move.
func choose(c bool, a, b int64) int64 {
	if c {
		return a
	}
	return b
}
