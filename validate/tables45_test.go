package validate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// zMatrix writes a reference's M with Z entries, as J14 prints it.
func zMatrix(r JangRef) string {
	rows := make([]string, len(r.M))
	for d, row := range r.M {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = fmt.Sprint(c)
			if r.unknownAt(d, j) {
				cells[j] = "Z"
			}
		}
		rows[d] = strings.Join(cells, " ")
	}
	return "[" + strings.Join(rows, "; ") + "]"
}

// TestJangTables4And5 checks siddon and nms against J14: the patterns of
// models.md K7 and K8 (columns threadIdx.y, threadIdx.x, then the loop;
// siddon's vol exactly as J14 prints it, [0 0 0; 0 0 0; 0 0 Z]; nms's
// inputs at [Z][Z]), the spaces of Tables 4 and 5 (the volume and the
// three layers in texture, out in global), cost 0 for every shape, and
// Algorithm 2's candidates on gt200 with Tables 4 and 5's AWG, OC and
// OR, row by row.
func TestJangTables4And5(t *testing.T) {
	gt200 := jangLoad(t, "gt200")
	for _, tc := range []struct {
		kernel   string
		patterns map[string]string // reference → M, class, space
		table    []string          // ty×tx AWG OC% OR
	}{
		{"siddon", map[string]string{
			"vol[VOX[j]]": "[0 0 0; 0 0 0; 0 0 Z] true random texture",
			"out[y][x]":   "[1 0 0; 0 1 0] true linear global",
			"a[y]":        "[1 0 0] tx not involved global",
			"b[x]":        "[0 1 0] true linear global",
		}, []string{"2x128 2 50 3", "4x64 2 50 3", "8x32 2 50 3", "16x16 2 50 3", "2x64 4 50 2", "4x32 4 50 2", "8x16 4 50 2",
			"2x32 8 50 1", "4x16 8 50 1", "2x16 8 25 4"}},
		{"nms", map[string]string{
			"T[yy][xx]": "[Z 0 Z; 0 Z Z] true random texture",
			"M[yy][xx]": "[Z 0 Z; 0 Z Z] true random texture",
			"B[yy][xx]": "[Z 0 Z; 0 Z Z] true random texture",
			"out[y][x]": "[1 0 0; 0 1 0] true linear global",
		}, []string{"2x256 2 100 3", "4x128 2 100 3", "8x64 2 100 3", "16x32 2 100 3", "32x16 2 100 3",
			"2x128 4 100 2", "4x64 4 100 2", "8x32 4 100 2", "16x16 4 100 2", "2x64 8 100 1", "4x32 8 100 1", "8x16 8 100 1",
			"2x32 8 50 4", "4x16 8 50 4", "2x16 8 25 5"}},
	} {
		l := jangBind(t, tc.kernel, "", arch.Dim3{}, nil)
		m, err := NewJangModel(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range m.Refs {
			want, ok := tc.patterns[r.Text]
			if got := zMatrix(r) + " " + r.Class + " " + r.Space; ok && got != want {
				t.Errorf("%s: %s: %s; want %s", tc.kernel, r.Text, got, want)
			}
		}
		e, err := NewJangEstimate(gt200, l)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range e.Candidates {
			if c.Valid {
				if c.Cost != 0 || c.Gain != 0 {
					t.Errorf("%s %s: cost %d gain %d; want 0, 0", tc.kernel, jangShape(c.Block), c.Cost, c.Gain)
				}
				got = append(got, fmt.Sprintf("%s %d %.0f %d", jangShape(c.Block), c.AWG, 100*c.Occupancy, c.Rank))
			}
		}
		if !slices.Equal(got, tc.table) {
			t.Errorf("%s on gt200: candidates\n%v\nwant J14's\n%v", tc.kernel, got, tc.table)
		}
	}
}
