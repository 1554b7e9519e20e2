package sim

import (
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim/dram"
	"gpumemsim/traces"
)

// An extrapolated run's counters are each estimated on its own: the
// simulated part's count plus the skipped instructions times the window's
// rate, rounded. A total and its parts (a level's accesses, hits and
// misses; a reference's share of them) then disagree by the rounding, and
// where the skipped blocks were counted, one side of an identity is exact
// and the other an estimate: `run -device fermi -kernel matmul -set
// M=2048,N=1024,P=128 -sample` gave A[i1][i3] 16,777,216 load
// transactions, all counted, and 15,912,071 L1 hits and 865,135 misses,
// 10 accesses short.
//
// reconcile makes the estimates keep every identity checkTotals holds a
// simulated run to, going down the hierarchy from what is known best:
//   - a cache's lookups are the transactions or passes that make them (a
//     reference's L1, constant- and texture-cache hits and misses add up
//     to its transactions), and a level's totals are its references' sums;
//     a miss merges with one in flight or is one fill of a sector;
//   - what a level receives is what the level above sent (L2 read requests
//     are the L1's and the read-only caches' fills, or the load
//     transactions where the L1 does not cache them, of one sector each
//     where those are 32 bytes, and the L1's fills' sectors where it
//     does; L2 write requests are the store
//     transactions, of the sectors they touch; a texture-only L2 reads
//     the texture caches' fill sectors);
//   - DRAM reads what the level above it sent (each global load's
//     transactions and the read-only caches' fills where no L2 caches
//     global memory, each reference's L2 miss sectors behind an L2 of
//     32-byte sectors), and writes the stores where no L2 caches them and
//     the L2's write-backs; where no L2 caches global memory, each load
//     and store transaction and each fill it was sent is one request
//     (directRequests), and every request completed and either found its
//     row open or activated one.
//
// Where an identity fixes a total, its parts are apportioned to it in
// proportion to their estimates (apportion); where it fixes the parts,
// the total is their sum. An exact count is never moved: it is what the
// others are fitted to. A count fitted to exact ones is exact (the probe,
// grown with twice the skipped share, leaves it as it is, so withIntervals
// prints it without an interval); the others move by their rounding, or
// within their own error.
func reconcile(dev *arch.Device, r *Result, storeSectors int64) {
	for i := range r.Refs {
		ref := &r.Refs[i]
		switch {
		case isConstant(ref.Space):
			apportion(ref.Transactions, &ref.ConstHits, &ref.ConstMisses)
		case texturePath(ref.Space):
			apportion(ref.Transactions, &ref.TexHits, &ref.TexMisses)
		case l1Global(dev, ref):
			apportion(ref.Transactions, &ref.L1Hits, &ref.L1Misses)
		}
	}
	r.sumLevels()
	for _, c := range r.firstLevels(dev) {
		apportion(c.stats.Misses, &c.stats.MSHRMerges, &c.stats.Fills) // with nothing to go by, every miss a fill
		lo, hi := c.fillSectorBounds()
		c.stats.FillSectors = min(max(c.stats.FillSectors, lo), hi)
	}
	if dev.L2.Present() {
		r.reconcileL2(dev, storeSectors)
	}
	r.reconcileDRAM(dev)
}

// sumLevels makes the L1's, shared memory's and the read-only paths'
// totals, and the memory instructions, their references' sums.
func (r *Result) sumLevels() {
	var l1 L1Stats
	var shared SharedStats
	var constant, texture ReadOnlyStats
	for i := range r.Refs {
		ref := &r.Refs[i]
		l1.Hits += ref.L1Hits
		l1.Misses += ref.L1Misses
		switch {
		case ref.Space == kernel.SpaceShared.String():
			shared.addRef(ref)
		case isConstant(ref.Space):
			constant.addRef(ref, ref.ConstHits, ref.ConstMisses)
		case texturePath(ref.Space):
			texture.addRef(ref, ref.TexHits, ref.TexMisses)
		}
	}
	r.L1.Hits, r.L1.Misses, r.L1.Accesses = l1.Hits, l1.Misses, l1.Hits+l1.Misses
	r.Shared = shared
	r.Constant.setRefs(&constant)
	r.Texture.setRefs(&texture)
	r.MemInsts = r.Loads.Requests + r.Stores.Requests + shared.LoadRequests + shared.StoreRequests + constant.Requests + texture.Requests
}

