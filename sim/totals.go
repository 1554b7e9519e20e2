package sim

import (
	"errors"
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// checkTotals verifies the identities a Result keeps on its own, with no
// view of the units behind it: at every level hits and misses add up to
// the accesses, the references account for each level's totals, and what
// one level sent is what the next received. A simulated run keeps them by
// construction (check runs them with the rest); an extrapolated one keeps
// them because reconcile restores them, and is checked again.
func (res *Result) checkTotals(fail func(string, ...any), dev *arch.Device) {
	if l1 := res.L1; l1.Hits+l1.Misses != l1.Accesses {
		fail("L1: %d hits + %d misses != %d accesses", l1.Hits, l1.Misses, l1.Accesses)
	}
	for _, c := range res.firstLevels(dev) {
		if st := c.stats; st.Fills+st.MSHRMerges != st.Misses {
			fail("%s: %d fills + %d merged misses != %d misses", c.name, st.Fills, st.MSHRMerges, st.Misses)
		}
		if lo, hi := c.fillSectorBounds(); c.stats.FillSectors < lo || c.stats.FillSectors > hi {
			fail("%s: %d fill sectors of %d fills of %d to %d bytes", c.name, c.stats.FillSectors, c.stats.Fills, c.sector, c.widest)
		}
	}
	if l2 := res.L2; l2.ReadHitSectors+l2.ReadMissSectors != l2.ReadSectors {
		fail("L2: %d hit + %d miss sectors != %d read sectors", l2.ReadHitSectors, l2.ReadMissSectors, l2.ReadSectors)
	}
	res.checkRefs(fail, dev)
	res.checkReadOnly(fail, "constant", &res.Constant, isConstant, func(r *RefStats) (int64, int64) { return r.ConstHits, r.ConstMisses })
	res.checkReadOnly(fail, "texture", &res.Texture, texturePath, func(r *RefStats) (int64, int64) { return r.TexHits, r.TexMisses })
	sh := &res.Shared
	if n := res.Loads.Requests + res.Stores.Requests + sh.LoadRequests + sh.StoreRequests + res.Constant.Requests + res.Texture.Requests; n != res.MemInsts {
		fail("%d memory instructions issued; references account for %d", res.MemInsts, n)
	}
	res.checkCrossings(fail, dev)
	res.checkDRAM(fail, dev)
}

// checkDRAM verifies DRAM's read sectors against where they came from:
// on a device whose L2 does not cache global memory, each global load
// reference's transactions and each read-only space's fills; behind an L2
// of 32-byte sectors, each reference's L2 miss sectors. A DRAM request's
// bytes are its sectors'. Where no L2 caches global memory, its reads and
// writes are the requests sent (directRequests); every request completed
// and either found its row open or activated one (after a precharge,
// where another row was open).
func (res *Result) checkDRAM(fail func(string, ...any), dev *arch.Device) {
	d := &res.DRAM
	if d.ReadBytes != 32*d.ReadSectors || d.WriteBytes != 32*d.WriteSectors {
		fail("DRAM: %d bytes read in %d sectors, %d written in %d", d.ReadBytes, d.ReadSectors, d.WriteBytes, d.WriteSectors)
	}
	reads, writes := directRequests(dev, res)
	if reads >= 0 && d.Reads != reads {
		fail("DRAM: %d reads; with no L2 caching global memory, the load transactions and the constant- and texture-cache fills make %d", d.Reads, reads)
	}
	if writes >= 0 && d.Writes != writes {
		fail("DRAM: %d writes; with no L2 caching global memory, the store transactions make %d", d.Writes, writes)
	}
	if d.Completed != d.Reads+d.Writes || d.RowHits+d.RowMisses != d.Completed {
		fail("DRAM: %d requests completed of %d reads + %d writes; %d found their row open, %d did not", d.Completed, d.Reads, d.Writes, d.RowHits, d.RowMisses)
	}
	if d.Activates != d.RowMisses || d.Precharges != d.RowConflicts {
		fail("DRAM: %d activates for %d row misses, %d precharges for %d row conflicts", d.Activates, d.RowMisses, d.Precharges, d.RowConflicts)
	}
	var constant, texture int64
	for i := range res.Refs {
		r := &res.Refs[i]
		switch {
		case dev.L2.CachesGlobal():
			if dev.L2.Sector == atomBytes && r.DRAMReadSectors != r.L2MissSectors {
				fail("DRAM: reference %d: %d sectors read of %d L2 miss sectors", i, r.DRAMReadSectors, r.L2MissSectors)
			}
		case isConstant(r.Space):
			constant += r.DRAMReadSectors
		case texturePath(r.Space):
			texture += r.DRAMReadSectors
		case l1Global(dev, r):
			// Its fills' sectors, which the crossings hold in total.
		case r.Space == "" && r.Op != traces.OpStore.String() && r.DRAMReadSectors != r.Bytes/32:
			fail("DRAM: reference %d: %d sectors read of %d in its transactions", i, r.DRAMReadSectors, r.Bytes/32)
		}
	}
	if dev.L2.CachesGlobal() && d.WriteSectors != res.L2.WriteBackSectors {
		fail("DRAM: %d sectors written; the L2 wrote back %d", d.WriteSectors, res.L2.WriteBackSectors)
	}
	if !dev.L2.CachesGlobal() && constant != res.Constant.Cache.FillSectors {
		fail("DRAM: constant references read %d sectors; the constant caches filled %d", constant, res.Constant.Cache.FillSectors)
	}
	if !dev.L2.Present() && texture != res.Texture.Cache.FillSectors {
		fail("DRAM: texture references read %d sectors; the texture caches filled %d", texture, res.Texture.Cache.FillSectors)
	}
}

// directRequests are DRAM's reads and writes where no L2 caches global
// memory: each store transaction is one write, and each load transaction
// (each L1 fill, where the L1 caches global loads) and constant- or
// texture-cache fill one read. Behind a texture-only L2
// the texture caches' fills become the L2's fetches, which a Result does
// not count: there the reads are known only where no texture cache
// filled. A count not known is -1.
func directRequests(dev *arch.Device, res *Result) (reads, writes int64) {
	if dev.L2.CachesGlobal() {
		return -1, -1
	}
	loads, _ := res.directLoads(dev)
	reads = loads + res.Constant.Cache.Fills + res.Texture.Cache.Fills
	if dev.L2.TextureOnly && res.Texture.Cache.Fills > 0 {
		reads = -1
	}
	return reads, res.Stores.Transactions
}

// checkExtrapolated holds an extrapolated run to the identities of a
// simulated one (reconcile restores them).
func (res *Result) checkExtrapolated(dev *arch.Device) error {
	var errs []error
	res.checkTotals(func(format string, args ...any) { errs = append(errs, fmt.Errorf("extrapolated: "+format, args...)) }, dev)
	return errors.Join(errs...)
}

// firstLevel is one kind of the SMs' caches: its counters, its sector
// and the widest fill it makes, in bytes.
type firstLevel struct {
	name           string
	stats          *L1Stats
	sector, widest int64
}

// firstLevels are the L1s and the constant and texture caches of res on
// dev: a miss either merges with one in flight or is one fill, of one
// sector where a lookup asks for one (the read-only caches' passes, the
// L1 where no transaction is wider than its sector), else of the sectors
// the transaction misses, up to its size (a sectored L1 under the cc20
// or cc30 rule's 128-byte transactions).
func (res *Result) firstLevels(dev *arch.Device) [3]firstLevel {
	l1 := int64(dev.L1.Sector)
	return [3]firstLevel{
		{"L1", &res.L1, l1, max(l1, min(int64(dev.L1.Line), int64(dev.Coalescer.Rule.MaxTransaction())))},
		{"constant cache", &res.Constant.Cache, int64(dev.Constant.Sector), int64(dev.Constant.Sector)},
		{"texture cache", &res.Texture.Cache, int64(dev.Texture.Sector), int64(dev.Texture.Sector)},
	}
}

// fillSectorBounds are the fewest and most 32-byte sectors c's fills can
// have read: each at least a sector and at most the widest fill.
func (c firstLevel) fillSectorBounds() (lo, hi int64) {
	return c.stats.Fills * c.sector / atomBytes, c.stats.Fills * c.widest / atomBytes
}

// checkRefs verifies that the references account for shared memory's,
// the L1's, the L2's and DRAM's totals, and that each reference's hits
// and misses add up: at the L2 to its read sectors, at an L1 that caches
// global loads to its transactions.
func (res *Result) checkRefs(fail func(string, ...any), dev *arch.Device) {
	var l1, l2, l2Hits, l2Misses, dram int64
	var shared SharedStats
	for i := range res.Refs {
		r := &res.Refs[i]
		if r.Space == kernel.SpaceShared.String() {
			shared.addRef(r)
		}
		if l1Global(dev, r) && r.L1Hits+r.L1Misses != r.Transactions {
			fail("L1: reference %d: %d hits + %d misses != %d transactions", i, r.L1Hits, r.L1Misses, r.Transactions)
		}
		if narrowL2Load(dev, r) && r.L2ReadSectors != r.Transactions {
			fail("L2: reference %d: %d read sectors of %d 32-byte transactions", i, r.L2ReadSectors, r.Transactions)
		}
		if r.L2HitSectors+r.L2MissSectors != r.L2ReadSectors {
			fail("L2: reference %d: %d hit + %d miss sectors != %d read sectors", i, r.L2HitSectors, r.L2MissSectors, r.L2ReadSectors)
		}
		l1 += r.L1Hits + r.L1Misses
		l2 += r.L2ReadSectors
		l2Hits += r.L2HitSectors
		l2Misses += r.L2MissSectors
		dram += r.DRAMReadSectors
	}
	if shared != res.Shared {
		fail("shared memory: references account for %+v of %+v", shared, res.Shared)
	}
	if l1 != res.L1.Accesses {
		fail("L1: references account for %d accesses of %d", l1, res.L1.Accesses)
	}
	if l2 != res.L2.ReadSectors || l2Hits != res.L2.ReadHitSectors || l2Misses != res.L2.ReadMissSectors {
		fail("L2: references account for %d read, %d hit and %d miss sectors of %d, %d and %d", l2, l2Hits, l2Misses, res.L2.ReadSectors, res.L2.ReadHitSectors, res.L2.ReadMissSectors)
	}
	if dram != res.DRAM.ReadSectors {
		fail("DRAM: references account for %d read sectors of %d", dram, res.DRAM.ReadSectors)
	}
}

// addRef adds a shared-memory reference's requests, passes and bytes to
// st.
func (st *SharedStats) addRef(r *RefStats) {
	if r.Op == traces.OpStore.String() {
		st.StoreRequests += r.Requests
		st.StoreTransactions += r.Transactions
		st.StoreBytes += r.RequestedBytes
		return
	}
	st.LoadRequests += r.Requests
	st.LoadTransactions += r.Transactions
	st.LoadBytes += r.RequestedBytes
}

// directLoads are the DRAM reads global loads make where no L2 caches
// global memory, and their sectors: their transactions, or where the L1
// caches them its fills.
func (res *Result) directLoads(dev *arch.Device) (reads, sectors int64) {
	if dev.Coalescer.CacheGlobalLoads {
		return res.L1.Fills, res.L1.FillSectors
	}
	return res.Loads.Transactions, res.Loads.Bytes / 32
}

// l1Global says reference r is a global load that an L1 caching global
// loads looks up, one access a transaction.
func l1Global(dev *arch.Device, r *RefStats) bool {
	return dev.Coalescer.CacheGlobalLoads && r.Space == "" && r.Op != traces.OpStore.String()
}

// narrowL2Load says reference r is a global load that the L2 reads as it
// is, no L1 caching global loads, in 32-byte transactions only (kepler's
// and maxwell's rule): each is one sector read.
func narrowL2Load(dev *arch.Device, r *RefStats) bool {
	return dev.L2.CachesGlobal() && !dev.Coalescer.CacheGlobalLoads && r.Space == "" &&
		r.Op != traces.OpStore.String() && r.Txn32 == r.Transactions
}

func isConstant(space string) bool { return space == kernel.SpaceConstant.String() }

// checkCrossings verifies that what one level sends the next receives:
// transactions and fills to the L2 or DRAM, stores to where they are
// written.
func (res *Result) checkCrossings(fail func(string, ...any), dev *arch.Device) {
	cf := res.Constant.Cache.Fills + res.Texture.Cache.Fills
	switch {
	case !dev.L2.Present():
		_, loads := res.directLoads(dev)
		if want := loads + res.Constant.Cache.FillSectors + res.Texture.Cache.FillSectors; want != res.DRAM.ReadSectors {
			fail("no L2: load transactions (or L1 fills) and constant- and texture-cache fills of %d sectors, %d read from DRAM", want, res.DRAM.ReadSectors)
		}
		if want := res.Stores.Bytes / 32; want != res.DRAM.WriteSectors {
			fail("no L2: store transactions of %d sectors, %d written to DRAM", want, res.DRAM.WriteSectors)
		}
		return
	case dev.L2.TextureOnly:
		if tf := res.Texture.Cache.Fills; res.L2.ReadRequests != tf || res.L2.WriteRequests != 0 {
			fail("texture-only L2: %d read and %d write requests; the texture caches sent %d fills and nothing else may reach it", res.L2.ReadRequests, res.L2.WriteRequests, tf)
		}
		if res.L2.ReadSectors != res.Texture.Cache.FillSectors {
			fail("texture-only L2: %d sectors read; the texture caches' fills asked for %d", res.L2.ReadSectors, res.Texture.Cache.FillSectors)
		}
		if want := res.Stores.Bytes/32 + res.L2.WriteBackSectors; want != res.DRAM.WriteSectors {
			fail("texture-only L2: store transactions and L2 write-backs of %d sectors, %d written to DRAM", want, res.DRAM.WriteSectors)
		}
		return
	case dev.Coalescer.CacheGlobalLoads:
		if res.L2.ReadRequests != res.L1.Fills+cf {
			fail("L1 sent %d fills and the constant and texture caches %d; L2 received %d reads", res.L1.Fills, cf, res.L2.ReadRequests)
		}
		var global int64
		for _, p := range res.l1FillReads(dev) {
			global += *p
		}
		if global != res.L1.FillSectors {
			fail("L2: global loads read %d sectors; the L1's %d fills read %d", global, res.L1.Fills, res.L1.FillSectors)
		}
		if res.L1.Accesses != res.Loads.Transactions {
			fail("L1: %d accesses of %d load transactions", res.L1.Accesses, res.Loads.Transactions)
		}
	default:
		if res.L2.ReadRequests != res.Loads.Transactions+cf {
			fail("L2: %d read requests of %d load transactions and %d constant- and texture-cache fills", res.L2.ReadRequests, res.Loads.Transactions, cf)
		}
	}
	if res.L2.WriteRequests != res.Stores.Transactions {
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
		sum.addRef(r, h, m)
	}
	if sum.Requests != c.Requests || sum.Passes != c.Passes || sum.Bytes != c.Bytes || sum.Cache.Hits != c.Cache.Hits || sum.Cache.Misses != c.Cache.Misses {
		fail("%s memory: references account for %d requests, %d passes, %d bytes, %d hits and %d misses of %d, %d, %d, %d and %d", space,
			sum.Requests, sum.Passes, sum.Bytes, sum.Cache.Hits, sum.Cache.Misses, c.Requests, c.Passes, c.Bytes, c.Cache.Hits, c.Cache.Misses)
	}
}
