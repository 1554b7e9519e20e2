package sim

import (
	"errors"
	"fmt"
	"reflect"

	"gpumemsim/arch"
	"gpumemsim/kernel"
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
	for i := range e.sms {
		s := &e.sms[i]
		e.warpCycles += s.warpCycles
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
			for _, dirty := range e.l2.slices[i].l2.Dirty() {
				res.L2.DirtySectorsAtEnd += e.l2.sec.atoms(dirty)
			}
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
	m := memCounts{sent: e.port.sent, dram: e.port.mem.Stats().Total}
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
	os := int64Fields(reflect.ValueOf(o).Elem(), "", nil)
	for i, p := range int64Fields(reflect.ValueOf(s).Elem(), "", nil) {
		*p -= *os[i]
	}
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
	for ch, q := range p.overflow {
		if q.len() > 0 {
			fail("channel %d: %d requests never reached DRAM", ch, q.len())
		}
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
		if n := len(c.slices[i].waitq); n > 0 {
			fail("L2 slice %d: %d accesses still wait for an MSHR entry", i, n)
		}
	}
}

// check verifies that the counters of every level add up and agree with
// what the memory below the SMs counted over the same time (m).
func (res *Result) check(fail func(string, ...any), m memCounts, c *l2, dev *arch.Device) {
	if l1 := res.L1; l1.Hits+l1.Misses != l1.Accesses {
		fail("L1: %d hits + %d misses != %d accesses", l1.Hits, l1.Misses, l1.Accesses)
	}
	if l2 := res.L2; l2.ReadHitSectors+l2.ReadMissSectors != l2.ReadSectors {
		fail("L2: %d hit + %d miss sectors != %d read sectors", l2.ReadHitSectors, l2.ReadMissSectors, l2.ReadSectors)
	}
	var refL1, refL2, refDRAM int64
	var shared SharedStats
	for _, r := range res.Refs {
		if r.Space == kernel.SpaceShared.String() {
			if r.Op == traces.OpStore.String() {
				shared.StoreRequests += r.Requests
				shared.StoreTransactions += r.Transactions
				shared.StoreBytes += r.RequestedBytes
			} else {
				shared.LoadRequests += r.Requests
				shared.LoadTransactions += r.Transactions
				shared.LoadBytes += r.RequestedBytes
			}
		}
		refL1 += r.L1Hits + r.L1Misses
		refL2 += r.L2ReadSectors
		refDRAM += r.DRAMReadSectors
	}
	if shared != res.Shared {
		fail("shared memory: references account for %+v of %+v", shared, res.Shared)
	}
	res.checkReadOnly(fail, "constant", &res.Constant, func(sp string) bool { return sp == kernel.SpaceConstant.String() }, func(r *RefStats) (int64, int64) { return r.ConstHits, r.ConstMisses })
	res.checkReadOnly(fail, "texture", &res.Texture, texturePath, func(r *RefStats) (int64, int64) { return r.TexHits, r.TexMisses })
	if n := res.Loads.Requests + res.Stores.Requests + shared.LoadRequests + shared.StoreRequests + res.Constant.Requests + res.Texture.Requests; n != res.MemInsts {
		fail("%d memory instructions issued; references account for %d", res.MemInsts, n)
	}
	if refL2 != res.L2.ReadSectors {
		fail("L2: references account for %d read sectors of %d", refL2, res.L2.ReadSectors)
	}
	if refL1 != res.L1.Accesses {
		fail("L1: references account for %d accesses of %d", refL1, res.L1.Accesses)
	}
	if refDRAM != m.sent.ReadSectors {
		fail("DRAM: references account for %d read sectors of %d", refDRAM, m.sent.ReadSectors)
	}
	cf := res.Constant.Cache.Fills + res.Texture.Cache.Fills
	switch {
	case !dev.L2.Present():
		if want := res.Loads.Bytes/32 + res.Constant.FillSectors + res.Texture.FillSectors; want != m.sent.ReadSectors {
			fail("no L2: load transactions and constant- and texture-cache fills of %d sectors, %d read from DRAM", want, m.sent.ReadSectors)
		}
		if want := res.Stores.Bytes / 32; want != m.sent.WriteSectors {
			fail("no L2: store transactions of %d sectors, %d written to DRAM", want, m.sent.WriteSectors)
		}
	case dev.L2.TextureOnly:
		res.checkTextureOnly(fail, m)
	case dev.Coalescer.CacheGlobalLoads:
		if res.L2.ReadRequests != res.L1.Fills+cf {
			fail("L1 sent %d fills and the constant and texture caches %d; L2 received %d reads", res.L1.Fills, cf, res.L2.ReadRequests)
		}
		if res.L1.Accesses != res.Loads.Transactions {
			fail("L1: %d accesses of %d load transactions", res.L1.Accesses, res.Loads.Transactions)
		}
	default:
		if res.L2.ReadRequests != res.Loads.Transactions+cf {
			fail("L2: %d read requests of %d load transactions and %d constant- and texture-cache fills", res.L2.ReadRequests, res.Loads.Transactions, cf)
		}
	}
	if c != nil {
		res.checkL2(fail, m, c, dev.L2.TextureOnly)
	}
}

// checkTextureOnly verifies the traffic of a device whose L2 caches
// textures only: the texture caches' fills, and nothing else, reach the
// L2; global loads, constant-cache fills and the L2's own fetches are
// what DRAM read; global stores are what it wrote.
func (res *Result) checkTextureOnly(fail func(string, ...any), m memCounts) {
	if tf := res.Texture.Cache.Fills; res.L2.ReadRequests != tf || res.L2.WriteRequests != 0 {
		fail("texture-only L2: %d read and %d write requests; the texture caches sent %d fills and nothing else may reach it", res.L2.ReadRequests, res.L2.WriteRequests, tf)
	}
	if res.L2.ReadSectors != res.Texture.FillSectors {
		fail("texture-only L2: %d sectors read; the texture caches' fills asked for %d", res.L2.ReadSectors, res.Texture.FillSectors)
	}
	if want := res.Loads.Bytes/32 + res.Constant.FillSectors + m.fetched; want != m.sent.ReadSectors {
		fail("texture-only L2: load transactions, constant-cache fills and L2 fetches of %d sectors, %d read from DRAM", want, m.sent.ReadSectors)
	}
	if want := res.Stores.Bytes/32 + res.L2.WriteBackSectors; want != m.sent.WriteSectors {
		fail("texture-only L2: store transactions and L2 write-backs of %d sectors, %d written to DRAM", want, m.sent.WriteSectors)
	}
}

// checkL2 verifies what the L2 fetched from DRAM against its misses and,
// where it caches global memory, the DRAM reads and its writes against
// the stores.
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
	if !textureOnly && res.L2.WriteRequests != res.Stores.Transactions {
		fail("L2: %d write requests of %d store transactions", res.L2.WriteRequests, res.Stores.Transactions)
	}
}

