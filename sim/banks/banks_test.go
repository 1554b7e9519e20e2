package banks

import (
	"fmt"
	"testing"

	"gpumemsim/arch"
)

const all = 0xFFFFFFFF

var rules = [...]Rule{CC1x, CC2x, CC3x32, CC3x64, CC5x}

// lanesAt returns lane l's address addr(l) for every lane.
func lanesAt(addr func(l int) uint64) *[32]uint64 {
	var a [32]uint64
	for l := range a {
		a[l] = addr(l)
	}
	return &a
}

// stride is lane l at base + l*step bytes.
func stride(base, step uint64) func(int) uint64 {
	return func(l int) uint64 { return base + uint64(l)*step }
}

// pattern is one warp access with the transactions each rule makes of it,
// derived by hand from the guide's rules (reasoning in comments; "word" is
// a 32-bit word, "dword" a 64-bit one, bank b of word w is w mod 16 on
// CC 1.x and w mod 32 otherwise).
type pattern struct {
	name   string
	width  int
	active uint32
	addr   func(l int) uint64
	want   [5]int // cc1x, cc2x, cc3x-32, cc3x-64, cc5x
}

var patterns = []pattern{
	// Stride s words. CC 1.x: per half-warp, gcd(16, s) lanes share a bank
	// (F.3.3.1), twice. CC 2.x/5.x: gcd(32, s). Kepler 32-bit mode: words
	// i and i+32 of one 64-word segment share a pass. Kepler 64-bit mode:
	// lane l reads dword ⌊s·l/2⌋ in bank ⌊s·l/2⌋ mod 32.
	{
		// Dwords 0..15, two lanes each: one pass in 64-bit mode too.
		name: "stride 1 f32", width: 4, active: all, addr: stride(0, 4),
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// Words 0, 2, …, 62: lanes l and l+16 share a bank on 32 banks;
		// all in segment 0 for Kepler 32-bit mode; dwords 0..31 in 64-bit
		// mode. The guide's middle strided example: 2-way on CC 1.x and
		// 2.x (F.3.3.1, F.4.3.1), conflict-free on CC 3.0 (Figure F-2).
		name: "stride 2 f32", width: 4, active: all, addr: stride(0, 8),
		want: [5]int{4, 2, 1, 1, 2},
	},
	{
		// Odd stride: conflict-free on 32-bit banks. 64-bit mode: dwords
		// ⌊3l/2⌋ = 0, 1, 3, 4, …, 46; bank 1 holds dwords 1 (lane 1) and
		// 33 (lane 22): 2-way.
		name: "stride 3 f32", width: 4, active: all, addr: stride(0, 12),
		want: [5]int{2, 1, 1, 2, 1},
	},
	{
		// CC 1.x: 4 per half. CC 2.x: 4. Kepler 32-bit: bank 0 holds
		// words 0, 32 (segment 0) and 64, 96 (segment 1): 2. 64-bit:
		// dwords 2l, lanes l and l+16 share a bank: 2.
		name: "stride 4 f32", width: 4, active: all, addr: stride(0, 16),
		want: [5]int{8, 4, 2, 2, 4},
	},
	{
		// CC 1.x: all 16 lanes of a half in bank 0. 32 banks: banks 0 and
		// 16, 16 lanes each. Kepler 32-bit: bank 0 holds words 0, 32, …,
		// 480 in segments 0..7: 8. 64-bit: dwords 8l in banks 0, 8, 16,
		// 24, 8 each.
		name: "stride 16 f32", width: 4, active: all, addr: stride(0, 64),
		want: [5]int{32, 16, 8, 8, 16},
	},
	{
		// The transpose lesson: a 32×32 float tile read by column. Every
		// lane in bank 0. Kepler 32-bit: words 32l in segments ⌊l/2⌋: 16.
		// 64-bit: dwords 16l in banks 0 and 16, 16 each.
		name: "tile column", width: 4, active: all, addr: stride(0, 4*32),
		want: [5]int{32, 32, 16, 16, 32},
	},
	{
		// The padded tile [32][33]: word 33l is in bank l (mod 16 on
		// CC 1.x). 64-bit mode: even l=2m reads dword 33m (bank m), odd
		// l=2m+1 dword 33m+16 (bank m+16): all distinct.
		name: "padded tile column", width: 4, active: all, addr: stride(0, 4*33),
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// Every lane reads one word: a broadcast, one per half on CC 1.x
		// ("a common conflict-free case", F.3.3.2).
		name: "broadcast", width: 4, active: all, addr: stride(0x40, 0),
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// Lanes 2k and 2k+1 read word k. CC 2.x+: multicast, one pass.
		// CC 1.x: per half, 8 banks each with one word read twice; one
		// step broadcasts one of them and serves one lane of each other,
		// so the second step finishes: 2 per half.
		name: "pairs share a word", width: 4, active: all, addr: func(l int) uint64 { return 4 * uint64(l/2) },
		want: [5]int{4, 1, 1, 1, 1},
	},
	{
		// Half 0: lanes 0-7 read word 0, lanes 8-15 word 1; half 1 all
		// word 2. CC 1.x: step 1 broadcasts word 0 and serves one lane of
		// word 1, step 2 broadcasts the rest of word 1; half 1 is one
		// broadcast: 3.
		name: "two broadcast words", width: 4, active: all, addr: func(l int) uint64 { return 4 * uint64(min(l/8, 2)) },
		want: [5]int{3, 1, 1, 1, 1},
	},
	{
		// Three words in banks 0, 1, 2 read by 4 lanes each (lanes 0-11).
		// CC 1.x: a step broadcasts one word and serves one lane of each
		// other: after steps broadcasting words 0 and 1, word 2 has 2
		// lanes left, so 2 steps are too few; 3 suffice.
		name: "three broadcast words", width: 4, active: 0x0FFF, addr: func(l int) uint64 { return 4 * uint64(l/4) },
		want: [5]int{3, 1, 1, 1, 1},
	},
	{
		// Lanes 0-2 read word 0 and lane 3 word 16 (bank 0 on CC 1.x);
		// lanes 4-6 read word 1 and lane 7 word 17 (bank 1). CC 1.x: two
		// words per bank need 2 steps, and 2 suffice: broadcast word 0
		// while bank 1 serves lane 7, then word 1 while bank 0 serves
		// lane 3. 32 banks: words 16 and 17 are banks 16 and 17. 64-bit
		// mode: dwords 0 and 8.
		name: "broadcast beside a lone reader", width: 4, active: 0xFF,
		addr: func(l int) uint64 { return [8]uint64{0, 0, 0, 64, 4, 4, 4, 68}[l%8] },
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// Lanes 0-7 read word 0, lanes 8-15 word 32: bank 0 serves two
		// words on 16 and 32 banks. Kepler 32-bit: words 0 and 32 of one
		// segment share a row. 64-bit: dwords 0 and 16, banks 0 and 16.
		name: "two words in one bank", width: 4, active: 0xFFFF, addr: func(l int) uint64 { return 128 * uint64(l/8) },
		want: [5]int{2, 2, 1, 1, 2},
	},
	{
		// PG42 Figure F-3 middle: threads 3, 4, 6, 7 and 9 read one word of
		// bank 5, every other lane its own bank; conflict-free on CC 1.x
		// too (only the right-hand example conflicts there).
		name: "F-3 middle", width: 4, active: all, addr: figureF3Middle,
		want: [5]int{2, 1, 1, 1, 1},
	},
	// 8- and 16-bit accesses (F.3.3.3, F.4.3).
	{
		// char shared[tid]: per half, 4 words of 4 lanes each in banks
		// 0..3. CC 1.x: each step broadcasts one word and serves one lane
		// of each other: 4 steps per half. CC 2.x+: one pass.
		name: "char shared[tid]", width: 1, active: all, addr: stride(0, 1),
		want: [5]int{8, 1, 1, 1, 1},
	},
	{
		// char shared[4*tid]: one word per lane, no conflict (F.3.3.3).
		name: "char shared[4*tid]", width: 1, active: all, addr: stride(0, 4),
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// short shared[tid]: pairs of lanes per word, 2 steps per half.
		name: "short shared[tid]", width: 2, active: all, addr: stride(0, 2),
		want: [5]int{4, 1, 1, 1, 1},
	},
	// 64-bit accesses.
	{
		// double shared[tid]. CC 1.x: two 32-bit requests of stride 2,
		// 2-way per half (F.3.3.4): 2×2×2. CC 2.x: per half-warp words
		// 0..31, no conflict (F.4.3): 1+1. Kepler: 256 B is one row: 1.
		// CC 5.x: per half-warp like CC 2.x.
		name: "double shared[tid]", width: 8, active: all, addr: stride(0, 8),
		want: [5]int{8, 2, 1, 1, 2},
	},
	{
		// double at stride 2. CC 1.x: two requests of word stride 4, 4-way
		// per half: 2×2×4. CC 2.x/5.x: per half words 4l, 4l+1; lanes l
		// and l+8 share banks: 2+2. Kepler 32-bit: bank 0 holds words 0,
		// 32 (segment 0), 64, 96 (segment 1): 2. 64-bit: dwords 2l, lanes
		// l and l+16: 2.
		name: "double stride 2", width: 8, active: all, addr: stride(0, 16),
		want: [5]int{16, 4, 2, 2, 4},
	},
	{
		// Both half-warps read doubles 0..15. CC 2.x/5.x: each half is
		// conflict-free, one pass each. Kepler: one warp request, every
		// word read twice: 1.
		name: "double halves alike", width: 8, active: all, addr: func(l int) uint64 { return 8 * uint64(l%16) },
		want: [5]int{8, 2, 1, 1, 2},
	},
	// 128-bit accesses.
	{
		// float4 shared[tid]. CC 1.x: four requests of word stride 4,
		// 4-way per half: 4×2×4. CC 2.x: per quarter-warp words
		// 32q..32q+31, no conflict, plus 1 (F.4.3): 4×2. Kepler: per
		// half-warp one 256-B row: 2. CC 5.x: per quarter-warp: 4.
		name: "float4 shared[tid]", width: 16, active: all, addr: stride(0, 16),
		want: [5]int{32, 8, 2, 2, 4},
	},
	{
		// Every lane reads one float4: one pass per sub-request, plus 1 per
		// quarter-warp on CC 2.x.
		name: "float4 broadcast", width: 16, active: all, addr: stride(0x100, 0),
		want: [5]int{8, 8, 2, 2, 4},
	},
	{
		// Quarter q, lane j: 256q + 16(j mod 4) + 128⌊j/4⌋. Lanes j and
		// j+4 read different words of banks 0..15: 2-way per quarter.
		// CC 2.x: (2+1)×4. CC 5.x: 2×4. Kepler 32-bit, per half: words
		// 32 apart share a segment, but quarters 2h and 2h+1 read segments
		// 2h and 2h+1 in banks 0..15: 2×2. 64-bit: dwords of quarters 2h
		// and 2h+1 are 32 apart in banks 0-7 and 16-23: 2×2. CC 1.x: each
		// of 4 requests puts 4 lanes of a half in each of 4 banks: 4×2×4.
		name: "float4 2-way per quarter", width: 16, active: all,
		addr: func(l int) uint64 { q, j := l/8, l%8; return uint64(256*q + 16*(j%4) + 128*(j/4)) },
		want: [5]int{32, 12, 4, 4, 8},
	},
	// Partial masks.
	{
		name: "no lanes", width: 4, active: 0, addr: stride(0, 128),
		want: [5]int{0, 0, 0, 0, 0},
	},
	{
		// A half-warp with one lane still costs a pass.
		name: "one lane per half", width: 4, active: 1 | 1<<16, addr: stride(0, 4),
		want: [5]int{2, 1, 1, 1, 1},
	},
	{
		// Tile column, lanes 0-15: 16 in bank 0. Kepler 32-bit: segments
		// 0..7: 8. 64-bit: dwords 16l, 8 each in banks 0 and 16.
		name: "tile column first half", width: 4, active: 0xFFFF, addr: stride(0, 4*32),
		want: [5]int{16, 16, 8, 8, 16},
	},
	{
		// Odd lanes at stride 2: words 2, 6, …, 62. 32 banks: lanes 1 and
		// 17 share bank 2. CC 1.x: per half, words 2, 6, 10, 14 twice.
		// Kepler: segment 0 only, and dwords l: 1.
		name: "odd lanes stride 2", width: 4, active: 0xAAAAAAAA, addr: stride(0, 8),
		want: [5]int{4, 2, 1, 1, 2},
	},
	{
		// Only the second half reads doubles: one sub-request each, two
		// 32-bit requests on CC 1.x.
		name: "double second half", width: 8, active: 0xFFFF0000, addr: stride(0, 8),
		want: [5]int{4, 1, 1, 1, 1},
	},
	{
		// float4 lanes 0 and 31: two quarter-warps (CC 2.x: 2 each), two
		// half-warps (Kepler), four 32-bit requests per half (CC 1.x).
		name: "float4 first and last lane", width: 16, active: 1 | 1<<31, addr: stride(0, 16),
		want: [5]int{8, 4, 2, 2, 2},
	},
	{
		// An address off its width's alignment is rounded down.
		name: "misaligned", width: 4, active: all, addr: stride(1, 4),
		want: [5]int{2, 1, 1, 1, 1},
	},
}

