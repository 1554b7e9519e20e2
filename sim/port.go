package sim

import (
	"gpumemsim/sim/cache"
	"gpumemsim/sim/dram"
)

// Request kinds carried through DRAM.
const (
	reqL2Fill = iota // fills an L2 MSHR entry
	reqDirect        // a load with no L2 in between: returns to a waiter token
	reqWrite         // a write-back: nobody waits
	reqStore         // a store with no L2 in between: acknowledged to a warp token
)

type memReq struct {
	kind  uint8
	slice int32
	entry int32
	token uint64
	r     dram.Request
}

// port is the way from the memory side to DRAM and back: the requests in
// flight by tag, the ones a full channel queue refused (per channel, in
// order), and the completions, which go back to the L2 slices and SMs
// after the DRAM pipeline and the interconnect.
type port struct {
	clk *clock
	mem *dram.Memory
	at  int64 // time of the pending evDRAM, or never
	// lat is dram.latency, icnt the interconnect latency.
	lat, icnt int64

	reqs     pool[memReq] // by tag
	overflow [][]int32
	inFlight int // requests sent and not completed
	// readSectors and writeSectors count the 32-byte sectors of every
	// request sent, for the end-of-run check against what DRAM counted.
	readSectors, writeSectors int64

	l2  *l2
	sms cores
}

// send puts a request on its way to its channel, arriving at t.
func (p *port) send(t int64, m memReq) {
	tag := p.reqs.take()
	m.r.Tag = int64(tag)
	p.reqs.items[tag] = m
	p.inFlight++
	if m.r.Write {
		p.writeSectors += int64(m.r.Bytes / 32)
	} else {
		p.readSectors += int64(m.r.Bytes / 32)
	}
	p.clk.q.push(max(t, p.clk.now), evDRAMPush, tag, 0)
}

// push hands a request to its channel now, or queues it behind the ones
// its full channel already refused.
func (p *port) push(tag int32) {
	r := p.reqs.items[tag].r
	ch := p.mem.Channel(r.Addr)
	if len(p.overflow[ch]) > 0 || !p.mem.Push(p.clk.now, r) {
		p.overflow[ch] = append(p.overflow[ch], tag)
	}
	p.schedule()
}

func (p *port) schedule() {
	if t := p.mem.NextEvent(); t < p.at {
		p.at = t
		p.clk.q.push(max(t, p.clk.now), evDRAM, 0, 0)
	}
}

// advance lets the memory do what is due, then refills its queues.
func (p *port) advance() {
	p.mem.Advance(p.clk.now, p.done)
	for ch, q := range p.overflow {
		n := 0
		for n < len(q) && p.mem.Push(p.clk.now, p.reqs.items[q[n]].r) {
			n++
		}
		p.overflow[ch] = append(q[:0], q[n:]...)
	}
	p.schedule()
}

// done is called by the memory for each completed request.
func (p *port) done(r dram.Request, finish int64) {
	tag := int32(r.Tag)
	m := p.reqs.items[tag]
	p.reqs.release(tag)
	p.inFlight--
	p.clk.last = max(p.clk.last, finish)
	switch m.kind {
	case reqDirect:
		p.sms.deliver(m.token, finish+p.lat+p.icnt)
	case reqStore:
		p.sms.ack(m.token, finish+p.lat+p.icnt)
	case reqL2Fill:
		p.l2.filled(int(m.slice), cache.MSHREntry(m.entry), finish)
	}
}
