package traces

import (
	"strings"
	"testing"

	"gpumemsim/arch"
)

// TestShortCircuitGuards: C evaluates the right operand of && and ||
// only where the left one leaves the result open, and one operand of
// ?:, so an operator there that would go wrong in a skipped lane does
// not fail the warp (C11 6.5.13p4, 6.5.14p4, 6.5.15p4); where C does
// evaluate it, it still does. t is threadIdx.x in a warp of 32; the
// masks and elements are C's, worked out here by hand: 32 / t > 2 holds
// for t = 1 to 10, 8 >> s != 0 for s = 0 to 3 (A is 64 × 32).
func TestShortCircuitGuards(t *testing.T) {
	for _, tc := range []struct {
		body string
		mask uint32
		elem func(lane int) int64 // of A[N][P], flat
		bad  string
	}{
		{body: "int t = threadIdx.x;\nif (t != 0 && 32 / t > 2) A[0][t] = 1;",
			mask: 0x7fe, elem: func(l int) int64 { return int64(l) }},
		{body: "int t = threadIdx.x;\nif (t == 0 || 32 / t > 2) A[0][t] = 1;",
			mask: 0x7ff, elem: func(l int) int64 { return int64(l) }},
		{body: "int t = threadIdx.x;\nA[0][t == 0 ? 0 : 31 / t] = 1;",
			mask: 0xffffffff, elem: func(l int) int64 { return map[bool]int64{true: 0, false: 31 / max(int64(l), 1)}[l == 0] }},
		{body: "int s = threadIdx.x - 2;\nif (s >= 0 && (8 >> s) != 0) A[0][s] = 1;",
			mask: 0x3c, elem: func(l int) int64 { return int64(l - 2) }},
		{body: "int z = blockIdx.x - blockIdx.x;\nif (z != 0 && 10 / z > 1) A[0][0] = 1;\nA[0][threadIdx.x] = 2;",
			mask: 0xffffffff, elem: func(l int) int64 { return int64(l) }},
		// Where C evaluates the operand, the failure stands.
		{body: "int t = threadIdx.x;\nif (t == 0 && 32 / t > 2) A[0][t] = 1;", bad: "inline.yaml:11:5: division by zero"},
		{body: "int t = threadIdx.x;\nif (t != 0 || 32 / t > 2) A[0][t] = 1;", bad: "inline.yaml:11:5: division by zero"},
		{body: "int t = threadIdx.x;\nA[0][t == 0 ? 32 / t : 0] = 1;", bad: "inline.yaml:11:5: division by zero"},
	} {
		l := threadKernel(t, "[N, P]", tc.body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		insts := memInsts(l, 0, 0)
		if tc.bad != "" {
			if err := l.Err(); err == nil || !strings.HasPrefix(err.Error(), tc.bad) {
				t.Errorf("%s:\nErr() = %v; want %s...", tc.body, err, tc.bad)
			}
			continue
		}
		if err := l.Err(); err != nil || len(insts) == 0 {
			t.Errorf("%s: %d memory instructions, Err() = %v; want the store", tc.body, len(insts), err)
			continue
		}
		in := insts[0]
		if in.Active != tc.mask {
			t.Errorf("%s: lanes %#x; want %#x", tc.body, in.Active, tc.mask)
		}
		base := l.Arrays[0].Base // A, the first array
		for lane := range WarpSize {
			if tc.mask>>lane&1 == 0 {
				continue
			}
			if want := base + uint64(tc.elem(lane))*4; in.Addr[lane] != want {
				t.Errorf("%s: lane %d at %#x; want %#x", tc.body, lane, in.Addr[lane], want)
			}
		}
	}
}
