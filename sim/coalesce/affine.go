package coalesce

import (
	"math/bits"
	"slices"
)

// Limits of the affine fast path. A request whose active lanes break into
// more runs, or whose stride is this large, takes the general path.
const (
	maxRuns   = 8
	maxStride = 1 << 32
)

// appendAffine is appendUnits for requests whose active lanes read
// naturally aligned words at addresses that form up to maxRuns arithmetic
// progressions of one common stride d, each over a stretch of consecutive
// lanes (a run): a row of a warp (d = 0 is a broadcast), or the rows of a
// 2-D block that a warp spans. It reports false, with dst unchanged, for
// any other request, so that the caller can fall back to the general path;
// its output is then identical to it.
//
// Natural alignment puts each lane in exactly one 32-B sector, so the
// units of a run, in address order, are computable in closed form. The
// runs' sorted unit lists are merged, a unit that two runs share becoming
// one transaction with the lanes and sectors of both.
func appendAffine(dst []Txn, w *Warp, mask uint32, size uint64) ([]Txn, bool) {
	if mask == 0xFFFFFFFF {
		return appendWarp(dst, w, size)
	}
	width := uint64(w.Width)
	f := bits.TrailingZeros32(mask) & 31
	g := (bits.Len32(mask) - 1) & 31
	af := w.Addr[f]
	if af&(width-1) != 0 {
		return dst, false
	}
	// The stride, from the first two active lanes.
	var d int64
	if rest := mask & (mask - 1); rest != 0 {
		f2 := bits.TrailingZeros32(rest) & 31
		diff := int64(w.Addr[f2] - af)
		if k := int64(f2 - f); k == 1 {
			d = diff
		} else {
			d = diff / k
			if d*k != diff {
				return dst, false
			}
		}
		if d <= -maxStride || d >= maxStride || d&int64(width-1) != 0 {
			return dst, false
		}
	}
	start := len(dst)
	// The request's units, at most one per active lane, are built in
	// u[:cnt]; u[cnt:] is scratch for a run that must be merged.
	cnt := bits.OnesCount32(mask)
	dst = slices.Grow(dst, 2*cnt)
	u := dst[start : start+2*cnt]
	align := ^(size - 1)
	sz := uint32(size)
	var n int
	var ok bool
	// The common case: every lane from f to g active, in rows of a
	// multiple of 4 lanes, each row stepping by d. The rows that start a
	// new progression (breaks) split the lanes into runs.
	if mask == uint32(uint64(1)<<(g+1)-1)&^(1<<f-1) {
		var bad uint64
		var breaks uint32
		switch mask {
		case 0x0000FFFF:
			bad, breaks = halfSteps((*[16]uint64)(w.Addr[:16]), uint64(d))
		case 0xFFFF0000:
			bad, breaks = halfSteps((*[16]uint64)(w.Addr[16:]), uint64(d))
			breaks <<= 16
		default:
			bad, breaks = laneSteps(&w.Addr, f, g, uint64(d))
		}
		if bad == 0 {
			n, ok = appendRows(u, cnt, w, mask, f, g, breaks, d, align, sz)
		} else {
			n, ok = appendSplit(u, cnt, w, mask, f, g, d, align, sz)
		}
	} else {
		n, ok = appendSplit(u, cnt, w, mask, f, g, d, align, sz)
	}
	if !ok {
		return dst[:start], false
	}
	return dst[:start+n], true
}

// appendWarp is appendAffine for a request of all 32 lanes. Its common
// case, each half-warp one progression of the stride d of lanes 0 and 1
// (a row of a warp, or the rows of a 16×16 block) that lies in one unit,
// as a row of small words does, is built on the spot; appendWarpRuns
// takes the others.
func appendWarp(dst []Txn, w *Warp, size uint64) ([]Txn, bool) {
	a := &w.Addr
	a0, a16 := a[0], a[16]
	d := a[1] - a0
	misaligned := uint64(w.Width) - 1
	if (a0|d)&misaligned != 0 || int64(d) <= -maxStride || int64(d) >= maxStride {
		return dst, false
	}
	if a[8] != a0+8*d {
		// Rows of 4 or 8 lanes, or no pattern at all: not worth the
		// full check.
		return appendWarpRuns(dst, w, size, d, 1)
	}
	bad, e0, e1 := halfProgressions(a, d)
	if bad != 0 || (a0^e0)|(a16^e1) >= size || a16&misaligned != 0 {
		return appendWarpRuns(dst, w, size, d, bad)
	}
	return appendHalfUnits(dst, a0, a16, e0, e1, size), true
}

