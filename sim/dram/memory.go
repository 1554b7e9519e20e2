package dram

import (
	"fmt"
	"math"

	"gpumemsim/arch"
)

const (
	sectorBytes = 32
	// lineBytes is the largest request of a device without an L2, one
	// coalescer transaction; with an L2 it is one L2 line (maxRequest).
	// Interleave and row size are multiples of the largest request, so a
	// request never spans channels or rows.
	lineBytes = 128
)

// maxRequest is the largest request d sends to DRAM: one L2 line, or one
// 128-byte transaction on a device without an L2.
func maxRequest(d *arch.Device) int {
	if d.L2.Present() && int(d.L2.Line) > lineBytes {
		return int(d.L2.Line)
	}
	return lineBytes
}

// Request is one access to DRAM: up to one L2 line (128 bytes without an
// L2), made of one or more 32-B sectors.
type Request struct {
	// Addr is the byte address of the first byte (32-B aligned in practice).
	Addr uint64
	// Bytes is the size, 1 to the largest request, within one block of
	// that size.
	Bytes int
	Write bool
	// Tag is the caller's; it comes back with the completion.
	Tag int64
}

// timing holds the DRAM timing in transfer slots.
type timing struct {
	cl, wl, rcd, rp, ras, rrd, wr int64
	burst                         int64 // slots one burst holds the data bus
	colSpacing                    int64 // slots between column commands: max(tCCD, burst)
	groupColSpacing               int64 // within one bank group: max(tCCDL, colSpacing)
	rtpl                          int64 // read column command to precharge in its bank group
	rowCmd                        int64 // slots between row commands: one DRAM cycle
	// readToWrite is the least time from a read column command to a write
	// column command, tCL + burst + 2 cycles − tWL; writeToRead from a
	// write column command to a read one, tWL + burst + tWTR.
	readToWrite, writeToRead int64
}

type entry struct {
	req     Request
	seq     int64 // arrival order over the whole memory
	arrival int64 // slot
	row     int64
	bank    int32
	bursts  int32
	next    int32 // the next waiting request to the same bank, or -1
}

type bank struct {
	openRow  int64 // -1 when precharged
	actReady int64 // earliest activate: tRP after the precharge
	colReady int64 // earliest column command: tRCD after the activate
	preReady int64 // earliest precharge: tRAS, read-to-precharge, tWR
	busy     bool  // cur is being served
	id       int32 // index in the channel
	left     int32 // column commands cur still needs
	// head and tail index the channel's pool: the bank's waiting
	// requests in arrival order, linked by entry.next; -1 when none.
	head, tail int32
	since      int64 // slot at which cur was given to the bank
	// Set by channel.plan while busy: the earliest slot of the next
	// command by the bank's own rules, the gate (an element of
	// channel.gates, read through the pointer without a bounds check in
	// the search) and the index of the base that also bound it.
	ready            int64
	gate             *int64
	base             int32
	side             int32  // sideColumn or sideRow while busy, else -1
	preGate, colGate *int64 // this bank's group's gates in channel.gates
	cur              entry
}

type channel struct {
	id int
	// The waiting requests live in pool, queue_depth entries, whose free
	// indices are stacked in free; each bank links its own in arrival
	// order. Under FCFS, fifo is the ring of all of them in arrival
	// order, starting at fifoHead.
	pool     []entry
	free     []int32
	queued   int // waiting requests
	fifo     []int32
	fifoHead int
	banks    []bank
	// sides holds the busy banks by the kind of their next command;
	// first is each side's first legal command at firstAt (nil when the
	// side is empty), when known.
	sides   [2]bankSet
	first   [2]*bank
	firstAt [2]int64
	known   [2]bool
	ready   bankSet // free banks with waiting requests
	// Channel-wide constraints, in slots: the earliest column command,
	// the earliest read and write column commands (bus turnaround), the
	// earliest row command and activate.
	nextCol, nextRead, nextWrite int64
	nextRow                      int64
	// gates holds the earliest activate (tRRD) at gateAct, then per bank
	// group the earliest precharge (tRTPL), then the earliest column
	// command (tCCDL); each bank points at its group's two.
	gates       []int64
	dir         int   // busIdle, busRead or busWrite
	clock       int64 // latest slot processed
	lastArrival int64
	inflight    ring
	next        int64 // next event slot, kept current
	// backlog holds the requests Send could not queue, in order; it is
	// not empty only while the queue is full.
	backlog fifo[held]
	stats   ChannelStats
}

