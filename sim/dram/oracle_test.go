package dram

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gpumemsim/arch"
)

// This is the DRAM model as it was before commit dcf4b0c ("sim/dram:
// per-bank queues and cached next commands, results unchanged"), taken
// from dcf4b0c^:sim/dram/memory.go and channel.go with its types renamed
// (naiveMemory, naiveChannel, naiveBank, naiveEntry, naiveRing, naiveCmd*).
// It is kept as an independent oracle for the optimized model: it scans
// the whole queue for every hand-over and every bank for every command,
// with none of the per-bank lists, bank sets and cached first commands that
// the optimized one must keep consistent. The tests drive both with the
// same requests and want the same completions, events and counters.
//
// It reuses only what dcf4b0c left byte-for-byte unchanged: Request, the
// Stats types, timing, completion, check, clockRatio, the bus directions
// and the sector and line sizes. Keep its code as it was: it is the
// reference, not something to optimize.

type naiveEntry struct {
	req     Request
	seq     int64 // arrival order over the whole memory
	arrival int64 // slot
	row     int64
	bank    int32
	bursts  int32
}

type naiveBank struct {
	openRow  int64 // -1 when precharged
	actReady int64 // earliest activate: tRP after the precharge
	colReady int64 // earliest column command: tRCD after the activate
	preReady int64 // earliest precharge: tRAS, read-to-precharge, tWR
	busy     bool  // cur is being served
	group    int32 // bank group
	left     int32 // column commands cur still needs
	waiting  int32 // requests to this bank in the channel's queue
	since    int64 // slot at which cur was given to the bank
	cur      naiveEntry
}

// naiveRing is a FIFO of completions in finish order that grows only when full.
type naiveRing struct {
	buf     []completion
	head, n int
}

