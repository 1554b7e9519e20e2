package constmem

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gpumemsim/arch"
)

// lanes makes a warp's addresses: lane l reads 4-byte element f(l) of an
// array at 0x1000.
func lanes(f func(l uint64) uint64) *[32]uint64 {
	var a [32]uint64
	for l := range a {
		a[l] = 0x1000 + 4*f(uint64(l))
	}
	return &a
}

// TestPasses: passes for 1, 2, 16 and 32 distinct addresses per warp,
// derived from the guide's rule (doc.go). With d addresses in contiguous
// groups of 32/d lanes (lane l reads l/(32/d)), the warp takes d passes
// from CC 2.0 on; on CC 1.x each half-warp is a request of its own, with
// max(1, d/2) addresses: 2, 2, 16 and 32 passes. With lane l reading
// l mod d, each half-warp has min(d, 16) addresses, so CC 1.x takes 2,
// 4, 32 and 32 passes, and later rules d.
func TestPasses(t *testing.T) {
	legacy := []arch.CoalescingRule{arch.RuleCC10, arch.RuleCC13}
	later := []arch.CoalescingRule{arch.RuleCC20, arch.RuleCC30, arch.RuleCC50}
	for _, tc := range []struct {
		name        string
		addr        *[32]uint64
		active      uint32
		cc1x, later int
	}{
		{"1 address", lanes(func(uint64) uint64 { return 7 }), 0xFFFFFFFF, 2, 1},
		{"2 addresses by halves", lanes(func(l uint64) uint64 { return l / 16 }), 0xFFFFFFFF, 2, 2},
		{"16 addresses in pairs", lanes(func(l uint64) uint64 { return l / 2 }), 0xFFFFFFFF, 16, 16},
		{"32 addresses", lanes(func(l uint64) uint64 { return l }), 0xFFFFFFFF, 32, 32},
		{"2 addresses alternating", lanes(func(l uint64) uint64 { return l % 2 }), 0xFFFFFFFF, 4, 2},
		{"16 addresses repeated", lanes(func(l uint64) uint64 { return l % 16 }), 0xFFFFFFFF, 32, 16},
		// One half-warp active: the other is no request.
		{"1 address, lanes 0-15", lanes(func(uint64) uint64 { return 0 }), 0x0000FFFF, 1, 1},
		{"32 addresses, lanes 16-31", lanes(func(l uint64) uint64 { return l }), 0xFFFF0000, 16, 16},
		{"no lane", lanes(func(l uint64) uint64 { return l }), 0, 0, 0},
		// Lanes 3 and 30 read element 3: one pass from CC 2.0 on, one in
		// each half-warp on CC 1.x.
		{"lanes 3 and 30, one address", lanes(func(uint64) uint64 { return 3 }), 1<<3 | 1<<30, 2, 1},
	} {
		for _, rules := range []struct {
			rs   []arch.CoalescingRule
			want int
		}{{legacy, tc.cc1x}, {later, tc.later}} {
			for _, r := range rules.rs {
				if got := len(Passes(r, tc.active, tc.addr, nil)); got != rules.want {
					t.Errorf("%s: Passes(%v) = %d passes; want %d", tc.name, r, got, rules.want)
				}
			}
		}
	}
}

// TestPassOrder: the passes serve the requests in lane order, and each
// request's addresses in the order of their first lanes.
func TestPassOrder(t *testing.T) {
	a := lanes(func(l uint64) uint64 { return (31 - l) / 8 }) // 3 3 ... 2 ... 1 ... 0
	got := Passes(arch.RuleCC20, 0xFFFFFFFF, a, nil)
	want := []uint64{0x100c, 0x1008, 0x1004, 0x1000}
	if !slices.Equal(got, want) {
		t.Errorf("CC 2.0 passes %#x; want %#x", got, want)
	}
	got = Passes(arch.RuleCC13, 0xFFFFFFFF, a, []uint64{1})
	want = []uint64{1, 0x100c, 0x1008, 0x1004, 0x1000}
	if !slices.Equal(got, want) {
		t.Errorf("CC 1.3 passes appended to [1]: %#x; want %#x", got, want)
	}
}

func TestPassesAllocates(t *testing.T) {
	a := lanes(func(l uint64) uint64 { return l })
	dst := make([]uint64, 0, 32)
	if n := testing.AllocsPerRun(100, func() { dst = Passes(arch.RuleCC13, 0xFFFFFFFF, a, dst[:0]) }); n != 0 {
		t.Errorf("Passes allocates %v times per call; want 0", n)
	}
}