// Memory is the DRAM of one device: all its channels.
type Memory struct {
	chans []channel
	ratio clockRatio
	tm    timing
	// bursts is the number of bursts a request of i bytes needs, up to
	// maxReq, the largest request.
	bursts []int32
	maxReq int
	block  divisor // maxReq, for the check that a request lies in one block
	// amap places addresses on channels; rowSize and nBanks split a
	// channel's local address into row and bank.
	amap      AddressMap
	rowSize   divisor
	nBanks    divisor
	frfcfs    bool
	seq       int64
	now       int64 // latest core cycle given to Advance
	advancing bool
	// due holds the completions an Advance reports, in their channels'
	// rings: dropped from the rings, they stay in place until the next
	// Advance adds to a ring.
	due []*completion
	// next is the earliest of the channels' next slots, kept current by
	// Push and Advance so that NextEvent, asked after every Push, scans
	// nothing; nextCore is its core cycle, worked out once per value.
	next, nextSlot, nextCore int64
	// pushSlot is the first slot at or after core cycle pushNow: the
	// requests queued in one cycle, those an Advance admits from the
	// backlogs among them, share one conversion.
	pushNow, pushSlot int64
	// advLimit is the last slot at or before core cycle advNow, the
	// latest Advance's: the next Advance, most often at the cycle after,
	// knows from it without a division which slots become its own cycle.
	advNow, advLimit int64
	// backlogged counts the channels whose backlog is not empty, so that
	// admit skips its pass while none is.
	backlogged int
}

// Receiver is told of each completed request and its finish cycle by
// Advance. An interface, where a function value would do: a method value
// passed as a function (the simulator's port) is called through a
// wrapper, once per request.
type Receiver interface {
	Done(r Request, finish int64)
}

// DoneFunc is a function as a Receiver.
type DoneFunc func(r Request, finish int64)

// Done calls f.
func (f DoneFunc) Done(r Request, finish int64) { f(r, finish) }

// Channel returns the channel addr maps to.
func (m *Memory) Channel(addr uint64) int { return m.amap.Unit(addr) }

// refuses reports whether ch's queue is full, and counts the refusal.
func (ch *channel) refuses() bool {
	if ch.queued < len(ch.pool) {
		return false
	}
	ch.stats.QueueFull++
	return true
}

// locate returns the channel, bank and row of addr: the address map gives
// the channel and its local address, bankRow the rest.
func (m *Memory) locate(addr uint64) (ch, bank int, row int64) {
	ch, local := m.amap.Split(addr)
	bank, row = m.bankRow(local)
	return ch, bank, row
}

// bankRow returns the bank and row of a channel's local address: with
// piece = local / R, bank = piece mod B and row = piece / B.
func (m *Memory) bankRow(local uint64) (bank int, row int64) {
	piece := m.rowSize.quo(local)
	r := m.nBanks.quo(piece)
	return int(piece - r*m.nBanks.d), int64(r)
}

// Push offers r to its channel at core cycle now. It returns false, and
// counts a refusal, when the channel's queue is full; the caller retries
// later. It panics when r does not lie within one block of the largest
// request's size or now is earlier than the last Advance: both are bugs of
// the caller.
func (m *Memory) Push(now int64, r Request) bool {
	if m.badRequest(now, r) {
		m.badPush(now, r)
	}
	// A full queue refuses before the bank and row are worked out.
	unit, local := m.amap.Split(r.Addr)
	ch := &m.chans[unit]
	if ch.refuses() {
		return false
	}
	b, row := m.bankRow(local)
	m.enqueue(ch, now, r, b, row)
	return true
}

