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
// any other request, and for runs whose units do not come in ascending
// address order, so that the caller can fall back to the general path; its
// output is then identical to it.
//
// Natural alignment puts each lane in exactly one 32-B sector, so the
// sectors of a run, in address order, are computable in closed form, and
// the units of a run ascend. A run whose first unit repeats the previous
// run's last one is merged into it.
func appendAffine(dst []Txn, w *Warp, mask uint32, size uint64) ([]Txn, bool) {
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
	cnt := bits.OnesCount32(mask)
	dst = slices.Grow(dst, cnt)
	u := dst[start : start+cnt]
	align := ^(size - 1)
	sz := uint32(size)
	// The common case: every lane from f to g active, one progression.
	if mask == uint32(uint64(1)<<(g+1)-1)&^(1<<f-1) && strideBreaks(&w.Addr, f, g, uint64(d)) == 0 {
		n, ok := appendRun(u, 0, w, mask, f, af, d, align, sz)
		if !ok {
			return dst[:start], false
		}
		return dst[:start+n], true
	}
	// One pass over the lanes splits them into runs, each emitted as soon
	// as the next one starts.
	n, runs := 0, 1
	r0 := f
	e := af
	for l := f; l <= g; l++ {
		if mask&(1<<l) != 0 {
			if a := w.Addr[l]; a != e {
				if runs == maxRuns || a&(width-1) != 0 {
					return dst[:start], false
				}
				var ok bool
				lanes := mask & (1<<l - 1) &^ (1<<r0 - 1)
				if n, ok = appendRun(u, n, w, lanes, r0, w.Addr[r0], d, align, sz); !ok {
					return dst[:start], false
				}
				runs++
				r0, e = l, a
			}
		}
		e += uint64(d)
	}
	n, ok := appendRun(u, n, w, mask&^(1<<r0-1), r0, w.Addr[r0], d, align, sz)
	if !ok {
		return dst[:start], false
	}
	return dst[:start+n], true
}

// strideBreaks is zero when lanes f..g of addr step by d: the OR over
// those lanes of the difference from the previous lane XOR d.
func strideBreaks(addr *[32]uint64, f, g int, d uint64) uint64 {
	var bad uint64
	l := f + 1
	for ; l+3 <= g; l += 4 {
		a0, a1, a2, a3, a4 := addr[(l-1)&31], addr[l&31], addr[(l+1)&31], addr[(l+2)&31], addr[(l+3)&31]
		bad |= ((a1 - a0) ^ d) | ((a2 - a1) ^ d) | ((a3 - a2) ^ d) | ((a4 - a3) ^ d)
	}
	for ; l <= g; l++ {
		bad |= (addr[l&31] - addr[(l-1)&31]) ^ d
	}
	return bad
}

// appendRun adds to u[:n] the units of a run: active lanes lanes, the
// lowest lane0 at address first, lane l at first + (l-lane0)·d, all
// naturally aligned. It reports false when the run wraps past 2^64 or its
// lowest unit lies below u[n-1].
func appendRun(u []Txn, n int, w *Warp, lanes uint32, lane0 int, first uint64, d int64, align uint64, sz uint32) (int, bool) {
	ad := uint64(max(d, -d))
	top := bits.Len32(lanes) - 1
	// The run's lowest address, and a check that it does not wrap past
	// 2^64 (|d| < 2^32 keeps the span exact).
	span := uint64(top-lane0) * ad
	low := first
	if d >= 0 {
		if first+span < first {
			return n, false
		}
	} else {
		low = first - span
		if low > first {
			return n, false
		}
	}
	if n > 0 && low&align < u[n-1].Addr {
		return n, false
	}
	switch {
	case ad == 0:
		n = put(u, n, low&align, sz, lanes, sectorBit(low))
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
	return n, true
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