// appendRows adds to u the units of the active lanes f..g (all of them
// active), whose rows of 4 lanes each step by d from naturally aligned
// lane f; breaks has bit l set when lane l starts a new progression. See
// appendRun for scratch. It reports false when a run is not naturally
// aligned or wraps past 2^64.
func appendRows(u []Txn, scratch int, w *Warp, mask uint32, f, g int, breaks uint32, d int64, align uint64, sz uint32) (int, bool) {
	af := w.Addr[f]
	width := uint64(w.Width)
	switch {
	case breaks == 0:
		return appendRun(u, 0, scratch, w, mask, f, af, d, align, sz)
	case d == 0:
		return appendBroadcastRows(u, w, mask, f, breaks, width, align, sz)
	}
	rep := repeatedRows(w, f, g, breaks)
	if rep == 0 {
		return appendRuns(u, scratch, w, mask, f, breaks, width, d, align, sz)
	}
	// Rows that read the same words: the first row's units, each serving
	// the same lanes of every row.
	p := bits.TrailingZeros32(breaks) & 31
	n, ok := appendRun(u, 0, scratch, w, mask&(1<<p-1), f, af, d, align, sz)
	if ok {
		for i := range u[:n] {
			u[i].Lanes *= rep
		}
	}
	return n, ok
}

// appendSplit adds to u the units of any active lanes mask of f..g, lane
// f naturally aligned, each stepping by d from the previous active lane
// except where a new run starts: one pass over the lanes splits them into
// runs, each emitted as soon as the next one starts. See appendRun for
// scratch. It reports false for more than maxRuns runs, a run that is not
// naturally aligned, or one that wraps past 2^64.
func appendSplit(u []Txn, scratch int, w *Warp, mask uint32, f, g int, d int64, align uint64, sz uint32) (int, bool) {
	width := uint64(w.Width)
	n, runs := 0, 1
	r0 := f
	e := w.Addr[f]
	for l := f; l <= g; l++ {
		if mask&(1<<l) != 0 {
			if a := w.Addr[l]; a != e {
				if runs == maxRuns || a&(width-1) != 0 {
					return 0, false
				}
				var ok bool
				lanes := mask & (1<<l - 1) &^ (1<<r0 - 1)
				if n, ok = appendRun(u, n, scratch, w, lanes, r0, w.Addr[r0], d, align, sz); !ok {
					return 0, false
				}
				runs++
				r0, e = l, a
			}
		}
		e += uint64(d)
	}
	return appendRun(u, n, scratch, w, mask&^(1<<r0-1), r0, w.Addr[r0], d, align, sz)
}

// appendHalves is appendRuns for a whole warp whose half-warps are each
// one progression of stride d from naturally aligned lane 0 at a0 (lane 16
// at a16): one run when split is false (lane 16 continues lane 15), else
// two runs of 16 lanes. u must hold 64 units. w is read as appendRun reads
// it: only for a stride that is neither 0 nor a power of two up to 32,
// and then not for half-warps whose lanes pair up in units of their own
// (pairedUnits).
func appendHalves(u []Txn, w *Warp, a0, a16, width uint64, split bool, d int64, align uint64, sz uint32) (int, bool) {
	u = u[:64]
	if !split {
		return appendRun(u, 0, 32, w, 0xFFFFFFFF, 0, a0, d, align, sz)
	}
	if a16&(width-1) != 0 {
		return 0, false
	}
	if pairedUnits(a0, a16, d, align) {
		return appendPairs(u, a0, a16, d, align, sz)
	}
	if a16 == a0 {
		// Both half-warps read the same words: the first half's units,
		// each serving the same lanes of the second.
		n, ok := appendRun(u, 0, 32, w, 0x0000FFFF, 0, a0, d, align, sz)
		for i := range u[:n] {
			u[i].Lanes *= 0x00010001
		}
		return n, ok
	}
	n, ok := appendRun(u, 0, 32, w, 0x0000FFFF, 0, a0, d, align, sz)
	if !ok {
		return 0, false
	}
	return appendRun(u, n, 32, w, 0xFFFF0000, 16, a16, d, align, sz)
}

