package coalesce

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// affineWarp draws a warp whose active lanes read a few rows of a 2-D
// block: rows of rowLanes consecutive lanes (32 for a 1-D warp), lane l at
// base + (l / rowLanes)·pitch + (l % rowLanes)·stride. Bases have random
// alignment (mostly naturally aligned, sometimes not), strides are the
// common ones or random, and some bases sit just below 2^64.
func affineWarp(rng *rand.Rand) Warp {
	width := 1 << rng.IntN(5)
	w := Warp{Op: Op(rng.IntN(2)), Width: width}
	strides := []int64{0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 4096, 1 << 20,
		int64(width), 2 * int64(width), 3 * int64(width), 32 * int64(width)}
	stride := strides[rng.IntN(len(strides))]
	switch rng.IntN(8) {
	case 0:
		stride = int64(rng.IntN(1024)) * int64(width)
	case 1:
		stride = int64(rng.Uint64N(1 << 34)) // some beyond maxStride
	}
	if rng.IntN(3) == 0 {
		stride = -stride
	}
	base := rng.Uint64N(1<<40) << rng.IntN(8)
	switch rng.IntN(10) {
	case 0:
		base += rng.Uint64N(uint64(width)) // misaligned
	case 1:
		base = -rng.Uint64N(4096) // wraps past 2^64 for some strides
	default:
		base &^= uint64(width) - 1
	}
	rowLanes := []int{32, 32, 16, 8, 4, 2}[rng.IntN(6)]
	pitch := uint64(rng.Int64N(8192)-2048) &^ (uint64(width) - 1)
	if rng.IntN(3) == 0 {
		pitch = uint64(int64(rowLanes) * stride) // rows that continue one another
	}
	for l := range 32 {
		w.Addr[l] = base + uint64(l/rowLanes)*pitch + uint64(int64(l%rowLanes)*stride)
	}
	switch rng.IntN(6) {
	case 0, 1:
		w.Active = all
	case 2: // a contiguous run of lanes
		lo := rng.IntN(32)
		hi := lo + rng.IntN(32-lo)
		w.Active = uint32(uint64(1)<<(hi+1)-1) &^ (1<<lo - 1)
	case 3:
		w.Active = rng.Uint32()
	case 4:
		w.Active = rng.Uint32() & rng.Uint32() & rng.Uint32()
	case 5:
		w.Active = 1 << rng.IntN(32)
	}
	if rng.IntN(20) == 0 { // one lane off the progression
		w.Addr[rng.IntN(32)] += uint64(width) * rng.Uint64N(64)
	}
	return w
}

// TestAffineMatchesGather checks the affine fast path against the general
// path, transaction for transaction, for every unit size and every request
// mask the rules form (whole warp, halves, quarters, eighths).
func TestAffineMatchesGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	fast := make([]Txn, 0, MaxTxns)
	slow := make([]Txn, 0, MaxTxns)
	hits, tries := 0, 0
	for range 20000 {
		w := affineWarp(rng)
		for _, lanes := range []int{32, 16, 8, 4} {
			for lo := 0; lo < 32; lo += lanes {
				mask := w.Active & uint32((uint64(1)<<lanes-1)<<lo)
				if mask == 0 {
					continue
				}
				for _, size := range []uint64{32, 64, 128} {
					tries++
					got, ok := appendAffine(fast[:0], &w, mask, size)
					if !ok {
						if len(got) != 0 {
							t.Fatalf("appendAffine(width=%d, mask=%#08x, size=%d) declined but left %d txns",
								w.Width, mask, size, len(got))
						}
						continue
					}
					hits++
					want := appendGather(slow[:0], &w, mask, size)
					if !slices.Equal(got, want) {
						t.Fatalf("appendAffine(width=%d, mask=%#08x, size=%d, addr=%#x) =\n  %v\nappendGather =\n  %v",
							w.Width, mask, size, w.Addr, got, want)
					}
				}
			}
		}
	}
	// Most draws are affine and naturally aligned: the fast path must take
	// the bulk of them, or this test checks little.
	if hits < tries/2 {
		t.Errorf("appendAffine took %d of %d requests; want at least half", hits, tries)
	}
}

