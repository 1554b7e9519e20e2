package coalesce

import (
	"fmt"
	"testing"
)

// base is the address of lane 0's word in the patterns below: aligned to
// far more than any segment, so offsets from it read as segment offsets.
const base = 0x10000

const all = 0xFFFFFFFF

// warpOf builds a warp whose lane l reads addr(l).
func warpOf(op Op, width int, active uint32, addr func(l int) uint64) Warp {
	w := Warp{Op: op, Width: width, Active: active}
	for l := range 32 {
		w.Addr[l] = addr(l)
	}
	return w
}

// affine is lane l at base + off + l*stride bytes.
func affine(off, stride uint64) func(int) uint64 {
	return func(l int) uint64 { return base + off + uint64(l)*stride }
}

// sizes counts transactions by size.
type sizes struct{ n32, n64, n128 int }

func (s sizes) String() string {
	return fmt.Sprintf("%d×32B+%d×64B+%d×128B", s.n32, s.n64, s.n128)
}

func countSizes(txns []Txn) sizes {
	var s sizes
	for _, t := range txns {
		switch t.Size {
		case 32:
			s.n32++
		case 64:
			s.n64++
		case 128:
			s.n128++
		}
	}
	return s
}

// pattern is one warp access pattern with the transactions each family
// makes of it, derived by hand from hardware.md §2 (reasoning in comments).
type pattern struct {
	name   string
	width  int
	active uint32
	addr   func(l int) uint64
	cc10   sizes // CC 1.0/1.1, loads and stores
	cc13   sizes // CC 1.2/1.3, loads and stores
	l1     sizes // CC20 loads on path L1, also CC30 loads on path L1
	l2     sizes // CC20 loads on path L2: 32-B segments per Fermi request
	store  sizes // CC20 stores: CC13 protocol per Fermi request
	sector sizes // 32-B per distinct sector per warp: CC30 L2 loads and stores, CC50
}