// FuzzPasses checks Passes against a set per request: the passes are the
// requests' distinct addresses, each once per request, in lane order.
func FuzzPasses(f *testing.F) {
	f.Add(uint8(1), uint32(0xFFFFFFFF), uint64(0), uint64(0), uint64(1))
	f.Add(uint8(2), uint32(0xF0F0F0F0), uint64(8), uint64(3), uint64(5))
	f.Fuzz(func(t *testing.T, rule uint8, active uint32, base, mul, mod uint64) {
		r := arch.CoalescingRule(1 + rule%5)
		if mod == 0 {
			mod = 1
		}
		var a [32]uint64
		for l := range a {
			a[l] = base + mul*(uint64(l)%mod)
		}
		got := Passes(r, active, &a, nil)
		var want []uint64
		n := RequestLanes(r)
		for lo := 0; lo < 32; lo += n {
			seen := map[uint64]bool{}
			for l := lo; l < lo+n; l++ {
				if active>>l&1 == 1 && !seen[a[l]] {
					seen[a[l]] = true
					want = append(want, a[l])
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Passes(%v, %#x) = %#x; want %#x", r, active, got, want)
		}
	})
}

// TestDistinctAgainstSet holds Distinct to a set of the addresses seen,
// on lanes that rise (with repeats), fall, jump about, all read one
// address, or rise in two or three runs that meet (a texture's rows of
// texels in a warp), over a warp, a half-warp and an odd range, with and
// without earlier addresses in dst: each active lane's address once, in
// the order of its first lane, whatever dst held.
func TestDistinctAgainstSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 5000 {
		var a [32]uint64
		for l := range a {
			switch trial % 5 {
			case 3: // rising in runs of 16 lanes from one place, or two
				a[l] = uint64(l%16/4*32 + l/16*(trial/5%3)*16)
				continue
			case 4: // three runs from places apart, which may meet
				a[l] = uint64(l%11*8 + l/11*(trial/5%5)*24)
				continue
			}
			switch trial % 3 {
			case 0: // rising, with runs of one address
				a[l] = uint64(l / (1 + trial%5) * (trial % 7))
			case 1: // a few addresses in any order
				a[l] = rng.Uint64N(6)
			default: // rising but for one lane
				a[l] = uint64(4 * l)
				if l == trial%32 {
					a[l] = 0
				}
			}
		}
		active := rng.Uint32() | uint32(trial%2)*0xFFFFFFFF
		lo, hi := 0, 32
		switch trial % 4 {
		case 1:
			lo, hi = 16, 32
		case 3:
			lo, hi = 3, 8
		}
		before := []uint64{a[lo], 99}[:trial%3]
		got := Distinct(active, &a, lo, hi, slices.Clone(before))
		want := slices.Clone(before)
		seen := map[uint64]bool{}
		for l := lo; l < hi; l++ {
			if active>>l&1 == 1 && !seen[a[l]] {
				seen[a[l]] = true
				want = append(want, a[l])
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Distinct(%#x, %v, %d, %d, %v) = %v; want %v", active, a, lo, hi, before, got, want)
		}
	}
	// One address in every lane of the range but one, which may be the
	// last: two passes, the odd one second.
	for _, r := range [][2]int{{3, 8}, {0, 32}, {16, 32}, {0, 16}} {
		for odd := r[0] + 1; odd < r[1]; odd++ {
			var a [32]uint64
			a[odd] = 7
			if got := Distinct(0xFFFFFFFF, &a, r[0], r[1], nil); !slices.Equal(got, []uint64{0, 7}) {
				t.Fatalf("lanes %d to %d reading 0 but lane %d reading 7: %v; want [0 7]", r[0], r[1]-1, odd, got)
			}
		}
	}
}

// TestHalvesPasses holds HalvesPasses to Passes of the warp it describes,
// lanes written out, on every rule: the half-warps reading one address
// each, the same one or two (adjacent words, or apart), give CC 1.x a
// pass per half-warp and later rules one per distinct address; any other
// stride is left to Passes.
func TestHalvesPasses(t *testing.T) {
	for r := arch.RuleCC10; r <= arch.RuleCC50; r++ {
		for _, c := range []struct{ lo, hi, stride uint64 }{
			{0x1000, 0x1000, 0}, {0x1000, 0x1004, 0}, {0x2000, 0x1000, 0}, {0, 1 << 63, 0},
			{0x1000, 0x1040, 4}, {0x1000, 0x1000, 1 << 63},
		} {
			var a [32]uint64
			for l := range uint64(16) {
				a[l], a[16+l] = c.lo+l*c.stride, c.hi+l*c.stride
			}
			got, ok := HalvesPasses(r, c.lo, c.hi, c.stride, []uint64{7})
			if c.stride != 0 {
				if ok || !slices.Equal(got, []uint64{7}) {
					t.Errorf("%v: HalvesPasses(%#x, %#x, stride %#x) = %#x, %v; want [7], false", r, c.lo, c.hi, c.stride, got, ok)
				}
				continue
			}
			if want := Passes(r, 0xFFFFFFFF, &a, []uint64{7}); !ok || !slices.Equal(got, want) {
				t.Errorf("%v: HalvesPasses(%#x, %#x) = %#x, %v; Passes gives %#x", r, c.lo, c.hi, got, ok, want)
			}
		}
	}
}