// TestAffineTakesCommonShapes pins that the shapes the fast path exists
// for do not fall back.
func TestAffineTakesCommonShapes(t *testing.T) {
	rows := func(rowLanes int, pitch, stride uint64) func(int) uint64 {
		return func(l int) uint64 { return base + uint64(l/rowLanes)*pitch + uint64(l%rowLanes)*stride }
	}
	for _, c := range []struct {
		name  string
		width int
		addr  func(int) uint64
	}{
		{"unit f32", 4, affine(0, 4)},
		{"misaligned f32", 4, affine(4, 4)},
		{"broadcast", 4, affine(0, 0)},
		{"stride 2 f64", 8, affine(0, 16)},
		{"stride 32 f32", 4, affine(0, 128)},
		{"float3", 4, affine(0, 12)},
		{"reverse f32", 4, func(l int) uint64 { return base + 4*uint64(31-l) }},
		{"16x16 block", 4, rows(16, 4096, 4)},
		{"8x4 block", 4, rows(8, 64, 4)},
		{"adjacent rows", 4, rows(16, 64, 4)},
		{"4x8 block f64", 8, rows(4, 2048, 8)},
		{"32x8 block", 4, rows(8, 4096, 4)},
		{"16x16 same row", 4, rows(16, 0, 4)},          // B[k][tx]
		{"16x16 row broadcasts", 4, rows(16, 1024, 0)}, // A[ty][k]
		{"32x8 same row", 4, rows(8, 0, 4)},
		{"descending rows", 4, rows(16, 1<<64-4096, 4)},
		{"overlapping rows", 4, rows(8, 8, 4)},
		{"descending broadcasts", 8, rows(4, 1<<64-64, 0)},
	} {
		w := warpOf(Load, c.width, all, c.addr)
		for _, size := range []uint64{32, 64, 128} {
			if _, ok := appendAffine(nil, &w, all, size); !ok {
				t.Errorf("appendAffine(%s, size=%d) declined; want the fast path", c.name, size)
			}
		}
	}
}

// referenceCoalesce is the rules of doc.go written out with maps and
// sorting, one request at a time, as an exact oracle for Coalesce.
func referenceCoalesce(r Rule, path Path, w *Warp) []Txn {
	var out []Txn
	n := requestLanes(r, path, w)
	for lo := 0; lo < 32; lo += n {
		var lanes []int
		for l := lo; l < lo+n; l++ {
			if w.Active&(1<<l) != 0 {
				lanes = append(lanes, l)
			}
		}
		if len(lanes) == 0 {
			continue
		}
		switch {
		case r == CC10:
			out = append(out, referenceCC10(w, lo, lanes)...)
		case r == CC13 || (r == CC20 && w.Op == Store):
			units := referenceUnits(w, lanes, cc13Segment(w.Width))
			reduce(units)
			out = append(out, units...)
		case (r == CC20 || r == CC30) && w.Op == Load && path == L1:
			out = append(out, referenceUnits(w, lanes, 128)...)
		default:
			out = append(out, referenceUnits(w, lanes, 32)...)
		}
	}
	return out
}

// referenceUnits is one transaction per size-aligned unit holding a byte
// of a lane, ascending, with the lanes and 32-B sectors that touch it.
func referenceUnits(w *Warp, lanes []int, size uint64) []Txn {
	units := map[uint64]*Txn{}
	for _, l := range lanes {
		for b := range uint64(w.Width) {
			x := w.Addr[l] + b
			u := x &^ (size - 1)
			if units[u] == nil {
				units[u] = &Txn{Addr: u, Size: uint32(size)}
			}
			units[u].Lanes |= 1 << l
			units[u].Sectors |= 1 << ((x >> 5) & 3)
		}
	}
	var out []Txn
	for _, t := range units {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Txn) int { return cmp.Compare(a.Addr, b.Addr) })
	return out
}