var patterns = []pattern{
	{
		// Each half-warp reads one aligned 64-B segment, word k by lane k.
		// CC13: half 0 uses chunks 0,1 of the 128-B segment → 64 B; half 1
		// chunks 2,3 → 64 B. Fermi: one 128-B line, four sectors.
		name: "unit f32", width: 4, active: all, addr: affine(0, 4),
		cc10: sizes{n64: 2}, cc13: sizes{n64: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 4}, store: sizes{n128: 1}, sector: sizes{n32: 4},
	},
	{
		// Lane k reads byte 8k: not word k → CC10 uncoalesced, 16 per half.
		// CC13: each half-warp spans one full 128-B segment.
		name: "stride 2 f32", width: 4, active: all, addr: affine(0, 8),
		cc10: sizes{n32: 32}, cc13: sizes{n128: 2},
		l1: sizes{n128: 2}, l2: sizes{n32: 8}, store: sizes{n128: 2}, sector: sizes{n32: 8},
	},
	{
		// 16-B stride: a half-warp spans 256 B = two full 128-B segments.
		name: "stride 4 f32", width: 4, active: all, addr: affine(0, 16),
		cc10: sizes{n32: 32}, cc13: sizes{n128: 4},
		l1: sizes{n128: 4}, l2: sizes{n32: 16}, store: sizes{n128: 4}, sector: sizes{n32: 16},
	},
	{
		// 32-B stride: each 128-B segment holds 4 lanes, one per chunk, so no
		// reduction; 8 segments, and one sector per lane.
		name: "stride 8 f32", width: 4, active: all, addr: affine(0, 32),
		cc10: sizes{n32: 32}, cc13: sizes{n128: 8},
		l1: sizes{n128: 8}, l2: sizes{n32: 32}, store: sizes{n128: 8}, sector: sizes{n32: 32},
	},
	{
		// 128-B stride: every lane alone in chunk 0 of its own segment →
		// 128 → 64 → 32 B; 32 lines on Fermi's L1 path.
		name: "stride 32 f32", width: 4, active: all, addr: affine(0, 128),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 32},
		l1: sizes{n128: 32}, l2: sizes{n32: 32}, store: sizes{n32: 32}, sector: sizes{n32: 32},
	},
	{
		// Every lane reads word 0. CC10: lane 1 does not read word 1 →
		// one 32-B transaction per thread. CC13: one segment per half-warp,
		// only chunk 0 → 32 B each.
		name: "broadcast f32", width: 4, active: all, addr: affine(0, 0),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 1}, store: sizes{n32: 1}, sector: sizes{n32: 1},
	},
	{
		// Lane l reads word 31-l: a permutation of one 128-B segment.
		// CC10: lane 0 reads word 31, out of sequence. CC13: half 0 reads
		// words 31..16 (chunks 2,3 → 64 B at +64), half 1 words 15..0.
		name: "reverse f32", width: 4, active: all, addr: func(l int) uint64 { return base + 4*uint64(31-l) },
		cc10: sizes{n32: 32}, cc13: sizes{n64: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 4}, store: sizes{n128: 1}, sector: sizes{n32: 4},
	},
	{
		// Lanes swap words in pairs inside each 64-B half-warp segment:
		// CC10 needs lane k at word k → uncoalesced; CC13 does not care.
		name: "pair swap f32", width: 4, active: all, addr: func(l int) uint64 { return base + 4*uint64(l^1) },
		cc10: sizes{n32: 32}, cc13: sizes{n64: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 4}, store: sizes{n128: 1}, sector: sizes{n32: 4},
	},
	{
		// Unit stride shifted by 4 B: the warp covers [4, 132).
		// CC10: word 0 at +4 is not 64-B aligned → 16 + 16 per-thread.
		// CC13 half 0 covers [4, 68): chunks 0,1,2 of segment 0 → 128 B.
		// Half 1 covers [68, 132): lanes 16-30 in chunks 2,3 of segment 0
		// (upper half only → 64 B at +64), lane 31 alone in chunk 0 of
		// segment 128 → 32 B. Fermi L1: lines 0 and 128. 32-B: sectors
		// 0, 32, 64, 96, 128. Store, one warp request: segment 0 all four
		// chunks → 128 B; segment 128 chunk 0 → 32 B.
		name: "misaligned unit f32", width: 4, active: all, addr: affine(4, 4),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 1, n64: 1, n128: 1},
		l1: sizes{n128: 2}, l2: sizes{n32: 5}, store: sizes{n32: 1, n128: 1}, sector: sizes{n32: 5},
	},
	{
		// 8-byte words, unit stride: each half-warp reads one aligned 128-B
		// segment in order. Fermi splits into two half-warp requests, each
		// one line / four sectors.
		name: "unit f64", width: 8, active: all, addr: affine(0, 8),
		cc10: sizes{n128: 2}, cc13: sizes{n128: 2},
		l1: sizes{n128: 2}, l2: sizes{n32: 8}, store: sizes{n128: 2}, sector: sizes{n32: 8},
	},
	{
		// 16-byte words, unit stride: each half-warp reads 256 B = two
		// 128-B segments (CC10: the first 8 words in one, the last 8 in the
		// next). Fermi: four quarter-warp requests of one line each.
		name: "unit 16B", width: 16, active: all, addr: affine(0, 16),
		cc10: sizes{n128: 4}, cc13: sizes{n128: 4},
		l1: sizes{n128: 4}, l2: sizes{n32: 16}, store: sizes{n128: 4}, sector: sizes{n32: 16},
	},
	{
		// Only lanes 0-7 with 16-byte words: CC10 coalesces and issues only
		// the first 128-B half (lanes 8-15 inactive). CC13: segment 0,
		// all chunks. Fermi: only quarter-warp 0 has active lanes.
		name: "16B lanes 0-7", width: 16, active: 0xFF, addr: affine(0, 16),
		cc10: sizes{n128: 1}, cc13: sizes{n128: 1},
		l1: sizes{n128: 1}, l2: sizes{n32: 4}, store: sizes{n128: 1}, sector: sizes{n32: 4},
	},
	{
		// 8-byte words, all lanes on one address. Fermi makes two half-warp
		// requests, each needing the same line (L1) or sector (L2); CC30 and
		// CC50 dedup across the whole warp.
		name: "broadcast f64", width: 8, active: all, addr: affine(0, 0),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 2},
		l1: sizes{n128: 2}, l2: sizes{n32: 2}, store: sizes{n32: 2}, sector: sizes{n32: 1},
	},
	{
		// Lanes 0-15 only: half 1 issues nothing. CC13/store: chunks 0,1 → 64.
		name: "unit f32 lanes 0-15", width: 4, active: 0xFFFF, addr: affine(0, 4),
		cc10: sizes{n64: 1}, cc13: sizes{n64: 1},
		l1: sizes{n128: 1}, l2: sizes{n32: 2}, store: sizes{n64: 1}, sector: sizes{n32: 2},
	},
	{
		// Odd lanes only: a divergent warp still coalesces on CC10. Each
		// 32-B sector holds odd lanes (lane 1 at +4, 9 at +36, 17 at +68,
		// 25 at +100), so nothing shrinks below what the full warp needs.
		name: "unit f32 odd lanes", width: 4, active: 0xAAAAAAAA, addr: affine(0, 4),
		cc10: sizes{n64: 2}, cc13: sizes{n64: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 4}, store: sizes{n128: 1}, sector: sizes{n32: 4},
	},
	{
		// Lane 5 alone at +20: CC10 coalesces (lane 5 reads word 5 of an
		// aligned 64-B segment) → 64 B. CC13: chunk 0 only → 32 B.
		name: "unit f32 lane 5", width: 4, active: 1 << 5, addr: affine(0, 4),
		cc10: sizes{n64: 1}, cc13: sizes{n32: 1},
		l1: sizes{n128: 1}, l2: sizes{n32: 1}, store: sizes{n32: 1}, sector: sizes{n32: 1},
	},
	{
		name: "no lanes", width: 4, active: 0, addr: affine(0, 4),
	},
	{
		// Bytes: CC10 never coalesces 1-byte words → 32 per-thread. CC13:
		// 32-B segments; half 0 reads [0,16), half 1 [16,32) of the same
		// segment → two 32-B transactions at the same address.
		name: "unit u8", width: 1, active: all, addr: affine(0, 1),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 1}, store: sizes{n32: 1}, sector: sizes{n32: 1},
	},
	{
		// Halfwords: CC13 64-B segments; half 0 reads [0,32) → lower half
		// → 32 B; half 1 [32,64) → 32 B at +32. The store (one warp request)
		// reads [0,64) → both halves → 64 B.
		name: "unit u16", width: 2, active: all, addr: affine(0, 2),
		cc10: sizes{n32: 32}, cc13: sizes{n32: 2},
		l1: sizes{n128: 1}, l2: sizes{n32: 2}, store: sizes{n64: 1}, sector: sizes{n32: 2},
	},
	{
		// Lane 3 alone, an 8-byte word at +28 straddling sectors 0 and 1:
		// CC10 serves it with both 32-B sectors; CC13 uses chunks 0,1 of the
		// 128-B segment → 64 B; 32-B rules need both sectors.
		name: "straddling f64", width: 8, active: 1 << 3, addr: func(int) uint64 { return base + 28 },
		cc10: sizes{n32: 2}, cc13: sizes{n64: 1},
		l1: sizes{n128: 1}, l2: sizes{n32: 2}, store: sizes{n64: 1}, sector: sizes{n32: 2},
	},
}

