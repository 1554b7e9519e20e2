package sim

import (
	"math/bits"

	"gpumemsim/sim/cache"
	"gpumemsim/sim/dram"
)

// memSide is what an SM's load/store unit sends transactions to: the L2
// slices, or DRAM itself on devices without an L2 for global memory.
type memSide interface {
	// read reads size bytes at addr (the 32-byte sectors of its 128-byte
	// block in sectors, or all of them when sectors is 0) arriving at
	// cycle ta for the waiter token, on behalf of reference ref. It
	// returns when the data is back and true, or false when that depends
	// on DRAM: the token is then delivered later.
	read(ta int64, addr uint64, size, sectors uint32, token uint64, ref int) (int64, bool)
	// write is read for a store; the warp token is acknowledged.
	write(ta int64, addr uint64, size, sectors uint32, token uint64) (int64, bool)
}

// dramOnly is the memory side of a device without an L2 for global
// memory: transactions go to DRAM as they are.
type dramOnly struct {
	port *port
	res  *Result
}

func (d *dramOnly) read(ta int64, addr uint64, size, _ uint32, token uint64, ref int) (int64, bool) {
	d.res.Refs[ref].DRAMReadSectors += int64(size / 32)
	d.port.send(ta, dram.Request{Addr: addr, Bytes: int(size), Tag: tokenTag(reqDirect, token)})
	return 0, false
}

func (d *dramOnly) write(ta int64, addr uint64, size, _ uint32, token uint64) (int64, bool) {
	d.port.send(ta, dram.Request{Addr: addr, Bytes: int(size), Write: true, Tag: tokenTag(reqStore, token)})
	return 0, false
}

// l2Spec is the geometry and timing of the L2 slices.
type l2Spec struct {
	line    uint64 // bytes
	sector  uint64 // bytes
	perLine int    // sectors per line
	hit     int64  // l2.hit_latency
	icnt    int64  // interconnect latency, each way
	dramLat int64  // dram.latency, on the way back from DRAM
	queue   int64  // l2.queue_depth
	merges  int32  // l2.mshr_merges
}

// slice is one L2 slice.
type slice struct {
	l2   *cache.Cache
	mshr cache.MSHR // a value, as the level's
	free int64      // next cycle the slice can start an access
	// per MSHR entry:
	fill []int64 // data ready at the slice, or -1 while DRAM reads are pending or the entry is free
	// known has bit e set when entry e's fill is known (fill[e] >= 0):
	// a reap looks at those entries only, few of a table whose entries
	// mostly wait on DRAM.
	known   []uint64
	sectors []uint32 // sectors being fetched
	reads   []int32  // DRAM reads outstanding
	finish  []int64  // latest DRAM completion so far
	merged  []int32  // requests the entry holds, the first one included
	whead   []int32  // waiter list (indices into l2.waiters), -1 if empty
	wtail   []int32
	// accesses waiting for a free MSHR entry, and how many wait for
	// each line (slice-local)
	waitq   waitQueue
	waiting lineCounts
	// noneBefore, when not 0, is what the last reap of the full MSHR
	// table found: no entry's data is back before it (the first known
	// fill, or never). setFill and release clear it; a new entry needs a
	// free one, so a release or a reap that freed one came before it.
	noneBefore int64
	// touched holds the lines (slice-local) touched since the waiting
	// accesses were last tried: given an MSHR entry, filled or written
	// while some access waits for an entry.
	touched lineSet
}

// makeEntries makes the slice's per-entry state for an MSHR table of n
// entries, every one free.
func (sl *slice) makeEntries(n int) {
	sl.fill, sl.known = unknownFills(n), make([]uint64, (n+63)/64)
	sl.sectors, sl.reads, sl.finish = make([]uint32, n), make([]int32, n), make([]int64, n)
	sl.whead, sl.wtail, sl.merged = make([]int32, n), make([]int32, n), make([]int32, n)
}