// referenceCC10 is §2.1 for one half-warp starting at lane lo.
func referenceCC10(w *Warp, lo int, lanes []int) []Txn {
	word := uint64(w.Width)
	word0 := w.Addr[lanes[0]] - uint64(lanes[0]-lo)*word
	ok := w.Width >= 4 && word0%min(4*word*4, 128) == 0 // 64 B for 4-byte words, else 128 B
	for _, l := range lanes {
		ok = ok && w.Addr[l] == word0+uint64(l-lo)*word
	}
	var out []Txn
	if !ok {
		// One 32-B transaction per sector of each lane, in lane order and,
		// for a straddling lane, first sector first (even past 2^64).
		for _, l := range lanes {
			first, end := w.Addr[l]&^31, (w.Addr[l]+word-1)&^31
			out = append(out, Txn{Addr: first, Size: 32, Sectors: 1 << ((first >> 5) & 3), Lanes: 1 << l})
			if end != first {
				out = append(out, Txn{Addr: end, Size: 32, Sectors: 1 << ((end >> 5) & 3), Lanes: 1 << l})
			}
		}
		return out
	}
	if w.Width != 16 {
		t := referenceUnits(w, lanes, 256)[0] // the sectors of the one segment
		t.Addr, t.Size = word0, uint32(16*word)
		return []Txn{t}
	}
	for h := range 2 {
		var half []int
		for _, l := range lanes {
			if (l-lo)/8 == h {
				half = append(half, l)
			}
		}
		if len(half) > 0 {
			out = append(out, referenceUnits(w, half, 128)...)
		}
	}
	return out
}

// TestCoalesceMatchesReference compares Coalesce, fast paths included,
// with the map-and-sort oracle on affine, block and scattered warps, for
// every rule, path and op.
func TestCoalesceMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	dst := make([]Txn, 0, MaxTxns)
	for i := range 6000 {
		var w Warp
		if i%4 == 3 {
			w = randomWarp(rng, rng.Uint32(), uint8(rng.IntN(5)), uint8(rng.IntN(256)),
				rng.Uint64N(1<<40), rng.Int64N(300)-100)
		} else {
			w = affineWarp(rng)
		}
		for r := CC10; r <= CC50; r++ {
			for _, path := range []Path{L1, L2} {
				got := Coalesce(r, path, &w, dst[:0])
				want := referenceCoalesce(r, path, &w)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("Coalesce(%v, %v, %v, width=%d, active=%#08x, addr=%#x) =\n  %v\nthe reference gives\n  %v",
						r, path, w.Op, w.Width, w.Active, w.Addr, got, want)
				}
			}
		}
	}
}

// TestReferenceCC10Sectors keeps the oracle honest on a case worked by
// hand: 4-byte words 0..15 at an aligned 64-B segment use sectors 0 and 1.
func TestReferenceCC10Sectors(t *testing.T) {
	w := warpOf(Load, 4, 0xFFFF, affine(0, 4))
	got := referenceCoalesce(CC10, L1, &w)
	want := []Txn{{Addr: base, Size: 64, Sectors: 0b0011, Lanes: 0xFFFF}}
	if !slices.Equal(got, want) {
		t.Errorf("referenceCoalesce(cc10, unit f32 half) = %v; want %v", got, want)
	}
	if n := bits.OnesCount8(got[0].Sectors); n != 2 {
		t.Errorf("sectors %04b: %d; want 2", got[0].Sectors, n)
	}
}