// pairedUnits reports whether two half-warps that each step by d from
// naturally aligned a0 and a16 put lanes l and 16+l in one unit of their
// own for every l: d a nonzero multiple of the unit (every lane of a
// half in a unit of its own, at the same offset in it) and a0 and a16 in
// one unit, as the half-warps a row apart of a column-major store (a
// transpose's) are. Neither half may wrap past 2^64, where appendRun
// gives up.
func pairedUnits(a0, a16 uint64, d int64, align uint64) bool {
	if d == 0 || uint64(d)&^align != 0 || (a0^a16)&align != 0 {
		return false
	}
	span := 15 * uint64(max(d, -d))
	_, ok0 := runLow(a0, d, span)
	_, ok1 := runLow(a16, d, span)
	return ok0 && ok1
}

// appendPairs adds to u the 16 units of the half-warps that pairedUnits
// accepts, in ascending address order: lanes l and 16+l share the unit of
// a0 + l·d.
func appendPairs(u []Txn, a0, a16 uint64, d int64, align uint64, sz uint32) (int, bool) {
	u = u[:16]
	for l := range 16 {
		i := l // the unit's place in ascending order
		if d < 0 {
			i = 15 - l
		}
		step := uint64(l) * uint64(d)
		x, y := a0+step, a16+step
		u[i&15] = Txn{Addr: x & align, Size: sz, Sectors: sectorBit(x) | sectorBit(y), Lanes: 0x10001 << l}
	}
	return 16, true
}

// appendRuns adds to u the units of the runs of lanes of mask, from f on,
// that the lanes of breaks start (see appendRun for scratch). It reports
// false when a run is not naturally aligned or wraps past 2^64.
func appendRuns(u []Txn, scratch int, w *Warp, mask uint32, f int, breaks uint32, width uint64, d int64, align uint64, sz uint32) (int, bool) {
	n, r0 := 0, f
	for ; breaks != 0; breaks &= breaks - 1 {
		l := bits.TrailingZeros32(breaks) & 31
		if w.Addr[l]&(width-1) != 0 {
			return 0, false
		}
		var ok bool
		lanes := mask & (1<<l - 1) &^ (1<<r0 - 1)
		if n, ok = appendRun(u, n, scratch, w, lanes, r0, w.Addr[r0], d, align, sz); !ok {
			return 0, false
		}
		r0 = l
	}
	return appendRun(u, n, scratch, w, mask&^(1<<r0-1), r0, w.Addr[r0], d, align, sz)
}

// appendBroadcastRows is appendRuns for stride 0: every run reads one
// word, so it adds one unit, inserted in order.
func appendBroadcastRows(u []Txn, w *Warp, mask uint32, f int, breaks uint32, width, align uint64, sz uint32) (int, bool) {
	n, r0 := 0, f
	for {
		lanes := mask &^ (1<<r0 - 1)
		l := bits.TrailingZeros32(breaks) & 31
		if breaks != 0 {
			lanes &= 1<<l - 1
		}
		a := w.Addr[r0]
		if a&(width-1) != 0 {
			return 0, false
		}
		unit := a & align
		j := n
		for j > 0 && u[j-1].Addr > unit {
			j--
		}
		if j > 0 && u[j-1].Addr == unit {
			u[j-1].Lanes |= lanes
			u[j-1].Sectors |= sectorBit(a)
		} else {
			copy(u[j+1:n+1], u[j:n])
			u[j] = Txn{Addr: unit, Size: sz, Sectors: sectorBit(a), Lanes: lanes}
			n++
		}
		if breaks == 0 {
			return n, true
		}
		breaks &= breaks - 1
		r0 = l
	}
}

