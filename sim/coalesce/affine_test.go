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
	} {
		w := warpOf(Load, c.width, all, c.addr)
		for _, size := range []uint64{32, 128} {
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