// figureF3Middle puts lanes 3, 4, 6, 7 and 9 on word 5 and every other
// lane on a word of its own bank, distinct modulo 16 within each half-warp
// and modulo 32 across the warp.
func figureF3Middle(l int) uint64 {
	switch {
	case l == 3 || l == 4 || l == 6 || l == 7 || l == 9:
		return 4 * 5
	case l < 16:
		word := map[int]uint64{0: 9, 1: 2, 2: 14, 5: 0, 8: 11, 10: 3, 11: 15, 12: 7, 13: 1, 14: 12, 15: 6}[l]
		return 4 * word
	}
	return 4 * (16 + uint64(7*(l-16)+3)%16)
}

func TestTransactions(t *testing.T) {
	for _, p := range patterns {
		addr := lanesAt(p.addr)
		for i, r := range rules {
			if got := Transactions(r, p.width, p.active, addr); got != p.want[i] {
				t.Errorf("Transactions(%v, %s) = %d; want %d", r, p.name, got, p.want[i])
			}
		}
	}
}

// TestStrideRule checks the guide's stride rule (PG42 F.3.3.1, F.4.3.1):
// with 32-bit words at stride s, gcd(banks, s) lanes of a request share
// each bank, so the access is conflict-free exactly when s is odd.
func TestStrideRule(t *testing.T) {
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	for s := 1; s <= 64; s++ {
		addr := lanesAt(stride(0x2000, 4*uint64(s)))
		for _, tc := range []struct {
			r    Rule
			want int
		}{
			{CC1x, 2 * gcd(16, s)}, // two half-warp requests
			{CC2x, gcd(32, s)},
			{CC5x, gcd(32, s)},
		} {
			if got := Transactions(tc.r, 4, all, addr); got != tc.want {
				t.Errorf("Transactions(%v, stride=%d) = %d; want %d", tc.r, s, got, tc.want)
			}
		}
	}
}

