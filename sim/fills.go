package sim

import (
	"slices"

	"gpumemsim/sim/cache"
)

// fillTimes holds the cycle each entry of an MSHR table has its data back
// (at; -1 while the level below has not said, or the entry is free), and
// the entries whose cycle is known in order of that cycle, so that a reap
// of a full table takes the entries due from the front and reads the
// first one after them there, without a look at the others. A stalled
// load/store unit tries at each fill, and with every fill known (L2 hits)
// a scan of every entry cost more than the rest of the L1 access: fermi's
// matmul with J14's uncoalesced mapping visited 64 entries to free 2.7 at
// each of 1.3 M reaps (2026-11-28). Fills become known in nearly the
// order they come back, so keeping them sorted costs a step or two.
type fillTimes struct {
	at    []int64
	order []cache.MSHREntry // entries with at >= 0, by at, then entry
	done  []cache.MSHREntry // due's answer, kept to reuse its array
}

// unknownFills is the fills of an MSHR table of n free entries.
func unknownFills(n int) fillTimes {
	return fillTimes{at: slices.Repeat([]int64{-1}, n), order: make([]cache.MSHREntry, 0, n),
		done: make([]cache.MSHREntry, 0, n)}
}

// set records that entry ent has its data back at t, or -1: not known.
func (f *fillTimes) set(ent cache.MSHREntry, t int64) {
	if f.at[ent] >= 0 {
		f.drop(ent)
	}
	f.at[ent] = t
	if t < 0 {
		return
	}
	o := append(f.order, ent)
	i := len(o) - 1
	for ; i > 0 && f.after(o[i-1], t, ent); i-- {
		o[i] = o[i-1]
	}
	o[i] = ent
	f.order = o
}

// after says that entry e comes after entry ent back at t.
func (f *fillTimes) after(e cache.MSHREntry, t int64, ent cache.MSHREntry) bool {
	return f.at[e] > t || f.at[e] == t && e > ent
}

// drop takes ent out of the order.
func (f *fillTimes) drop(ent cache.MSHREntry) {
	i := slices.Index(f.order, ent)
	f.order = slices.Delete(f.order, i, i+1)
}

// due takes the entries whose data is back by t out of the order, marks
// their fills unknown and returns them in the order of their index, as a
// scan of every entry would meet them. The slice is valid until the next
// call.
func (f *fillTimes) due(t int64) []cache.MSHREntry {
	n := 0
	for n < len(f.order) && f.at[f.order[n]] <= t {
		n++
	}
	d := append(f.done[:0], f.order[:n]...)
	for _, ent := range d {
		f.at[ent] = -1
	}
	f.order = f.order[:copy(f.order, f.order[n:])]
	for i := 1; i < len(d); i++ { // a few at a time: insertion sort
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	f.done = d
	return d
}

// first is the earliest known fill, or never.
func (f *fillTimes) first() int64 {
	if len(f.order) == 0 {
		return never
	}
	return f.at[f.order[0]]
}