// config is one (rule, path, op) combination and the pattern column it
// must match.
type config struct {
	r    Rule
	path Path
	op   Op
	want func(p pattern) sizes
}

var configs = []config{
	{CC10, L1, Load, func(p pattern) sizes { return p.cc10 }},
	{CC10, L2, Store, func(p pattern) sizes { return p.cc10 }},
	{CC13, L2, Load, func(p pattern) sizes { return p.cc13 }},
	{CC13, L1, Store, func(p pattern) sizes { return p.cc13 }},
	{CC20, L1, Load, func(p pattern) sizes { return p.l1 }},
	{CC20, L2, Load, func(p pattern) sizes { return p.l2 }},
	{CC20, L1, Store, func(p pattern) sizes { return p.store }},
	{CC20, L2, Store, func(p pattern) sizes { return p.store }},
	{CC30, L2, Load, func(p pattern) sizes { return p.sector }},
	{CC30, L1, Load, func(p pattern) sizes { return p.l1 }},
	{CC30, L1, Store, func(p pattern) sizes { return p.sector }},
	{CC30, L2, Store, func(p pattern) sizes { return p.sector }},
	{CC50, L2, Load, func(p pattern) sizes { return p.sector }},
	{CC50, L1, Load, func(p pattern) sizes { return p.sector }},
	{CC50, L2, Store, func(p pattern) sizes { return p.sector }},
	{CC50, L1, Store, func(p pattern) sizes { return p.sector }},
}

