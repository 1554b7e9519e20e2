package cache

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
)

func mustNew(t testing.TB, g Geometry) *Cache {
	t.Helper()
	c, err := New(g)
	if err != nil {
		t.Fatalf("New(%+v): %v", g, err)
	}
	return c
}

// step is one access of a hand-derived sequence and the result it must
// produce.
type step struct {
	write bool
	addr  uint64
	mask  uint32
	want  outcome
}

// outcome is everything one access reports, gathered from its Result, the
// sectors it fetches (a read's Miss) or forwards (Write's), and Victim
// when it evicted a line.
type outcome struct {
	Status      Status
	Hit         uint32
	Miss        uint32
	Fetch       uint32
	Forward     uint32
	Evicted     bool
	Victim      uint64
	VictimDirty uint32
}

func observe(c *Cache, r Result, fetch, forward uint32) outcome {
	o := outcome{Status: r.Status, Hit: r.Hit, Miss: r.Miss, Fetch: fetch, Forward: forward, Evicted: r.Evicted}
	if r.Evicted {
		o.Victim, o.VictimDirty = c.Victim()
	}
	return o
}

func read(c *Cache, addr uint64, mask uint32) outcome {
	r := c.Read(addr, mask)
	return observe(c, r, r.Miss, 0)
}

func runSteps(t *testing.T, c *Cache, steps []step) {
	t.Helper()
	for i, s := range steps {
		var got outcome
		op := "Read"
		if s.write {
			op = "Write"
			r, forward, ok := c.Write(s.addr, s.mask)
			if !ok {
				t.Fatalf("step %d: Write(%#x, %#b) refused", i, s.addr, s.mask)
			}
			got = observe(c, r, 0, forward)
		} else {
			got = read(c, s.addr, s.mask)
		}
		if got != s.want {
			t.Errorf("step %d: %s(%#x, %#b) = %+v; want %+v", i, op, s.addr, s.mask, got, s.want)
		}
	}
}

// Sectored 128-B line of four 32-B sectors; one set of two ways, so the
// eviction order is easy to follow.
var sectored = Geometry{Sets: 1, Ways: 2, LineBytes: 128, SectorBytes: 32,
	Replacement: arch.ReplaceLRU, WritePolicy: arch.WriteBack, WriteAllocate: true}

func TestSectorsWriteBack(t *testing.T) {
	c := mustNew(t, sectored)
	runSteps(t, c, []step{
		// Sector 0 of line 0x1000: line miss, allocate into an empty way.
		{addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// Byte 0x1020 is sector 1 of the same line: sector miss, no eviction.
		{addr: 0x1020, mask: 0b0010, want: outcome{Status: SectorMiss, Miss: 0b0010, Fetch: 0b0010}},
		// Both sectors are now valid.
		{addr: 0x1000, mask: 0b0011, want: outcome{Status: Hit, Hit: 0b0011}},
		// Write sector 2 (not valid): write-validate, nothing fetched or forwarded.
		{write: true, addr: 0x1040, mask: 0b0100, want: outcome{Status: SectorMiss, Miss: 0b0100}},
		// Write-allocate line 0x2000 into the second (invalid) way; write-validate
		// again: no fetch, no eviction.
		{write: true, addr: 0x2000, mask: 0b1001, want: outcome{Status: Miss, Miss: 0b1001}},
		// Line 0x3000 needs a way: LRU is 0x1000 (last used at step 3, 0x2000 at
		// step 4), which leaves with its one dirty sector (2).
		{addr: 0x3000, mask: 0b1111, want: outcome{Status: Miss, Miss: 0b1111, Fetch: 0b1111,
			Evicted: true, Victim: 0x1000, VictimDirty: 0b0100}},
		// Line 0x1000 again: it evicts 0x2000 with dirty sectors 0 and 3.
		{addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001,
			Evicted: true, Victim: 0x2000, VictimDirty: 0b1001}},
		// Line 0x4000 evicts the clean 0x3000: evicted, nothing to write back.
		{addr: 0x4000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001,
			Evicted: true, Victim: 0x3000}},
	})
}

