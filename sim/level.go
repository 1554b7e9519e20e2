package sim

import (
	"math/bits"
	"slices"

	"gpumemsim/internal/truth"
	"gpumemsim/sim/cache"
	"gpumemsim/sim/coalesce"
)

// levelSpec is a cache level's geometry and timing.
type levelSpec struct {
	line   uint64 // bytes
	sector uint64 // the cache's sector bytes (its fill granularity)
	hit    int64  // hit latency in core cycles
	// inFlight is the bytes an MSHR entry tracks: the line for an L1
	// whose loads ask for all the sectors they need in one lookup (the
	// cc20 and cc30 rules); the sector for the read-only caches and for
	// the L1 of the cc50 rule, whose lookups ask for one 32-byte sector
	// each, so that a lookup of another sector of a line in flight is a
	// miss of its own (as GPGPU-Sim's sector caches key their MSHRs by
	// sector, mshr_addr).
	inFlight uint64
}

// level is one cache of an SM with its MSHRs and the time each MSHR
// entry's data returns: the L1 data cache and the constant cache and the
// texture cache), which differ only in who asks them and what is
// below them. The caller asks the level below for what a miss needs and
// tells the level when it returns.
type level struct {
	levelSpec
	cache *cache.Cache
	sec   sectoring
	mshr  cache.MSHR // a value: a lookup reads its index without first loading a pointer
	fill  []int64    // per MSHR entry: data return time, or -1 while below has not said or the entry is free
	stats *L1Stats
	// miss is what the latest load that missed needs from below.
	miss levelMiss
	// stale says the level holds a launch before's lines: an SM empties
	// its L1 when it takes its first block of a launch (sm.build).
	stale bool
	// firstFill is at most every known fill, and when firstExact the
	// least of them (never: none is known). Fills are added one by one
	// and each keeps it so; a release outside reap may take the least
	// away, and leaves it a bound only until reap's next scan.
	firstFill  int64
	firstExact bool
}

// levelMiss is a miss to fetch from below for MSHR entry entry: the bytes
// [addr, addr+size), or where atoms is not 0, those 32-byte atoms of
// addr's 128-byte block, the sectors missing from a line of 32-byte
// sectors, which a wide transaction may leave apart (an L2 reads the
// atoms; DRAM alone a request of as many sectors from the first, in the
// same row).
type levelMiss struct {
	entry int
	addr  uint64
	size  uint32
	atoms uint32
}

// What a load transaction found at a level, with the cycle at that load
// returns.
const (
	loadHit    = iota // the data is back at at
	loadMerged        // joined a miss in flight, whose data is back at at (-1: not known yet)
	loadMiss          // a new miss: fetch lv.miss from below
	loadStall         // no MSHR entry or merge slot: try again at at (never: when a fill returns)
)

// load looks up load transaction tx at cycle t for the waiter token.
func (lv *level) load(tx *coalesce.Txn, token uint64, t int64) (kind uint8, at int64) {
	st := lv.stats
	line := tx.Addr &^ (lv.line - 1)
	mask := lv.sec.sectors(tx.Addr, uint32(tx.Sectors))
	key := tx.Addr &^ (lv.inFlight - 1)
	if ent, ok := lv.mshr.Lookup(key); ok {
		f := lv.fill[ent]
		if f >= 0 && f <= t {
			lv.release(ent)
		} else {
			if (lv.inFlight > lv.sector && !lv.inFlightHas(tx.Addr, mask)) || !lv.mshr.Merge(ent, token) {
				if f < 0 {
					f = never
				}
				return loadStall, f
			}
			st.Accesses++
			st.Misses++
			st.MSHRMerges++
			return loadMerged, f
		}
	}
	if lv.mshr.Full() {
		if first := lv.reap(t); first != 0 {
			return loadStall, first
		}
	}
	r := lv.cache.Read(tx.Addr, mask)
	st.Accesses++
	if r.Status == cache.Hit {
		st.Hits++
		return loadHit, t + lv.hit
	}
	st.Misses++
	st.Fills++
	if r.Evicted {
		st.Evictions++
	}
	ent, _ := lv.mshr.Allocate(key, token)
	addr, size := span(line, r.Miss, lv.sector)
	var atoms uint32
	if lv.sec.mode == sameAtoms {
		atoms, size = r.Miss, uint32(bits.OnesCount32(r.Miss))*atomBytes
	}
	lv.miss = levelMiss{entry: int(ent), addr: addr, size: size, atoms: atoms}
	st.FillSectors += int64(size / atomBytes)
	return loadMiss, 0
}

// inFlightHas says, where an MSHR entry tracks a line of several sectors
// that one lookup may ask for part of (a sectored L1 under the cc20 and
// cc30 rules' 128-byte transactions; elsewhere an entry tracks what one
// lookup asks for, and the caller does not ask), whether the sectors of
// mask of addr's line, whose fill is in flight, are on their way: when
// the lookups before made them valid, present or fetched. A lookup that
// needs a sector no fill brings waits for the line's fill, and then
// misses it.
func (lv *level) inFlightHas(addr uint64, mask uint32) bool {
	valid, _ := lv.cache.Probe(addr)
	return mask&^valid == 0
}