// repeatedRows reports, for lanes f..g split into runs by breaks (not
// zero), whether the runs are rows of one length p that all start at the
// address of lane f, and if so returns the lane mask with bits 0, p, 2p …
// (one per row), which spreads the first row's lanes over every row;
// otherwise 0.
func repeatedRows(w *Warp, f, g int, breaks uint32) uint32 {
	p := bits.TrailingZeros32(breaks) - f
	if p <= 0 || p > 16 || (g+1-f)%p != 0 {
		return 0
	}
	a := w.Addr[f&31]
	var want uint32
	rep := uint32(1)
	for r := p; r <= g-f; r += p {
		if w.Addr[(f+r)&31] != a {
			return 0
		}
		want |= 1 << (f + r)
		rep |= 1 << r
	}
	if breaks != want {
		return 0
	}
	return rep
}

// halfSteps checks the 16 lanes of half a warp against rows of 4 lanes
// stepping by d. bad is the OR, over the lanes l that do not start a row
// of 4, of (addr[l] - addr[l-1]) XOR d: zero when every row steps by d.
// breaks has bit l (4, 8 or 12) set when lane l does not step by d from
// lane l-1, that is when it starts a new progression.
func halfSteps(a *[16]uint64, d uint64) (bad uint64, breaks uint32) {
	// ^ and | bind alike in Go: every term is parenthesized.
	bad = ((a[1] - a[0]) ^ d) | ((a[2] - a[1]) ^ d) | ((a[3] - a[2]) ^ d) |
		((a[5] - a[4]) ^ d) | ((a[6] - a[5]) ^ d) | ((a[7] - a[6]) ^ d) |
		((a[9] - a[8]) ^ d) | ((a[10] - a[9]) ^ d) | ((a[11] - a[10]) ^ d) |
		((a[13] - a[12]) ^ d) | ((a[14] - a[13]) ^ d) | ((a[15] - a[14]) ^ d)
	breaks = nonzero((a[4]-a[3])^d)<<4 | nonzero((a[8]-a[7])^d)<<8 | nonzero((a[12]-a[11])^d)<<12
	return bad, breaks
}

// laneSteps is halfSteps for lanes f..g of a whole warp, rows of 4 lanes
// counted from lane 0.
func laneSteps(addr *[32]uint64, f, g int, d uint64) (bad uint64, breaks uint32) {
	for l := f + 1; l <= g; l++ {
		x := (addr[l&31] - addr[(l-1)&31]) ^ d
		if l&3 == 0 {
			breaks |= nonzero(x) << (l & 31)
		} else {
			bad |= x
		}
	}
	return bad, breaks
}

// nonzero is 1 when x is not zero, else 0, without a branch.
func nonzero(x uint64) uint32 {
	return uint32((x | -x) >> 63)
}