func TestBank(t *testing.T) {
	for _, tc := range []struct {
		r    Rule
		addr uint64
		want int
	}{
		{CC1x, 0x44, 1},    // word 17 mod 16
		{CC2x, 0x44, 17},   // word 17
		{CC3x32, 0x104, 1}, // word 65 mod 32
		{CC3x64, 0x44, 8},  // dword 8
		{CC3x64, 0x104, 0}, // dword 32 mod 32
		{CC5x, 0x7C, 31},   // word 31
		{CC5x, 0x80, 0},    // word 32 mod 32
	} {
		if got := Bank(tc.r, tc.addr); got != tc.want {
			t.Errorf("Bank(%v, %#x) = %d; want %d", tc.r, tc.addr, got, tc.want)
		}
	}
	for r, want := range map[Rule]int{CC1x: 16, CC2x: 32, CC3x32: 32, CC3x64: 32, CC5x: 32} {
		if got := Banks(r); got != want {
			t.Errorf("Banks(%v) = %d; want %d", r, got, want)
		}
	}
}

func TestRuleFor(t *testing.T) {
	for _, tc := range []struct {
		c     arch.CoalescingRule
		width arch.Bytes
		want  Rule
	}{
		{arch.RuleCC10, 4, CC1x},
		{arch.RuleCC13, 4, CC1x},
		{arch.RuleCC20, 4, CC2x},
		{arch.RuleCC30, 4, CC3x32},
		{arch.RuleCC30, 8, CC3x64},
		{arch.RuleCC50, 4, CC5x},
	} {
		if got, err := RuleFor(tc.c, tc.width); got != tc.want || err != nil {
			t.Errorf("RuleFor(%v, %v) = %v, %v; want %v", tc.c, tc.width, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		c     arch.CoalescingRule
		width arch.Bytes
		want  string
	}{
		{arch.RuleCC20, 8, "sm.bank_width 8B: cc20 devices have 4B banks"},
		{arch.RuleCC13, 0, "sm.bank_width 0B: cc13 devices have 4B banks"},
		{arch.RuleCC30, 16, "sm.bank_width 16B: compute capability 3.x has 4B or 8B banks"},
		{0, 4, "no shared-memory bank rule for coalescing rule " + arch.CoalescingRule(0).String()},
	} {
		if got, err := RuleFor(tc.c, tc.width); err == nil || err.Error() != tc.want {
			t.Errorf("RuleFor(%v, %v) = %v, %v; want error %q", tc.c, tc.width, got, err, tc.want)
		}
	}
}

func TestRuleString(t *testing.T) {
	var got []string
	for _, r := range append(rules[:], 0, 6) {
		got = append(got, r.String())
	}
	if want := "[cc1x cc2x cc3x-32 cc3x-64 cc5x Rule(0) Rule(6)]"; fmt.Sprint(got) != want {
		t.Errorf("Rule strings = %v; want %v", got, want)
	}
}

func TestInvalidInputPanics(t *testing.T) {
	addr := lanesAt(stride(0, 4))
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"Transactions(rule 0)", func() { Transactions(0, 4, all, addr) }},
		{"Transactions(rule 6)", func() { Transactions(6, 4, all, addr) }},
		{"Transactions(width 3)", func() { Transactions(CC2x, 3, all, addr) }},
		{"Transactions(width 32)", func() { Transactions(CC2x, 32, all, addr) }},
		{"Transactions(width 0)", func() { Transactions(CC2x, 0, all, addr) }},
		{"Bank(rule 0)", func() { Bank(0, 0) }},
		{"Banks(rule 6)", func() { Banks(6) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tc.name)
				}
			}()
			tc.call()
		}()
	}
}

