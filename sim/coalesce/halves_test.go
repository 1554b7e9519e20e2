package coalesce

import (
	"math"
	"slices"
	"testing"
)

// TestCoalesceHalves checks CoalesceHalves against Coalesce of the same
// warp, lanes written out, over every rule, path, op and width and over
// strides and half-warp bases that land inside one unit, straddle units,
// are misaligned, or wrap past 2^64: where it answers it must give
// exactly Coalesce's transactions, and it must answer the common cases.
func TestCoalesceHalves(t *testing.T) {
	// 0x1111111111111111 is a step that 15 times over wraps to -1: its
	// lane 15 lands next to lane 0 with lanes 1 to 14 far away.
	strides := []int64{0, 1, 2, 4, 8, 12, 16, 32, 64, 96, 128, 1024, 1 << 32, 0x1111111111111111, -1, -4, -8, -16, -32, -64, -1024, -(1 << 32), math.MinInt64}
	bases := []uint64{0, 4, 8, 16, 60, 64, 124, 128, 1 << 20, 1<<20 + 4, 1<<20 + 2, 1<<20 + 1, 1<<64 - 128, 1<<64 - 4}
	deltas := []int64{0, 4, 64, 128, 256, 1024, -128, -1024, 6}
	answered := map[string]int{}
	for r := CC10; r <= CC50; r++ {
		for _, path := range []Path{L1, L2} {
			for _, op := range []Op{Load, Store} {
				for _, width := range []int{1, 2, 4, 8, 16} {
					for _, d := range strides {
						for _, lo := range bases {
							for _, delta := range deltas {
								hi := lo + uint64(delta)
								w := halvesWarp(op, width, lo, hi, uint64(d))
								want := Coalesce(r, path, &w, nil)
								got, ok := CoalesceHalves(r, path, op, width, lo, hi, uint64(d), make([]Txn, 0, MaxTxns))
								if !ok {
									continue
								}
								answered[r.String()]++
								if !slices.Equal(got, want) {
									t.Fatalf("CoalesceHalves(%v, %v, %v, width=%d, lo=%#x, hi=%#x, stride=%d) = %+v; Coalesce gives %+v",
										r, path, op, width, lo, hi, d, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
	// CC10 answers every warp (whether a half-warp coalesces, and each
	// lane's own transactions when it does not, follow from its first
	// address and its step); the others answer at least a row of 4-byte
	// words read through L2, CC13 those whose half-warps each lie in one
	// segment or whose lanes each have a segment of their own.
	if want := 2 * 2 * 5 * len(strides) * len(bases) * len(deltas); answered["cc10"] != want {
		t.Errorf("CoalesceHalves answered %d warps of rule cc10; want all %d", answered["cc10"], want)
	}
	for _, r := range []string{"cc13", "cc20", "cc30", "cc50"} {
		if answered[r] == 0 {
			t.Errorf("CoalesceHalves answered no warp of rule %s", r)
		}
	}
	// Warps worked out by hand, each of 4-byte words:
	//   - CC 1.3 (PG42 §F.3.2.2): 32 floats in a row at 0x1000 are two
	//     half-warps of 64 contiguous bytes, each in the 128-B segment at
	//     0x1000 but using only its lower or its upper half, reduced to
	//     64 B; 16 lanes reading the float at 0x2004 use one 32-B sector of
	//     their segment, reduced to 32 B, and the other half-warp's at
	//     0x2400 too;
	//   - a row of 32 floats at 0x1000 through Fermi's L1: one 128-B line,
	//     all four sectors (hardware.md §2.3);
	//   - two rows of 16 floats 1 KiB apart through L2 on Kepler: two 64-B
	//     rows, each two 32-B segments.
	for _, c := range []struct {
		name           string
		r              Rule
		path           Path
		lo, hi, stride uint64
		want           []Txn
	}{
		{"cc13, 32 floats at 0x1000", CC13, L1, 0x1000, 0x1040, 4, []Txn{
			{Addr: 0x1000, Size: 64, Sectors: 0b0011, Lanes: 0x0000FFFF},
			{Addr: 0x1040, Size: 64, Sectors: 0b1100, Lanes: 0xFFFF0000},
		}},
		{"cc13, one float per half-warp", CC13, L1, 0x2004, 0x2400, 0, []Txn{
			{Addr: 0x2000, Size: 32, Sectors: 0b0001, Lanes: 0x0000FFFF},
			{Addr: 0x2400, Size: 32, Sectors: 0b0001, Lanes: 0xFFFF0000},
		}},
		{"cc10, 32 floats at 0x1000", CC10, L1, 0x1000, 0x1040, 4, []Txn{
			{Addr: 0x1000, Size: 64, Sectors: 0b0011, Lanes: 0x0000FFFF},
			{Addr: 0x1040, Size: 64, Sectors: 0b1100, Lanes: 0xFFFF0000},
		}},
		{"cc20, l1, 32 floats at 0x1000", CC20, L1, 0x1000, 0x1040, 4, []Txn{
			{Addr: 0x1000, Size: 128, Sectors: 0xF, Lanes: 0xFFFFFFFF},
		}},
		{"cc30, l2, two rows of 16 floats", CC30, L2, 0x2000, 0x2400, 4, []Txn{
			{Addr: 0x2000, Size: 32, Sectors: 0x1, Lanes: 0x000000FF},
			{Addr: 0x2020, Size: 32, Sectors: 0x2, Lanes: 0x0000FF00},
			{Addr: 0x2400, Size: 32, Sectors: 0x1, Lanes: 0x00FF0000},
			{Addr: 0x2420, Size: 32, Sectors: 0x2, Lanes: 0xFF000000},
		}},
	} {
		got, ok := CoalesceHalves(c.r, c.path, Load, 4, c.lo, c.hi, c.stride, nil)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("CoalesceHalves(%s) = %+v, %v; want %+v, true", c.name, got, ok, c.want)
		}
	}
	// CC 1.0 (PG42 §F.3.2.1): a half-warp whose lanes all read the float
	// at 0x2004 (Ryoo's row of A) does not coalesce, so each lane is a
	// 32-B transaction of its own, 16 alike, in lane order; the other
	// half-warp's at 0x2404 too.
	var broadcast []Txn
	for l := range 32 {
		broadcast = append(broadcast, Txn{Addr: 0x2000 + 0x400*uint64(l/16), Size: 32, Sectors: 0b0001, Lanes: 1 << l})
	}
	if got, ok := CoalesceHalves(CC10, L1, Load, 4, 0x2004, 0x2404, 0, nil); !ok || !slices.Equal(got, broadcast) {
		t.Errorf("CoalesceHalves(cc10, one float per half-warp) = %+v, %v; want %+v, true", got, ok, broadcast)
	}
	// A column of floats on CC 1.3, one lane per row of 1 KiB (J14's
	// uncoalesced mapping): each lane's word is alone in its 128-B
	// segment, in one 32-B sector, so step 3 makes 16 transactions of
	// 32 B per half-warp, in ascending address order. Going down the
	// column, lane 15 holds the lowest address and comes first.
	for _, c := range []struct {
		name           string
		lo, hi, stride uint64
		lane           func(i int) int // the lane at the i-th address of a half-warp
	}{
		{"up", 0x10044, 0x20044, 1024, func(i int) int { return i }},
		{"down", 0x10044, 0x20044, -1024 & (1<<64 - 1), func(i int) int { return 15 - i }},
	} {
		var want []Txn
		for h, base := range []uint64{c.lo, c.hi} {
			for i := range 16 {
				l := c.lane(i)
				a := base + uint64(l)*c.stride
				// 0x...44 is in the third sector of its segment (bits 5-6
				// of 0x44 are 0b10); a 1-KiB step keeps it there.
				want = append(want, Txn{Addr: a &^ 31, Size: 32, Sectors: 0b0100, Lanes: 1 << (16*h + l)})
			}
		}
		got, ok := CoalesceHalves(CC13, L1, Load, 4, c.lo, c.hi, c.stride, nil)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("CoalesceHalves(cc13, a column of floats, %s) = %+v, %v; want %+v, true", c.name, got, ok, want)
		}
	}
	// A transpose's store on Fermi (§F.4.2: stores as CC 1.3 forms
	// segments, over the whole warp): lane l writes the float at +8 of
	// row l of a matrix of 4-KiB rows, lane 16+l the one at +12. The two
	// share row l's 128-B segment, which step 3 reduces to its first
	// sector: 16 transactions of 32 B, each serving two lanes.
	transposed := pairTxns(16, func(l int) Txn {
		return Txn{Addr: 0x10000 + 4096*uint64(l), Size: 32, Sectors: 0b0001, Lanes: 1<<l | 1<<(16+l)}
	})
	for _, path := range []Path{L1, L2} {
		if got, ok := CoalesceHalves(CC20, path, Store, 4, 0x10008, 0x1000C, 4096, nil); !ok || !slices.Equal(got, transposed) {
			t.Errorf("CoalesceHalves(cc20, %v, a transposed store) = %+v, %v; want %+v, true", path, got, ok, transposed)
		}
	}
}

// FuzzCoalesceHalves holds CoalesceHalves to Coalesce of the same warp,
// lanes written out, for any rule, path, op, width, bases and stride:
// where it answers, the transactions must be Coalesce's exactly, and it
// must answer every CC10 warp.
func FuzzCoalesceHalves(f *testing.F) {
	f.Add(uint8(CC10), uint8(L1), uint8(Load), uint8(2), uint64(0x2004), uint64(0x2404), uint64(0))      // Ryoo's broadcast
	f.Add(uint8(CC13), uint8(L1), uint8(Load), uint8(2), uint64(0x10044), uint64(0x20044), uint64(1024)) // a column
	f.Add(uint8(CC13), uint8(L2), uint8(Store), uint8(3), uint64(1<<64-64), uint64(0), uint64(1<<64-128))
	f.Add(uint8(CC20), uint8(L1), uint8(Load), uint8(2), uint64(0x1000), uint64(0x1040), uint64(4))
	f.Fuzz(func(t *testing.T, rule, path, op, widthSel uint8, lo, hi, stride uint64) {
		r, p, o := CC10+Rule(rule%uint8(CC50-CC10+1)), Path(path%2), Op(op%2)
		width := 1 << (widthSel % 5)
		w := halvesWarp(o, width, lo, hi, stride)
		got, ok := CoalesceHalves(r, p, o, width, lo, hi, stride, make([]Txn, 0, MaxTxns))
		if !ok {
			if r == CC10 {
				t.Fatalf("CoalesceHalves(cc10, width=%d, lo=%#x, hi=%#x, stride=%#x) did not answer", width, lo, hi, stride)
			}
			return
		}
		if want := Coalesce(r, p, &w, nil); !slices.Equal(got, want) {
			t.Fatalf("CoalesceHalves(%v, %v, %v, width=%d, lo=%#x, hi=%#x, stride=%#x) = %+v; Coalesce gives %+v", r, p, o, width, lo, hi, stride, got, want)
		}
	})
}

// halvesWarp is the warp of 32 active lanes CoalesceHalves describes, its
// lanes written out: lane l at lo + l·stride and lane 16+l at
// hi + l·stride (mod 2^64).
func halvesWarp(op Op, width int, lo, hi, stride uint64) Warp {
	w := Warp{Op: op, Width: width, Active: 0xFFFFFFFF}
	for l := range uint64(16) {
		w.Addr[l] = lo + l*stride
		w.Addr[16+l] = hi + l*stride
	}
	return w
}
