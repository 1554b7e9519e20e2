package dram

import "math"

// Directions of the data bus, as set by the last column command.
const (
	busIdle = iota // no column command yet
	busRead
	busWrite
)

// Kinds of DRAM command a bank's request needs next.
const (
	cmdColumn = iota
	cmdActivate
	cmdPrecharge
)

// command returns the next command b's request needs and the earliest slot
// at which every timing rule allows it.
func (ch *channel) command(b *bank) (kind int, at int64) {
	switch {
	case b.openRow == b.cur.row:
		turn := ch.nextRead
		if b.cur.req.Write {
			turn = ch.nextWrite
		}
		return cmdColumn, max(b.colReady, ch.nextCol, ch.groupCol[b.group], turn, b.since)
	case b.openRow < 0:
		return cmdActivate, max(b.actReady, ch.nextAct, ch.nextRow, b.since)
	default:
		return cmdPrecharge, max(b.preReady, ch.groupPre[b.group], ch.nextRow, b.since)
	}
}

// nextDecision is the earliest slot at which ch can hand a request to a bank
// or issue a command, or math.MaxInt64.
func (m *Memory) nextDecision(ch *channel) int64 {
	t := m.dispatchTime(ch)
	for i := range ch.banks {
		if b := &ch.banks[i]; b.busy {
			_, at := ch.command(b)
			t = min(t, at)
		}
	}
	return t
}

// dispatchTime is the earliest slot at which a waiting request can be
// handed to its bank, or math.MaxInt64.
func (m *Memory) dispatchTime(ch *channel) int64 {
	if !m.frfcfs {
		if len(ch.queue) > 0 && !ch.banks[ch.queue[0].bank].busy {
			return max(ch.queue[0].arrival, ch.clock)
		}
		return math.MaxInt64
	}
	if ch.ready == 0 {
		return math.MaxInt64
	}
	for i := range ch.queue {
		if !ch.banks[ch.queue[i].bank].busy {
			return max(ch.queue[i].arrival, ch.clock)
		}
	}
	panic("dram: a bank counted ready has no waiting request")
}

// nextEvent adds the next completion to nextDecision.
func (m *Memory) nextEvent(ch *channel) int64 {
	t := m.nextDecision(ch)
	if ch.inflight.n > 0 {
		t = min(t, ch.inflight.front().finish)
	}
	return t
}

// run performs ch's decisions and commands up to and including slot limit.
// At each slot it first hands waiting requests to free banks, then issues
// at most one row and one column command, the oldest request's first.
func (m *Memory) run(ch *channel, limit int64) {
	for {
		col, row := -1, -1
		colAt, rowAt := int64(math.MaxInt64), int64(math.MaxInt64)
		for i := range ch.banks {
			b := &ch.banks[i]
			if !b.busy {
				continue
			}
			kind, at := ch.command(b)
			if kind == cmdColumn {
				if at < colAt || (at == colAt && b.cur.seq < ch.banks[col].cur.seq) {
					col, colAt = i, at
				}
			} else if at < rowAt || (at == rowAt && b.cur.seq < ch.banks[row].cur.seq) {
				row, rowAt = i, at
			}
		}
		dq := m.dispatchTime(ch)
		t := min(colAt, rowAt, dq)
		if t > limit {
			return
		}
		ch.clock = t
		if dq == t {
			// New requests in banks may be older than the ones found
			// ready: look again.
			m.dispatch(ch, t)
			continue
		}
		if rowAt == t {
			m.issueRow(ch, &ch.banks[row], t)
		}
		if colAt == t {
			m.issueColumn(ch, &ch.banks[col], t)
		}
	}
}

func (m *Memory) issueRow(ch *channel, b *bank, t int64) {
	ch.nextRow = t + m.tm.rowCmd
	if b.openRow >= 0 {
		b.openRow = -1
		b.actReady = t + m.tm.rp
		ch.stats.Precharges++
		return
	}
	b.openRow = b.cur.row
	b.colReady = t + m.tm.rcd
	b.preReady = t + m.tm.ras
	ch.nextAct = t + m.tm.rrd
	ch.stats.Activates++
}

// issueColumn issues the next column command (one burst) of b's request
// and frees the bank after the last one.
func (m *Memory) issueColumn(ch *channel, b *bank, t int64) {
	ch.nextCol = t + m.tm.colSpacing
	ch.groupCol[b.group] = t + m.tm.groupColSpacing
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
		ch.groupPre[b.group] = max(ch.groupPre[b.group], t+m.tm.rtpl)
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
	ch.inflight.push(completion{req: b.cur.req, seq: b.cur.seq, finish: finish, ch: ch.id})
	b.busy = false
	if b.waiting > 0 {
		ch.ready++
	}
}

// dispatch hands waiting requests that have arrived by slot t to free banks.
func (m *Memory) dispatch(ch *channel, t int64) {
	if ch.ready == 0 {
		return
	}
	if !m.frfcfs {
		for len(ch.queue) > 0 {
			e := ch.queue[0]
			if e.arrival > t || ch.banks[e.bank].busy {
				return
			}
			ch.assign(e, t)
			copy(ch.queue, ch.queue[1:])
			ch.queue = ch.queue[:len(ch.queue)-1]
		}
		return
	}
	for i := range ch.pick {
		ch.pick[i] = -1
	}
	found := false
	for i := range ch.queue {
		e := &ch.queue[i]
		if e.arrival > t {
			break
		}
		b := &ch.banks[e.bank]
		if b.busy {
			continue
		}
		// The queue is in arrival order: keep the first request seen,
		// unless it misses the open row and this one hits it.
		p := ch.pick[e.bank]
		if p < 0 || (e.row == b.openRow && ch.queue[p].row != b.openRow) {
			ch.pick[e.bank] = int32(i)
			found = true
		}
	}
	if !found {
		return
	}
	w := 0
	for i := range ch.queue {
		e := ch.queue[i]
		if ch.pick[e.bank] == int32(i) {
			ch.assign(e, t)
			continue
		}
		ch.queue[w] = e
		w++
	}
	ch.queue = ch.queue[:w]
}

// assign gives e to its bank at slot t and classifies it as a row hit or
// miss.
func (ch *channel) assign(e entry, t int64) {
	b := &ch.banks[e.bank]
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
	b.waiting--
	ch.ready--
	b.cur = e
	b.left = e.bursts
	b.since = t
}
