package cache

import (
	"errors"
	"fmt"
)

// MSHREntry names one entry of an MSHR table: an index in [0, Entries()),
// stable from Allocate to Release, so a caller may keep per-entry data
// (such as the cycle the fill returns) in a parallel slice.
type MSHREntry int

// MSHR is a miss status holding register table: a fixed number of
// entries, each tracking one outstanding line and up to a fixed number of
// requests waiting for it (the request that allocated the entry counts as
// the first, as in GPGPU-Sim's mshr_table). Each request carries a caller
// token (a warp, a reference id, whatever the caller needs to wake).
// Lookup goes through an open-addressed index of the tracked lines, so it
// costs the same for a table of 8 entries or of 256. A table may be held
// by value, copied from NewMSHR's before its first use (the copy is then
// the table; the original must not be used).
type MSHR struct {
	merges int
	lines  []uint64
	counts []int // requests held; 0 for a free entry
	// tokens holds merges per entry, entry e's from e*merges. It grows
	// as entries are first handed out (lowest first), so a large table
	// that a launch barely uses costs little: a100's L1 holds 512 × 64
	// tokens, 256 KiB on each of 108 SMs, built again for every launch.
	tokens []uint64
	free   []MSHREntry
	// index maps a tracked line to entry+1 (0: empty slot); linear
	// probing, deletion by backward shift; len is a power of two at least
	// four times the entries.
	index []int32
	mask  uint64
}

// NewMSHR builds an empty table of entries entries holding up to merges
// requests each.
func NewMSHR(entries, merges int) (*MSHR, error) {
	var errs []error
	if entries < 1 {
		errs = append(errs, fmt.Errorf("mshr entries = %d; want at least 1", entries))
	}
	if merges < 1 {
		errs = append(errs, fmt.Errorf("mshr merges = %d; want at least 1 (the request that allocates an entry counts)", merges))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	m := &MSHR{
		merges: merges,
		lines:  make([]uint64, entries),
		counts: make([]int, entries),
		free:   make([]MSHREntry, entries),
	}
	n := 8
	for n < 4*entries {
		n <<= 1
	}
	m.index = make([]int32, n)
	m.mask = uint64(n - 1)
	m.Reset()
	return m, nil
}

// Reset frees every entry, to be handed out again from entry 0 up; the
// request slots made so far are kept.
func (m *MSHR) Reset() {
	clear(m.lines)
	clear(m.counts)
	clear(m.index)
	m.free = m.free[:len(m.lines)]
	for i := range m.free {
		m.free[i] = MSHREntry(len(m.lines) - 1 - i) // entry 0 is handed out first
	}
}

// Entries is the number of entries.
func (m *MSHR) Entries() int { return len(m.lines) }

// Merges is the most requests one entry holds.
func (m *MSHR) Merges() int { return m.merges }

// Used is the number of allocated entries.
func (m *MSHR) Used() int { return len(m.lines) - len(m.free) }

// Full reports whether no entry is free.
func (m *MSHR) Full() bool { return len(m.free) == 0 }

// Lookup finds the entry tracking line.
func (m *MSHR) Lookup(line uint64) (MSHREntry, bool) {
	for h := m.slot(line); ; h = (h + 1) & m.mask {
		e := m.index[h]
		if e == 0 {
			return -1, false
		}
		if m.lines[e-1] == line {
			return MSHREntry(e - 1), true
		}
	}
}

// slot is the home slot of line in the index.
func (m *MSHR) slot(line uint64) uint64 {
	return (line * 0x9E3779B97F4A7C15 >> 32) & m.mask
}

// unindex removes entry e from the index, shifting later entries of its
// probe run back so that lookups never stop early.
func (m *MSHR) unindex(e MSHREntry) {
	h := m.slot(m.lines[e])
	for m.index[h] != int32(e)+1 {
		h = (h + 1) & m.mask
	}
	for {
		m.index[h] = 0
		j := h
		for {
			j = (j + 1) & m.mask
			f := m.index[j]
			if f == 0 {
				return
			}
			home := m.slot(m.lines[f-1])
			// f may move to h if h lies cyclically in [home, j).
			if (j-home)&m.mask >= (j-h)&m.mask {
				m.index[h] = f
				h = j
				break
			}
		}
	}
}

// Allocate starts tracking line with the request token as its first
// request; it reports false when the table is full. The line must not be
// tracked already (Lookup first, then Merge).
func (m *MSHR) Allocate(line uint64, token uint64) (MSHREntry, bool) {
	if len(m.free) == 0 {
		return -1, false
	}
	// One walk of line's probe run both finds the empty slot that ends
	// it and makes sure the line is not in it, as a Lookup would.
	h := m.slot(line)
	for f := m.index[h]; f != 0; f = m.index[h] {
		if m.lines[f-1] == line {
			panic(fmt.Sprintf("cache: MSHR.Allocate(%#x): line already tracked by entry %d; Merge into it", line, f-1))
		}
		h = (h + 1) & m.mask
	}
	e := m.free[len(m.free)-1]
	m.free = m.free[:len(m.free)-1]
	m.lines[e] = line
	m.counts[e] = 1
	m.index[h] = int32(e) + 1
	base := int(e) * m.merges
	if base >= len(m.tokens) {
		m.growTokens(base + m.merges)
	}
	m.tokens[base] = token
	return e, true
}

// tokenEntries is how many entries' tokens a table holds at first.
const tokenEntries = 16

// growTokens makes room for at least need tokens: tokenEntries entries'
// worth at first, then the whole table's (a table past its first entries
// is likely used in full; doubling would leave as much again to the
// collector). A slice Requests returned before stays valid: the tokens
// it holds are copied, not changed.
func (m *MSHR) growTokens(need int) {
	n := len(m.lines) * m.merges // the whole table's
	if len(m.tokens) == 0 {
		n = min(n, max(need, tokenEntries*m.merges)) // the first entries'
	}
	m.tokens = append(m.tokens, make([]uint64, n-len(m.tokens))...)
}

// Merge adds the request token to entry e; it reports false when e
// already holds Merges requests.
func (m *MSHR) Merge(e MSHREntry, token uint64) bool {
	n := m.mustUse(e)
	if n == m.merges {
		return false
	}
	m.tokens[int(e)*m.merges+n] = token
	m.counts[e] = n + 1
	return true
}

// InUse reports whether entry e is allocated.
func (m *MSHR) InUse(e MSHREntry) bool { return e >= 0 && int(e) < len(m.counts) && m.counts[e] != 0 }

// Line is the line entry e tracks.
func (m *MSHR) Line(e MSHREntry) uint64 {
	m.mustUse(e)
	return m.lines[e]
}

// Requests are the tokens of the requests held by e, in arrival order. The
// slice aliases the table: it is valid until e is released.
func (m *MSHR) Requests(e MSHREntry) []uint64 {
	n := m.mustUse(e)
	base := int(e) * m.merges
	return m.tokens[base : base+n : base+n]
}

// Release frees entry e, typically when its line's data has returned and
// every request in Requests has been served.
func (m *MSHR) Release(e MSHREntry) {
	m.mustUse(e)
	m.unindex(e)
	m.counts[e] = 0
	m.free = append(m.free, e)
}

// mustUse is the request count of e, which must be allocated.
func (m *MSHR) mustUse(e MSHREntry) int {
	if e < 0 || int(e) >= len(m.counts) || m.counts[e] == 0 {
		panic(fmt.Sprintf("cache: MSHR entry %d is not allocated", e))
	}
	return m.counts[e]
}