func TestProbeAndFlush(t *testing.T) {
	c := mustNew(t, sectored)
	c.Read(0x1000, 0b0001)
	c.Write(0x1040, 0b0100)
	c.Write(0x2060, 0b1000)
	probes := []struct {
		addr         uint64
		valid, dirty uint32
	}{
		{0x1000, 0b0101, 0b0100},
		{0x107f, 0b0101, 0b0100}, // last byte of the same line
		{0x2000, 0b1000, 0b1000},
		{0x3000, 0, 0},
	}
	for _, p := range probes {
		if v, d := c.Probe(p.addr); v != p.valid || d != p.dirty {
			t.Errorf("Probe(%#x) = valid %#b dirty %#b; want %#b %#b", p.addr, v, d, p.valid, p.dirty)
		}
	}
	// Probe changed no recency: 0x1000 is still LRU and is evicted next.
	if r := read(c, 0x3000, 1); r.Victim != 0x1000 || r.VictimDirty != 0b0100 {
		t.Errorf("Read(0x3000) after probes evicted %#x dirty %#b; want 0x1000 0b100", r.Victim, r.VictimDirty)
	}
	type dirtyLine struct {
		line  uint64
		dirty uint32
	}
	var got []dirtyLine
	for line, d := range c.Dirty() {
		got = append(got, dirtyLine{line, d})
	}
	// Way 0 now holds 0x3000 (clean), way 1 holds 0x2000 (dirty sector 3).
	if len(got) != 1 || got[0] != (dirtyLine{0x2000, 0b1000}) {
		t.Errorf("Dirty() = %v; want [{0x2000 0b1000}]", got)
	}
	if v, d := c.Probe(0x2000); v != 0b1000 || d != 0b1000 {
		t.Errorf("Probe(0x2000) after Dirty = %#b %#b; want valid and dirty 0b1000", v, d)
	}
	if v, d := c.Invalidate(0x2000); v != 0b1000 || d != 0b1000 {
		t.Errorf("Invalidate(0x2000) = %#b %#b; want 0b1000 0b1000", v, d)
	}
	// One set of two ways: 0x3000 is left, the other way is free.
	if n, f := c.ValidLines(), c.FreeLines(); n != 1 || f != 1 {
		t.Errorf("ValidLines(), FreeLines() = %d, %d; want 1, 1", n, f)
	}
	c.InvalidateAll()
	if n, f := c.ValidLines(), c.FreeLines(); n != 0 || f != 2 {
		t.Errorf("ValidLines(), FreeLines() after InvalidateAll = %d, %d; want 0, 2", n, f)
	}
}

func TestWriteEvict(t *testing.T) {
	g := sectored
	g.WritePolicy, g.WriteAllocate = arch.WriteEvict, false
	c := mustNew(t, g)
	runSteps(t, c, []step{
		{addr: 0x1000, mask: 0b1111, want: outcome{Status: Miss, Miss: 0b1111, Fetch: 0b1111}},
		// A store to a present line invalidates the whole line and goes on.
		{write: true, addr: 0x1000, mask: 0b0001, want: outcome{Status: Hit, Hit: 0b0001, Forward: 0b0001,
			Evicted: true, Victim: 0x1000}},
		// A store to an absent line only goes on.
		{write: true, addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Forward: 0b0001}},
		// The line is gone.
		{addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// A store to a line with only sector 0 valid: sector miss, still evicted.
		{write: true, addr: 0x1020, mask: 0b0010, want: outcome{Status: SectorMiss, Miss: 0b0010, Forward: 0b0010,
			Evicted: true, Victim: 0x1000}},
	})
	if n := c.ValidLines(); n != 0 {
		t.Errorf("ValidLines() = %d; want 0", n)
	}
}

func TestWriteThrough(t *testing.T) {
	g := sectored
	g.WritePolicy, g.WriteAllocate = arch.WriteThrough, false
	c := mustNew(t, g)
	runSteps(t, c, []step{
		{addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// Present line: updated (sector 1 becomes valid, clean) and forwarded.
		{write: true, addr: 0x1020, mask: 0b0010, want: outcome{Status: SectorMiss, Miss: 0b0010, Forward: 0b0010}},
		{addr: 0x1000, mask: 0b0011, want: outcome{Status: Hit, Hit: 0b0011}},
		// Absent line without write-allocate: forwarded, not allocated.
		{write: true, addr: 0x2000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Forward: 0b0001}},
		{addr: 0x2000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// Both ways full (0x1000 LRU): nothing dirty ever leaves a write-through cache.
		{addr: 0x3000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001, Evicted: true, Victim: 0x1000}},
	})

	g.WriteAllocate = true
	c = mustNew(t, g)
	runSteps(t, c, []step{
		// Write-allocate, write-through: allocated clean and forwarded.
		{write: true, addr: 0x2000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Forward: 0b0001}},
		{addr: 0x2000, mask: 0b0001, want: outcome{Status: Hit, Hit: 0b0001}},
	})
	if _, d := c.Probe(0x2000); d != 0 {
		t.Errorf("write-through line dirty = %#b; want 0", d)
	}
}

