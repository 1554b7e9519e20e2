package coalesce

import "slices"

// appendHalfUnits adds the transactions of a whole warp whose half-warps
// each lie in one unit of the given size: lanes 0-15 between a0 and e0,
// lanes 16-31 between a16 and e1, each half a progression of one stride
// |d| < 2^32 from a naturally aligned lane.
func appendHalfUnits(dst []Txn, a0, a16, e0, e1, size uint64) []Txn {
	// Each half-warp lies in one unit. |d| < 2^32 rules out a progression
	// that wraps past 2^64 and comes back into the unit of its first lane,
	// and the 15 steps within one unit are of at most 8 bytes, so every
	// sector between a half-warp's lowest and highest address is touched.
	align := ^(size - 1)
	x0, x1 := a0&align, a16&align
	s0 := sectorSpan(min(a0, e0), max(a0, e0))
	s1 := sectorSpan(min(a16, e1), max(a16, e1))
	sz := uint32(size)
	switch {
	case x0 == x1:
		return append(dst, Txn{Addr: x0, Size: sz, Sectors: s0 | s1, Lanes: 0xFFFFFFFF})
	case x0 < x1:
		return append(dst,
			Txn{Addr: x0, Size: sz, Sectors: s0, Lanes: 0x0000FFFF},
			Txn{Addr: x1, Size: sz, Sectors: s1, Lanes: 0xFFFF0000})
	}
	return append(dst,
		Txn{Addr: x1, Size: sz, Sectors: s1, Lanes: 0xFFFF0000},
		Txn{Addr: x0, Size: sz, Sectors: s0, Lanes: 0x0000FFFF})
}

// CoalesceHalves is Coalesce for a warp of 32 active lanes whose
// half-warps each read a progression of one stride: lane l at
// lo + l·stride and lane 16+l at hi + l·stride (mod 2^64). Where the
// transactions follow from that alone (CC10, always; a rule that forms
// the units of the whole warp at once, each half-warp a run the closed
// forms cover; or CC13 with each half-warp in one segment, or each lane
// in a segment of its own) it appends exactly those Coalesce makes of the
// same warp and reports true; otherwise it reports false with dst
// unchanged, and Coalesce, given the lane addresses, decides. It is
// cc10Halves under CC10, appendSegmentHalves under CC13, AppendSegmentHalves
// for Fermi's stores (HalvesSegment), else HalvesUnit then AppendHalves.
func CoalesceHalves(r Rule, path Path, op Op, width int, lo, hi, stride uint64, dst []Txn) ([]Txn, bool) {
	if r == CC10 || r == CC13 {
		if path > L2 || op > Store || !validWidth(width) {
			return dst, false
		}
		if r == CC10 {
			return cc10Halves(dst, width, lo, hi, stride), true
		}
		return appendSegmentHalves(dst, width, lo, hi, stride)
	}
	if seg := HalvesSegment(r, path, op, width); seg != 0 {
		return AppendSegmentHalves(dst, width, seg, lo, hi, stride)
	}
	size := HalvesUnit(r, path, op, width)
	if size == 0 {
		return dst, false
	}
	return AppendHalves(dst, width, size, lo, hi, stride)
}

// HalvesUnit is the unit size in which Coalesce forms the transactions of
// a whole warp of 32 active lanes at once under rule r, path, op and
// width, or 0 where it splits the warp first (CC 1.x half-warps, Fermi's
// store segments and its requests for wide words) or the input is
// invalid. A caller with a fixed rule and path may keep it per op and
// width.
func HalvesUnit(r Rule, path Path, op Op, width int) uint64 {
	if path > L2 || op > Store || !validWidth(width) {
		return 0
	}
	switch r {
	case CC50:
		return 32
	case CC30:
		if op == Store || path == L2 {
			return 32
		}
	case CC20:
	default:
		return 0
	}
	// CC20, and CC30 loads through L1: one request for words of up to 4
	// bytes, whose loads form units of the line (L1) or segment (L2).
	if width > 4 || op == Store {
		return 0
	}
	if path == L1 {
		return 128
	}
	return 32
}