// rowBlockWarp draws a warp that spans 2, 4 or 8 rows of a 2-D block
// (rows of 16, 8 or 4 consecutive lanes), every row a progression of one
// common stride from its own base: identical rows (every row reads the
// same words), overlapping rows, rows in ascending or descending address
// order, rows at scattered bases, with random alignment and active masks.
func rowBlockWarp(rng *rand.Rand) Warp {
	width := []int{4, 4, 8, 8, 16, 2, 1}[rng.IntN(7)]
	w := Warp{Op: Op(rng.IntN(2)), Width: width}
	wd := int64(width)
	strides := []int64{0, 0, wd, wd, 2 * wd, 4 * wd, 8 * wd, 32 * wd, 3 * wd, 12, 64, 256, 4096}
	stride := strides[rng.IntN(len(strides))] &^ (wd - 1)
	switch rng.IntN(6) {
	case 0:
		stride = int64(rng.IntN(512)) * wd
	case 1:
		stride = -stride
	}
	rowLanes := []int{16, 8, 4}[rng.IntN(3)]
	rows := 32 / rowLanes
	base := rng.Uint64N(1<<40) << rng.IntN(8) &^ (uint64(width) - 1)
	if rng.IntN(20) == 0 {
		base = -uint64(rng.IntN(1024)) &^ (uint64(width) - 1) // near 2^64
	}
	var rowBase [8]uint64
	var pitch int64
	switch rng.IntN(6) {
	case 0: // identical rows
	case 1: // overlapping rows, a few words apart
		pitch = (rng.Int64N(9) - 4) * wd
	case 2: // rows that continue one another
		pitch = int64(rowLanes) * stride
	case 3, 4: // the rows of a matrix, ascending or descending
		pitch = (rng.Int64N(8193) - 4096) &^ (wd - 1)
	case 5: // scattered rows
		pitch = -1
	}
	for r := range rows {
		rowBase[r] = base + uint64(int64(r)*pitch)
		if pitch == -1 {
			rowBase[r] = base + rng.Uint64N(1024)&^(uint64(width)-1)
		}
	}
	if rng.IntN(12) == 0 { // one row misaligned
		rowBase[rng.IntN(rows)] += 1 + rng.Uint64N(uint64(width))
	}
	for l := range 32 {
		w.Addr[l] = rowBase[l/rowLanes] + uint64(int64(l%rowLanes)*stride)
	}
	switch rng.IntN(8) {
	case 0, 1, 2:
		w.Active = all
	case 3: // whole rows
		for r := range rows {
			if rng.IntN(3) != 0 {
				w.Active |= (1<<rowLanes - 1) << (r * rowLanes)
			}
		}
	case 4: // a contiguous run of lanes
		lo := rng.IntN(32)
		hi := lo + rng.IntN(32-lo)
		w.Active = uint32(uint64(1)<<(hi+1)-1) &^ (1<<lo - 1)
	case 5:
		w.Active = rng.Uint32()
	case 6:
		w.Active = all &^ (1 << rng.IntN(32))
	case 7:
		w.Active = rng.Uint32() | rng.Uint32()
	}
	if rng.IntN(30) == 0 { // one lane off its row's progression
		w.Addr[rng.IntN(32)] += uint64(width) * (1 + rng.Uint64N(64))
	}
	return w
}

// TestRowBlocksMatchGather checks the affine path on warps that span
// several rows against the general path, transaction for transaction, for
// every request mask the rules form and every unit size, and checks that
// the shapes it exists for do not fall back.
func TestRowBlocksMatchGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	fast := make([]Txn, 0, MaxTxns)
	slow := make([]Txn, 0, MaxTxns)
	for range 30000 {
		w := rowBlockWarp(rng)
		for _, lanes := range []int{32, 16, 8, 4} {
			for lo := 0; lo < 32; lo += lanes {
				mask := w.Active & uint32((uint64(1)<<lanes-1)<<lo)
				if mask == 0 {
					continue
				}
				for _, size := range []uint64{32, 64, 128} {
					got, ok := appendAffine(fast[:0], &w, mask, size)
					if !ok {
						if len(got) != 0 {
							t.Fatalf("appendAffine(width=%d, mask=%#08x, size=%d) declined but left %d txns",
								w.Width, mask, size, len(got))
						}
						if mustTakeRows(&w, mask) {
							t.Fatalf("appendAffine(width=%d, mask=%#08x, size=%d, addr=%#x) declined a block of rows; want the fast path",
								w.Width, mask, size, w.Addr)
						}
						continue
					}
					want := appendGather(slow[:0], &w, mask, size)
					if !slices.Equal(got, want) {
						t.Fatalf("appendAffine(width=%d, mask=%#08x, size=%d, addr=%#x) =\n  %v\nappendGather =\n  %v",
							w.Width, mask, size, w.Addr, got, want)
					}
				}
			}
		}
	}
}

