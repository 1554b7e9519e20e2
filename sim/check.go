package sim

import (
	"errors"
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/sim/dram"
	"gpumemsim/traces"
)

// finish turns the units' state into the Result's totals.
func (e *engine) finish(dev *arch.Device) {
	res := e.res
	for i := range e.sms {
		e.clk.last = max(e.clk.last, e.sms[i].lastEnd)
	}
	res.Cycles = e.clk.last - e.start
	e.warpCycles = e.sms.warpCycles()
	for i := range e.sms {
		s := &e.sms[i]
		if s.firstStart >= 0 {
			active := s.lastEnd - s.firstStart
			e.activeCycles += active
			res.Stalls.Idle += res.Cycles - active
		} else {
			e.idleSMs++
			res.Stalls.Idle += res.Cycles
		}
	}
	res.DRAM = e.memCounts().since(e.mem0).dram
	derive(dev, res, e.warpCycles, e.activeCycles)
	sumRefs(res)
	if e.l2 != nil {
		for i := range e.l2.slices {
			res.L2.DirtySectorsAtEnd += e.l2.sec.sectorAtoms(e.l2.slices[i].l2.DirtySectors())
		}
	}
}

// memCounts are what the memory below the SMs has counted since the
// device was built: the requests the port sent to DRAM, the atoms the L2
// fetched, and DRAM's own account. A launch's share is the difference
// between its end and its start (since).
type memCounts struct {
	sent    dram.ChannelStats
	fetched int64
	dram    dram.ChannelStats
}

func (e *engine) memCounts() memCounts {
	m := memCounts{sent: e.port.sent, dram: e.port.mem.Total()}
	if e.l2 != nil {
		m.fetched = e.l2.fetched
	}
	return m
}

// since is m less what was counted by then.
func (m memCounts) since(then memCounts) memCounts {
	d := m
	d.fetched -= then.fetched
	subStats(&d.sent, &then.sent)
	subStats(&d.dram, &then.dram)
	return d
}

// subStats subtracts every count of o from s.
func subStats(s, o *dram.ChannelStats) {
	channelCounts.add(s, o, -1)
}

// derive works out the rates of res from its totals and the SMs'
// resident warp-cycles and active cycles.
func derive(dev *arch.Device, res *Result, warpCycles, activeCycles int64) {
	res.TimeMS = float64(res.Cycles) / float64(dev.Clocks.Core) * 1e3
	if activeCycles > 0 {
		res.AchievedOccupancy = float64(warpCycles) / float64(activeCycles) / float64(dev.SM.MaxWarps)
	}
	if res.Cycles > 0 {
		res.DRAMBandwidth = float64(res.DRAM.ReadBytes+res.DRAM.WriteBytes) / (float64(res.Cycles) / float64(dev.Clocks.Core))
	}
}

// sumRefs makes the global load and store totals the sums of the
// global references'.
func sumRefs(res *Result) {
	res.Loads, res.Stores = RefCounts{}, RefCounts{}
	for i := range res.Refs {
		r := &res.Refs[i]
		if r.Space != "" {
			continue
		}
		if r.Op == traces.OpStore.String() {
			res.Stores.add(&r.RefCounts)
		} else {
			res.Loads.add(&r.RefCounts)
		}
	}
}

// check verifies the simulator's own accounting at the end of a run: every
// unit is empty, every request completed, hits and misses add up at every
// level, what left one level arrived at the next.
func (e *engine) check(dev *arch.Device) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for i := range e.sms {
		e.sms[i].check(fail)
	}
	m := e.memCounts().since(e.mem0)
	e.port.check(fail, m)
	if e.l2 != nil {
		e.l2.check(fail)
	}
	e.res.check(fail, m, e.l2, dev)
	if e.grid.sampler != nil && dev.L2.CachesGlobal() {
		var stores int64
		for i := range e.sms {
			stores += e.sms[i].storeSectors
		}
		if stores != e.res.L2.WriteSectors {
			fail("L2: %d sectors written; the stores' transactions touch %d", e.res.L2.WriteSectors, stores)
		}
	}
	return errors.Join(errs...)
}