// TestTransactionsAllocatesNothing covers each path: conflict-free words
// (unit stride), one address for all (broadcast) and conflicts (l²).
func TestTransactionsAllocatesNothing(t *testing.T) {
	patterns := map[string]*[32]uint64{
		"unit":      lanesAt(func(l int) uint64 { return uint64(l) * 4 }),
		"broadcast": lanesAt(func(int) uint64 { return 64 }),
		"squares":   lanesAt(func(l int) uint64 { return uint64(l*l) * 4 }),
	}
	for name, addr := range patterns {
		for _, r := range rules {
			for _, width := range []int{1, 2, 4, 8, 16} {
				if n := testing.AllocsPerRun(100, func() { Transactions(r, width, all, addr) }); n != 0 {
					t.Errorf("Transactions(%v, width=%d, %s) allocates %v times; want 0", r, width, name, n)
				}
			}
		}
	}
}

func ExampleTransactions() {
	// A warp reads a column of a 32×32 float tile, then the same column
	// of a tile padded to 33 floats a row, on a Fermi (CC 2.x) device.
	var column, padded [32]uint64
	for l := range 32 {
		column[l] = 4 * uint64(l*32)
		padded[l] = 4 * uint64(l*33)
	}
	fmt.Println("column:", Transactions(CC2x, 4, 0xFFFFFFFF, &column))
	fmt.Println("padded:", Transactions(CC2x, 4, 0xFFFFFFFF, &padded))
	fmt.Println("lane 1 in bank", Bank(CC2x, padded[1]), "of", Banks(CC2x))
	// Output:
	// column: 32
	// padded: 1
	// lane 1 in bank 1 of 32
}

