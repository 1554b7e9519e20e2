package sim

import "gpumemsim/sim/coalesce"

// lsu is an SM's load/store unit: it sends one transaction per cycle into
// the memory system. A load whose transaction finds no L1 MSHR entry (or
// merge slot) stops there, with the rest of its transactions, until one
// frees; no memory instruction of the SM issues meanwhile.
type lsu struct {
	free int64 // first cycle it accepts a transaction
	// The stalled load: the level it waits on, its warp slot, reference
	// and the transactions not sent yet (txns[next:]).
	stalled     bool
	level       *level
	warp, ref   int32
	txns        []coalesce.Txn
	next        int
	retryQueued bool // an evLSURetry is pending
}

// loadTxns sends a load's transactions into the memory system through the
// LSU, one per cycle from t, through lv, the level that serves the
// reference: the L1, the constant or the texture cache, or nil, straight
// to the memory side. It returns false if it had to stop because no MSHR
// entry was free; the rest then waits in the LSU.
func (s *sm) loadTxns(lv *level, slot int, ref int, txns []coalesce.Txn, t int64) bool {
	u := &s.lsu
	if lv == nil {
		// Straight to the memory side, which never refuses: the warp,
		// its token and the latency are the same for every transaction.
		w, token, icnt := &s.warps[slot], warpToken(s.id, slot), s.spec.icnt
		for i := range txns {
			tx := &txns[i]
			ti := max(t, u.free)
			if at, ok := s.mem.read(ti+icnt, tx.Addr, tx.Size, uint32(tx.Sectors), token, ref); ok {
				w.known(at + icnt)
			} else {
				w.pending++
			}
			u.free = max(ti+1, s.hold())
		}
		return true
	}
	for i := range txns {
		ti := max(t, u.free)
		if retry := s.loadTxn(lv, slot, ref, &txns[i], ti); retry != 0 {
			u.stalled = true
			u.level, u.warp, u.ref = lv, int32(slot), int32(ref)
			u.txns = append(u.txns[:0], txns[i:]...)
			u.next = 0
			u.free = ti
			lv.stats.MSHRStalls++
			s.scheduleRetry(retry)
			return false
		}
		u.free = max(ti+1, s.hold())
	}
	return true
}

// retryLSU continues a load whose transactions waited for an MSHR entry.
func (s *sm) retryLSU() {
	u := &s.lsu
	if !u.stalled {
		return
	}
	for u.next < len(u.txns) {
		ti := max(s.clk.now, u.free)
		if retry := s.loadTxn(u.level, int(u.warp), int(u.ref), &u.txns[u.next], ti); retry != 0 {
			u.free = ti
			s.scheduleRetry(retry)
			return
		}
		u.free = max(ti+1, s.hold())
		u.next++
	}
	u.stalled = false
	s.resolve(int(u.warp), u.free)
	for si := range s.scheds {
		s.wake(si, u.free)
	}
}

// hold returns, and clears, the cycle before which the SM that just sent a
// transaction may not send the next one because an L2 slice queue was full
// (0: no hold). The cell is the memory side's: an access that waited at a
// slice for an MSHR entry and went on when a fill freed one sets it too, and
// the SM that sends next is held then.
func (s *sm) hold() int64 {
	h := *s.held
	*s.held = 0
	return h
}

// scheduleRetry arranges for a stalled LSU to try again at cycle t, or,
// when t is never, when a fill delivers to this SM (cores.deliver does
// it).
func (s *sm) scheduleRetry(t int64) {
	if t != never && !s.lsu.retryQueued {
		s.lsu.retryQueued = true
		s.clk.q.push(max(t, s.clk.now), evLSURetry, int32(s.id), 0)
	}
}

// loadTxn sends one load transaction at cycle ti to lv, the level that
// serves the reference (the L1, the constant or the texture cache), which
// is not nil. It returns 0 when the transaction entered the memory
// system; otherwise the level had no MSHR entry or merge slot for it, and
// the result is the cycle one frees, or never when that waits on the
// level below.
func (s *sm) loadTxn(lv *level, slot, ref int, tx *coalesce.Txn, ti int64) int64 {
	w := &s.warps[slot]
	icnt := s.spec.icnt
	rs := &s.res.Refs[ref]
	hits, misses, fill, mem := &rs.L1Hits, &rs.L1Misses, l1Token, s.mem
	switch s.spec.space[ref] {
	case spaceConstant:
		hits, misses, fill = &rs.ConstHits, &rs.ConstMisses, constToken
	case spaceTexture:
		hits, misses, fill, mem = &rs.TexHits, &rs.TexMisses, texToken, s.texMem
	}
	kind, at := lv.load(tx, warpToken(s.id, slot), ti)
	switch kind {
	case loadStall:
		return at
	case loadHit:
		*hits++
		w.known(at)
	case loadMerged:
		*misses++
		if at >= 0 {
			w.known(at)
		} else {
			w.pending++
		}
	case loadMiss:
		*misses++
		m := &lv.miss
		if t, ok := mem.read(ti+icnt, m.addr, m.size, m.atoms, fill(s.id, m.entry), ref); ok {
			lv.setFill(m.entry, t+icnt)
			w.known(t + icnt)
		} else {
			lv.setFill(m.entry, -1)
			w.pending++
		}
	}
	return 0
}

// storeTxns sends a store's transactions: the warp does not wait for
// them, but they take LSU cycles, evict matching L1 lines under
// write-evict, and must be acknowledged before the warp exits.
func (s *sm) storeTxns(slot int, txns []coalesce.Txn, t int64) {
	w := &s.warps[slot]
	u := &s.lsu
	for i := range txns {
		tx := &txns[i]
		ti := max(t, u.free)
		if s.l1 != nil {
			s.l1.store(tx)
		}
		if at, ok := s.mem.write(ti+s.spec.icnt, tx.Addr, tx.Size, uint32(tx.Sectors), warpToken(s.id, slot)); ok {
			w.storesDone = max(w.storesDone, at+s.spec.icnt)
		} else {
			w.stores++
		}
		u.free = max(ti+1, s.hold())
	}
}
