package sim

import (
	"gpumemsim/sim/coalesce"
	"gpumemsim/traces"
)

// The counts of a warp instruction whose half-warps each step by one
// stride (traces.Halves) follow from its shape alone: every coalescing
// rule forms units aligned to at most memoPeriod bytes and counts only
// their sizes, sectors and lanes, so moving all 32 addresses by a multiple
// of memoPeriod leaves the counts as they were (coalesce.TestTranslate
// checks it on every rule). A loop walks one reference through few such shapes,
// so the counter keeps, per reference, the counts of the shapes it met
// last, keyed by the first address's offset in its period, the distance
// from lane 0 to lane 16 and the stride.
//
// The engine keeps such a memo too, for the transactions themselves: a
// shape of at most memoTxns transactions keeps those of the instruction
// that met it first, which moved by the distance between the two
// instructions' periods are the transactions of any other of its shape
// (shapeMemo.coalesce).
const (
	memoPeriod = 128
	memoSlots  = 64 // per reference, direct-mapped; a power of two
	// memoTxns is the most transactions an entry keeps: a warp's row of
	// words in 32-B sectors (4), as many as its half-warps' segments.
	memoTxns = 4
)

type memoKey struct{ lo, hi, stride uint64 }

type memoEntry struct {
	key memoKey
	// gen is the memo's generation when the entry was filled: an entry
	// of another generation is empty.
	gen   uint64
	delta RefCounts
	// stores is what counter.record returned for the shape: the sectors
	// a store touches, where the counter counts them.
	stores int64
	// n is the number of the shape's transactions in txns, kept by the
	// engine's memo, those of the instruction whose first address less
	// its offset in memoPeriod was base; -1 where none are kept (more
	// than memoTxns, or the counter's memo).
	n    int
	base uint64
	txns [memoTxns]coalesce.Txn
}

// shapeMemo holds the counts of the last shapes met, per reference.
// Its zero value is ready for reset.
type shapeMemo struct {
	slots [][memoSlots]memoEntry
	gen   uint64 // the generation of the entries in use; at least 1
}

func newShapeMemo(refs int) shapeMemo {
	var m shapeMemo
	m.reset(refs)
	return m
}

// reset empties m for a launch of refs references, in place where m has
// room: a new generation leaves every entry empty without touching one.
// The engine resets its memo at each launch of a sequence, where
// allocating it afresh (15 KB a reference) cost nw-dymaxion's 511
// launches of one block 13 to 21% of their time (BenchmarkSequence).
func (m *shapeMemo) reset(refs int) {
	if cap(m.slots) < refs {
		m.slots = make([][memoSlots]memoEntry, refs)
	}
	m.slots = m.slots[:refs]
	m.gen++
}

// holds reports whether e, an entry of m, holds the shape key.
func (m *shapeMemo) holds(e *memoEntry, key memoKey) bool {
	return e.gen == m.gen && e.key == key
}

// fill empties e for the shape key, its counts to be recorded, no
// transactions kept.
func (m *shapeMemo) fill(e *memoEntry, key memoKey) {
	e.key, e.gen, e.delta, e.n = key, m.gen, RefCounts{}, -1
}

// keyOf is the shape of h: what its counts depend on.
func keyOf(h *traces.Halves) memoKey {
	return memoKey{lo: h.Lo % memoPeriod, hi: h.Hi - h.Lo, stride: h.Stride}
}

func (k memoKey) slot() int {
	x := k.lo*0x9E3779B97F4A7C15 ^ k.hi*0xC2B2AE3D27D4EB4F ^ k.stride*0x165667B19E3779F9
	return int(x>>58) & (memoSlots - 1)
}

// entry is the slot of ref's shape k: filled (full) when k was met last in
// it, else to be filled by the caller.
func (m *shapeMemo) entry(ref int, k memoKey) *memoEntry {
	return &m.slots[ref][k.slot()]
}

// countShape counts into c the memory instruction in of shape h, which
// cur reported lazy, through the memo; co coalesces a shape met for the
// first time. It returns the sectors a store touches, where k counts them.
func (k *counter) countShape(c *RefCounts, in *traces.WarpInst, h *traces.Halves, cur traces.HalvesWarp) int64 {
	key := keyOf(h)
	e := k.memo.entry(in.Ref, key)
	if !k.memo.holds(e, key) {
		w := &k.co.warp
		w.Op, w.Width, w.Active = coalesce.Load, int(in.Width), in.Active
		if in.Op == traces.OpStore {
			w.Op = coalesce.Store
		}
		txns, ok := k.co.CoalesceHalves(w, h)
		if !ok {
			cur.Addresses(&w.Addr)
			txns = k.co.CoalesceWarp(w)
		}
		k.memo.fill(e, key)
		e.stores = k.record(&e.delta, w, txns)
	}
	c.add(&e.delta)
	return e.stores
}

// coalesce is the engine's way to the transactions of the warp instruction
// w (32 active lanes) of reference ref whose half-warps step as h
// describes: it adds the instruction's counts to c and returns its
// transactions, in co's scratch, which the next call reuses. A shape met
// before is counted from its entry, and its transactions are the kept
// ones moved to h's period where the entry keeps them; any other shape
// is coalesced by co. It reports false, counting nothing, when the
// transactions need the lane addresses.
func (m *shapeMemo) coalesce(co *Coalescer, ref int, w *coalesce.Warp, h *traces.Halves, c *RefCounts) ([]coalesce.Txn, bool) {
	key := keyOf(h)
	e := m.entry(ref, key)
	base := h.Lo - key.lo
	if m.holds(e, key) && e.n >= 0 {
		c.add(&e.delta)
		return co.moved(e.txns[:e.n], base-e.base), true
	}
	txns, ok := co.CoalesceHalves(w, h)
	if !ok {
		return nil, false
	}
	if !m.holds(e, key) {
		m.fill(e, key)
		e.delta.record(w, txns)
		if len(txns) <= memoTxns {
			e.n, e.base = copy(e.txns[:], txns), base
		}
	}
	c.add(&e.delta)
	return txns, true
}