// reap frees the entries of the slice's full MSHR table whose data is back
// by t, as reap does, but looking only at the entries whose fill is known.
// Until an entry or a fill changes, a reap that freed none holds for any
// time before the fill it found first, so it is answered again without a
// scan: a fill lets the whole queue of accesses waiting for an entry try
// again, and each would scan the table.
func (sl *slice) reap(t int64) int64 {
	if b := sl.noneBefore; b != 0 && t < b {
		return b
	}
	first := int64(never)
	for w, known := range sl.known {
		for ; known != 0; known &= known - 1 {
			ent := cache.MSHREntry(w<<6 | bits.TrailingZeros64(known))
			if f := sl.fill[ent]; f <= t {
				sl.release(ent)
			} else {
				first = min(first, f)
			}
		}
	}
	if !sl.mshr.Full() {
		first = 0
	}
	sl.noneBefore = first
	return first
}

// setFill records when the data of MSHR entry ent is back at the slice:
// at t, or -1 while DRAM reads are pending. Every fill is written here or
// by a release, and both clear what the last reap found.
func (sl *slice) setFill(ent cache.MSHREntry, t int64) {
	sl.fill[ent] = t
	bit := uint64(1) << (ent & 63)
	if t >= 0 {
		sl.known[ent>>6] |= bit
	} else {
		sl.known[ent>>6] &^= bit
	}
	sl.noneBefore = 0
}

// release frees MSHR entry ent.
func (sl *slice) release(ent cache.MSHREntry) {
	release(&sl.mshr, sl.fill, ent)
	sl.known[ent>>6] &^= uint64(1) << (ent & 63)
	sl.noneBefore = 0
}

type l2Wait struct {
	addr    uint64
	line    uint64 // slice-local
	size    uint32
	sectors uint32
	token   uint64
	ref     int32
}

type waiter struct {
	token uint64
	next  int32
}

// l2 is the sliced L2: addresses go to a channel, then to one of the
// channel's slices (two address maps), and a miss sends one DRAM read for
// the missing sectors of its line through the port. Accesses are modelled
// by reservation: one per cycle per slice, with its completion computed
// at once on a hit; only DRAM is event-driven.
type l2 struct {
	l2Spec
	chMap, subMap dram.AddressMap
	perChannel    int
	slices        []slice
	// sec converts between a request's atoms and the slices' sectors.
	sec sectoring
	// fetched counts the atoms of the sectors read from DRAM.
	fetched int64
	// waiters of the MSHR entries, linked per entry
	waiters pool[waiter]
	// holdUntil is set by an access whose slice queue was full: the
	// sending SM may not send another transaction before it.
	holdUntil int64
	// tryAll retries every waiting access at every fill, and untried
	// counts those blockedFor let keep their place: for the tests that
	// hold the two ways to the same result.
	tryAll  bool
	untried int64
	port    *port
	sms     cores
	res     *Result
}

var (
	_ memSide = (*l2)(nil)
	_ memSide = (*dramOnly)(nil)
)

// sliceOf maps an address to its L2 slice and the slice-local address
// (the slice's own bits squeezed out, so its sets are all used).
func (c *l2) sliceOf(addr uint64) (int, uint64) {
	ch, sub, local := c.chMap.Nested(addr, &c.subMap)
	return ch*c.perChannel + sub, local
}

// globalAddr inverts sliceOf.
func (c *l2) globalAddr(si int, local uint64) uint64 {
	ch, sub := si/c.perChannel, si%c.perChannel
	return c.chMap.Join(ch, c.subMap.Join(sub, local))
}

// enterSlice is when an access arriving at ta enters the queue of a slice
// that starts it at start: with more than l2.queue_depth accesses ahead the
// queue is full, the access waits in the interconnect, and the SM that sent
// it is held back as long.
func (c *l2) enterSlice(ta, start int64) {
	if enter := start - c.queue; enter > ta {
		c.res.L2.QueueFullCycles += enter - ta
		c.holdUntil = max(c.holdUntil, enter-c.icnt+1)
	}
}