func (r *naiveRing) push(c completion) {
	if r.n == len(r.buf) {
		grown := make([]completion, 2*len(r.buf)+4)
		for i := range r.n {
			grown[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = grown, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = c
	r.n++
}

func (r *naiveRing) front() *completion { return &r.buf[r.head] }

func (r *naiveRing) back() *completion { return &r.buf[(r.head+r.n-1)%len(r.buf)] }

func (r *naiveRing) pop() completion {
	c := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return c
}

type naiveChannel struct {
	id    int
	queue []naiveEntry // waiting requests in arrival order; cap is the queue depth
	banks []naiveBank
	pick  []int32 // per bank, scratch for the FR-FCFS choice
	ready int     // free banks with waiting requests
	// Channel-wide constraints, in slots: the earliest column command,
	// the earliest read and write column commands (bus turnaround), the
	// earliest row command and activate.
	nextCol, nextRead, nextWrite int64
	nextRow, nextAct             int64
	// Per bank group: the earliest column command (tCCDL) and the
	// earliest precharge (tRTPL).
	groupCol, groupPre []int64
	dir                int   // busIdle, busRead or busWrite
	clock              int64 // latest slot processed
	lastArrival        int64
	inflight           naiveRing
	next               int64 // next event slot, kept current
	stats              ChannelStats
}

// naiveMemory is the DRAM of one device: all its channels.
type naiveMemory struct {
	chans      []naiveChannel
	ratio      clockRatio
	tm         timing
	busBytes   int
	burstLen   int
	interleave uint64
	rowSize    uint64
	nBanks     uint64
	frfcfs     bool
	seq        int64
	now        int64 // latest core cycle given to Advance
	advancing  bool
	due        []completion
}

// newNaiveMemory builds the channels of d's DRAM. It reports every problem of
// the DRAM description at once.
func newNaiveMemory(d *arch.Device) (*naiveMemory, error) {
	if d == nil {
		return nil, errors.New("dram: no device")
	}
	if err := check(d); err != nil {
		return nil, err
	}
	dr := d.DRAM
	rate := int64(d.Clocks.DRAMDataRate)
	m := &naiveMemory{
		ratio:      newClockRatio(uint64(d.Clocks.DRAM)*uint64(rate), uint64(d.Clocks.Core)),
		busBytes:   dr.BusWidthBits / 8,
		burstLen:   dr.BurstLength,
		interleave: uint64(dr.Interleave),
		rowSize:    uint64(dr.RowSize),
		nBanks:     uint64(dr.Banks),
		frfcfs:     dr.Scheduler == arch.SchedFRFCFS,
		tm:         newTiming(d),
	}
	inflight := m.tm.inflight()
	m.chans = make([]naiveChannel, dr.Channels)
	for i := range m.chans {
		ch := &m.chans[i]
		ch.id = i
		ch.queue = make([]naiveEntry, 0, dr.QueueDepth)
		ch.banks = make([]naiveBank, dr.Banks)
		perGroup := dr.Banks / dr.BankGroups
		for b := range ch.banks {
			ch.banks[b].openRow = -1
			ch.banks[b].group = int32(b / perGroup)
		}
		ch.groupCol = make([]int64, dr.BankGroups)
		ch.groupPre = make([]int64, dr.BankGroups)
		ch.pick = make([]int32, dr.Banks)
		ch.inflight.buf = make([]completion, inflight)
		ch.next = math.MaxInt64
	}
	m.due = make([]completion, 0, dr.Channels*inflight)
	return m, nil
}

// Channel returns the channel addr maps to.
func (m *naiveMemory) Channel(addr uint64) int {
	return int((addr / m.interleave) % uint64(len(m.chans)))
}

// locate returns the channel, bank and row of addr.
func (m *naiveMemory) locate(addr uint64) (ch, bank int, row int64) {
	n := uint64(len(m.chans))
	local := addr/(m.interleave*n)*m.interleave + addr%m.interleave
	return int((addr / m.interleave) % n), int((local / m.rowSize) % m.nBanks), int64(local / (m.rowSize * m.nBanks))
}

// Push offers r to its channel at core cycle now. It returns false, and
// counts a refusal, when the channel's queue is full; the caller retries
// later. It panics when r does not lie within one 128-B line or now is
// earlier than the last Advance: both are bugs of the caller.
func (m *naiveMemory) Push(now int64, r Request) bool {
	if now < m.now {
		panic(fmt.Sprintf("dram: Push at cycle %d after Advance to cycle %d", now, m.now))
	}
	if r.Bytes < 1 || r.Bytes > lineBytes || r.Addr%lineBytes+uint64(r.Bytes) > lineBytes {
		panic(fmt.Sprintf("dram: request of %d bytes at %#x does not lie within one %d-B line", r.Bytes, r.Addr, lineBytes))
	}
	c, b, row := m.locate(r.Addr)
	ch := &m.chans[c]
	if len(ch.queue) == cap(ch.queue) {
		ch.stats.QueueFull++
		return false
	}
	transfers := (r.Bytes + m.busBytes - 1) / m.busBytes
	bursts := (transfers + m.burstLen - 1) / m.burstLen
	arrival := max(m.ratio.slotCeil(now), ch.lastArrival)
	ch.lastArrival = arrival
	// A new request adds at most one decision, its own hand-over to its
	// bank, to the channel's cached next event.
	if !ch.banks[b].busy && (m.frfcfs || len(ch.queue) == 0) {
		ch.next = min(ch.next, max(arrival, ch.clock))
	}
	bk := &ch.banks[b]
	bk.waiting++
	if bk.waiting == 1 && !bk.busy {
		ch.ready++
	}
	ch.queue = append(ch.queue, naiveEntry{req: r, seq: m.seq, arrival: arrival, row: row, bank: int32(b), bursts: int32(bursts)})
	m.seq++
	sectors := int64((r.Addr+uint64(r.Bytes)-1)/sectorBytes - r.Addr/sectorBytes + 1)
	if r.Write {
		ch.stats.Writes++
		ch.stats.WriteBytes += int64(r.Bytes)
		ch.stats.WriteSectors += sectors
	} else {
		ch.stats.Reads++
		ch.stats.ReadBytes += int64(r.Bytes)
		ch.stats.ReadSectors += sectors
	}
	return true
}

// NextEvent returns the earliest core cycle at which a channel makes a
// scheduling decision, issues a command or completes a request, or
// math.MaxInt64 when the memory is idle.
func (m *naiveMemory) NextEvent() int64 {
	t := int64(math.MaxInt64)
	for i := range m.chans {
		t = min(t, m.chans[i].next)
	}
	if t == math.MaxInt64 {
		return t
	}
	return m.ratio.coreCeil(t)
}

// Advance performs everything due at or before core cycle now and calls
// done for each request completed by then, in order of finish cycle, then
// channel, then arrival. done may Push but must not call Advance.
func (m *naiveMemory) Advance(now int64, done Receiver) {
	if m.advancing {
		panic("dram: Advance called from its own done callback")
	}
	if now < m.now {
		panic(fmt.Sprintf("dram: Advance to cycle %d after Advance to cycle %d", now, m.now))
	}
	m.now = now
	limit := m.ratio.slotFloor(now)
	m.due = m.due[:0]
	for i := range m.chans {
		ch := &m.chans[i]
		if ch.next > limit {
			continue
		}
		m.run(ch, limit)
		for ch.inflight.n > 0 && ch.inflight.front().finish <= limit {
			c := ch.inflight.pop()
			c.finish = m.ratio.coreCeil(c.finish)
			m.due = append(m.due, c)
			ch.stats.Completed++
		}
		ch.next = m.nextEvent(ch)
	}
	slices.SortFunc(m.due, func(a, b completion) int {
		if c := cmp.Compare(a.finish, b.finish); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ch, b.ch); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	m.advancing = true
	defer func() { m.advancing = false }()
	for _, c := range m.due {
		done.Done(c.req, c.finish)
	}
}

// Stats returns a copy of the counters.
func (m *naiveMemory) Stats() Stats { return statsOf(len(m.chans), m.channelStats) }

// BusUtilization is the fraction of the data-bus time of all channels
// that carried data over the first elapsed core cycles.
func (m *naiveMemory) BusUtilization(elapsed int64) float64 {
	return busUtilization(m.ratio, elapsed, len(m.chans), m.channelStats)
}

func (m *naiveMemory) channelStats(i int) *ChannelStats { return &m.chans[i].stats }

// Kinds of DRAM command a bank's request needs next.
const (
	naiveCmdColumn = iota
	naiveCmdActivate
	naiveCmdPrecharge
)

// command returns the next command b's request needs and the earliest slot
// at which every timing rule allows it.
func (ch *naiveChannel) command(b *naiveBank) (kind int, at int64) {
	switch {
	case b.openRow == b.cur.row:
		turn := ch.nextRead
		if b.cur.req.Write {
			turn = ch.nextWrite
		}
		return naiveCmdColumn, max(b.colReady, ch.nextCol, ch.groupCol[b.group], turn, b.since)
	case b.openRow < 0:
		return naiveCmdActivate, max(b.actReady, ch.nextAct, ch.nextRow, b.since)
	default:
		return naiveCmdPrecharge, max(b.preReady, ch.groupPre[b.group], ch.nextRow, b.since)
	}
}

// nextDecision is the earliest slot at which ch can hand a request to a bank
// or issue a command, or math.MaxInt64.
func (m *naiveMemory) nextDecision(ch *naiveChannel) int64 {
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
func (m *naiveMemory) dispatchTime(ch *naiveChannel) int64 {
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
func (m *naiveMemory) nextEvent(ch *naiveChannel) int64 {
	t := m.nextDecision(ch)
	if ch.inflight.n > 0 {
		t = min(t, ch.inflight.front().finish)
	}
	return t
}

// run performs ch's decisions and commands up to and including slot limit.
// At each slot it first hands waiting requests to free banks, then issues
// at most one row and one column command, the oldest request's first.
func (m *naiveMemory) run(ch *naiveChannel, limit int64) {
	for {
		col, row := -1, -1
		colAt, rowAt := int64(math.MaxInt64), int64(math.MaxInt64)
		for i := range ch.banks {
			b := &ch.banks[i]
			if !b.busy {
				continue
			}
			kind, at := ch.command(b)
			if kind == naiveCmdColumn {
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

func (m *naiveMemory) issueRow(ch *naiveChannel, b *naiveBank, t int64) {
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
func (m *naiveMemory) issueColumn(ch *naiveChannel, b *naiveBank, t int64) {
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
func (m *naiveMemory) dispatch(ch *naiveChannel, t int64) {
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
func (ch *naiveChannel) assign(e naiveEntry, t int64) {
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
