package traces

import (
	"slices"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

func TestIndexForms(t *testing.T) {
	tests := []struct {
		kernel string
		params map[string]int64
		ref    int
		// want: per dimension, the offset then one coefficient per loop.
		want [][]int64
		// enclosing loops, outermost first
		loops []int
	}{
		// J14 Listing 1: m_A = [1 0 0; 0 0 1]·(i1 i2 i3) + 0.
		{"matmul", nil, 0, [][]int64{{0, 1, 0, 0}, {0, 0, 0, 1}}, []int{0, 1, 2}},
		// m_B = [0 0 1; 0 1 0].
		{"matmul", nil, 1, [][]int64{{0, 0, 0, 1}, {0, 0, 1, 0}}, []int{0, 1, 2}},
		// m_C = [1 0 0; 0 1 0]; the store follows the i3 loop.
		{"matmul", nil, 2, [][]int64{{0, 1, 0, 0}, {0, 0, 1, 0}}, []int{0, 1}},
		// a[S*i + O] with S = 3, O = 5: params substituted.
		{"stride", map[string]int64{"S": 3, "O": 5}, 0, [][]int64{{5, 3}}, []int{0}},
		// matvec x[i2]: no i1 term.
		{"matvec", nil, 2, [][]int64{{0, 0, 1}}, []int{0, 1}},
	}
	for _, tc := range tests {
		k, err := kernel.Load(tc.kernel)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Bind(k, nil, arch.Dim3{}, tc.params, nil)
		if err != nil {
			t.Fatal(err)
		}
		forms, err := l.IndexForms(tc.ref)
		if err != nil {
			t.Fatalf("%s: IndexForms(%d): %v", tc.kernel, tc.ref, err)
		}
		var got [][]int64
		for _, f := range forms {
			got = append(got, append([]int64{f.Const}, f.Coef...))
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: IndexForms(%d) (%s) = %v; want %v", tc.kernel, tc.ref, l.Refs[tc.ref].Text, got, tc.want)
		}
		loops, err := l.EnclosingLoops(tc.ref)
		if err != nil || !slices.Equal(loops, tc.loops) {
			t.Errorf("%s: EnclosingLoops(%d) = %v, %v; want %v", tc.kernel, tc.ref, loops, err, tc.loops)
		}
	}
}

func TestIndexFormsOutOfRange(t *testing.T) {
	k, err := kernel.Load("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []int{-1, len(l.Refs)} {
		if _, err := l.IndexForms(ref); err == nil {
			t.Errorf("IndexForms(%d) on %d references: no error", ref, len(l.Refs))
		}
		if _, err := l.EnclosingLoops(ref); err == nil {
			t.Errorf("EnclosingLoops(%d) on %d references: no error", ref, len(l.Refs))
		}
	}
}