// sectorsOf is the atoms of [addr, addr+size) within its 128-byte block,
// or the given mask when it is set.
func sectorsOf(addr uint64, size uint32, given uint32) uint32 {
	if given != 0 {
		return given
	}
	first := (addr & 127) / 32
	n := (uint64(size) + 31) / 32
	return uint32((1<<n)-1) << first
}

func (c *l2) read(ta int64, addr uint64, size, sectors uint32, token uint64, ref int) (int64, bool) {
	atoms := sectorsOf(addr, size, sectors)
	n := int64(bits.OnesCount32(atoms))
	rs := &c.res.Refs[ref]
	si, local := c.sliceOf(addr)
	sec := c.sec.sectors(local, atoms)
	sl := &c.slices[si]
	start := max(ta, sl.free)
	line := local &^ (c.line - 1)
	ent, pending := sl.mshr.Lookup(line)
	if pending && sl.fill[ent] >= 0 && sl.fill[ent] <= start {
		sl.release(ent)
		pending = false
	}
	// A miss to a line whose entry holds l2.mshr_merges requests already,
	// or a miss with every MSHR entry waiting on DRAM, waits at the slice
	// until a DRAM fill frees one; when an entry's data is already on its
	// way at a known cycle, the access starts then instead.
	wait := pending && sl.merged[ent] >= c.merges && sl.fill[ent] < 0
	if !pending && sl.mshr.Full() {
		if valid, _ := sl.l2.Probe(local); sec&^valid != 0 {
			if first := sl.reap(start); first != 0 {
				if first == never {
					wait = true
				} else {
					start = first
					sl.reap(start)
				}
			}
		}
	}
	if wait {
		// An access tried again after a fill was counted when it first
		// waited.
		if !sl.waitq.trying {
			c.res.L2.MSHRWaits++
		}
		sl.wait(l2Wait{addr: addr, line: line, size: size, sectors: sectors, token: token, ref: int32(ref)})
		return 0, false
	}
	c.enterSlice(ta, start)
	sl.free = start + 1
	if pending {
		sl.merged[ent]++
	}
	res := &c.res.L2
	res.ReadRequests++
	res.ReadSectors += n
	rs.L2ReadSectors += n
	if pending && sec&^sl.sectors[ent] == 0 {
		// The sectors are already on their way from DRAM.
		res.ReadHitSectors += n
		rs.L2HitSectors += n
		res.MSHRMerges++
		return c.await(sl, ent, start, token)
	}
	r := sl.l2.Read(local, sec)
	hits := c.sec.count(local, atoms, r.Hit)
	res.ReadHitSectors += hits
	res.ReadMissSectors += n - hits
	rs.L2HitSectors += hits
	rs.L2MissSectors += n - hits
	if r.Evicted {
		res.Evictions++
		victim, dirty := sl.l2.Victim()
		c.writeBack(si, start, victim, dirty)
	}
	if r.Miss == 0 {
		if pending {
			// Hits on sectors already present in a line still filling.
			return c.await(sl, ent, start, token)
		}
		return start + c.hit, true
	}
	c.miss(si, ent, pending, line, r.Miss, start, token, ref)
	return 0, false
}

// await is a hit on a line whose entry is still filling: the data is back
// when the fill is, if that is known, else the token waits for it.
func (c *l2) await(sl *slice, ent cache.MSHREntry, start int64, token uint64) (int64, bool) {
	if f := sl.fill[ent]; f >= 0 {
		return max(start+c.hit, f), true
	}
	c.addWaiter(sl, ent, token)
	return 0, false
}

