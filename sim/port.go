package sim

import (
	"gpumemsim/sim/cache"
	"gpumemsim/sim/dram"
)

// What a DRAM request's completion is for, in the top two bits of its
// Tag. The rest of the Tag says whom it goes to: a waiter token (the
// token's L1 and constant-cache bits moved to bits 61 and 60) or an L2
// slice and MSHR entry. Carrying
// the destination in the request itself leaves nothing to look up when
// the request completes, however many wait in the queues.
const (
	reqL2Fill = iota // fills an L2 MSHR entry
	reqDirect        // a load with no L2 in between: returns to a waiter token
	reqWrite         // a write-back: nobody waits
	reqStore         // a store with no L2 in between: acknowledged to a warp token
)

const (
	tagKindShift = 62
	tagL1        = 1 << 61
	tagConst     = 1 << 60
	tagLow       = 1<<32 - 1
)

// tokenTag is the Tag of a request of kind whose completion goes to a
// waiter token.
func tokenTag(kind uint64, token uint64) int64 {
	t := kind<<tagKindShift | token&^tokenLevel
	if token&tokenL1 != 0 {
		t |= tagL1
	}
	if token&tokenConst != 0 {
		t |= tagConst
	}
	return int64(t)
}

// fillTag is the Tag of a read that fills MSHR entry ent of L2 slice si.
func fillTag(si int, ent cache.MSHREntry) int64 {
	return int64(reqL2Fill<<tagKindShift | uint64(si)<<32 | uint64(ent))
}

// tagKind is the kind of a Tag.
func tagKind(tag int64) uint64 { return uint64(tag) >> tagKindShift }

// tagToken is the waiter token of a Tag made by tokenTag.
func tagToken(tag int64) uint64 {
	t := uint64(tag) &^ (3<<tagKindShift | tagL1 | tagConst)
	if uint64(tag)&tagL1 != 0 {
		t |= tokenL1
	}
	if uint64(tag)&tagConst != 0 {
		t |= tokenConst
	}
	return t
}

// port is the way from the memory side to DRAM and back: the requests on
// their way to a channel (pool, a few interconnect latencies' worth), and
// the completions, which go back to the L2 slices and SMs after the DRAM
// pipeline and the interconnect. The requests a full channel queue
// refuses wait in that channel's backlog in DRAM (dram.Memory.Send).
type port struct {
	clk *clock
	mem *dram.Memory
	at  int64 // time of the pending evDRAM, or never
	// lat is dram.latency, icnt the interconnect latency.
	lat, icnt int64

	transit  pool[transit] // sent, not yet at their channel
	inFlight int           // requests sent and not completed
	// sent counts the requests sent, reads and writes, with their bytes
	// and sectors: the end-of-run check holds them against what DRAM
	// counted, and sampling's DRAM rates are per request sent.
	sent dram.ChannelStats

	l2  *l2
	sms cores
}

// transit is a request on its way to its channel, and the next one that
// arrives with it (an index into port.transit), or -1.
type transit struct {
	r    packed
	next int32
}

// packed is a request in two words, as the port keeps it while it is in
// transit (where it is long out of the host's caches when read back). Its
// Bytes less one, at most arch's 4-KiB line, sits in bits 48 to 59 of the
// Tag, which no Tag uses: an SM or slice number (at most 1,023 under
// arch's limits) is in bits 32 to 47, an entry in the low 32. The size is
// masked, so that none can reach the Tag's kind. Write follows from the
// kind; a request sent with a Write its kind contradicts would fail the
// end-of-run check, which holds the sectors sent for writing against those
// DRAM wrote.
type packed struct {
	addr uint64
	tag  int64
}

const (
	packShift = 48
	packMask  = 1<<12 - 1
)

func pack(r dram.Request) packed {
	return packed{r.Addr, r.Tag | int64(r.Bytes-1)&packMask<<packShift}
}

func (q packed) unpack() dram.Request {
	tag := q.tag &^ (packMask << packShift)
	k := tagKind(tag)
	return dram.Request{Addr: q.addr, Bytes: int(q.tag>>packShift&packMask) + 1, Write: k == reqWrite || k == reqStore, Tag: tag}
}

// send puts a request on its way to its channel, arriving at t. Requests
// that arrive in one cycle one after another in the order of events (the
// SMs' transactions, one per cycle from each) ride one evDRAMPush, whose a
// and b are the first and last of their chain: it pops where their own
// events would have, one after the other (eventQueue.lastAt), and push
// hands them over in turn as those would have.
func (p *port) send(t int64, r dram.Request) {
	i := p.transit.take()
	p.transit.items[i] = transit{r: pack(r), next: -1}
	p.inFlight++
	if r.Write {
		p.sent.Writes++
		p.sent.WriteBytes += int64(r.Bytes)
		p.sent.WriteSectors += int64(r.Bytes / 32)
	} else {
		p.sent.Reads++
		p.sent.ReadBytes += int64(r.Bytes)
		p.sent.ReadSectors += int64(r.Bytes / 32)
	}
	at := max(t, p.clk.now)
	if ev := p.clk.q.lastAt(at, evDRAMPush); ev != nil {
		p.transit.items[ev.b].next = i
		ev.b = i
		return
	}
	p.clk.q.push(at, evDRAMPush, i, i)
}

// push hands the requests of the chain from i to their channels now.
func (p *port) push(i int32) {
	for i >= 0 {
		tr := &p.transit.items[i]
		r, next := tr.r, tr.next
		p.transit.release(i)
		p.mem.Send(p.clk.now, r.unpack())
		// After each request, as its own event did.
		p.schedule()
		i = next
	}
}

func (p *port) schedule() {
	if t := p.mem.NextEvent(); t < p.at {
		p.at = t
		p.clk.q.push(max(t, p.clk.now), evDRAM, 0, 0)
	}
}

// advance lets the memory do what is due; it refills its own queues.
func (p *port) advance() {
	p.mem.Advance(p.clk.now, p)
	p.schedule()
}

// Done is called by the memory for each completed request.
func (p *port) Done(r dram.Request, finish int64) {
	p.inFlight--
	p.clk.last = max(p.clk.last, finish)
	switch tagKind(r.Tag) {
	case reqDirect:
		p.sms.deliver(tagToken(r.Tag), finish+p.lat+p.icnt)
	case reqStore:
		p.sms.ack(tagToken(r.Tag), finish+p.lat+p.icnt)
	case reqL2Fill:
		p.l2.filled(int(uint64(r.Tag)>>32&tagLow), cache.MSHREntry(r.Tag&tagLow), finish)
	}
}