func TestWriteBackNoAllocate(t *testing.T) {
	g := sectored
	g.WriteAllocate = false
	c := mustNew(t, g)
	runSteps(t, c, []step{
		// Absent: forwarded, not allocated.
		{write: true, addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Forward: 0b0001}},
		{addr: 0x1000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// Present: becomes dirty, stops here.
		{write: true, addr: 0x1000, mask: 0b0001, want: outcome{Status: Hit, Hit: 0b0001}},
		{addr: 0x2000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001}},
		// 0x1000 (used at step 2) is LRU against 0x2000 (step 3) and leaves dirty.
		{addr: 0x3000, mask: 0b0001, want: outcome{Status: Miss, Miss: 0b0001, Fetch: 0b0001,
			Evicted: true, Victim: 0x1000, VictimDirty: 0b0001}},
	})
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	g := sectored
	g.WritePolicy, g.WriteAllocate = arch.ReadOnly, false
	c := mustNew(t, g)
	c.Read(0x1000, 1)
	if r, forward, ok := c.Write(0x1000, 1); ok || r != (Result{}) || forward != 0 {
		t.Errorf("Write on read_only = %+v, %#b, %v; want zero result, 0, false", r, forward, ok)
	}
	if v, d := c.Probe(0x1000); v != 1 || d != 0 {
		t.Errorf("Probe after refused write = %#b %#b; want 1 0", v, d)
	}
}

// LRU and FIFO differ on A B A C A B in one set of two ways:
//
//	access  LRU set (MRU first)   FIFO set (newest first)
//	A       miss  [A]             miss  [A]
//	B       miss  [B A]           miss  [B A]
//	A       hit   [A B]           hit   [B A]   (a hit does not reorder FIFO)
//	C       miss  [C A] evicts B  miss  [C B]   evicts A
//	A       hit   [A C]           miss  [A C]   evicts B
//	B       miss  [B A] evicts C  miss  [B A]   evicts C
func TestFIFOVersusLRU(t *testing.T) {
	const A, B, C = 0x0000, 0x0080, 0x0100
	seq := []uint64{A, B, A, C, A, B}
	type out struct {
		status Status
		victim uint64 // meaningful when evicted
		evict  bool
	}
	cases := []struct {
		policy arch.Replacement
		want   []out
	}{
		{arch.ReplaceLRU, []out{{Miss, 0, false}, {Miss, 0, false}, {Hit, 0, false}, {Miss, B, true}, {Hit, 0, false}, {Miss, C, true}}},
		{arch.ReplaceFIFO, []out{{Miss, 0, false}, {Miss, 0, false}, {Hit, 0, false}, {Miss, A, true}, {Miss, B, true}, {Miss, C, true}}},
	}
	for _, tc := range cases {
		c := mustNew(t, Geometry{Sets: 1, Ways: 2, LineBytes: 128, Replacement: tc.policy})
		for i, a := range seq {
			r := read(c, a, 1)
			got := out{r.Status, r.Victim, r.Evicted}
			if got != tc.want[i] {
				t.Errorf("%s: access %d Read(%#x) = %v evicted=%v victim=%#x; want %v evicted=%v victim=%#x",
					tc.policy, i, a, r.Status, r.Evicted, r.Victim, tc.want[i].status, tc.want[i].evict, tc.want[i].victim)
			}
		}
	}
}