// Send gives r to its channel at core cycle now, as Push does, but never
// refuses: a request that a full queue refuses, or that finds requests
// refused before it, waits in the channel's backlog, and the backlog
// enters the queue in order as room is made, at the end of each Advance
// (at its cycle), as a caller that kept the refused requests and retried
// them after every Advance, channel by channel, would have pushed them.
// The refusals are counted as that caller's Push calls would have been:
// once when a request is refused, and once at each Advance that leaves a
// backlog. It panics as Push does.
func (m *Memory) Send(now int64, r Request) {
	if m.badRequest(now, r) {
		m.badPush(now, r)
	}
	unit, local := m.amap.Split(r.Addr)
	ch := &m.chans[unit]
	b, row := m.bankRow(local)
	if ch.backlog.len() == 0 {
		if !ch.refuses() {
			m.enqueue(ch, now, r, b, row)
			return
		}
		m.backlogged++
	}
	h := ch.backlog.add()
	h.addr, h.tag, h.row, h.bank, h.bytes, h.write = r.Addr, r.Tag, row, int32(b), uint16(r.Bytes), r.Write
}

// held is a request in a channel's backlog, its bank and row worked out.
type held struct {
	addr  uint64
	tag   int64
	row   int64
	bank  int32
	bytes uint16 // at most the largest request, an L2 line of at most 4 KiB
	write bool
}

// Backlog is the number of requests waiting in the channels' backlogs.
func (m *Memory) Backlog() int {
	n := 0
	for i := range m.chans {
		n += m.chans[i].backlog.len()
	}
	return n
}

// admit moves each channel's backlog into its queue while there is room,
// at core cycle now, channel by channel, counting a refusal for each
// channel it leaves a backlog.
func (m *Memory) admit(now int64) {
	for i := 0; m.backlogged > 0 && i < len(m.chans); i++ {
		ch := &m.chans[i]
		if ch.backlog.len() == 0 {
			continue
		}
		n := min(ch.backlog.len(), len(ch.pool)-ch.queued)
		for range n {
			h := ch.backlog.front()
			m.enqueue(ch, now, Request{Addr: h.addr, Bytes: int(h.bytes), Write: h.write, Tag: h.tag}, int(h.bank), h.row)
			ch.backlog.pop()
		}
		if ch.backlog.len() == 0 {
			m.backlogged--
		} else {
			ch.stats.QueueFull++ // the refusal a retry would have met
		}
	}
}

// enqueue puts r, to bank b and row, in ch's queue, which has room, at
// core cycle now.
func (m *Memory) enqueue(ch *channel, now int64, r Request, b int, row int64) {
	bursts := m.bursts[r.Bytes]
	if now != m.pushNow {
		m.pushNow, m.pushSlot = now, m.ratio.slotCeil(now)
	}
	arrival := max(m.pushSlot, ch.lastArrival)
	ch.lastArrival = arrival
	// A new request adds at most one decision, its own hand-over to its
	// bank, to the channel's cached next event.
	bk := &ch.banks[b]
	if !bk.busy && (m.frfcfs || ch.queued == 0) {
		ch.next = min(ch.next, max(arrival, ch.clock))
		m.next = min(m.next, ch.next)
	}
	idx := ch.free[len(ch.free)-1]
	ch.free = ch.free[:len(ch.free)-1]
	// Field by field: a composite literal is built aside and copied.
	e := &ch.pool[idx]
	e.req, e.seq, e.arrival, e.row = r, m.seq, arrival, row
	e.bank, e.bursts, e.next = int32(b), bursts, -1
	m.seq++
	if bk.tail < 0 {
		bk.head = idx
		if !bk.busy {
			ch.ready.add(bk)
		}
	} else {
		ch.pool[bk.tail].next = idx
	}
	bk.tail = idx
	if !m.frfcfs {
		j := ch.fifoHead + ch.queued
		if j >= len(ch.fifo) {
			j -= len(ch.fifo)
		}
		ch.fifo[j] = idx
	}
	ch.queued++
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
}