func TestCoalescePatterns(t *testing.T) {
	for _, c := range configs {
		for _, p := range patterns {
			w := warpOf(c.op, p.width, p.active, p.addr)
			txns := Coalesce(c.r, c.path, &w, nil)
			if got, want := countSizes(txns), c.want(p); got != want {
				t.Errorf("Coalesce(%v, %v, %v, %s) = %v; want %v", c.r, c.path, c.op, p.name, got, want)
			}
			if err := checkWarp(c.r, c.path, &w, txns); err != nil {
				t.Errorf("Coalesce(%v, %v, %v, %s): %v", c.r, c.path, c.op, p.name, err)
			}
		}
	}
}

// TestCoalesceStrideSweep: for stride S floats, a full warp at an aligned
// base spans 128·S bytes. Lane l is in line ⌊S·l/32⌋, and as l runs over
// 0..31 that takes every value 0..S-1 (steps of S/32 ≤ 1), so Fermi's L1 path
// needs S lines. Lane l is in sector ⌊S·l/8⌋: every value 0..4S-1 when
// S ≤ 8, a distinct sector per lane when S ≥ 8, so min(4S, 32).
func TestCoalesceStrideSweep(t *testing.T) {
	for s := 1; s <= 32; s++ {
		w := warpOf(Load, 4, all, affine(0, 4*uint64(s)))
		if got := Coalesce(CC20, L1, &w, nil); countSizes(got) != (sizes{n128: s}) {
			t.Errorf("Coalesce(cc20, l1, stride=%d) = %v; want %d×128B", s, countSizes(got), s)
		}
		want := sizes{n32: min(4*s, 32)}
		for _, c := range []struct {
			r    Rule
			path Path
			op   Op
		}{{CC20, L2, Load}, {CC30, L2, Load}, {CC30, L2, Store}, {CC50, L2, Load}, {CC50, L1, Load}, {CC50, L2, Store}} {
			w.Op = c.op
			if got := countSizes(Coalesce(c.r, c.path, &w, nil)); got != want {
				t.Errorf("Coalesce(%v, %v, %v, stride=%d) = %v; want %v", c.r, c.path, c.op, s, got, want)
			}
		}
		w.Op = Load
	}
}

// pairTxns is the n transactions txn(0) to txn(n-1).
func pairTxns(n int, txn func(i int) Txn) []Txn {
	out := make([]Txn, n)
	for i := range out {
		out[i] = txn(i)
	}
	return out
}

