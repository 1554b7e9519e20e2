package traces

import (
	"testing"

	"gpumemsim/arch"
)

// TestConditionalReads: a float read in an operand of ?: is issued only
// in the lanes whose condition picks that operand, and only they form
// its address (C11 6.5.15p4), after the statement's reads of every lane.
// In a warp of 32, t = threadIdx.x; A is 64 × 32 (flat element r*32+c):
//
//	C[0][t] = B[0][t] + (t != 0 ? A[0][31 / t] : 0.0f) + (t < 16 ? A[1][t + 16] : B[1][t - 16]);
//
// B[0][t] in every lane; A[0][31/t] in lanes 1 to 31 (t = 0 would
// divide by zero); A[1][t+16] in lanes 0 to 15 (elements 48 to 63) and
// B[1][t-16] in lanes 16 to 31 (elements 32 to 47); then the store.
// Before, every read went to every lane, and the first failed the warp.
func TestConditionalReads(t *testing.T) {
	body := "int t = threadIdx.x;\nC[0][t] = B[0][t] + (t != 0 ? A[0][31 / t] : 0.0f) + (t < 16 ? A[1][t + 16] : B[1][t - 16]);"
	l := threadKernel(t, "[N, P]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	insts := memInsts(l, 0, 0)
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	base := map[string]uint64{}
	for _, a := range l.Arrays {
		base[a.Name] = a.Base
	}
	want := []struct {
		array string
		mask  uint32
		elem  func(t int) int
	}{
		{"B", 0xffffffff, func(t int) int { return t }},
		{"A", 0xfffffffe, func(t int) int { return 31 / max(t, 1) }},
		{"A", 0x0000ffff, func(t int) int { return 32 + t + 16 }},
		{"B", 0xffff0000, func(t int) int { return 32 + t - 16 }},
		{"C", 0xffffffff, func(t int) int { return t }},
	}
	if len(insts) != len(want) {
		t.Fatalf("%d memory instructions; want %d", len(insts), len(want))
	}
	for k, w := range want {
		in := insts[k]
		if in.Active != w.mask {
			t.Errorf("instruction %d (%s): lanes %#x; want %#x", k, w.array, in.Active, w.mask)
		}
		for lane := range WarpSize {
			if w.mask>>lane&1 == 0 {
				continue
			}
			if a := base[w.array] + uint64(w.elem(lane))*4; in.Addr[lane] != a {
				t.Errorf("instruction %d (%s) lane %d at %#x; want %#x", k, w.array, lane, in.Addr[lane], a)
			}
		}
	}
}
