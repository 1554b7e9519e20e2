package indexdata

import (
	"fmt"
	"sort"
)

// CSR is the structure of a sparse matrix in compressed sparse row form:
// RowPtr has Rows+1 elements, RowPtr[0] = 0, RowPtr[Rows] = NNZ, and row
// r's column indices are Col[RowPtr[r]] .. Col[RowPtr[r+1]-1], sorted.
type CSR struct {
	Rows, Cols, NNZ int64
	RowPtr, Col     Contents
}

// Banded is the rows×rows matrix whose row r holds columns r-a .. r+b
// clipped to [0, rows), with a = (width-1)/2 and b = width-1-a.
func Banded(rows, width int64) (*CSR, error) {
	if rows < 1 || rows > MaxGenerated || width < 1 || width > rows || width > MaxGenerated/rows {
		return nil, fmt.Errorf("banded: want 1 ≤ width ≤ rows and rows·width ≤ 2^48; got rows %d, width %d", rows, width)
	}
	b := band{n: rows, a: (width - 1) / 2, w: width}
	b.b = width - 1 - b.a
	nnz := b.rowPtr(rows)
	return &CSR{Rows: rows, Cols: rows, NNZ: nnz, RowPtr: bandRowPtr{b, nnz}, Col: bandCol{b, nnz}}, nil
}

// band is a banded structure: n rows, a diagonals below the main one, b
// above, w = a+b+1 in all.
type band struct{ n, a, b, w int64 }

// rowPtr is the number of nonzeros in rows 0..r-1: r·w less what the
// left edge clips (row k < a loses a-k) and what the right edge clips
// (row k > n-1-b loses k+b-(n-1)).
func (d band) rowPtr(r int64) int64 {
	left := min(r, d.a)
	q := max(0, r-(d.n-d.b))
	return r*d.w - (left*d.a - left*(left-1)/2) - q*(q+1)/2
}

// row is the row holding nonzero j: the last r with rowPtr(r) ≤ j.
// Between the clipped edges rows are w long, so the search is arithmetic
// there.
func (d band) row(j int64) int64 {
	lo := d.a                   // the first row neither edge clips…
	hi := max(d.a, d.n-d.b) - 1 // …and the last
	if lo <= hi {
		if p := d.rowPtr(lo); j >= p && j < d.rowPtr(hi+1) {
			return lo + (j-p)/d.w
		}
	}
	return int64(sort.Search(int(d.n), func(r int) bool { return d.rowPtr(int64(r)+1) > j }))
}

type bandRowPtr struct {
	d   band
	nnz int64
}

func (p bandRowPtr) Len() int64            { return p.d.n + 1 }
func (p bandRowPtr) At(r int64) int64      { return p.d.rowPtr(r) }
func (p bandRowPtr) Range() (int64, int64) { return 0, p.nnz }

type bandCol struct {
	d   band
	nnz int64
}

func (c bandCol) Len() int64 { return c.nnz }
func (c bandCol) At(j int64) int64 {
	r := c.d.row(j)
	return max(0, r-c.d.a) + j - c.d.rowPtr(r)
}
func (c bandCol) Range() (int64, int64) { return 0, c.d.n - 1 }
