package coalesce

import "math/bits"

// cc10 applies the CC 1.0/1.1 rule (§2.1) to both half-warps of w.
func cc10(w *Warp, dst []Txn) []Txn {
	for lo := 0; lo < 32; lo += 16 {
		m := w.Active & (0xFFFF << lo)
		if m == 0 {
			continue
		}
		if w.Width >= 4 { // 1- and 2-byte words never coalesce
			var ok bool
			if dst, ok = cc10Coalesced(w, m, lo, dst); ok {
				continue
			}
		}
		// Uncoalesced: each active thread on its own.
		last := uint64(w.Width) - 1
		for ; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m) & 31
			dst = cc10Lane(dst, w.Addr[l], last, l)
		}
	}
	return dst
}

// cc10Halves is cc10 for a warp of 32 active lanes (width valid) whose
// half-warps each step by stride, from lo (lane 0) and hi (lane 16): the
// lanes' addresses follow from those, and none is written out. A
// half-warp coalesces when it steps by one word of 4 bytes or more from
// an aligned word 0 (cc10Coalesced); otherwise each lane is on its own.
func cc10Halves(dst []Txn, width int, lo, hi, stride uint64) []Txn {
	w := uint64(width)
	align := uint64(128)
	if w == 4 {
		align = 64
	}
	for h, a0 := range [2]uint64{lo, hi} {
		if w >= 4 && stride == w && a0&(align-1) == 0 {
			dst = cc10Full(dst, a0, w, 16*h)
			continue
		}
		for i := range 16 {
			dst = cc10Lane(dst, a0+uint64(i)*stride, w-1, 16*h+i)
		}
	}
	return dst
}

// cc10Lane appends the transactions of lane l on its own, reading the
// word at a whose last byte is a+last: 32 B per sector it touches (one,
// or two when a misaligned word straddles a sector).
func cc10Lane(dst []Txn, a, last uint64, l int) []Txn {
	first, end := a&^31, (a+last)&^31
	dst = append(dst, Txn{Addr: first, Size: 32, Sectors: sectorBit(first), Lanes: 1 << l})
	if end != first {
		dst = append(dst, Txn{Addr: end, Size: 32, Sectors: sectorBit(end), Lanes: 1 << l})
	}
	return dst
}

// cc10Full appends the transactions of a coalesced half-warp of 16 active
// lanes from lane lo, word 0 at word0 (aligned): 64 B for 4-byte words,
// 128 B for 8-byte words, and for 16-byte words one 128-B transaction for
// lanes 0-7 and one for lanes 8-15, every sector read.
func cc10Full(dst []Txn, word0, width uint64, lo int) []Txn {
	m := uint32(0xFFFF) << lo
	switch width {
	case 4:
		return append(dst, Txn{Addr: word0, Size: 64, Sectors: sectorBit(word0) * 0b11, Lanes: m})
	case 8:
		return append(dst, Txn{Addr: word0, Size: 128, Sectors: 0b1111, Lanes: m})
	}
	return append(dst,
		Txn{Addr: word0, Size: 128, Sectors: 0b1111, Lanes: 0xFF << lo},
		Txn{Addr: word0 + 128, Size: 128, Sectors: 0b1111, Lanes: 0xFF00 << lo})
}

// cc10Coalesced appends the transactions of the half-warp starting at lane
// lo with active lanes m (word size 4, 8 or 16) and reports true if it
// coalesces: every active lane k (counted from lo) reads word k, and word 0
// is aligned to 64 B for 4-byte words and to 128 B otherwise. It then makes
// 64 B for 4-byte words, 128 B for 8-byte words, and for 16-byte words one
// 128-B transaction for lanes 0-7 and one for lanes 8-15, each only if one
// of its lanes is active. Otherwise dst is returned unchanged.
func cc10Coalesced(w *Warp, m uint32, lo int, dst []Txn) ([]Txn, bool) {
	width := uint64(w.Width)
	align := uint64(128)
	if width == 4 {
		align = 64
	}
	k0 := bits.TrailingZeros32(m) & 31
	word0 := w.Addr[k0] - uint64(k0-lo)*width
	if word0&(align-1) != 0 {
		return dst, false
	}
	if m == 0xFFFF<<lo {
		// All 16 lanes: a branch-free check that they step by one word,
		// and every sector of the segment is read.
		bad, breaks := halfSteps((*[16]uint64)(w.Addr[lo&16:lo&16+16]), width)
		if bad != 0 || breaks != 0 {
			return dst, false
		}
		return cc10Full(dst, word0, width, lo), true
	}
	// A coalesced word is naturally aligned, so it lies in one sector;
	// sectors[1] collects lanes 8-15 of 16-byte words.
	var sectors [2]uint8
	split := lo + 8
	if width != 16 {
		split = 32
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		a := w.Addr[l]
		if a != word0+uint64(l-lo)*width {
			return dst, false
		}
		hi := 0
		if l >= split {
			hi = 1
		}
		sectors[hi] |= sectorBit(a)
	}
	switch width {
	case 4:
		return append(dst, Txn{Addr: word0, Size: 64, Sectors: sectors[0], Lanes: m}), true
	case 8:
		return append(dst, Txn{Addr: word0, Size: 128, Sectors: sectors[0], Lanes: m}), true
	}
	if first := m & (0xFF << lo); first != 0 {
		dst = append(dst, Txn{Addr: word0, Size: 128, Sectors: sectors[0], Lanes: first})
	}
	if second := m & (0xFF00 << lo); second != 0 {
		dst = append(dst, Txn{Addr: word0 + 128, Size: 128, Sectors: sectors[1], Lanes: second})
	}
	return dst, true
}
