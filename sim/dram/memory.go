package dram

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gpumemsim/arch"
)

const (
	sectorBytes = 32
	// lineBytes is the largest request: one L2 line. Interleave and row
	// size are multiples of it, so a request never spans channels or rows.
	lineBytes = 128
)

// Request is one access to DRAM: up to one 128-B line, made of one or more
// 32-B sectors.
type Request struct {
	// Addr is the byte address of the first byte (32-B aligned in practice).
	Addr uint64
	// Bytes is the size, 1 to 128, within one 128-B-aligned line.
	Bytes int
	Write bool
	// Tag is the caller's; it comes back with the completion.
	Tag int64
}

// ChannelStats are the counters of one channel.
type ChannelStats struct {
	// Reads and Writes count accepted requests; the byte and 32-B sector
	// counts are theirs.
	Reads, Writes             int64
	ReadBytes, WriteBytes     int64
	ReadSectors, WriteSectors int64
	// Completed counts requests whose completion has been reported.
	Completed int64
	// RowHits counts requests that found their row open; RowMisses those
	// that needed an activate (RowConflicts of them also a precharge).
	RowHits, RowMisses, RowConflicts int64
	Activates, Precharges            int64
	// BusBusyTransfers counts the transfer slots the data bus was busy; a
	// DRAM cycle is dram_data_rate slots.
	BusBusyTransfers int64
	// Turnarounds counts column commands whose direction (read or write)
	// differs from the channel's previous column command's.
	Turnarounds int64
	// QueueFull counts Push calls refused because the queue was full.
	QueueFull int64
}

func (s *ChannelStats) add(o ChannelStats) {
	s.Reads += o.Reads
	s.Writes += o.Writes
	s.ReadBytes += o.ReadBytes
	s.WriteBytes += o.WriteBytes
	s.ReadSectors += o.ReadSectors
	s.WriteSectors += o.WriteSectors
	s.Completed += o.Completed
	s.RowHits += o.RowHits
	s.RowMisses += o.RowMisses
	s.RowConflicts += o.RowConflicts
	s.Activates += o.Activates
	s.Precharges += o.Precharges
	s.BusBusyTransfers += o.BusBusyTransfers
	s.Turnarounds += o.Turnarounds
	s.QueueFull += o.QueueFull
}

// Stats are the counters of every channel and their sum.
type Stats struct {
	Total    ChannelStats
	Channels []ChannelStats
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
}

type bank struct {
	openRow  int64 // -1 when precharged
	actReady int64 // earliest activate: tRP after the precharge
	colReady int64 // earliest column command: tRCD after the activate
	preReady int64 // earliest precharge: tRAS, read-to-precharge, tWR
	busy     bool  // cur is being served
	group    int32 // bank group
	left     int32 // column commands cur still needs
	waiting  int32 // requests to this bank in the channel's queue
	since    int64 // slot at which cur was given to the bank
	cur      entry
}

type completion struct {
	req    Request
	seq    int64
	finish int64 // slot inside a channel, core cycle in Memory.due
	ch     int
}

// ring is a FIFO of completions in finish order that grows only when full.
type ring struct {
	buf     []completion
	head, n int
}