// appendSegmentHalves is CoalesceHalves under CC13 (width valid) for the
// warps whose half-warps each lie in one segment (§2.2 step 1: 32, 64 or
// 128 bytes by width): one transaction per half-warp, lower half first,
// reduced by step 3. A warp of 16 lanes reading one word, or 16 words in a
// row inside a segment, is one. So are the warps whose lanes each lie in
// a segment of their own (appendLaneSegments): a column of a row-major
// matrix, one lane per row. It reports false, and leaves dst alone, for
// any other warp.
func appendSegmentHalves(dst []Txn, width int, lo, hi, stride uint64) ([]Txn, bool) {
	w := uint64(width)
	seg := cc13Segment(width)
	// A step of a segment or more, either way (|stride| >= seg, in
	// unsigned arithmetic), gives every lane a segment of its own, and
	// bounding it first keeps the 15 steps from wrapping the last lane
	// back into the first one's segment. Inside one segment a step is at
	// most 8 bytes, so the lanes leave no sector between the first and the
	// last untouched.
	if (lo|hi|stride)&(w-1) != 0 {
		return dst, false
	}
	if stride+seg-1 >= 2*seg-1 {
		return appendLaneSegments(dst, lo, hi, stride)
	}
	e0, e1 := lo+15*stride, hi+15*stride
	if (lo^e0)|(hi^e1) >= seg {
		return dst, false // a half-warp crosses a segment, or wraps
	}
	n := len(dst)
	dst = append(dst, segmentTxn(lo, e0, w, seg, 0x0000FFFF), segmentTxn(hi, e1, w, seg, 0xFFFF0000))
	reduce(dst[n:])
	return dst, true
}

// appendLaneSegments is appendSegmentHalves for a step of a segment or
// more either way (|stride| >= seg): every lane has a segment of its
// own, and its one naturally aligned word uses one 32-B sector of it, so
// step 3 reduces each to the 32-B transaction of that sector, in
// ascending address order. It reports false, with dst unchanged, for a
// step of 2^32 or more or a half-warp that wraps past 2^64.
func appendLaneSegments(dst []Txn, lo, hi, stride uint64) ([]Txn, bool) {
	d := int64(stride)
	if d <= -maxStride || d >= maxStride {
		return dst, false
	}
	ad := uint64(max(d, -d))
	low0, ok0 := runLow(lo, d, 15*ad)
	low1, ok1 := runLow(hi, d, 15*ad)
	if !ok0 || !ok1 {
		return dst, false
	}
	dst = appendLaneRun(dst, low0, ad, d < 0, 0)
	return appendLaneRun(dst, low1, ad, d < 0, 16), true
}

// appendLaneRun appends the 32-B transactions of the 16 lanes from first
// on whose words lie ad bytes apart upward from low: lane first+i at the
// i-th address, or lane first+15-i when the lanes step down.
func appendLaneRun(dst []Txn, low, ad uint64, down bool, first int) []Txn {
	for i := range 16 {
		l := first + i
		if down {
			l = first + 15 - i
		}
		a := low + uint64(i)*ad
		dst = append(dst, Txn{Addr: a &^ 31, Size: 32, Sectors: sectorBit(a), Lanes: 1 << l})
	}
	return dst
}

// segmentTxn is the segment transaction of the lanes in mask whose words
// run from a (the first lane's) to e (the last's), in one segment of size
// seg, before reduction.
func segmentTxn(a, e, width, seg uint64, mask uint32) Txn {
	first, last := min(a, e), max(a, e)+width-1
	return Txn{Addr: a &^ (seg - 1), Size: uint32(seg), Sectors: sectorSpan(first, last), Lanes: mask}
}

// AppendHalves is CoalesceHalves given size, HalvesUnit's nonzero result
// for the rule, path, op and width.
func AppendHalves(dst []Txn, width int, size, lo, hi, stride uint64) ([]Txn, bool) {
	// appendWarp's checks, of which the progressions hold already.
	d := stride
	misaligned := uint64(width) - 1
	if (lo|d)&misaligned != 0 || int64(d) <= -maxStride || int64(d) >= maxStride {
		return dst, false
	}
	e0, e1 := lo+15*d, hi+15*d
	if (lo^e0)|(hi^e1) < size && hi&misaligned == 0 {
		return appendHalfUnits(dst, lo, hi, e0, e1, size), true
	}
	// appendWarpRuns, for progressions, is appendHalvesOf, which needs no
	// lane addresses for a stride of 0 or a power of two up to 32 bytes,
	// nor for half-warps whose lanes pair up in units of their own.
	ad := d
	if int64(d) < 0 {
		ad = -d
	}
	if (ad > 32 || ad&(ad-1) != 0) && !pairedUnits(lo, hi, int64(d), ^(size-1)) {
		return dst, false
	}
	return appendHalvesOf(dst, nil, lo, hi, e0, uint64(width), size, d)
}