// TestRequestLanes: the lanes of one request, from the guide: half-warps
// on CC 1.x (F.3.3); on 2.x a 64-bit access is served per half-warp and a
// 128-bit one per quarter-warp (F.4.3); Kepler's rows of 256 B serve a
// warp's 64-bit words at once (F.5.3.2); Maxwell's 128-B rows as Fermi's.
func TestRequestLanes(t *testing.T) {
	for _, c := range []struct {
		r     Rule
		width int
		want  int
	}{
		{CC1x, 4, 16}, {CC1x, 8, 16}, {CC1x, 16, 16},
		{CC2x, 1, 32}, {CC2x, 4, 32}, {CC2x, 8, 16}, {CC2x, 16, 8},
		{CC3x32, 8, 32}, {CC3x64, 8, 32}, {CC3x64, 16, 16},
		{CC5x, 4, 32}, {CC5x, 8, 16}, {CC5x, 16, 8},
	} {
		if got := RequestLanes(c.r, c.width); got != c.want {
			t.Errorf("RequestLanes(%v, %d) = %d; want %d", c.r, c.width, got, c.want)
		}
	}
}

// TestHalfWarpTwoSharedBanks: a whole CC 1.x half-warp in one 64-byte
// row whose lanes 0 and 1 read the word of bank b1, lanes 2 and 3 that of
// bank b2, and lanes 4 to 15 twelve words of the other banks, one each.
// By the limited broadcast (PG42 F.3.3) the first step broadcasts one of
// the two shared words and serves one lane of the other, the second step
// its last lane: two steps, for every pair of banks. With a single shared
// bank the broadcast serves it in one step.
func TestHalfWarpTwoSharedBanks(t *testing.T) {
	const row = 0x400 // a row-aligned base
	for b1 := range 16 {
		for b2 := b1 + 1; b2 < 16; b2++ {
			var addr [32]uint64
			addr[0], addr[1] = row+4*uint64(b1), row+4*uint64(b1)
			addr[2], addr[3] = row+4*uint64(b2), row+4*uint64(b2)
			l := 4
			for b := range 16 {
				if b != b1 && b != b2 && l < 16 {
					addr[l] = row + 4*uint64(b)
					l++
				}
			}
			if got := Transactions(CC1x, 4, 0xFFFF, &addr); got != 2 {
				t.Errorf("banks %d and %d shared by two lanes each: %d steps, want 2", b1, b2, got)
			}
			addr[2], addr[3] = addr[0], addr[0] // now bank b1 alone is shared, by four lanes
			if got := Transactions(CC1x, 4, 0xFFFF, &addr); got != 1 {
				t.Errorf("bank %d shared by four lanes: %d steps, want 1", b1, got)
			}
		}
	}
}