func (s *sm) check(fail func(string, ...any)) {
	for i := range s.warps {
		if s.warps[i].live {
			fail("SM %d: warp slot %d still resident", s.id, i)
		}
	}
	if s.lsu.stalled {
		fail("SM %d: load/store unit still holds a stalled instruction", s.id)
	}
}

// check verifies that the port is empty and that DRAM served what it
// was sent (m: over the launch).
func (p *port) check(fail func(string, ...any), m memCounts) {
	if p.inFlight != 0 {
		fail("%d DRAM requests never completed", p.inFlight)
	}
	if n := p.mem.Backlog(); n > 0 {
		fail("%d DRAM requests never left their channels' backlogs", n)
	}
	d := m.dram
	if d.Completed != d.Reads+d.Writes {
		fail("DRAM: %d requests completed of %d reads + %d writes", d.Completed, d.Reads, d.Writes)
	}
	if d.ReadSectors != m.sent.ReadSectors {
		fail("DRAM: %d sectors read; the caches sent %d", d.ReadSectors, m.sent.ReadSectors)
	}
	if d.WriteSectors != m.sent.WriteSectors {
		fail("DRAM: %d sectors written; the caches sent %d", d.WriteSectors, m.sent.WriteSectors)
	}
}

func (c *l2) check(fail func(string, ...any)) {
	for i := range c.slices {
		if n := c.slices[i].waitq.len(); n > 0 {
			fail("L2 slice %d: %d accesses still wait for an MSHR entry", i, n)
		}
		if n := c.slices[i].waiting.len(); n > 0 {
			fail("L2 slice %d: %d lines still counted as waited for, with the queue empty", i, n)
		}
	}
	// Every access that waited went on to be a read request, once.
	if r := &c.res.L2; r.MSHRWaits > r.ReadRequests {
		fail("L2: %d accesses waited for an MSHR entry, more than the %d read requests", r.MSHRWaits, r.ReadRequests)
	}
}

// check verifies that the counters of every level add up (checkTotals)
// and agree with what the memory below the SMs counted over the same time
// (m).
func (res *Result) check(fail func(string, ...any), m memCounts, c *l2, dev *arch.Device) {
	res.checkTotals(fail, dev)
	if res.DRAM.ReadSectors != m.sent.ReadSectors || res.DRAM.WriteSectors != m.sent.WriteSectors {
		fail("DRAM: %d sectors read and %d written; the caches sent %d and %d", res.DRAM.ReadSectors, res.DRAM.WriteSectors, m.sent.ReadSectors, m.sent.WriteSectors)
	}
	if dev.L2.TextureOnly {
		_, loads := res.directLoads(dev)
		if want := loads + res.Constant.Cache.FillSectors + m.fetched; want != m.sent.ReadSectors {
			fail("texture-only L2: load transactions (or L1 fills), constant-cache fills and L2 fetches of %d sectors, %d read from DRAM", want, m.sent.ReadSectors)
		}
	}
	if c != nil {
		res.checkL2(fail, m, c, dev.L2.TextureOnly)
	}
}

// checkL2 verifies what the L2 fetched from DRAM against its misses and,
// where it caches global memory, the DRAM reads.
func (res *Result) checkL2(fail func(string, ...any), m memCounts, c *l2, textureOnly bool) {
	// A sector larger than an atom fetches the atoms around a miss too.
	if !textureOnly && m.fetched != m.sent.ReadSectors {
		fail("DRAM reads (%d sectors) != L2 fetches (%d sectors)", m.sent.ReadSectors, m.fetched)
	}
	if c.sector == atomBytes && res.L2.ReadMissSectors != m.fetched {
		fail("L2 read misses (%d sectors) != L2 fetches (%d sectors) with 32-byte sectors", res.L2.ReadMissSectors, m.fetched)
	}
	if res.L2.ReadMissSectors > m.fetched {
		fail("L2 read misses (%d sectors) exceed L2 fetches (%d sectors)", res.L2.ReadMissSectors, m.fetched)
	}
}