// TestVictimInvalidFirst: in a full 4-way set filled with A, B, C, D and
// then B read again (LRU order A, C, D, B), invalidating C leaves a hole;
// the next miss fills it (the first invalid way) rather than evicting A,
// the least recently used, and the miss after evicts A. Every write-evict
// hit, Invalidate and InvalidateAll makes a way invalid again.
func TestVictimInvalidFirst(t *testing.T) {
	const A, B, C, D, E, F = 0x000, 0x080, 0x100, 0x180, 0x200, 0x280
	for _, policy := range []arch.Replacement{arch.ReplaceLRU, arch.ReplaceFIFO} {
		c := mustNew(t, Geometry{Sets: 1, Ways: 4, LineBytes: 128, Replacement: policy})
		for _, a := range []uint64{A, B, C, D, B} {
			read(c, a, 1)
		}
		c.Invalidate(C)
		if r := read(c, E, 1); r.Status != Miss || r.Evicted {
			t.Errorf("%s: Read(E) after Invalidate(C) = %v evicted=%v; want a miss into C's way, nothing evicted", policy, r.Status, r.Evicted)
		}
		if r := read(c, F, 1); !r.Evicted || r.Victim != A {
			t.Errorf("%s: Read(F) evicted=%v victim=%#x; want A (%#x), the oldest", policy, r.Evicted, r.Victim, uint64(A))
		}
		c.InvalidateAll()
		for i, a := range []uint64{A, B, C, D} {
			if r := read(c, a, 1); r.Evicted {
				t.Errorf("%s: read %d after InvalidateAll evicted %#x; want an empty set", policy, i, r.Victim)
			}
		}
	}
	// A write hit under write-evict takes its line out: A's way, though
	// used after B's, is the hole the next miss fills.
	c := mustNew(t, Geometry{Sets: 1, Ways: 2, LineBytes: 128, Replacement: arch.ReplaceLRU, WritePolicy: arch.WriteEvict})
	for _, a := range []uint64{A, B, A} {
		read(c, a, 1)
	}
	c.Write(A, 1)
	if r := read(c, C, 1); r.Status != Miss || r.Evicted {
		t.Errorf("write-evict: Read(C) after writing A = %v evicted=%v victim=%#x; want a miss into A's way", r.Status, r.Evicted, r.Victim)
	}
}

// Hand-computed Fermi hash indices for 128-B lines. With lower = address bits
// 11..7 and upper = bits (19,17,15,14,13) as a 5-bit number (bit 13 lowest):
//
//	0x00080:   bit 7                  lower 1,  upper 0          -> 1
//	0x02000:   bit 13                 lower 0,  upper 1          -> 1
//	0x02080:   bits 13, 7             lower 1,  upper 1          -> 0
//	0x20000:   bit 17                 lower 0,  upper 0b01000=8  -> 8
//	0x80000:   bit 19                 lower 0,  upper 0b10000=16 -> 16
//	0x00f80:   bits 11..7             lower 31, upper 0          -> 31
//	0x01000:   bit 12 only            lower 0,  upper 0          -> 0; 64 sets: bit 12 -> set bit 5 = 32
//	0xae380:   1010 1110 0011 1000 0000: bits 19,17,15,14,13,9,8,7
//	           lower 0b00111=7, upper 0b11111=31, 7^31 = 0b11000 = 24; bit 12 = 0 so 24 with 64 sets too
//	0x03f80:   bits 13,12,11..7       lower 31, upper 1, 31^1 = 30; 64 sets: 30|32 = 62
//	0x100080:  bit 20 is not hashed   lower 1, upper 0           -> 1
func TestFermiHashSets(t *testing.T) {
	cases := []struct {
		addr         uint64
		set32, set64 int
	}{
		{0x00080, 1, 1},
		{0x02000, 1, 1},
		{0x02080, 0, 0},
		{0x20000, 8, 8},
		{0x80000, 16, 16},
		{0x00f80, 31, 31},
		{0x01000, 0, 32},
		{0xae380, 24, 24},
		{0x03f80, 30, 62},
		{0x100080, 1, 1},
		{0x0007f, 0, 0}, // last byte of line 0
	}
	c32 := mustNew(t, Geometry{Sets: 32, Ways: 4, LineBytes: 128, SetIndex: arch.IndexFermiHash})
	c64 := mustNew(t, Geometry{Sets: 64, Ways: 6, LineBytes: 128, SetIndex: arch.IndexFermiHash})
	for _, tc := range cases {
		if got := c32.Set(tc.addr); got != tc.set32 {
			t.Errorf("fermi_hash 32 sets: Set(%#x) = %d; want %d", tc.addr, got, tc.set32)
		}
		if got := c64.Set(tc.addr); got != tc.set64 {
			t.Errorf("fermi_hash 64 sets: Set(%#x) = %d; want %d", tc.addr, got, tc.set64)
		}
	}
}