// addRef adds a read-only reference's requests, passes, bytes, hits and
// misses to st.
func (st *ReadOnlyStats) addRef(ref *RefStats, hits, misses int64) {
	st.Requests += ref.Requests
	st.Passes += ref.Transactions
	st.Bytes += ref.RequestedBytes
	st.Cache.Hits += hits
	st.Cache.Misses += misses
}

// setRefs puts the references' sums o into st: a pass is one access.
func (st *ReadOnlyStats) setRefs(o *ReadOnlyStats) {
	st.Requests, st.Passes, st.Bytes = o.Requests, o.Passes, o.Bytes
	st.Cache.Hits, st.Cache.Misses = o.Cache.Hits, o.Cache.Misses
	st.Cache.Accesses = o.Cache.Hits + o.Cache.Misses
}

// reconcileL2 fits the L2's read and write sectors, their hits and
// misses, and its requests to what the levels above sent: storeSectors
// are the sectors the launch's stores touch, where they were counted
// (else -1).
func (r *Result) reconcileL2(dev *arch.Device, storeSectors int64) {
	if dev.L2.TextureOnly {
		apportion(r.Texture.Cache.FillSectors, r.refCounts(func(ref *RefStats) *int64 { return &ref.L2ReadSectors })...)
	}
	if dev.Coalescer.CacheGlobalLoads && !dev.L2.TextureOnly {
		apportion(r.L1.FillSectors, r.l1FillReads(dev)...)
	}
	var reads, hits, misses int64
	for i := range r.Refs {
		ref := &r.Refs[i]
		if narrowL2Load(dev, ref) {
			ref.L2ReadSectors = ref.Transactions
		}
		apportion(ref.L2ReadSectors, &ref.L2HitSectors, &ref.L2MissSectors)
		reads += ref.L2ReadSectors
		hits += ref.L2HitSectors
		misses += ref.L2MissSectors
	}
	r.L2.ReadSectors, r.L2.ReadHitSectors, r.L2.ReadMissSectors = reads, hits, misses
	fills := r.Constant.Cache.Fills + r.Texture.Cache.Fills
	switch {
	case dev.L2.TextureOnly:
		r.L2.ReadRequests, r.L2.WriteRequests = r.Texture.Cache.Fills, 0
		return
	case dev.Coalescer.CacheGlobalLoads:
		r.L2.ReadRequests = r.L1.Fills + fills
	default:
		r.L2.ReadRequests = r.Loads.Transactions + fills
	}
	r.L2.WriteRequests = r.Stores.Transactions
	if storeSectors >= 0 {
		r.L2.WriteSectors = storeSectors
	}
}