func (r *ring) push(c completion) {
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

func (r *ring) front() *completion { return &r.buf[r.head] }

func (r *ring) back() *completion { return &r.buf[(r.head+r.n-1)%len(r.buf)] }

func (r *ring) pop() completion {
	c := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return c
}

type channel struct {
	id    int
	queue []entry // waiting requests in arrival order; cap is the queue depth
	banks []bank
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
	inflight           ring
	next               int64 // next event slot, kept current
	stats              ChannelStats
}

// Memory is the DRAM of one device: all its channels.
type Memory struct {
	chans      []channel
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

// NewMemory builds the channels of d's DRAM. It reports every problem of
// the DRAM description at once.
func NewMemory(d *arch.Device) (*Memory, error) {
	if d == nil {
		return nil, errors.New("dram: no device")
	}
	if err := check(d); err != nil {
		return nil, err
	}
	dr := d.DRAM
	rate := int64(d.Clocks.DRAMDataRate)
	tg := dr.Timing
	m := &Memory{
		ratio:      newClockRatio(uint64(d.Clocks.DRAM)*uint64(rate), uint64(d.Clocks.Core)),
		busBytes:   dr.BusWidthBits / 8,
		burstLen:   dr.BurstLength,
		interleave: uint64(dr.Interleave),
		rowSize:    uint64(dr.RowSize),
		nBanks:     uint64(dr.Banks),
		frfcfs:     dr.Scheduler == arch.SchedFRFCFS,
		tm: timing{
			cl:     int64(tg.CL) * rate,
			wl:     int64(tg.WL) * rate,
			rcd:    int64(tg.RCD) * rate,
			rp:     int64(tg.RP) * rate,
			ras:    int64(tg.RAS) * rate,
			rrd:    int64(tg.RRD) * rate,
			wr:     int64(tg.WR) * rate,
			burst:  int64(dr.BurstLength),
			rowCmd: rate,
		},
	}
	m.tm.colSpacing = max(int64(tg.CCD)*rate, m.tm.burst)
	m.tm.groupColSpacing = max(int64(tg.CCDL)*rate, m.tm.colSpacing)
	m.tm.rtpl = int64(tg.RTPL) * rate
	// GPGPU-Sim's memory_config::init: tRTW = CL + BL/ratio + 2 − WL and
	// tWTR = WL + BL/ratio + tCDLR, in DRAM cycles; BL/ratio is one burst.
	m.tm.readToWrite = m.tm.cl + m.tm.burst + 2*rate - m.tm.wl
	m.tm.writeToRead = m.tm.wl + m.tm.burst + int64(tg.WTR)*rate
	// A request is in flight from its first column command until its data
	// are done, tCL plus at least one burst later, and column commands are
	// colSpacing apart: this many fit; the ring grows if a guess falls short.
	inflight := int((max(m.tm.cl, m.tm.wl)+m.tm.burst)/m.tm.colSpacing) + 2
	m.chans = make([]channel, dr.Channels)
	for i := range m.chans {
		ch := &m.chans[i]
		ch.id = i
		ch.queue = make([]entry, 0, dr.QueueDepth)
		ch.banks = make([]bank, dr.Banks)
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

// check validates what the model needs of d.
func check(d *arch.Device) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("dram: "+format, args...))
	}
	dr := d.DRAM
	if d.Clocks.Core <= 0 {
		bad("clocks.core must be positive, got %d Hz", int64(d.Clocks.Core))
	}
	if d.Clocks.DRAM <= 0 {
		bad("clocks.dram must be positive, got %d Hz", int64(d.Clocks.DRAM))
	}
	if d.Clocks.DRAMDataRate < 1 {
		bad("clocks.dram_data_rate must be at least 1 transfer per DRAM clock, got %d", d.Clocks.DRAMDataRate)
	}
	if dr.Channels < 1 {
		bad("channels must be at least 1, got %d", dr.Channels)
	}
	if dr.Banks < 1 {
		bad("banks must be at least 1, got %d", dr.Banks)
	}
	if dr.BankGroups < 1 || (dr.Banks >= 1 && dr.Banks%dr.BankGroups != 0) {
		bad("bank_groups must be at least 1 and divide banks %d, got %d", dr.Banks, dr.BankGroups)
	}
	if dr.BusWidthBits < 8 || dr.BusWidthBits%8 != 0 {
		bad("bus_width_bits must be a positive multiple of 8, got %d", dr.BusWidthBits)
	}
	if dr.BurstLength < 1 {
		bad("burst_length must be at least 1, got %d", dr.BurstLength)
	}
	if dr.RowSize < lineBytes || dr.RowSize%lineBytes != 0 {
		bad("row_size must be a positive multiple of %dB, got %v", lineBytes, dr.RowSize)
	}
	if dr.Interleave < lineBytes || dr.Interleave%lineBytes != 0 {
		bad("interleave must be a positive multiple of %dB, got %v", lineBytes, dr.Interleave)
	}
	if dr.QueueDepth < 1 {
		bad("queue_depth must be at least 1, got %d", dr.QueueDepth)
	}
	if dr.Scheduler != arch.SchedFRFCFS && dr.Scheduler != arch.SchedFCFS {
		bad("scheduler must be %q or %q, got %q", arch.SchedFRFCFS, arch.SchedFCFS, dr.Scheduler)
	}
	tg := dr.Timing
	for _, p := range []struct {
		name string
		v    int
	}{{"tCL", tg.CL}, {"tRCD", tg.RCD}, {"tRP", tg.RP}, {"tRAS", tg.RAS}, {"tCCD", tg.CCD}, {"tRRD", tg.RRD}, {"tWR", tg.WR},
		{"tWL", tg.WL}, {"tWTR", tg.WTR}, {"tCCDL", tg.CCDL}, {"tRTPL", tg.RTPL}} {
		if p.v < 0 {
			bad("timing.%s must not be negative, got %d", p.name, p.v)
		}
	}
	return errors.Join(errs...)
}

// Channel returns the channel addr maps to.
func (m *Memory) Channel(addr uint64) int {
	return int((addr / m.interleave) % uint64(len(m.chans)))
}

// locate returns the channel, bank and row of addr.
func (m *Memory) locate(addr uint64) (ch, bank int, row int64) {
	n := uint64(len(m.chans))
	local := addr/(m.interleave*n)*m.interleave + addr%m.interleave
	return int((addr / m.interleave) % n), int((local / m.rowSize) % m.nBanks), int64(local / (m.rowSize * m.nBanks))
}

// Push offers r to its channel at core cycle now. It returns false, and
// counts a refusal, when the channel's queue is full; the caller retries
// later. It panics when r does not lie within one 128-B line or now is
// earlier than the last Advance: both are bugs of the caller.
func (m *Memory) Push(now int64, r Request) bool {
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
	ch.queue = append(ch.queue, entry{req: r, seq: m.seq, arrival: arrival, row: row, bank: int32(b), bursts: int32(bursts)})
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
func (m *Memory) NextEvent() int64 {
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
func (m *Memory) Advance(now int64, done func(r Request, finish int64)) {
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
		done(c.req, c.finish)
	}
}

// Stats returns a copy of the counters.
func (m *Memory) Stats() Stats {
	s := Stats{Channels: make([]ChannelStats, len(m.chans))}
	for i := range m.chans {
		s.Channels[i] = m.chans[i].stats
		s.Total.add(m.chans[i].stats)
	}
	return s
}

// BusUtilization is the fraction of the data-bus time of all channels
// that carried data over the first elapsed core cycles.
func (m *Memory) BusUtilization(elapsed int64) float64 {
	if elapsed <= 0 {
		return 0
	}
	var busy int64
	for i := range m.chans {
		busy += m.chans[i].stats.BusBusyTransfers
	}
	slots := float64(elapsed) * float64(m.ratio.num) / float64(m.ratio.den)
	return float64(busy) / (slots * float64(len(m.chans)))
}
