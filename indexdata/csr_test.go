package indexdata

import (
	"slices"
	"testing"
)

// checkCSR checks the invariants of a CSR structure: row pointers from 0
// to NNZ, non-decreasing; columns in range and strictly increasing within
// each row.
func checkCSR(t *testing.T, what string, m *CSR) {
	t.Helper()
	if m.RowPtr.Len() != m.Rows+1 || m.Col.Len() != m.NNZ {
		t.Fatalf("%s: %d row pointers and %d columns for %d rows and %d nonzeros", what, m.RowPtr.Len(), m.Col.Len(), m.Rows, m.NNZ)
	}
	if m.RowPtr.At(0) != 0 || m.RowPtr.At(m.Rows) != m.NNZ {
		t.Fatalf("%s: row pointers run from %d to %d; want 0 to %d", what, m.RowPtr.At(0), m.RowPtr.At(m.Rows), m.NNZ)
	}
	for r := range m.Rows {
		a, b := m.RowPtr.At(r), m.RowPtr.At(r+1)
		if b < a {
			t.Fatalf("%s: row pointer %d = %d after %d", what, r+1, b, a)
		}
		for j := a; j < b; j++ {
			c := m.Col.At(j)
			if c < 0 || c >= m.Cols || j > a && c <= m.Col.At(j-1) {
				t.Fatalf("%s: row %d: column %d at %d out of range or order", what, r, c, j)
			}
		}
	}
}

// denseBand is the banded structure by brute force: row r of n holds the
// columns c of [0, n) with r-a ≤ c ≤ r+b.
func denseBand(n, w int64) (ptr, col []int64) {
	a := (w - 1) / 2
	b := w - 1 - a
	ptr = []int64{0}
	for r := range n {
		for c := range n {
			if c >= r-a && c <= r+b {
				col = append(col, c)
			}
		}
		ptr = append(ptr, int64(len(col)))
	}
	return ptr, col
}

func TestBandedMatchesTheDenseBand(t *testing.T) {
	for _, tc := range []struct{ n, w int64 }{{1, 1}, {5, 1}, {5, 2}, {5, 3}, {5, 5}, {10, 4}, {33, 7}, {64, 8}, {7, 7}} {
		m, err := Banded(tc.n, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		ptr, col := denseBand(tc.n, tc.w)
		if got := all(m.RowPtr); !slices.Equal(got, ptr) {
			t.Errorf("Banded(%d, %d) row pointers = %v; want %v", tc.n, tc.w, got, ptr)
		}
		if got := all(m.Col); !slices.Equal(got, col) {
			t.Errorf("Banded(%d, %d) columns = %v; want %v", tc.n, tc.w, got, col)
		}
		checkCSR(t, "Banded", m)
	}
}

// The tridiagonal matrix of 10 rows: rows 0 and 9 hold 2 nonzeros, the
// others 3, so ROW[r] = 3r - 1 for 1 ≤ r ≤ 9 and ROW[10] = 28.
func TestBandedRowPointersInClosedForm(t *testing.T) {
	m, _ := Banded(10, 3)
	want := []int64{0}
	for r := int64(1); r <= 9; r++ {
		want = append(want, 3*r-1)
	}
	want = append(want, 28)
	if got := all(m.RowPtr); !slices.Equal(got, want) {
		t.Errorf("Banded(10, 3) row pointers = %v; want %v", got, want)
	}
	// A large band is a closed form too: 2^40 rows of width 5 hold
	// 5·2^40 - 2·(1+2) nonzeros (two rows clipped at each edge).
	big, err := Banded(1<<40, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(5<<40 - 6); big.NNZ != want {
		t.Errorf("Banded(2^40, 5).NNZ = %d; want %d", big.NNZ, want)
	}
	if c := big.Col.At(big.NNZ - 1); c != 1<<40-1 {
		t.Errorf("Banded(2^40, 5): last column %d; want %d", c, int64(1<<40-1))
	}
}

func TestPowerLaw(t *testing.T) {
	m, err := PowerLaw(10000, 5000, 8, 2.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, "PowerLaw", m)
	var longest int64
	for r := range m.Rows {
		n := m.RowPtr.At(r+1) - m.RowPtr.At(r)
		if n < 1 {
			t.Fatalf("PowerLaw: row %d is empty", r)
		}
		longest = max(longest, n)
	}
	if avg := float64(m.NNZ) / float64(m.Rows); avg < 6 || avg > 10 {
		t.Errorf("PowerLaw(avg 8): %.2f nonzeros per row", avg)
	}
	// A Pareto tail of exponent 2.5 over 10000 rows reaches far past the
	// mean (the largest of 10000 weights is near 10000^(1/1.5) ≈ 460
	// times the smallest).
	if longest < 40 {
		t.Errorf("PowerLaw(exponent 2.5): longest row %d; want a heavy tail (≥ 40)", longest)
	}
	again, _ := PowerLaw(10000, 5000, 8, 2.5, 1)
	if !slices.Equal(all(m.Col), all(again.Col)) {
		t.Error("PowerLaw differs between two constructions with one seed")
	}
}