// appendRun adds to the sorted units u[:n] the units of a run: active
// lanes lanes, the lowest lane0 at address first, lane l at
// first + (l-lane0)·d, all naturally aligned, in ascending address
// order. A run whose lowest unit lies below u[n-1] is built in u[scratch:]
// and merged in; scratch must be at least n plus the run's lanes. It
// reports false when the run wraps past 2^64.
func appendRun(u []Txn, n, scratch int, w *Warp, lanes uint32, lane0 int, first uint64, d int64, align uint64, sz uint32) (int, bool) {
	ad := uint64(max(d, -d))
	top := bits.Len32(lanes) - 1
	low, ok := runLow(first, d, uint64(top-lane0)*ad)
	if !ok {
		return n, false
	}
	// The units are built in ascending order after u[n-1], or from
	// u[scratch] on when they must be merged.
	merge := n > 0 && low&align < u[n-1].Addr
	whole, n0 := u, n
	if merge {
		u, n = u[scratch:], 0
	}
	switch {
	case ad == 0:
		n = put(u, n, first&align, sz, lanes, sectorBit(first))
	case ad <= 32 && ad&(ad-1) == 0:
		// Lanes fall into sectors in groups of 2^k = 32/|d| consecutive
		// lanes. Number the lanes in address order (i = l, or 31-l for a
		// descending run) and let v be the address of i = 0: lane i is in
		// sector v&^31 + 32·((q+i) >> k) with q = (v&31)/|d|.
		k := 5 - bits.TrailingZeros64(ad)
		ones := uint64(1)<<(1<<k) - 1
		var v uint64
		var lo, hi int // the run's first and last lane, as i
		if d > 0 {
			v = first - uint64(lane0)*ad
			lo, hi = lane0, top
		} else {
			v = first - uint64(31-lane0)*ad
			lo, hi = 31-top, 31-lane0
		}
		q := int(v&31) >> (5 - k)
		// Group grp holds lanes i in [i0, i0+2^k), i0 = grp·2^k - q: lanes
		// [i0, …) ascending, [32-i0-2^k, …) descending, the bits of
		// ones << sh >> 32 with sh = 32+i0 or 64-i0-2^k (in 1..63).
		grp, last := (q+lo)>>k, (q+hi)>>k
		step := 1 << k
		sh := 32 + grp<<k - q
		if d < 0 {
			sh = 64 - grp<<k + q - step
			step = -step
		}
		// The open unit lives in registers until the next one starts.
		s := v&^31 + 32*uint64(grp)
		unit, ul, us := s&align, uint32(0), uint8(0)
		for ; grp <= last; grp++ {
			if m := uint32(ones<<uint(sh)>>32) & lanes; m != 0 {
				if s&align != unit {
					if ul != 0 {
						n = put(u, n, unit, sz, ul, us)
					}
					unit, ul, us = s&align, 0, 0
				}
				ul |= m
				us |= sectorBit(s)
			}
			sh += step
			s += 32
		}
		n = put(u, n, unit, sz, ul, us)
	case d > 0:
		for m := lanes; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m) & 31
			a := w.Addr[l]
			n = put(u, n, a&align, sz, 1<<l, sectorBit(a))
		}
	default:
		for m := lanes; m != 0; {
			l := (bits.Len32(m) - 1) & 31
			m &^= 1 << l
			a := w.Addr[l]
			n = put(u, n, a&align, sz, 1<<l, sectorBit(a))
		}
	}
	if merge {
		return mergeUnits(whole, n0, u[:n]), true
	}
	return n, true
}

// runLow is the lowest address of a run from first over span bytes in
// the direction of d, and false when the run wraps past 2^64 (|d| < 2^32
// keeps the span exact).
func runLow(first uint64, d int64, span uint64) (uint64, bool) {
	if d >= 0 {
		return first, first+span >= first
	}
	low := first - span
	return low, low <= first
}

// mergeUnits merges the sorted units b, which lie beyond u[:n+len(b)],
// into the sorted units u[:n], one transaction per address with the lanes
// and sectors of both, and returns the new count. It merges from the top
// down into u[:n+len(b)], which never overwrites a unit of u not yet
// read, then closes the gap that shared units leave.
func mergeUnits(u []Txn, n int, b []Txn) int {
	end := n + len(b)
	o := end
	i, j := n-1, len(b)-1
	for i >= 0 && j >= 0 {
		o--
		switch x, y := u[i].Addr, b[j].Addr; {
		case x > y:
			u[o] = u[i]
			i--
		case x < y:
			u[o] = b[j]
			j--
		default:
			t := u[i]
			t.Lanes |= b[j].Lanes
			t.Sectors |= b[j].Sectors
			u[o] = t
			i--
			j--
		}
	}
	if j >= 0 {
		o -= j + 1
		copy(u[o:], b[:j+1])
	}
	k := i + 1 // u[:k] is still in place
	copy(u[k:], u[o:end])
	return k + end - o
}

// put adds the lanes and the sector bit sector to the unit at addr: to
// u[n-1] when it is that unit, else as u[n]. It returns the new count.
func put(u []Txn, n int, addr uint64, size uint32, lanes uint32, sector uint8) int {
	if n > 0 && u[n-1].Addr == addr {
		u[n-1].Lanes |= lanes
		u[n-1].Sectors |= sector
		return n
	}
	u[n] = Txn{Addr: addr, Size: size, Sectors: sector, Lanes: lanes}
	return n + 1
}
