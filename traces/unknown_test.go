package traces

import (
	"slices"
	"testing"
)

// TestIndexUnknowns: J14's Z entries of a data-dependent subscript
// (affine.go), read off by hand for each kernel. Columns: threadIdx.x,
// then the loop, if any.
func TestIndexUnknowns(t *testing.T) {
	tests := []struct {
		name, body string
		coef       []int64 // V's row, 0 at a Z
		z          []bool
		zConst     bool
		data       bool // the loop's column is a data loop's
		problem    bool // the loop counts as variable-length
	}{
		{"gather", "V[COL[i]] = 0;", []int64{0}, []bool{true}, true, false, false},
		{"gather plus thread", "V[COL[i] / 2 + 0 * i] = 0;", []int64{0}, []bool{true}, true, false, false},
		// COL[0] is the same for every thread: the row keeps tx's 1 and
		// only the offset is unknown.
		{"offset only", "V[COL[0] + i] = 0;", []int64{1}, []bool{false}, true, false, false},
		// A loop that starts at data: its variable is its column, every
		// entry in it is Z; the offset is known (0).
		{"data start", "for (int j = COL[i]; j < 8; j++) V[j] = 0;", []int64{0, 0}, []bool{false, true}, false, true, true},
		// A loop whose trip count is data keeps its entries.
		{"data trip count", "for (int k = 0; k < COL[i]; k++) V[k] = 0;", []int64{0, 1}, []bool{false, false}, false, false, true},
	}
	for _, tc := range tests {
		l, err := indexKernel(t, "i32", "", "3 1 2 0 7 5 6 4", tc.body)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		i := slices.IndexFunc(l.Refs, func(r Ref) bool { return r.Array == "V" })
		forms, err := l.IndexForms(i)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		z, zc, err := l.IndexUnknowns(i)
		if !slices.Contains(tc.z, true) && !tc.zConst { // affine: none
			z, zc = [][]bool{make([]bool, len(tc.z))}, []bool{false}
		}
		if err != nil || len(z) != 1 || !slices.Equal(z[0], tc.z) || zc[0] != tc.zConst || !slices.Equal(forms[0].Coef, tc.coef) {
			t.Errorf("%s: row %v, Z %v, Z offset %v, %v; want %v, %v, %v", tc.name, forms[0].Coef, z, zc, err, tc.coef, tc.z, tc.zConst)
		}
		if cols := l.AccessColumns(); len(cols) > 1 && (cols[1].Data != tc.data || cols[1].ProblemSize != tc.problem) {
			t.Errorf("%s: loop column %+v; want Data %v, ProblemSize %v", tc.name, cols[1], tc.data, tc.problem)
		}
	}
	// An affine reference has none.
	l, err := indexKernel(t, "i32", "", "3 1 2 0 7 5 6 4", "V[i] = COL[i];")
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Refs {
		if z, zc, err := l.IndexUnknowns(i); z != nil || zc != nil || err != nil {
			t.Errorf("%s: Z %v %v %v; want none", l.Refs[i].Text, z, zc, err)
		}
	}
}