// HalvesSegment is the segment size in which Coalesce forms the
// transactions of a whole warp of 32 active lanes under rule r, path, op
// and width and then reduces them as CC 1.2/1.3 does (§2.2 step 3):
// Fermi's stores of words of up to 4 bytes. It is 0 for any other
// input; HalvesUnit answers the warps formed in units without reduction.
func HalvesSegment(r Rule, path Path, op Op, width int) uint64 {
	if r != CC20 || op != Store || path > L2 || !validWidth(width) || width > 4 {
		return 0
	}
	return cc13Segment(width)
}

// AppendSegmentHalves is CoalesceHalves given seg, HalvesSegment's
// nonzero result for the rule, path, op and width: AppendHalves in
// segments of that size, reduced.
func AppendSegmentHalves(dst []Txn, width int, seg, lo, hi, stride uint64) ([]Txn, bool) {
	n := len(dst)
	dst, ok := AppendHalves(dst, width, seg, lo, hi, stride)
	if ok {
		reduce(dst[n:])
	}
	return dst, ok
}

// appendWarpRuns is appendWarp for the warps whose half-warps are not
// each one progression within one unit; bad is zero when they are each
// one progression, as halfProgressions finds. Lane 0 is naturally
// aligned, and d (lane 1's step) is in range.
func appendWarpRuns(dst []Txn, w *Warp, size, d, bad uint64) ([]Txn, bool) {
	a := &w.Addr
	if bad == 0 {
		return appendHalvesOf(dst, w, a[0], a[16], a[15], uint64(w.Width), size, d)
	}
	start := len(dst)
	dst = slices.Grow(dst, 64)
	u := dst[start : start+64]
	align := ^(size - 1)
	sz := uint32(size)
	// Rows of 4 or 8 lanes: each lane that does not start a row of 4 in
	// its half-warp must step by d from the lane before.
	var n int
	var ok bool
	b0, k0 := halfSteps((*[16]uint64)(a[:16]), d)
	b1, k1 := halfSteps((*[16]uint64)(a[16:]), d)
	if b0|b1 == 0 {
		breaks := k0 | k1<<16 | nonzero((a[16]-a[15])^d)<<16
		n, ok = appendRows(u, 32, w, 0xFFFFFFFF, 0, 31, breaks, int64(d), align, sz)
	} else {
		n, ok = appendSplit(u, 32, w, 0xFFFFFFFF, 0, 31, int64(d), align, sz)
	}
	if !ok {
		return dst[:start], false
	}
	return dst[:start+n], true
}

// appendHalvesOf adds the units of a whole warp whose half-warps are each
// one progression of stride d from naturally aligned lane 0 at a0 (lane
// 15 at e0, lane 16 at a16) through appendHalves. w is read only for a
// stride that is neither 0 nor a power of two up to 32 bytes, and may be
// nil otherwise.
func appendHalvesOf(dst []Txn, w *Warp, a0, a16, e0, width, size, d uint64) ([]Txn, bool) {
	start := len(dst)
	dst = slices.Grow(dst, 64)
	u := dst[start : start+64]
	n, ok := appendHalves(u, w, a0, a16, width, a16-e0 != d, int64(d), ^(size - 1), uint32(size))
	if !ok {
		return dst[:start], false
	}
	return dst[:start+n], true
}

// halfProgressions checks that lane l of each half-warp of a reads its
// base, a[0] or a[16], plus l·d: bad is zero if so, else it has the bits
// by which some lane misses. e0 and e1 are where lanes 15 and 31 should
// be. Each address is loaded once and compared against a register, four
// lanes a step, which keeps the additions off one long chain. ^ and |
// bind alike in Go: every term is parenthesized.
func halfProgressions(a *[32]uint64, d uint64) (bad, e0, e1 uint64) {
	d2, d3, d4 := 2*d, 3*d, 4*d
	b0, b1 := a[0], a[16]
	for i := range 4 {
		l := 4 * i
		bad |= ((a[l] ^ b0) | (a[l+1] ^ (b0 + d))) | ((a[l+2] ^ (b0 + d2)) | (a[l+3] ^ (b0 + d3))) |
			((a[l+16] ^ b1) | (a[l+17] ^ (b1 + d))) | ((a[l+18] ^ (b1 + d2)) | (a[l+19] ^ (b1 + d3)))
		b0 += d4
		b1 += d4
	}
	return bad, b0 - d, b1 - d
}

// sectorSpan is the Sectors mask of the sectors from the one holding lo
// to the one holding hi, lo <= hi in one aligned 128-B block.
func sectorSpan(lo, hi uint64) uint8 {
	return 2<<((hi>>5)&3) - 1<<((lo>>5)&3)
}