// checkReadOnly verifies the counters of a read-only path's caches
// (constant, texture): a pass or lookup is one access, hits and misses
// add up, and the references of the spaces the path serves (in) account
// for the requests, passes, bytes, hits and misses; hitMiss gives a
// reference's hits and misses.
func (res *Result) checkReadOnly(fail func(string, ...any), space string, c *ReadOnlyStats, in func(space string) bool, hitMiss func(*RefStats) (int64, int64)) {
	if cc := c.Cache; cc.Hits+cc.Misses != cc.Accesses || cc.Accesses != c.Passes {
		fail("%s cache: %d hits + %d misses, %d accesses, %d passes", space, cc.Hits, cc.Misses, cc.Accesses, c.Passes)
	}
	var sum ReadOnlyStats
	for i := range res.Refs {
		r := &res.Refs[i]
		if !in(r.Space) {
			continue
		}
		h, m := hitMiss(r)
		sum.Requests += r.Requests
		sum.Passes += r.Transactions
		sum.Bytes += r.RequestedBytes
		sum.Cache.Hits += h
		sum.Cache.Misses += m
	}
	if sum.Requests != c.Requests || sum.Passes != c.Passes || sum.Bytes != c.Bytes || sum.Cache.Hits != c.Cache.Hits || sum.Cache.Misses != c.Cache.Misses {
		fail("%s memory: references account for %d requests, %d passes, %d bytes, %d hits and %d misses of %d, %d, %d, %d and %d", space,
			sum.Requests, sum.Passes, sum.Bytes, sum.Cache.Hits, sum.Cache.Misses, c.Requests, c.Passes, c.Bytes, c.Cache.Hits, c.Cache.Misses)
	}
}