// mustTakeRows reports whether the lanes of mask are one stretch of
// consecutive lanes whose rows of 4 (counted from lane 0) step by one
// stride from naturally aligned bases, far enough below 2^64 not to wrap.
// The stride is the one the first two active lanes show, as appendAffine
// takes it, so the first row must hold two active lanes.
func mustTakeRows(w *Warp, mask uint32) bool {
	f, g := bits.TrailingZeros32(mask), 31-bits.LeadingZeros32(mask)
	if mask != uint32(uint64(1)<<(g+1)-1)&^(1<<f-1) || g == f || (f+1)%4 == 0 {
		return false
	}
	width := uint64(w.Width)
	d := int64(w.Addr[f+1] - w.Addr[f])
	if d <= -1<<31 || d >= 1<<31 {
		return false
	}
	for l := f; l <= g; l++ {
		a := w.Addr[l]
		if a%width != 0 || a > 1<<62 {
			return false
		}
		if l > f && l%4 != 0 && int64(a-w.Addr[l-1]) != d {
			return false
		}
	}
	return true
}

// TestRowBlocksMatchReference runs whole warps of several rows through
// Coalesce and the map-and-sort oracle, for every rule, path and op.
func TestRowBlocksMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dst := make([]Txn, 0, MaxTxns)
	for range 3000 {
		w := rowBlockWarp(rng)
		for r := CC10; r <= CC50; r++ {
			for _, path := range []Path{L1, L2} {
				got := Coalesce(r, path, &w, dst[:0])
				want := referenceCoalesce(r, path, &w)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("Coalesce(%v, %v, %v, width=%d, active=%#08x, addr=%#x) =\n  %v\nthe reference gives\n  %v",
						r, path, w.Op, w.Width, w.Active, w.Addr, got, want)
				}
			}
		}
	}
}

// TestRowBlockTxns pins the merged transactions of warps spanning several
// rows, worked by hand from the addresses.
func TestRowBlockTxns(t *testing.T) {
	rows := func(rowLanes int, pitch, stride uint64) func(int) uint64 {
		return func(l int) uint64 { return base + uint64(l/rowLanes)*pitch + uint64(l%rowLanes)*stride }
	}
	for _, c := range []struct {
		name string
		addr func(int) uint64
		size uint64
		want []Txn
	}{
		// Both half-warps read the 64 B at base: sector 0 serves lanes
		// 0-7 of each row, sector 1 lanes 8-15.
		{"same row", rows(16, 0, 4), 32, []Txn{
			{Addr: base, Size: 32, Sectors: 0b0001, Lanes: 0x00FF00FF},
			{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 0xFF00FF00},
		}},
		{"row broadcasts", rows(16, 1024, 0), 128, []Txn{
			{Addr: base, Size: 128, Sectors: 0b0001, Lanes: 0x0000FFFF},
			{Addr: base + 1024, Size: 128, Sectors: 0b0001, Lanes: 0xFFFF0000},
		}},
		// The second row lies 4096 B below the first: it comes first.
		{"descending rows", rows(16, 1<<64-4096, 4), 128, []Txn{
			{Addr: base - 4096, Size: 128, Sectors: 0b0011, Lanes: 0xFFFF0000},
			{Addr: base, Size: 128, Sectors: 0b0011, Lanes: 0x0000FFFF},
		}},
		// matmul's B[k][tx] through Fermi's L1: both rows in the 64 B at
		// base, sectors 0 and 1 of one line.
		{"same row, one line", rows(16, 0, 4), 128, []Txn{
			{Addr: base, Size: 128, Sectors: 0b0011, Lanes: all},
		}},
		// Two rows of 64 B that fill one line between them.
		{"row pair, one line", rows(16, 64, 4), 128, []Txn{
			{Addr: base, Size: 128, Sectors: 0b1111, Lanes: all},
		}},
		// The first row in the upper half of the line, the second in the
		// lower half.
		{"row pair reversed, one line", func(l int) uint64 { return base + 64 - uint64(l/16)*64 + 4*uint64(l%16) }, 128, []Txn{
			{Addr: base, Size: 128, Sectors: 0b1111, Lanes: all},
		}},
		// The second row's word 128 B below the first's: the line below.
		{"descending row broadcasts", rows(16, 1<<64-128, 0), 128, []Txn{
			{Addr: base - 128, Size: 128, Sectors: 0b0001, Lanes: 0xFFFF0000},
			{Addr: base, Size: 128, Sectors: 0b0001, Lanes: 0x0000FFFF},
		}},
		// Each row reads base+60 down to base: sectors 1 and 0.
		{"same row descending, one line", func(l int) uint64 { return base + 60 - 4*uint64(l%16) }, 128, []Txn{
			{Addr: base, Size: 128, Sectors: 0b0011, Lanes: all},
		}},
		// Rows of 8 lanes 8 B apart: row r's lane j at base+8r+4j is in
		// sector 0 while 8r+4j < 32: j < 8, 6, 4, 2 for r = 0..3.
		{"overlapping rows", rows(8, 8, 4), 32, []Txn{
			{Addr: base, Size: 32, Sectors: 0b0001, Lanes: 0x030F3FFF},
			{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 0xFCF0C000},
		}},
	} {
		w := warpOf(Load, 4, all, c.addr)
		got, ok := appendAffine(nil, &w, all, c.size)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("appendAffine(%s, size=%d) = %v, %v; want %v, true", c.name, c.size, got, ok, c.want)
		}
	}
}

