package indexdata

import (
	"slices"
	"strings"
	"testing"
)

func TestMatrixMarketToCSR(t *testing.T) {
	// Rows (1-based) 1: columns 1, 5; 2: 3; 3: 2 and 1, given in that
	// order; 4: 4. So, 0-based and sorted: ROW = 0 2 3 5 6 and COL =
	// 0 4 | 2 | 0 1 | 3.
	const general = `%%MatrixMarket matrix coordinate real general
% a 4x5 matrix, entries in no particular order
4 5 6
3 2 1.5
1 1 2
1 5 -1

4 4 3e2
3 1 7
2 3 .5
`
	m, err := ReadMatrixMarket("g.mtx", strings.NewReader(general))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, m *CSR, rows, cols int64, ptr, col []int64) {
		t.Helper()
		if m.Rows != rows || m.Cols != cols || m.NNZ != int64(len(col)) {
			t.Errorf("%s: %d×%d with %d nonzeros; want %d×%d with %d", what, m.Rows, m.Cols, m.NNZ, rows, cols, len(col))
		}
		if got := all(m.RowPtr); !slices.Equal(got, ptr) {
			t.Errorf("%s: row pointers %v; want %v", what, got, ptr)
		}
		if got := all(m.Col); !slices.Equal(got, col) {
			t.Errorf("%s: columns %v; want %v", what, got, col)
		}
	}
	check("general", m, 4, 5, []int64{0, 2, 3, 5, 6}, []int64{0, 4, 2, 0, 1, 3})

	// The lower triangle (1,1) (2,1) (3,2) (3,3), mirrored: row 0 holds
	// 0 1, row 1 holds 0 2, row 2 holds 1 2.
	const symmetric = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n3 2\n3 3\n"
	if m, err = ReadMatrixMarket("s.mtx", strings.NewReader(symmetric)); err != nil {
		t.Fatal(err)
	}
	check("symmetric", m, 3, 3, []int64{0, 2, 4, 6}, []int64{0, 1, 0, 2, 1, 2})

	const complexSkew = "%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 1 1.0 -2.0\n"
	if m, err = ReadMatrixMarket("c.mtx", strings.NewReader(complexSkew)); err != nil {
		t.Fatal(err)
	}
	check("skew-symmetric", m, 2, 2, []int64{0, 1, 2}, []int64{1, 0})
}

func TestMatrixMarketErrors(t *testing.T) {
	const banner = "%%MatrixMarket matrix coordinate real general\n"
	for _, tc := range []struct{ in, want string }{
		{"", "m.mtx:1:1: not a Matrix Market file"},
		{"3 3 1\n1 1 1\n", "m.mtx:1:1: not a Matrix Market file"},
		{"%%MatrixMarket matrix array real general\n2 2\n", `m.mtx:1:23: "array" where the banner says coordinate; hint: dense (array) files`},
		{"%%MatrixMarket matrix coordinate real\n", "m.mtx:1:34: the banner has 4 words; want 5"},
		{"%%MatrixMarket matrix coordinate float general\n", `m.mtx:1:34: unknown field "float"`},
		{"%%MatrixMarket matrix coordinate real upper\n", `m.mtx:1:39: unknown symmetry "upper"`},
		{banner + "% c\n3 3\n", "m.mtx:3:1: the size line has 2 numbers; want 3"},
		{banner + "3 x 1\n", `m.mtx:2:3: "x" is not a count`},
		{banner + "0 3 0\n", "m.mtx:2:1: a 0×3 matrix"},
		{banner + "3 3 10\n", "m.mtx:2:5: 10 entries in a 3×3 matrix"},
		{banner + "5000000 3 1\n", "m.mtx:2:1: a 5000000×3 matrix; at most 4194304 rows"},
		{banner + "3000 3000 5000000\n", "m.mtx:2:11: 5000000 entries (5000000 stored once mirrored); at most 4194304"},
		{banner + "3 3 2\n1 1 1\n", "m.mtx:4:1: the file ends after 1 of the 2 entries"},
		{banner + "3 3 1\n1 1 1\n2 2 2\n", "m.mtx:4:1: more entries than the 1 the size line gives"},
		{banner + "3 3 1\n1 4 1\n", "m.mtx:3:3: column index 4 outside [1, 3]"},
		{banner + "3 3 1\n0 1 1\n", "m.mtx:3:1: row index 0 outside [1, 3]"},
		{banner + "3 3 1\n1.5 1 1\n", `m.mtx:3:1: index "1.5" is not an integer`},
		{banner + "3 3 1\n1 1\n", "m.mtx:3:1: an entry of 2 words; a real file's entries have 3"},
		{banner + "3 3 1\n1 1 one\n", `m.mtx:3:5: value "one" is not a number of a real file`},
		{banner + "3 3 2\n1 1 1\n\n  1 1 2\n", "m.mtx:5:1: entry (1, 1) is given twice, at lines 3 and 5"},
		{"%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", "m.mtx:3:1: entry (1, 2) above the diagonal of a symmetric file"},
		{"%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", "m.mtx:2:1: a symmetric matrix of 3×4"},
		{banner + "3 3 1\n1 1 " + strings.Repeat("9", 80) + "\n", "m.mtx:3:5: a word of more than 64 characters"},
	} {
		_, err := ReadMatrixMarket("m.mtx", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadMatrixMarket(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestReadText(t *testing.T) {
	v, err := ReadText("a.txt", strings.NewReader("# a permutation\n3 1\n\t2 0 % the rest\n-4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := all(v), []int64{3, 1, 2, 0, -4}; !slices.Equal(got, want) {
		t.Errorf("ReadText = %v; want %v", got, want)
	}
	if lo, hi := v.Range(); lo != -4 || hi != 3 {
		t.Errorf("Range = %d, %d; want -4, 3", lo, hi)
	}
	for _, tc := range []struct{ in, want string }{
		{"1 2\n3 x4\n", `a.txt:2:3: "x4" is not an integer`},
		{"# nothing\n", "a.txt:1:1: no values"},
		{"1 99999999999999999999\n", `a.txt:1:3: "99999999999999999999" is not an integer`},
	} {
		_, err := ReadText("a.txt", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadText(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}