// TestCoalesceExact pins addresses, sectors, lanes and order for cases
// worked out by hand.
func TestCoalesceExact(t *testing.T) {
	tests := []struct {
		name string
		r    Rule
		path Path
		w    Warp
		want []Txn
	}{
		{
			// See "misaligned unit f32" above. Lane l at +4+4l: half 0 touches
			// chunks 0 (+4..+28), 1 (+32..+60), 2 (+64, lane 15).
			name: "cc13 misaligned", r: CC13, path: L2,
			w: warpOf(Load, 4, all, affine(4, 4)),
			want: []Txn{
				{Addr: base, Size: 128, Sectors: 0b0111, Lanes: 0x0000FFFF},
				{Addr: base + 64, Size: 64, Sectors: 0b1100, Lanes: 0x7FFF0000},
				{Addr: base + 128, Size: 32, Sectors: 0b0001, Lanes: 0x80000000},
			},
		},
		{
			// Half-warps in lane order: half 0 reads the upper 64 B first.
			name: "cc13 reverse", r: CC13, path: L1,
			w: warpOf(Load, 4, all, func(l int) uint64 { return base + 4*uint64(31-l) }),
			want: []Txn{
				{Addr: base + 64, Size: 64, Sectors: 0b1100, Lanes: 0x0000FFFF},
				{Addr: base, Size: 64, Sectors: 0b0011, Lanes: 0xFFFF0000},
			},
		},
		{
			// Sector 0 holds lanes 0-6 (+4..+28), sector 1 lanes 7-14,
			// sector 2 lanes 15-22, sector 3 lanes 23-30, the next block's
			// sector 0 lane 31.
			name: "cc20 l2 misaligned", r: CC20, path: L2,
			w: warpOf(Load, 4, all, affine(4, 4)),
			want: []Txn{
				{Addr: base, Size: 32, Sectors: 0b0001, Lanes: 0x0000007F},
				{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 0x00007F80},
				{Addr: base + 64, Size: 32, Sectors: 0b0100, Lanes: 0x007F8000},
				{Addr: base + 96, Size: 32, Sectors: 0b1000, Lanes: 0x7F800000},
				{Addr: base + 128, Size: 32, Sectors: 0b0001, Lanes: 0x80000000},
			},
		},
		{
			name: "cc20 store misaligned", r: CC20, path: L1,
			w: warpOf(Store, 4, all, affine(4, 4)),
			want: []Txn{
				{Addr: base, Size: 128, Sectors: 0b1111, Lanes: 0x7FFFFFFF},
				{Addr: base + 128, Size: 32, Sectors: 0b0001, Lanes: 0x80000000},
			},
		},
		{
			// Quarter-warp requests, each one full line.
			name: "cc20 l1 16B", r: CC20, path: L1,
			w: warpOf(Load, 16, all, affine(0, 16)),
			want: []Txn{
				{Addr: base, Size: 128, Sectors: 0b1111, Lanes: 0x000000FF},
				{Addr: base + 128, Size: 128, Sectors: 0b1111, Lanes: 0x0000FF00},
				{Addr: base + 256, Size: 128, Sectors: 0b1111, Lanes: 0x00FF0000},
				{Addr: base + 384, Size: 128, Sectors: 0b1111, Lanes: 0xFF000000},
			},
		},
		{
			name: "cc10 16B", r: CC10, path: L2,
			w: warpOf(Load, 16, all, affine(0, 16)),
			want: []Txn{
				{Addr: base, Size: 128, Sectors: 0b1111, Lanes: 0x000000FF},
				{Addr: base + 128, Size: 128, Sectors: 0b1111, Lanes: 0x0000FF00},
				{Addr: base + 256, Size: 128, Sectors: 0b1111, Lanes: 0x00FF0000},
				{Addr: base + 384, Size: 128, Sectors: 0b1111, Lanes: 0xFF000000},
			},
		},
		{
			// Lane 5 reads word 5 (+20, sector 0) of the 64-B segment at 0.
			name: "cc10 lane 5", r: CC10, path: L1,
			w:    warpOf(Load, 4, 1<<5, affine(0, 4)),
			want: []Txn{{Addr: base, Size: 64, Sectors: 0b0001, Lanes: 1 << 5}},
		},
		{
			// Upper half-warp only, words 16..31 at +64..+124: a 64-B segment
			// aligned at +64, sectors 2 and 3.
			name: "cc10 lanes 16-31", r: CC10, path: L1,
			w:    warpOf(Load, 4, 0xFFFF0000, affine(0, 4)),
			want: []Txn{{Addr: base + 64, Size: 64, Sectors: 0b1100, Lanes: 0xFFFF0000}},
		},
		{
			// Uncoalesced: one 32-B transaction per active thread, in lane
			// order, even when they repeat a segment.
			name: "cc10 per thread", r: CC10, path: L1,
			w: warpOf(Load, 4, 0b1011, func(l int) uint64 { return base + 64 - 32*uint64(l&1) }),
			want: []Txn{
				{Addr: base + 64, Size: 32, Sectors: 0b0100, Lanes: 1 << 0},
				{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 1 << 1},
				{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 1 << 3},
			},
		},
		{
			// 32-B rules: ascending address whatever the lane order.
			name: "cc50 reverse stride 8", r: CC50, path: L1,
			w: warpOf(Load, 4, 0b111, func(l int) uint64 { return base + 32*uint64(2-l) }),
			want: []Txn{
				{Addr: base, Size: 32, Sectors: 0b0001, Lanes: 1 << 2},
				{Addr: base + 32, Size: 32, Sectors: 0b0010, Lanes: 1 << 1},
				{Addr: base + 64, Size: 32, Sectors: 0b0100, Lanes: 1 << 0},
			},
		},
		{
			// A 16-B word at +120 straddles lines 0 and 128 on Fermi's L1 path.
			name: "cc20 l1 straddling", r: CC20, path: L1,
			w: warpOf(Load, 16, 1, func(int) uint64 { return base + 120 }),
			want: []Txn{
				{Addr: base, Size: 128, Sectors: 0b1000, Lanes: 1},
				{Addr: base + 128, Size: 128, Sectors: 0b0001, Lanes: 1},
			},
		},
		{
			// A transpose's store of floats on Fermi, a 16x16 block: lane
			// l writes row l of a 1024-float row-major matrix at column 2
			// (+8), lane 16+l the same row at column 3 (+12). Each row is
			// a 128-B segment of its own that both lanes share, and step 3
			// reduces it to its first sector.
			name: "cc20 store transposed", r: CC20, path: L1,
			w: warpOf(Store, 4, all, func(l int) uint64 { return base + 4096*uint64(l%16) + 8 + 4*uint64(l/16) }),
			want: pairTxns(16, func(l int) Txn {
				return Txn{Addr: base + 4096*uint64(l), Size: 32, Sectors: 0b0001, Lanes: 1<<l | 1<<(16+l)}
			}),
		},
		{
			// The same rows walked upward (lane l at row 15-l), the
			// second half-warp 32 B on (+44 against +12): each segment
			// holds sectors 0 and 1, its lower 64 B.
			name: "cc20 store transposed upward", r: CC20, path: L2,
			w: warpOf(Store, 4, all, func(l int) uint64 { return base + 4096*uint64(15-l%16) + 12 + 32*uint64(l/16) }),
			want: pairTxns(16, func(i int) Txn {
				l := 15 - i // the lane of the i-th segment in address order
				return Txn{Addr: base + 4096*uint64(i), Size: 64, Sectors: 0b0011, Lanes: 1<<l | 1<<(16+l)}
			}),
		},
	}
	for _, tt := range tests {
		got := Coalesce(tt.r, tt.path, &tt.w, nil)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Coalesce(%s) =\n  %v\nwant\n  %v", tt.name, got, tt.want)
		}
	}
}

