package banks

import (
	"math/rand/v2"
	"testing"
)

// TestHalvesByHand checks Halves on cases worked out from the guide's
// rules: on CC 1.x each half-warp is one request, one step for a
// broadcast word or 16 consecutive words; on CC 2.x two broadcast words
// 128 bytes apart are one bank's two rows (2 passes), 4 bytes apart two
// banks (1); two runs of 16 words 64 words apart on CC 2.x are 2 passes
// (word w of one and w+32·2 of the other share bank w mod 32 in rows
// apart), 16 words apart 1 (32 banks once each); in Kepler's 32-bit mode
// words 32 apart share a 64-bit bank row (1 pass); 8-byte accesses, and
// 4-byte runs in Kepler's 64-bit mode, have no closed form here.
func TestHalvesByHand(t *testing.T) {
	tests := []struct {
		rule           Rule
		width          int
		lo, hi, stride uint64
		passes         int
		ok             bool
	}{
		{CC1x, 4, 0, 0, 0, 2, true},
		{CC1x, 4, 12, 200, 4, 2, true},
		{CC2x, 4, 0, 128, 0, 2, true},
		{CC2x, 4, 0, 4, 0, 1, true},
		{CC2x, 4, 8, 8, 0, 1, true},
		{CC2x, 4, 0, 256, 4, 2, true},
		{CC2x, 4, 0, 64, 4, 1, true},
		{CC3x32, 4, 0, 128, 0, 1, true},
		{CC5x, 4, 0, 128, 4, 2, true},
		{CC2x, 8, 0, 128, 8, 0, false},
		{CC3x64, 4, 0, 64, 4, 0, false},
		{CC2x, 4, 0, 64, 12, 0, false},
	}
	for _, tc := range tests {
		passes, ok := Halves(tc.rule, tc.width, tc.lo, tc.hi, tc.stride)
		if passes != tc.passes || ok != tc.ok {
			t.Errorf("Halves(%v, %d, %d, %d, %d) = %d, %v; want %d, %v", tc.rule, tc.width, tc.lo, tc.hi, tc.stride, passes, ok, tc.passes, tc.ok)
		}
	}
}

// TestHalvesMatchesTransactions holds Halves, where it answers, to
// Transactions of the addresses it describes (Transactions is itself
// fuzzed against a brute-force oracle), on every rule, at random first
// addresses near and across bank rows, for strides 0 and 4 and others.
func TestHalvesMatchesTransactions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	answered := map[Rule]int{}
	for range 20000 {
		r := rules[rng.IntN(len(rules))]
		width := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		if rng.IntN(2) == 0 {
			width = 4
		}
		stride := []uint64{0, 4, 8, uint64(width), 12, 128}[rng.IntN(6)]
		lo := uint64(rng.IntN(1024)) &^ uint64(width-1)
		hi := uint64(rng.IntN(1024)) &^ uint64(width-1)
		passes, ok := Halves(r, width, lo, hi, stride)
		if !ok {
			continue
		}
		answered[r]++
		addr := lanesAt(func(l int) uint64 {
			if l < 16 {
				return lo + uint64(l)*stride
			}
			return hi + uint64(l-16)*stride
		})
		if want := Transactions(r, width, all, addr); passes != want {
			t.Fatalf("Halves(%v, %d, %d, %d, %d) = %d; Transactions of its addresses %d", r, width, lo, hi, stride, passes, want)
		}
	}
	for _, r := range rules {
		if answered[r] == 0 {
			t.Errorf("%v: Halves never answered", r)
		}
	}
}
