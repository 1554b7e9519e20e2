package sim

import (
	"gpumemsim/sim/coalesce"
	"gpumemsim/traces"
)

// warp is one resident warp context. The fields an issue reads and
// writes come first, next to the header of the instruction it issues; the
// cursor, touched once per instruction, comes last.
type warp struct {
	readyAt int64 // earliest issue of the next instruction (issue-slot and ordering rules)
	// pending counts loads whose return time is not known yet;
	// loadsDone is the latest known return.
	pending   int32
	block     int32 // index into sm.blocks
	loadsDone int64
	// stores counts store transactions not acknowledged yet, with an
	// unknown time; storesDone is the latest known acknowledgement. A warp
	// exits only when its stores are acknowledged (as in GPGPU-Sim).
	stores     int32
	sched      int32
	storesDone int64
	local      int32 // index in its scheduler's arrays
	has        bool  // the next instruction to issue is held below
	live       bool
	atBarrier  bool  // waiting at its block's barrier
	start      int64 // dispatch time, for achieved occupancy

	// The next instruction: its kind, reference (memory) or instruction
	// count (compute), and for a memory instruction the warp the
	// coalescer reads, lane addresses filled in place by the cursor.
	op    traces.Op
	ref   int32
	count int32
	// lazy says the lane addresses were left unwritten: the warp's
	// half-warps step as halves describes, and the cursor writes mem.Addr
	// only if the coalescer needs them.
	lazy   bool
	halves traces.Halves
	mem    coalesce.Warp

	// cur is the warp's cursor; hcur is the same cursor when it offers the
	// closed-form half-warp path, else nil.
	cur  traces.Warp
	hcur traces.HalvesWarp
}

// fetch reads the warp's next instruction: the header through the SM's
// scratch instruction in, the lane addresses straight to w.mem.
func (w *warp) fetch(in *traces.WarpInst) {
	if w.hcur != nil {
		w.has, w.lazy = w.hcur.NextHalves(in, &w.mem.Addr, &w.halves)
	} else {
		w.has, w.lazy = w.cur.NextTo(in, &w.mem.Addr), false
	}
	w.op, w.ref, w.count = in.Op, int32(in.Ref), in.Count
	w.mem.Width, w.mem.Active = int(in.Width), in.Active
	w.mem.Op = coalesce.Load
	if in.Op == traces.OpStore {
		w.mem.Op = coalesce.Store
	}
}

// known records a load of the warp returning at t.
func (w *warp) known(t int64) { w.loadsDone = max(w.loadsDone, t) }

// Waiter tokens name who waits for data from below: bit 63 set, an L1
// MSHR entry (SM << 32 | entry); bit 62 set, a constant-cache MSHR entry;
// both, a texture-cache MSHR entry; neither, a warp (SM << 32 | slot).
const (
	tokenL1    = 1 << 63
	tokenConst = 1 << 62
	tokenLevel = tokenL1 | tokenConst
)

func warpToken(sm, slot int) uint64 { return uint64(sm)<<32 | uint64(slot) }

func l1Token(sm, entry int) uint64 { return tokenL1 | uint64(sm)<<32 | uint64(entry) }

func constToken(sm, entry int) uint64 { return tokenConst | uint64(sm)<<32 | uint64(entry) }

func texToken(sm, entry int) uint64 { return tokenLevel | uint64(sm)<<32 | uint64(entry) }

// cores are the SMs as the memory side sees them: where data and store
// acknowledgements go back to.
type cores []sm

// warpCycles is the cycles the SMs' finished warps were resident, summed:
// achieved occupancy's numerator.
func (c cores) warpCycles() int64 {
	var n int64
	for i := range c {
		n += c[i].warpCycles
	}
	return n
}

// deliver hands data that reaches its SM at t to a waiter token. The
// warps waiting on a cache level's MSHR entry may be on other SMs when
// the level is a texture cache shared by several; each is resolved on
// its own SM, and every SM of the group whose load/store unit waits may
// find a free entry now.
func (c cores) deliver(token uint64, t int64) {
	sid := int((token &^ tokenLevel) >> 32)
	s := &c[sid]
	id := int(token & 0xFFFFFFFF)
	lv := s.l1
	lo, hi := sid, sid+1
	switch {
	case token&tokenLevel == tokenLevel:
		lv = s.texture.cache
		lo, hi = c.texGroup(sid)
	case token&tokenConst != 0:
		lv = s.constant.cache
	case token&tokenL1 == 0:
		s.resolve(id, t)
		return
	}
	for _, tok := range lv.filled(id, t) {
		c[tok>>32].resolve(int(tok&0xFFFFFFFF), t)
	}
	for i := lo; i < hi; i++ {
		if c[i].lsu.stalled {
			c[i].scheduleRetry(t)
		}
	}
}

// ack delivers the acknowledgement of a store transaction of the warp
// token names at t.
func (c cores) ack(token uint64, t int64) {
	s := &c[token>>32]
	slot := int(token & 0xFFFFFFFF)
	w := &s.warps[slot]
	w.storesDone = max(w.storesDone, t)
	w.stores--
	s.tryFinish(slot)
}