// Within an aligned 4 KB block the upper hash bits are fixed, so the 32
// consecutive lines XOR a constant onto 0..31: a permutation of the sets.
// For 64 sets an aligned 8 KB block adds bit 12 on top.
func TestFermiHashSpreadsConsecutiveLines(t *testing.T) {
	for _, sets := range []int{32, 64} {
		c := mustNew(t, Geometry{Sets: sets, Ways: 4, LineBytes: 128, SetIndex: arch.IndexFermiHash})
		for _, start := range []uint64{0, 0x2000, 0xae000, 0x7fe000, 0x12346000} {
			var seen [64]int
			for i := range uint64(sets) {
				seen[c.Set(start+i*128)]++
			}
			for s := range sets {
				if seen[s] != 1 {
					t.Errorf("fermi_hash %d sets: %d lines from %#x put %d lines in set %d; want 1", sets, sets, start, seen[s], s)
				}
			}
		}
	}
}

// xor with 8 sets: set = (line ^ line>>3) mod 8.
//
//	line 0b000_001 (addr 0x080)  -> 1 ^ 0 = 1
//	line 0b001_000 (addr 0x400)  -> 0 ^ 1 = 1
//	line 0b011_101 (addr 0xe80)  -> 5 ^ 3 = 6
//	line 0b110_011_010           -> 2 ^ 3 = 1 (bits above the next three ignored)
func TestXORSets(t *testing.T) {
	c := mustNew(t, Geometry{Sets: 8, Ways: 2, LineBytes: 128, SetIndex: arch.IndexXOR})
	cases := []struct {
		addr uint64
		set  int
	}{
		{0x080, 1}, {0x400, 1}, {0xe80, 6}, {0b110_011_010 << 7, 1},
	}
	for _, tc := range cases {
		if got := c.Set(tc.addr); got != tc.set {
			t.Errorf("xor 8 sets: Set(%#x) = %d; want %d", tc.addr, got, tc.set)
		}
	}
}

func TestLinearNonPowerOfTwoSets(t *testing.T) {
	c := mustNew(t, Geometry{Sets: 24, Ways: 2, LineBytes: 128})
	// line 100 mod 24 = 4; line 24 = set 0; line 23 = set 23.
	for _, tc := range []struct {
		addr uint64
		set  int
	}{{100 * 128, 4}, {24 * 128, 0}, {23*128 + 127, 23}} {
		if got := c.Set(tc.addr); got != tc.set {
			t.Errorf("linear 24 sets: Set(%#x) = %d; want %d", tc.addr, got, tc.set)
		}
	}
}

func TestSectorMask(t *testing.T) {
	c := mustNew(t, sectored) // 128-B line, 32-B sectors
	cases := []struct {
		addr uint64
		size int
		want uint32
	}{
		{0x1000, 4, 0b0001},
		{0x101c, 8, 0b0011},   // straddles sectors 0 and 1
		{0x1020, 32, 0b0010},  // exactly sector 1
		{0x1000, 128, 0b1111}, // whole line
		{0x1060, 64, 0b1000},  // clipped at the end of the line
		{0x107f, 0, 0b1000},
	}
	for _, tc := range cases {
		if got := c.SectorMask(tc.addr, tc.size); got != tc.want {
			t.Errorf("SectorMask(%#x, %d) = %#b; want %#b", tc.addr, tc.size, got, tc.want)
		}
	}
	if got := c.LineAddr(0x10ff); got != 0x1080 {
		t.Errorf("LineAddr(0x10ff) = %#x; want 0x1080", got)
	}
	u := mustNew(t, Geometry{Sets: 1, Ways: 1, LineBytes: 128})
	if got := u.FullMask(); got != 1 {
		t.Errorf("unsectored FullMask() = %#b; want 1", got)
	}
	if got := u.SectorMask(0x1010, 200); got != 1 {
		t.Errorf("unsectored SectorMask = %#b; want 1", got)
	}
	w := mustNew(t, Geometry{Sets: 1, Ways: 1, LineBytes: 1024, SectorBytes: 32})
	if got := w.FullMask(); got != 0xffffffff {
		t.Errorf("32-sector FullMask() = %#x; want 0xffffffff", got)
	}
}

