package indexdata

import (
	"slices"
	"testing"
)

// denseBoxes is lavaMD's neighbour list by brute force, as Rodinia's
// main.c loops (z, y, x, then l, m, n over -1..1), the home box kept
// in its place rather than skipped.
func denseBoxes(b int64) (ptr, col []int64) {
	ptr = []int64{0}
	for i := range b {
		for j := range b {
			for k := range b {
				for l := int64(-1); l < 2; l++ {
					for m := int64(-1); m < 2; m++ {
						for n := int64(-1); n < 2; n++ {
							z, y, x := i+l, j+m, k+n
							if z >= 0 && y >= 0 && x >= 0 && z < b && y < b && x < b {
								col = append(col, z*b*b+y*b+x)
							}
						}
					}
				}
				ptr = append(ptr, int64(len(col)))
			}
		}
	}
	return ptr, col
}

func TestBoxesMatchesTheBruteForce(t *testing.T) {
	for b := int64(1); b <= 7; b++ {
		m, err := Boxes(b)
		if err != nil {
			t.Fatal(err)
		}
		ptr, col := denseBoxes(b)
		if got := all(m.RowPtr); !slices.Equal(got, ptr) {
			t.Errorf("Boxes(%d) row pointers = %v; want %v", b, got, ptr)
		}
		if got := all(m.Col); !slices.Equal(got, col) {
			t.Errorf("Boxes(%d) columns = %v; want %v", b, got, col)
		}
		checkCSR(t, "Boxes", m)
	}
}

// A corner box has 2·2·2 = 8 boxes (itself and 7 neighbours), a box on
// an edge 2·2·3 = 12, on a face 2·3·3 = 18, inside 27. A grid of b ≥ 2
// has 8 corners, 12(b-2) edge boxes, 6(b-2)² face boxes and (b-2)³
// inside: 64 + 144(b-2) + 108(b-2)² + 27(b-2)³ = (3b-2)³ nonzeros.
func TestBoxesRowLengths(t *testing.T) {
	m, _ := Boxes(4)
	rowLen := func(z, y, x int64) int64 {
		n := z*16 + y*4 + x
		return m.RowPtr.At(n+1) - m.RowPtr.At(n)
	}
	for _, tc := range []struct{ z, y, x, want int64 }{
		{0, 0, 0, 8}, {3, 3, 3, 8}, {0, 3, 0, 8},
		{0, 0, 1, 12}, {2, 3, 3, 12},
		{0, 1, 2, 18}, {1, 2, 3, 18},
		{1, 1, 1, 27}, {2, 1, 2, 27},
	} {
		if got := rowLen(tc.z, tc.y, tc.x); got != tc.want {
			t.Errorf("Boxes(4): box (z %d, y %d, x %d) lists %d boxes; want %d", tc.z, tc.y, tc.x, got, tc.want)
		}
	}
	for _, b := range []int64{2, 3, 4, 10, 100} {
		i := b - 2
		want := 64 + 144*i + 108*i*i + 27*i*i*i
		m, _ := Boxes(b)
		if m.NNZ != want || m.Rows != b*b*b || m.Cols != b*b*b {
			t.Errorf("Boxes(%d): %d rows, %d columns, %d nonzeros; want %d, %d, %d", b, m.Rows, m.Cols, m.NNZ, b*b*b, b*b*b, want)
		}
	}
	if m, _ := Boxes(1); m.NNZ != 1 || m.Col.At(0) != 0 {
		t.Errorf("Boxes(1): %d nonzeros; want the one box alone", m.NNZ)
	}
}

// The largest grid is a closed form too: 21846 boxes a side, (3·21846-2)³
// = 2^48 nonzeros; the last row is the far corner's 8 boxes, ending at
// the last box.
func TestBoxesLargest(t *testing.T) {
	const b = 21846
	m, err := Boxes(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.NNZ != 1<<48 {
		t.Errorf("Boxes(%d).NNZ = %d; want 2^48", b, m.NNZ)
	}
	last := int64(b*b*b - 1)
	if p := m.RowPtr.At(last); m.NNZ-p != 8 {
		t.Errorf("Boxes(%d): the last box lists %d boxes; want 8", b, m.NNZ-p)
	}
	// the far corner's first neighbour is (b-2, b-2, b-2), its last itself
	want := []int64{(b-2)*b*b + (b-2)*b + b - 2, last}
	if got := []int64{m.Col.At(m.NNZ - 8), m.Col.At(m.NNZ - 1)}; !slices.Equal(got, want) {
		t.Errorf("Boxes(%d): the last row runs %v; want %v", b, got, want)
	}
	for _, b := range []int64{0, -1, b + 1} {
		if _, err := Boxes(b); err == nil {
			t.Errorf("Boxes(%d) = nil error; want a refusal", b)
		}
	}
}
