package dram

import (
	"errors"
	"math"

	"gpumemsim/arch"
)

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
	m := &Memory{
		ratio:   newClockRatio(uint64(d.Clocks.DRAM)*uint64(rate), uint64(d.Clocks.Core)),
		amap:    NewAddressMap(uint64(dr.Interleave), uint64(dr.Channels)),
		rowSize: newDivisor(uint64(dr.RowSize)),
		nBanks:  newDivisor(uint64(dr.Banks)),
		frfcfs:  dr.Scheduler == arch.SchedFRFCFS,
		tm:      newTiming(d),
	}
	busBytes := dr.BusWidthBits / 8
	m.maxReq = maxRequest(d)
	m.block = newDivisor(uint64(m.maxReq))
	m.bursts = make([]int32, m.maxReq+1)
	for n := 1; n <= m.maxReq; n++ {
		transfers := (n + busBytes - 1) / busBytes
		m.bursts[n] = int32((transfers + dr.BurstLength - 1) / dr.BurstLength)
	}
	inflight := m.tm.inflight()
	m.chans = make([]channel, dr.Channels)
	for i := range m.chans {
		m.chans[i] = newChannel(i, dr, m.frfcfs, inflight)
	}
	m.due = make([]*completion, 0, dr.Channels*inflight)
	m.next, m.nextSlot, m.nextCore = math.MaxInt64, math.MaxInt64, math.MaxInt64
	m.pushNow, m.pushSlot = 0, 0  // slot 0 is core cycle 0
	m.advNow, m.advLimit = -1, -1 // no slot is before core cycle 0
	return m, nil
}

// newTiming is d's DRAM timing in transfer slots.
func newTiming(d *arch.Device) timing {
	rate := int64(d.Clocks.DRAMDataRate)
	tg := d.DRAM.Timing
	tm := timing{
		cl:     int64(tg.CL) * rate,
		wl:     int64(tg.WL) * rate,
		rcd:    int64(tg.RCD) * rate,
		rp:     int64(tg.RP) * rate,
		ras:    int64(tg.RAS) * rate,
		rrd:    int64(tg.RRD) * rate,
		wr:     int64(tg.WR) * rate,
		burst:  int64(d.DRAM.BurstLength),
		rowCmd: rate,
	}
	tm.colSpacing = max(int64(tg.CCD)*rate, tm.burst)
	tm.groupColSpacing = max(int64(tg.CCDL)*rate, tm.colSpacing)
	tm.rtpl = int64(tg.RTPL) * rate
	// GPGPU-Sim's memory_config::init: tRTW = CL + BL/ratio + 2 − WL and
	// tWTR = WL + BL/ratio + tCDLR, in DRAM cycles; BL/ratio is one burst.
	tm.readToWrite = tm.cl + tm.burst + 2*rate - tm.wl
	tm.writeToRead = tm.wl + tm.burst + int64(tg.WTR)*rate
	return tm
}

// inflight is how many requests a channel has in flight at most, a first
// size for its ring of completions: a request is in flight from its first
// column command until its data are done, tCL plus at least one burst
// later, and column commands are colSpacing apart; the ring grows if the
// guess falls short.
func (tm timing) inflight() int {
	return int((max(tm.cl, tm.wl)+tm.burst)/tm.colSpacing) + 2
}

// newChannel builds channel id of dr, empty, with room for inflight
// completions at first.
func newChannel(id int, dr arch.DRAM, frfcfs bool, inflight int) channel {
	ch := channel{id: id, pool: make([]entry, dr.QueueDepth), free: make([]int32, dr.QueueDepth)}
	for j := range ch.free {
		ch.free[j] = int32(dr.QueueDepth - 1 - j)
	}
	if !frfcfs {
		ch.fifo = make([]int32, dr.QueueDepth)
	}
	ch.gates = make([]int64, 1+2*dr.BankGroups)
	groupPre, groupCol := ch.gates[1:1+dr.BankGroups], ch.gates[1+dr.BankGroups:]
	ch.banks = make([]bank, dr.Banks)
	perGroup := dr.Banks / dr.BankGroups
	for b := range ch.banks {
		bk := &ch.banks[b]
		bk.openRow = -1
		bk.id = int32(b)
		g := b / perGroup
		bk.preGate, bk.colGate = &groupPre[g], &groupCol[g]
		bk.head, bk.tail = -1, -1
		bk.side = -1
	}
	ch.sides = [2]bankSet{newBankSet(dr.Banks), newBankSet(dr.Banks)}
	ch.ready = newBankSet(dr.Banks)
	ch.inflight.buf = make([]completion, inflight)
	ch.next = math.MaxInt64
	return ch
}