func TestGeometryErrors(t *testing.T) {
	cases := []struct {
		g    Geometry
		want []string // substrings, all of which must appear
	}{
		{Geometry{Sets: 0, Ways: 0, LineBytes: 100}, []string{"sets = 0", "ways = 0", "line = 100"}},
		{Geometry{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 256}, []string{"larger than"}},
		{Geometry{Sets: 4, Ways: 2, LineBytes: 2048, SectorBytes: 32}, []string{"64 sectors"}},
		{Geometry{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 24}, []string{"sector = 24"}},
		{Geometry{Sets: 48, Ways: 2, LineBytes: 128, SetIndex: arch.IndexFermiHash}, []string{"32 or 64 sets"}},
		{Geometry{Sets: 48, Ways: 2, LineBytes: 128, SetIndex: arch.IndexXOR}, []string{"power-of-two number of sets"}},
		{Geometry{Sets: 4, Ways: 2, LineBytes: 128, WritePolicy: arch.WriteEvict, WriteAllocate: true}, []string{"write allocate"}},
		{Geometry{Sets: 4, Ways: 2, LineBytes: 128, WriteAllocate: true}, []string{"read_only"}},
	}
	for _, tc := range cases {
		_, err := New(tc.g)
		if err == nil {
			t.Errorf("New(%+v) = nil error; want one mentioning %q", tc.g, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(%+v) = %q; want it to mention %q", tc.g, err, w)
			}
		}
	}
}

func TestFromArch(t *testing.T) {
	// GPGPU-Sim's GTX480 L2 slice: 64 sets × 8 ways × 128 B = 64 KB, 12 slices = 768 KB.
	l2 := arch.L2Cache{Cache: arch.Cache{Size: 768 << 10, Line: 128, Sector: 32, Associativity: 8,
		Replacement: arch.ReplaceLRU, SetIndex: arch.IndexLinear, WritePolicy: arch.WriteBack, WriteAllocate: true}, Slices: 12}
	g := FromArch(l2.Cache, l2.SetsPerSlice())
	want := Geometry{Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 32, Replacement: arch.ReplaceLRU,
		SetIndex: arch.IndexLinear, WritePolicy: arch.WriteBack, WriteAllocate: true}
	if g != want {
		t.Errorf("FromArch(GTX480 L2) = %+v; want %+v", g, want)
	}
	if g.SizeBytes() != 64<<10 || g.Sectors() != 4 {
		t.Errorf("slice size %d B, %d sectors; want 65536 B, 4", g.SizeBytes(), g.Sectors())
	}
	// Fermi L1, 16 KB mode: 32 sets × 4 ways, unsectored.
	l1 := arch.Cache{Size: 16 << 10, Line: 128, Associativity: 4, SetIndex: arch.IndexFermiHash, WritePolicy: arch.WriteEvict}
	g = FromArch(l1, l1.Sets())
	if g.Sets != 32 || g.SectorBytes != 128 || g.Sectors() != 1 {
		t.Errorf("FromArch(Fermi L1) = %+v; want 32 sets, 128-B sector", g)
	}
	c := mustNew(t, g)
	if got := c.Geometry().Replacement; got != arch.ReplaceLRU {
		t.Errorf("default replacement = %q; want %q", got, arch.ReplaceLRU)
	}
}

func TestBadMaskPanics(t *testing.T) {
	c := mustNew(t, sectored)
	for _, mask := range []uint32{0, 0b10000} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Read(0, %#b) did not panic", mask)
				}
			}()
			c.Read(0, mask)
		}()
	}
}

func TestZeroAllocations(t *testing.T) {
	c := mustNew(t, Geometry{Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 32,
		WritePolicy: arch.WriteBack, WriteAllocate: true, SetIndex: arch.IndexXOR})
	m, err := NewMSHR(32, 8)
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	allocs := testing.AllocsPerRun(1000, func() {
		addr += 0x1234_5680
		c.Read(addr, 0b0011)
		c.Write(addr+0x40, 0b0100)
		c.Probe(addr)
		line := c.LineAddr(addr)
		e, ok := m.Lookup(line)
		if !ok {
			e, _ = m.Allocate(line, addr)
		}
		m.Merge(e, addr+1)
		_ = m.Requests(e)
		m.Release(e)
	})
	if allocs != 0 {
		t.Errorf("Read+Write+Probe+MSHR cycle: %v allocations; want 0", allocs)
	}
}