// miss sends one DRAM read for the missing sectors of a line of slice
// si, accessed at start, tracked by an MSHR entry (a new one unless
// pending) that gathers everyone waiting for the line.
func (c *l2) miss(si int, ent cache.MSHREntry, pending bool, line uint64, missing uint32, start int64, token uint64, ref int) {
	sl := &c.slices[si]
	fetched := c.sec.atoms(missing)
	c.res.Refs[ref].DRAMReadSectors += fetched
	c.fetched += fetched
	if !pending {
		sl.touch(line)
		ent, _ = sl.mshr.Allocate(line, 0)
		sl.merged[ent] = 1
		sl.sectors[ent] = 0
		sl.reads[ent] = 0
		sl.finish[ent] = 0
		sl.whead[ent], sl.wtail[ent] = -1, -1
	}
	sl.setFill(ent, -1)
	sl.sectors[ent] |= missing
	sl.reads[ent]++
	c.addWaiter(sl, ent, token)
	addr, bytes := c.lineRequest(si, line, missing)
	c.port.send(start+c.hit, dram.Request{Addr: addr, Bytes: bytes, Tag: fillTag(si, ent)})
}

// lineRequest is the DRAM request for the sectors in mask of an L2 line
// (slice-local address): as many bytes as sectors, starting at the first
// sector but kept within the line.
func (c *l2) lineRequest(si int, localLine uint64, mask uint32) (uint64, int) {
	first := bits.TrailingZeros32(mask)
	cnt := bits.OnesCount32(mask)
	if first+cnt > c.perLine {
		first = c.perLine - cnt
	}
	return c.globalAddr(si, localLine+uint64(first)*c.sector), cnt * int(c.sector)
}

func (c *l2) addWaiter(sl *slice, ent cache.MSHREntry, token uint64) {
	i := c.waiters.take()
	c.waiters.items[i] = waiter{token: token, next: -1}
	if sl.wtail[ent] < 0 {
		sl.whead[ent] = i
	} else {
		c.waiters.items[sl.wtail[ent]].next = i
	}
	sl.wtail[ent] = i
}

func (c *l2) write(ta int64, addr uint64, size, sectors uint32, token uint64) (int64, bool) {
	atoms := sectorsOf(addr, size, sectors)
	si, local := c.sliceOf(addr)
	sec := c.sec.sectors(local, atoms)
	sl := &c.slices[si]
	start := max(ta, sl.free)
	c.enterSlice(ta, start)
	sl.free = start + 1
	sl.touch(local &^ (c.line - 1))
	res := &c.res.L2
	res.WriteRequests++
	res.WriteSectors += int64(bits.OnesCount32(atoms))
	r, forward, _ := sl.l2.Write(local, sec)
	if r.Evicted {
		res.Evictions++
		victim, dirty := sl.l2.Victim()
		c.writeBack(si, start, victim, dirty)
	}
	if forward != 0 {
		c.writeBack(si, start, local&^(c.line-1), forward)
	}
	return start + c.hit, true
}

// writeBack sends the dirty sectors of an L2 line (slice-local address) to
// DRAM.
func (c *l2) writeBack(si int, t int64, localLine uint64, dirty uint32) {
	if dirty == 0 {
		return
	}
	addr, bytes := c.lineRequest(si, localLine, dirty)
	c.res.L2.WriteBackSectors += int64(bytes / atomBytes)
	c.port.send(t+c.hit, dram.Request{Addr: addr, Bytes: bytes, Write: true, Tag: tokenTag(reqWrite, 0)})
}

// filled takes the completion, at finish, of a DRAM read for MSHR entry
// ent of slice si: when it is the entry's last, the line's data is at the
// slice after the DRAM pipeline, everyone waiting gets it, and accesses
// that waited for an MSHR entry go on.
func (c *l2) filled(si int, ent cache.MSHREntry, finish int64) {
	sl := &c.slices[si]
	sl.finish[ent] = max(sl.finish[ent], finish)
	sl.reads[ent]--
	if sl.reads[ent] > 0 {
		return
	}
	f := sl.finish[ent] + c.dramLat
	sl.setFill(ent, f)
	for i := sl.whead[ent]; i >= 0; {
		w := c.waiters.items[i]
		c.sms.deliver(w.token, f+c.icnt)
		c.waiters.release(i)
		i = w.next
	}
	sl.whead[ent], sl.wtail[ent] = -1, -1
	if sl.waitq.len() > 0 {
		sl.touch(sl.mshr.Line(ent))
		c.retry(sl, f)
	}
}