// TestHalfWarpRowsMatchGather checks appendAffine against the general
// path on whole warps whose half-warps are each one progression of a
// common small stride: the shapes that one unit per half-warp serves,
// drawn with bases next to unit boundaries and next to 2^64, strides of
// either sign, and second rows equal to, next to, overlapping or far
// from the first.
func TestHalfWarpRowsMatchGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	fast := make([]Txn, 0, MaxTxns)
	slow := make([]Txn, 0, MaxTxns)
	for range 20000 {
		width := 1 << rng.IntN(5)
		d := int64(rng.IntN(5)-2) * int64(width) * int64(1+rng.IntN(2))
		base0 := uint64(0x10000 + 128*rng.IntN(4) + width*rng.IntN(128/width))
		if rng.IntN(8) == 0 {
			base0 = -uint64(width * (1 + rng.IntN(64)))
		}
		var base1 uint64
		switch rng.IntN(5) {
		case 0:
			base1 = base0
		case 1:
			base1 = base0 + uint64(16*d)
		case 2:
			base1 = base0 + uint64(width*(rng.IntN(64)-32))
		case 3:
			base1 = base0 - uint64(128*rng.IntN(8))
		default:
			base1 = base0 + uint64(128*rng.IntN(8)) + uint64(width*rng.IntN(4))
		}
		if rng.IntN(16) == 0 {
			base1++ // misaligned second row
		}
		w := Warp{Width: width, Active: all}
		for l := range 16 {
			w.Addr[l] = base0 + uint64(int64(l)*d)
			w.Addr[16+l] = base1 + uint64(int64(l)*d)
		}
		for _, size := range []uint64{32, 64, 128} {
			got, ok := appendAffine(fast[:0], &w, all, size)
			want := appendGather(slow[:0], &w, all, size)
			if ok && !slices.Equal(got, want) {
				t.Fatalf("appendAffine(width=%d, size=%d, addr=%#x) =\n  %v\nappendGather =\n  %v",
					width, size, w.Addr, got, want)
			}
			if !ok && len(got) != 0 {
				t.Fatalf("appendAffine(width=%d, size=%d) declined but left %d txns", width, size, len(got))
			}
		}
	}
}
