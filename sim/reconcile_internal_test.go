package sim

import (
	"slices"
	"testing"
)

// apportion by hand: shares are the integer parts of total × estimate /
// sum, and the units left go to the largest remainders, the earlier part
// first on a tie.
func TestApportion(t *testing.T) {
	for _, c := range []struct {
		total       int64
		parts, want []int64
	}{
		{10, []int64{1, 1, 1}, []int64{4, 3, 3}},                         // 10/3 each: 3, 3, 3 and one left, all remainders 1/3
		{100, []int64{1, 2}, []int64{33, 67}},                            // 33 1/3 and 66 2/3
		{5, []int64{2, 3}, []int64{2, 3}},                                // already adds up: unchanged
		{7, []int64{0, 0}, []int64{0, 7}},                                // nothing to go by: the last takes it
		{0, []int64{4, 5}, []int64{0, 0}},                                // nothing to share
		{9, []int64{-3, 3}, []int64{0, 9}},                               // a negative estimate counts as zero
		{16777216, []int64{15912071, 865135}, []int64{15912080, 865136}}, // A of J14's matmul on fermi (reconcile.go): 15,912,080.48 and 865,135.52
		// (2^62 − 2) × 2^61 / 2^62 = 2^61 − 1: the product needs 123 bits.
		{1<<62 - 2, []int64{1 << 61, 1 << 61}, []int64{1<<61 - 1, 1<<61 - 1}},
	} {
		got := slices.Clone(c.parts)
		ptrs := make([]*int64, len(got))
		for i := range got {
			ptrs[i] = &got[i]
		}
		apportion(c.total, ptrs...)
		if !slices.Equal(got, c.want) {
			t.Errorf("apportion(%d, %v) = %v, want %v", c.total, c.parts, got, c.want)
		}
	}
	apportion(3) // no parts: nothing to do, no panic
}