func TestCoalesceAppends(t *testing.T) {
	prev := Txn{Addr: 1 << 40, Size: 32, Sectors: 1, Lanes: 1}
	w := warpOf(Load, 4, all, affine(0, 4))
	got := Coalesce(CC50, L2, &w, []Txn{prev})
	if len(got) != 5 || got[0] != prev {
		t.Errorf("Coalesce(cc50, dst=[1 txn]) = %d txns starting %v; want 5 starting %v", len(got), got[0], prev)
	}
}

func TestRequests(t *testing.T) {
	tests := []struct {
		r      Rule
		path   Path
		op     Op
		width  int
		active uint32
		want   int
	}{
		{CC10, L1, Load, 4, all, 2},
		{CC10, L1, Load, 4, 0x0000FFFF, 1},
		{CC10, L1, Store, 16, 0x00010000, 1},
		{CC10, L1, Load, 4, 0, 0},
		{CC13, L2, Load, 8, 0x80000001, 2},
		{CC20, L1, Load, 4, all, 1},
		{CC20, L2, Load, 1, 1, 1},
		{CC20, L1, Load, 8, all, 2},    // two half-warp requests
		{CC20, L1, Load, 16, all, 4},   // four quarter-warp requests
		{CC20, L1, Store, 16, 0xFF, 1}, // only quarter-warp 0 active
		{CC20, L2, Load, 16, 0x01000100, 2},
		{CC30, L2, Load, 16, all, 1},
		{CC30, L1, Load, 16, all, 4},
		{CC30, L1, Store, 16, all, 1},
		{CC50, L2, Load, 4, all, 4},   // 8 lanes per tag lookup
		{CC50, L1, Load, 8, all, 8},   // 4 lanes
		{CC50, L1, Load, 16, all, 16}, // 2 lanes
		{CC50, L1, Store, 2, 1 << 9, 1},
		{CC50, L1, Load, 16, 0x55555555, 16},
		{CC50, L1, Load, 4, 0x01010101, 4},
		{CC50, L1, Load, 4, 0x000000FF, 1},
		{CC50, L1, Load, 8, 0, 0},
	}
	for _, tt := range tests {
		w := Warp{Op: tt.op, Width: tt.width, Active: tt.active}
		if got := Requests(tt.r, tt.path, &w); got != tt.want {
			t.Errorf("Requests(%v, %v, %v, width=%d, active=%#08x) = %d; want %d",
				tt.r, tt.path, tt.op, tt.width, tt.active, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, width := range []int{1, 2, 4, 8, 16} {
		w := Warp{Op: Store, Width: width}
		if err := w.Validate(); err != nil {
			t.Errorf("Warp{Width: %d}.Validate() = %v; want nil", width, err)
		}
	}
	for _, w := range []Warp{{Width: 0}, {Width: 3}, {Width: 32}, {Width: -4}, {Op: 2, Width: 4}} {
		if err := w.Validate(); err == nil {
			t.Errorf("Warp{Op: %d, Width: %d}.Validate() = nil; want an error", w.Op, w.Width)
		}
	}
}

func TestCoalescePanicsOnInvalidInput(t *testing.T) {
	for _, c := range []struct {
		r     Rule
		path  Path
		width int
	}{{0, L1, 4}, {CC50 + 1, L1, 4}, {CC13, 2, 4}, {CC20, L1, 12}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Coalesce(%v, %v, width=%d) did not panic", c.r, c.path, c.width)
				}
			}()
			w := Warp{Width: c.width, Active: 1}
			Coalesce(c.r, c.path, &w, nil)
		}()
	}
}

