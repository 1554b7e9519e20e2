package coalesce

import (
	"math/bits"
	"slices"
)

// Orders of the units gathered so far, which decide whether a new unit
// must be searched for among the earlier ones.
const (
	orderNone  = iota // at most one unit so far
	orderAsc          // strictly ascending addresses
	orderDesc         // strictly descending addresses
	orderMixed        // neither
)

// appendUnits appends to dst one transaction of the given size (32, 64 or
// 128) per size-aligned unit touched by the lanes in mask, in ascending
// address order, with the lanes and sectors of each: through appendAffine
// (appendWarp, without the detour, for a whole warp) where it applies,
// else through appendGather.
func appendUnits(dst []Txn, w *Warp, mask uint32, size uint64) []Txn {
	out, ok := dst, false
	if mask == 0xFFFFFFFF {
		out, ok = appendWarp(dst, w, size)
	} else {
		out, ok = appendAffine(dst, w, mask, size)
	}
	if ok {
		return out
	}
	return appendGather(dst, w, mask, size)
}

// appendGather appends to dst one transaction of the given size (32, 64 or
// 128) per size-aligned unit touched by the lanes in mask, in ascending
// address order. A lane's bytes [a, a+Width) lie in one or two 32-B sectors;
// each sector joins the unit that contains it. The transactions are built
// in place in dst, so a caller with MaxTxns spare capacity allocates
// nothing.
//
// Affine patterns touch units in monotone order, so a new unit is compared
// only with the latest one; other patterns fall back to a scan of the
// request's units (at most 64) and a final insertion sort.
func appendGather(dst []Txn, w *Warp, mask uint32, size uint64) []Txn {
	start := len(dst)
	// Each lane adds at most two units, and a warp's requests together at
	// most MaxTxns: growing by exactly that keeps a caller with MaxTxns
	// spare capacity allocation-free over all requests of a warp.
	most := 2 * bits.OnesCount32(mask)
	dst = slices.Grow(dst, most)
	u := dst[start : start+most]
	n := 0
	order := orderNone
	last := uint64(w.Width) - 1
	align := ^(size - 1)
	// u[n-1] is the open unit: its address, lanes and sectors live in
	// registers and are written back when another unit is touched, which
	// keeps the common path free of store-to-load round trips.
	var cur uint64
	var curLanes uint32
	var curSectors uint8
	// Lanes are walked by index with a predictable skip rather than by
	// popping mask bits, which chains every iteration on the previous one.
	for l, hi := bits.TrailingZeros32(mask), bits.Len32(mask); l < hi; l++ {
		lane := uint32(1) << l
		if mask&lane == 0 {
			continue
		}
		a := w.Addr[l&31]
		end := (a + last) &^ 31
		for s := a &^ 31; ; s = end {
			unit := s & align
			bit := sectorBit(s)
			switch {
			case n > 0 && unit == cur:
				curLanes |= lane
				curSectors |= bit
			case n == 0:
				u[0] = Txn{Addr: unit, Size: uint32(size)}
				n = 1
				cur, curLanes, curSectors = unit, lane, bit
			default:
				// Leaving the open unit: write it back, then place unit.
				u[n-1].Lanes, u[n-1].Sectors = curLanes, curSectors
				switch {
				case unit > cur && order <= orderAsc:
					order = orderAsc
				case unit < cur && (order == orderNone || order == orderDesc):
					order = orderDesc
				default:
					if mergeEarlier(u[:n-1], unit, lane, bit) {
						goto placed
					}
					order = orderMixed
				}
				u[n] = Txn{Addr: unit, Size: uint32(size)}
				n++
				cur, curLanes, curSectors = unit, lane, bit
			placed:
			}
			if s == end {
				break
			}
		}
	}
	if n > 0 {
		u[n-1].Lanes, u[n-1].Sectors = curLanes, curSectors
	}
	u = u[:n]
	switch order {
	case orderDesc:
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			u[i], u[j] = u[j], u[i]
		}
	case orderMixed:
		for i := 1; i < n; i++ {
			x := u[i]
			j := i
			for ; j > 0 && u[j-1].Addr > x.Addr; j-- {
				u[j] = u[j-1]
			}
			u[j] = x
		}
	}
	return dst[:start+n]
}

// mergeEarlier adds lane and bit to the unit of u at address unit, if
// there is one, and reports whether there was.
func mergeEarlier(u []Txn, unit uint64, lane uint32, bit uint8) bool {
	for i := range u {
		if u[i].Addr == unit {
			u[i].Lanes |= lane
			u[i].Sectors |= bit
			return true
		}
	}
	return false
}

// reduce applies the CC 1.2/1.3 reduction (§2.2 step 3) to segment
// transactions: a 128-B segment of which only the lower or upper half is
// used shrinks to 64 B, and a 64-B segment (original or reduced) of which
// only one half is used shrinks to 32 B.
func reduce(txns []Txn) {
	for i := range txns {
		t := &txns[i]
		if t.Size == 128 {
			switch {
			case t.Sectors&0b1100 == 0:
				t.Size = 64
			case t.Sectors&0b0011 == 0:
				t.Addr, t.Size = t.Addr+64, 64
			}
		}
		if t.Size == 64 {
			switch (t.Sectors >> ((t.Addr >> 5) & 3)) & 0b11 {
			case 0b01:
				t.Size = 32
			case 0b10:
				t.Addr, t.Size = t.Addr+32, 32
			}
		}
	}
}

// sectorBit is the Sectors bit of the 32-B sector holding addr.
func sectorBit(addr uint64) uint8 {
	return 1 << ((addr >> 5) & 3)
}
