package sim

import (
	"errors"
	"fmt"
	"math/bits"

	"gpumemsim/traces"
)

// finish turns the engine's state into the Result's totals.
func (e *engine) finish() {
	res := e.res
	for _, s := range e.sms {
		e.lastEvent = max(e.lastEvent, s.lastEnd)
	}
	res.Cycles = e.lastEvent
	res.TimeMS = float64(res.Cycles) / float64(e.dev.Clocks.Core) * 1e3
	var warpCycles, activeCycles int64
	for _, s := range e.sms {
		warpCycles += s.warpCycles
		if s.firstStart >= 0 {
			active := s.lastEnd - s.firstStart
			activeCycles += active
			res.Stalls.Idle += res.Cycles - active
		} else {
			res.Stalls.Idle += res.Cycles
		}
	}
	if activeCycles > 0 {
		res.AchievedOccupancy = float64(warpCycles) / float64(activeCycles) / float64(e.dev.SM.MaxWarps)
	}
	res.DRAM = e.mem.Stats().Total
	if res.Cycles > 0 {
		res.DRAMBandwidth = float64(res.DRAM.ReadBytes+res.DRAM.WriteBytes) / (float64(res.Cycles) / float64(e.dev.Clocks.Core))
	}
	for i := range res.Refs {
		r := &res.Refs[i]
		if e.info.Refs[i].Op == traces.OpStore {
			res.Stores.add(&r.RefCounts)
		} else {
			res.Loads.add(&r.RefCounts)
		}
	}
	for i := range e.slices {
		for _, dirty := range e.slices[i].l2.Flush() {
			res.L2.DirtySectorsAtEnd += int64(bits.OnesCount32(dirty))
		}
	}
}

// check verifies the simulator's own accounting at the end of a run: every
// request completed, hits and misses add up at every level, what left one
// level arrived at the next.
func (e *engine) check() error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	res := e.res
	for _, s := range e.sms {
		for i := range s.warps {
			if s.warps[i].live {
				fail("SM %d: warp slot %d still resident", s.id, i)
			}
		}
		if s.stalled {
			fail("SM %d: load/store unit still holds a stalled instruction", s.id)
		}
	}
	if e.inFlight != 0 {
		fail("%d DRAM requests never completed", e.inFlight)
	}
	for ch, q := range e.overflow {
		if len(q) > 0 {
			fail("channel %d: %d requests never reached DRAM", ch, len(q))
		}
	}
	for i := range e.slices {
		if n := len(e.slices[i].waitq); n > 0 {
			fail("L2 slice %d: %d accesses still wait for an MSHR entry", i, n)
		}
	}
	d := res.DRAM
	if d.Completed != d.Reads+d.Writes {
		fail("DRAM: %d requests completed of %d reads + %d writes", d.Completed, d.Reads, d.Writes)
	}
	if d.ReadSectors != e.dramReadSectors {
		fail("DRAM: %d sectors read; the caches sent %d", d.ReadSectors, e.dramReadSectors)
	}
	if d.WriteSectors != e.dramWriteSectors {
		fail("DRAM: %d sectors written; the caches sent %d", d.WriteSectors, e.dramWriteSectors)
	}
	if l1 := res.L1; l1.Hits+l1.Misses != l1.Accesses {
		fail("L1: %d hits + %d misses != %d accesses", l1.Hits, l1.Misses, l1.Accesses)
	}
	if l2 := res.L2; l2.ReadHitSectors+l2.ReadMissSectors != l2.ReadSectors {
		fail("L2: %d hit + %d miss sectors != %d read sectors", l2.ReadHitSectors, l2.ReadMissSectors, l2.ReadSectors)
	}
	var refL1, refL2, refDRAM int64
	for _, r := range res.Refs {
		refL1 += r.L1Hits + r.L1Misses
		refL2 += r.L2ReadSectors
		refDRAM += r.DRAMReadSectors
	}
	if refL2 != res.L2.ReadSectors {
		fail("L2: references account for %d read sectors of %d", refL2, res.L2.ReadSectors)
	}
	if refL1 != res.L1.Accesses {
		fail("L1: references account for %d accesses of %d", refL1, res.L1.Accesses)
	}
	if refDRAM != e.dramReadSectors {
		fail("DRAM: references account for %d read sectors of %d", refDRAM, e.dramReadSectors)
	}
	switch {
	case e.slices == nil:
		if want := res.Loads.Bytes / 32; want != e.dramReadSectors {
			fail("no L2: load transactions of %d sectors, %d read from DRAM", want, e.dramReadSectors)
		}
		if want := res.Stores.Bytes / 32; want != e.dramWriteSectors {
			fail("no L2: store transactions of %d sectors, %d written to DRAM", want, e.dramWriteSectors)
		}
	case e.dev.Coalescer.CacheGlobalLoads:
		if res.L2.ReadRequests != res.L1.Fills {
			fail("L1 sent %d fills; L2 received %d reads", res.L1.Fills, res.L2.ReadRequests)
		}
		if res.L1.Accesses != res.Loads.Transactions {
			fail("L1: %d accesses of %d load transactions", res.L1.Accesses, res.Loads.Transactions)
		}
	default:
		if res.L2.ReadRequests != res.Loads.Transactions {
			fail("L2: %d read requests of %d load transactions", res.L2.ReadRequests, res.Loads.Transactions)
		}
	}
	if e.slices != nil && res.L2.ReadMissSectors != e.dramReadSectors {
		fail("DRAM reads (%d sectors) != L2 read misses (%d sectors)", e.dramReadSectors, res.L2.ReadMissSectors)
	}
	if e.slices != nil && res.L2.WriteRequests != res.Stores.Transactions {
		fail("L2: %d write requests of %d store transactions", res.L2.WriteRequests, res.Stores.Transactions)
	}
	return errors.Join(errs...)
}