// reconcileDRAM fits DRAM's read and write sectors, and the references'
// read sectors, to what was sent to it.
func (r *Result) reconcileDRAM(dev *arch.Device) {
	d := &r.DRAM
	var global int64 // what global loads read straight from DRAM
	var constant, texture, fills []*int64
	for i := range r.Refs {
		ref := &r.Refs[i]
		switch {
		case dev.L2.CachesGlobal():
			if dev.L2.Sector == atomBytes {
				ref.DRAMReadSectors = ref.L2MissSectors
			}
		case isConstant(ref.Space):
			constant = append(constant, &ref.DRAMReadSectors)
		case texturePath(ref.Space):
			texture = append(texture, &ref.DRAMReadSectors)
		case l1Global(dev, ref):
			fills = append(fills, &ref.DRAMReadSectors)
		case ref.Space == "" && ref.Op != traces.OpStore.String():
			ref.DRAMReadSectors = ref.Bytes / 32
			global += ref.DRAMReadSectors
		}
	}
	if len(fills) > 0 {
		apportion(r.L1.FillSectors, fills...) // the L1's fills, where no L2 caches global memory
		global = r.L1.FillSectors
	}
	switch {
	case !dev.L2.Present():
		apportion(r.Constant.Cache.FillSectors, constant...)
		apportion(r.Texture.Cache.FillSectors, texture...)
		d.WriteSectors = r.Stores.Bytes / 32
	case dev.L2.TextureOnly:
		apportion(r.Constant.Cache.FillSectors, constant...)
		apportion(max(0, d.ReadSectors-global-r.Constant.Cache.FillSectors), texture...)
		d.WriteSectors = r.Stores.Bytes/32 + r.L2.WriteBackSectors
	case dev.L2.Sector != atomBytes:
		apportion(d.ReadSectors, r.refCounts(func(ref *RefStats) *int64 { return &ref.DRAMReadSectors })...)
	}
	if dev.L2.CachesGlobal() {
		d.WriteSectors = r.L2.WriteBackSectors
	}
	d.ReadSectors = 0
	for i := range r.Refs {
		d.ReadSectors += r.Refs[i].DRAMReadSectors
	}
	d.ReadBytes, d.WriteBytes = 32*d.ReadSectors, 32*d.WriteSectors
	reads, writes := directRequests(dev, r)
	reconcileRequests(d, reads, writes)
}

// reconcileRequests fits DRAM's reads and writes to what was sent to it,
// where that is known (not -1), and what DRAM counts of each request to
// them: every request completed and either found its row open or
// activated one, after a precharge where another was open.
func reconcileRequests(d *dram.ChannelStats, reads, writes int64) {
	if reads >= 0 {
		d.Reads = reads
	}
	if writes >= 0 {
		d.Writes = writes
	}
	d.Completed = d.Reads + d.Writes
	clean := max(0, d.RowMisses-d.RowConflicts) // misses to a closed bank
	apportion(d.Completed, &d.RowHits, &d.RowMisses)
	apportion(d.RowMisses, &d.RowConflicts, &clean)
	d.Activates, d.Precharges = d.RowMisses, d.RowConflicts
}

// refCounts is one count of each reference of r, as field picks it; a
// reference for which field gives nil is left out.
func (r *Result) refCounts(field func(*RefStats) *int64) []*int64 {
	out := make([]*int64, 0, len(r.Refs))
	for i := range r.Refs {
		if p := field(&r.Refs[i]); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// l1FillReads are the L2 read sectors of the global loads an L1 caches:
// its fills' reads.
func (r *Result) l1FillReads(dev *arch.Device) []*int64 {
	return r.refCounts(func(ref *RefStats) *int64 {
		if l1Global(dev, ref) {
			return &ref.L2ReadSectors
		}
		return nil
	})
}

// apportion sets parts, estimates of the shares of total, to add up to
// it, each in proportion to its estimate: the integer part of its exact
// share, and one more for the parts with the largest remainders (the
// earlier part first where two are equal) until the total is reached.
// Where the estimates are all zero the last part takes the total; a
// negative estimate counts as zero. With no parts it does nothing.
func apportion(total int64, parts ...*int64) {
	if len(parts) == 0 {
		return
	}
	var sum int64
	for _, p := range parts {
		*p = max(*p, 0)
		sum += *p
	}
	if sum == total {
		return
	}
	if sum == 0 || total <= 0 {
		for _, p := range parts {
			*p = 0
		}
		*parts[len(parts)-1] = max(total, 0)
		return
	}
	rem := make([]uint64, len(parts))
	left := total
	for i, p := range parts {
		// total × p / sum exactly: total and p are below 2^63, and the
		// quotient is at most total.
		hi, lo := bits.Mul64(uint64(total), uint64(*p))
		q, r := bits.Div64(hi, lo, uint64(sum))
		*p, rem[i] = int64(q), r
		left -= int64(q)
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		*parts[best]++
		rem[best] = 0
	}
}