// TestBroadcastOrRun: 16 lanes reading one address are a broadcast, 16
// reading consecutive words a run; moving any one lane's address, the
// last included, makes the half-warp neither.
func TestBroadcastOrRun(t *testing.T) {
	for _, a := range []uint64{0, 4, 1 << 20, ^uint64(0) - 63} {
		var one, run [16]uint64
		for l := range one {
			one[l], run[l] = a, a+uint64(4*l)
		}
		if o, r := broadcastOrRun(&one); !o || r {
			t.Errorf("lanes all at %#x: broadcast %v, run %v; want true, false", a, o, r)
		}
		if o, r := broadcastOrRun(&run); o || !r {
			t.Errorf("lanes at %#x + 4l: broadcast %v, run %v; want false, true", a, o, r)
		}
		for l := 1; l < 16; l++ {
			h := one
			h[l] += 4
			if o, r := broadcastOrRun(&h); o || r {
				t.Errorf("lanes all at %#x but %d: broadcast %v, run %v; want false, false", a, l, o, r)
			}
			h = run
			h[l] -= 4
			if o, r := broadcastOrRun(&h); o || r {
				t.Errorf("lanes at %#x + 4l but %d: broadcast %v, run %v; want false, false", a, l, o, r)
			}
		}
	}
}