// store applies store transaction tx to the level under its write policy.
func (lv *level) store(tx *coalesce.Txn) {
	if r, _, ok := lv.cache.Write(tx.Addr, lv.sec.sectors(tx.Addr, uint32(tx.Sectors))); ok && r.Evicted {
		lv.stats.StoreEvictions++
	}
}

// filled records that the data of MSHR entry ent is back at t and returns
// the tokens waiting for it.
func (lv *level) filled(ent int, t int64) []uint64 {
	lv.setFill(ent, t)
	return lv.mshr.Requests(cache.MSHREntry(ent))
}

// setFill records when the data of MSHR entry ent, which waited for the
// level below or was free, is back: at t, or -1 while the level below has
// not said.
func (lv *level) setFill(ent int, t int64) {
	lv.fill[ent] = t
	// As unsigned, an unknown fill (-1) is larger than any known one.
	lv.firstFill = int64(min(uint64(lv.firstFill), uint64(t)))
}

// release frees MSHR entry ent, whose fill is known; the least known
// fill may have gone with it.
func (lv *level) release(ent cache.MSHREntry) {
	lv.firstExact = false
	release(&lv.mshr, lv.fill, ent)
}

// reap is reap on the level's full MSHR table. While no known fill is due
// by t and the least of them is known, it is the answer without a scan: a
// table full of misses to the L2 is asked again by every load until one
// returns.
func (lv *level) reap(t int64) int64 {
	if lv.firstExact && t < lv.firstFill {
		return lv.firstFill
	}
	first, full := reap(&lv.mshr, lv.fill, t)
	lv.firstFill, lv.firstExact = first, true
	if !full {
		return 0
	}
	return first
}

// span is the byte range from the first to the last sector of mask in the
// line at lineAddr.
func span(lineAddr uint64, mask uint32, sector uint64) (uint64, uint32) {
	first := uint64(bits.TrailingZeros32(mask))
	last := uint64(31 - bits.LeadingZeros32(mask))
	return lineAddr + first*sector, uint32((last - first + 1) * sector)
}

// reap frees the entries of an MSHR table whose data is back by t (fill
// holds each entry's return cycle, -1 while it waits on the level below
// or is free). It returns the least fill still known (never: none is)
// and whether the table is still full. The scan needs no look at the
// table: a free entry's fill is -1. It goes by eights: most eights have
// no entry due, which the least of the eight tells with one comparison,
// and that least is then a candidate for the least known. In an eight
// that has, the due entries are marked without a branch (a branch at
// each entry went either way as often as not, 4.8% of an uncoalesced
// fermi matmul's time); the whole table in one branch-free pass, without
// the eights' test, was slower again.
func reap(m *cache.MSHR, fill []int64, t int64) (first int64, full bool) {
	// As unsigned an unknown fill (-1) is the largest value: it is never
	// due and never first, so one comparison tells due from not.
	least, ut := uint64(never), uint64(t)
	i := 0
	for ; i < len(fill)-7; i += 8 {
		f := fill[i : i+8 : i+8]
		lo := min(min(uint64(f[0]), uint64(f[1]), uint64(f[2]), uint64(f[3])),
			min(uint64(f[4]), uint64(f[5]), uint64(f[6]), uint64(f[7])))
		if lo > ut {
			least = min(least, lo)
			continue
		}
		// Which of the eight are due follows no pattern the host
		// predicts: a mask of them without a branch, then a release
		// for each bit, in the order of their index.
		var due uint
		for k, u := range f {
			d := uint64(u) <= ut
			due |= uint(truth.Bit(d)) << k
			least = min(least, uint64(u)|-uint64(truth.Bit(d)))
		}
		for ; due != 0; due &= due - 1 {
			release(m, fill, cache.MSHREntry(i+bits.TrailingZeros(due)))
		}
	}
	for ; i < len(fill); i++ {
		if u := uint64(fill[i]); u <= ut {
			release(m, fill, cache.MSHREntry(i))
		} else {
			least = min(least, u)
		}
	}
	return int64(least), m.Full()
}

// release frees entry ent of MSHR table m and marks its fill unknown, so
// that every free entry's fill is -1.
func release(m *cache.MSHR, fill []int64, ent cache.MSHREntry) {
	m.Release(ent)
	fill[ent] = -1
}

// unknownFills is the fills of an MSHR table of n free entries.
func unknownFills(n int) []int64 { return slices.Repeat([]int64{-1}, n) }

// reset empties lv for a new launch, counting into stats from now on: the
// level newLevel would build, without building it again (a sequence of
// small launches on a100 spent a third of its time building 108 L1s).
func (lv *level) reset(stats *L1Stats) {
	lv.cache.Reset()
	lv.mshr.Reset()
	for i := range lv.fill {
		lv.fill[i] = -1
	}
	lv.stats, lv.miss, lv.stale = stats, levelMiss{}, false
	lv.firstFill, lv.firstExact = never, true
}