func TestCoalesceAllocs(t *testing.T) {
	// dst keeps exactly MaxTxns capacity: a call that outgrew it would
	// allocate on every run, not only on the warm-up run.
	dst := make([]Txn, 0, MaxTxns)
	for _, c := range configs {
		for _, p := range patterns {
			w := warpOf(c.op, p.width, p.active, p.addr)
			allocs := testing.AllocsPerRun(20, func() {
				_ = Coalesce(c.r, c.path, &w, dst[:0])
				_ = Requests(c.r, c.path, &w)
			})
			if cap(dst) != MaxTxns {
				t.Fatalf("dst capacity changed to %d", cap(dst))
			}
			if allocs != 0 {
				t.Errorf("Coalesce(%v, %v, %v, %s): %v allocations per call; want 0", c.r, c.path, c.op, p.name, allocs)
			}
		}
	}
}

func ExampleCoalesce() {
	// A warp reads consecutive floats starting 4 bytes past a 128-B
	// boundary, on a CC 1.3 device.
	w := Warp{Op: Load, Width: 4, Active: 0xFFFFFFFF}
	for l := range w.Addr {
		w.Addr[l] = 0x1000 + 4 + 4*uint64(l)
	}
	for _, t := range Coalesce(CC13, L2, &w, nil) {
		fmt.Printf("%#x %3d B sectors %04b lanes %08x\n", t.Addr, t.Size, t.Sectors, t.Lanes)
	}
	// Output:
	// 0x1000 128 B sectors 0111 lanes 0000ffff
	// 0x1040  64 B sectors 1100 lanes 7fff0000
	// 0x1080  32 B sectors 0001 lanes 80000000
}