// TestDirtySectorsCounted holds DirtySectors, which passes over the ways
// listed as they went dirty, against a pass over every line (Dirty),
// every 37 steps of random reads, writes and invalidations, under each
// write policy, with whole lines and with sectors.
func TestDirtySectorsCounted(t *testing.T) {
	for _, g := range []Geometry{
		{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 32, WritePolicy: arch.WriteBack, WriteAllocate: true},
		{Sets: 4, Ways: 2, LineBytes: 128, WritePolicy: arch.WriteBack, WriteAllocate: true},
		{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 32, WritePolicy: arch.WriteBack},
		{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 32, WritePolicy: arch.WriteEvict},
		{Sets: 4, Ways: 2, LineBytes: 128, SectorBytes: 32, WritePolicy: arch.WriteThrough, WriteAllocate: true},
	} {
		c := mustNew(t, g)
		r := rand.New(rand.NewPCG(7, uint64(g.WritePolicy)))
		full := c.FullMask()
		for step := range 5000 {
			addr := uint64(r.IntN(32)) * 128
			mask := uint32(r.IntN(int(full))) + 1
			switch op := r.IntN(20); {
			case op < 8:
				c.Read(addr, mask)
			case op < 18:
				c.Write(addr, mask)
			case op < 19:
				c.Invalidate(addr)
			default:
				c.InvalidateAll()
			}
			if step%37 != 0 {
				continue // let the list grow, and compact itself, between counts
			}
			var want int64
			for _, d := range c.Dirty() {
				want += int64(bits.OnesCount32(d))
			}
			if got := c.DirtySectors(); got != want {
				t.Fatalf("%s %v: after step %d DirtySectors() = %d; the lines hold %d", name(g), g.WritePolicy, step, got, want)
			}
		}
	}
}

// TestOldestWide holds the search by eights to the rule it keeps, the
// first smallest stamp, on sets of 8 to 40 ways whose stamps are drawn
// from a few values (ties, and 0 for invalid ways, are common).
func TestOldestWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for ways := 8; ways <= 40; ways++ {
		for range 300 {
			stamps := make([]uint64, ways)
			for i := range stamps {
				stamps[i] = rng.Uint64N(uint64(ways))
			}
			want := 0
			for i, s := range stamps {
				if s < stamps[want] {
					want = i
				}
			}
			if got := oldestWide(stamps); got != want {
				t.Fatalf("oldestWide(%v) = %d; want %d, the first smallest", stamps, got, want)
			}
		}
	}
}

// TestOldest4: every set of four stamps from 0 to 3 (256 of them, ties
// of every shape), against the first index of the least stamp.
func TestOldest4(t *testing.T) {
	for n := range 256 {
		s := []uint64{uint64(n & 3), uint64(n >> 2 & 3), uint64(n >> 4 & 3), uint64(n >> 6 & 3)}
		c := &Cache{stamps: s}
		if got, want := c.oldest4(0), slices.Index(s, slices.Min(s)); got != want {
			t.Fatalf("oldest4(%v) = %d; want %d, the first smallest", s, got, want)
		}
	}
}

// TestReadEvictsLRUWide: a set of 24 ways (Fermi's texture cache) holds
// lines 0 to 23; every line but 13 is read again, so 13 is the least
// recently used, and the next line read evicts it.
func TestReadEvictsLRUWide(t *testing.T) {
	c := mustNew(t, Geometry{Sets: 1, Ways: 24, LineBytes: 128, Replacement: arch.ReplaceLRU})
	for i := range uint64(24) {
		c.Read(i*128, 1)
	}
	for i := range uint64(24) {
		if i != 13 {
			c.Read(i*128, 1)
		}
	}
	if r := c.Read(24*128, 1); !r.Evicted {
		t.Fatal("a read of a 25th line into a full set of 24 evicted nothing")
	}
	if line, _ := c.Victim(); line != 13*128 {
		t.Errorf("evicted line %#x; want %#x, the least recently used", line, 13*128)
	}
}