// badRequest reports whether Push or Send must reject r at core cycle now as
// a bug of the caller: r does not lie within one block of the largest
// request's size, or now is earlier than the last Advance.
func (m *Memory) badRequest(now int64, r Request) bool {
	// Bytes from 1 to maxReq in one unsigned comparison.
	return now < m.now || uint(r.Bytes-1) >= uint(m.maxReq) || m.block.rem(r.Addr)+uint64(r.Bytes) > uint64(m.maxReq)
}

// badPush panics with what is wrong with a Push of r at now. It is apart
// from Push so that Push, called for every request and every retry, does
// not set up the formatting's frame.
//
//go:noinline
func (m *Memory) badPush(now int64, r Request) {
	if now < m.now {
		panic(fmt.Sprintf("dram: Push at cycle %d after Advance to cycle %d", now, m.now))
	}
	panic(fmt.Sprintf("dram: request of %d bytes at %#x does not lie within one %d-B block", r.Bytes, r.Addr, m.maxReq))
}

// NextEvent returns the earliest core cycle at which a channel makes a
// scheduling decision, issues a command or completes a request, or
// math.MaxInt64 when the memory is idle.
func (m *Memory) NextEvent() int64 {
	if m.next != m.nextSlot {
		m.nextSlot, m.nextCore = m.next, math.MaxInt64
		if m.next != math.MaxInt64 {
			m.nextCore = m.ratio.coreCeil(m.next)
		}
	}
	return m.nextCore
}

// Advance performs everything due at or before core cycle now and tells
// done of each request completed by then, in order of finish cycle, then
// channel, then arrival; then it moves the backlogs Send left into the
// queues that have room. done may Push or Send but must not call Advance.
func (m *Memory) Advance(now int64, done Receiver) {
	if m.advancing {
		panic("dram: Advance called from its own done callback")
	}
	if now < m.now {
		panic(fmt.Sprintf("dram: Advance to cycle %d after Advance to cycle %d", now, m.now))
	}
	m.now = now
	// A slot after the last of cycle now-1 (low) and at or before the
	// last of now (limit) is core cycle now: completions there need no
	// conversion of their own.
	low := m.advLimit
	if now-1 != m.advNow {
		low = -1
		if now > 0 {
			low = m.ratio.slotFloor(now - 1)
		}
	}
	limit := m.ratio.slotFloor(now)
	m.advNow, m.advLimit = now, limit
	m.due = m.due[:0]
	m.next = math.MaxInt64
	for i := range m.chans {
		ch := &m.chans[i]
		if ch.next > limit {
			m.next = min(m.next, ch.next)
			continue
		}
		next := m.run(ch, limit)
		for ch.inflight.n > 0 && ch.inflight.front().finish <= limit {
			c := ch.inflight.front()
			ch.inflight.drop()
			if c.finish > low {
				c.finish = now
			} else {
				c.finish = m.ratio.coreCeil(c.finish)
			}
			m.due = append(m.due, c)
			ch.stats.Completed++
		}
		if ch.inflight.n > 0 {
			next = min(next, ch.inflight.front().finish)
		}
		ch.next = next
		m.next = min(m.next, next)
	}
	// Each channel's completions are nearly in order already: an
	// insertion sort.
	for i := 1; i < len(m.due); i++ {
		if !m.due[i].before(m.due[i-1]) {
			continue
		}
		c := m.due[i]
		j := i
		for ; j > 0 && c.before(m.due[j-1]); j-- {
			m.due[j] = m.due[j-1]
		}
		m.due[j] = c
	}
	m.advancing = true
	defer func() { m.advancing = false }()
	for _, c := range m.due {
		done.Done(c.req, c.finish)
	}
	m.admit(now)
}
