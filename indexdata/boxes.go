package indexdata

import "fmt"

// Boxes is the neighbour-box structure of a b×b×b grid of boxes, as
// Rodinia's lavaMD builds it (main.c): box n = z·b² + y·b + x, and row n
// lists the boxes (z+l)·b² + (y+m)·b + (x+k) for l, m, k in -1..1 that
// lie in the grid — n itself and its up to 26 neighbours, clipped at the
// grid's faces. The rows are b³, the columns b³, and a row holds
// c(x)·c(y)·c(z) boxes, c(i) = 3 less one at each face i touches: 8 at a
// corner, 12 on an edge, 18 on a face, 27 inside.
//
// Rodinia loops l, m, k in that order, so its neighbour numbers ascend,
// as a CSR row's columns do; it visits the home box first, where this
// row has it in its ascending place.
func Boxes(b int64) (*CSR, error) {
	if b < 1 || b > maxBoxes1D {
		return nil, fmt.Errorf("boxes: %d boxes a side; want 1 to %d, whose (3b-2)³ nonzeros are within 2^48", b, int64(maxBoxes1D))
	}
	g := boxGrid{b: b, s: 3*b - 2}
	nnz := g.s * g.s * g.s
	return &CSR{Rows: b * b * b, Cols: b * b * b, NNZ: nnz, RowPtr: boxRowPtr{g, nnz}, Col: boxCol{g, nnz}}, nil
}

// maxBoxes1D bounds b: (3b-2)³ nonzeros stay within MaxGenerated, 2^48,
// while 3b - 2 ≤ 2^16.
const maxBoxes1D = (1<<16 + 2) / 3

// boxGrid is a grid of b boxes a side; s = 3b - 2 is the number of
// (box, neighbour) pairs along one axis, Σ_i c(i).
type boxGrid struct{ b, s int64 }

// c is the number of neighbours of coordinate i along one axis, itself
// included: i-1, i, i+1 within [0, b).
func (g boxGrid) c(i int64) int64 {
	n := int64(3)
	if i == 0 {
		n--
	}
	if i == g.b-1 {
		n--
	}
	return n
}

// prefix is Σ_{i' < i} c(i'): 3i less one for the face at 0 (once i ≥ 1)
// and one for the face at b-1 (once i = b).
func (g boxGrid) prefix(i int64) int64 {
	p := 3 * i
	if i >= 1 {
		p--
	}
	if i >= g.b {
		p--
	}
	return p
}

// cell is the coordinate i with prefix(i) ≤ q < prefix(i+1), for
// 0 ≤ q < s: the axis's cells hold c(0), 3, …, 3, c(b-1) pairs.
func (g boxGrid) cell(q int64) int64 {
	if q < g.c(0) {
		return 0
	}
	return min((q+1)/3, g.b-1)
}

// rowPtr is the number of pairs of the boxes before n = z·b² + y·b + x:
// the z-slabs before z, then the rows of slab z before y, then the boxes
// of row y before x.
func (g boxGrid) rowPtr(n int64) int64 {
	if n == g.b*g.b*g.b {
		return g.s * g.s * g.s
	}
	x, y, z := n%g.b, n/g.b%g.b, n/(g.b*g.b)
	return g.prefix(z)*g.s*g.s + g.c(z)*g.prefix(y)*g.s + g.c(z)*g.c(y)*g.prefix(x)
}

// col is pair j's neighbour: find the box (z, y, x) whose row holds j by
// the same three steps, then j's place k in the row's
// c(z)·c(y)·c(x) neighbours, in l, m, k order.
func (g boxGrid) col(j int64) int64 {
	ss := g.s * g.s
	z := g.cell(j / ss)
	r := j - g.prefix(z)*ss
	cz := g.c(z)
	y := g.cell(r / (cz * g.s))
	r -= cz * g.prefix(y) * g.s
	cy := g.c(y)
	x := g.cell(r / (cz * cy))
	k := r - cz*cy*g.prefix(x)
	cx := g.c(x)
	dz, dy, dx := k/(cy*cx), k/cx%cy, k%cx
	return (max(z-1, 0)+dz)*g.b*g.b + (max(y-1, 0)+dy)*g.b + max(x-1, 0) + dx
}

type boxRowPtr struct {
	g   boxGrid
	nnz int64
}

func (p boxRowPtr) Len() int64            { return p.g.b*p.g.b*p.g.b + 1 }
func (p boxRowPtr) At(n int64) int64      { return p.g.rowPtr(n) }
func (p boxRowPtr) Range() (int64, int64) { return 0, p.nnz }

type boxCol struct {
	g   boxGrid
	nnz int64
}

func (c boxCol) Len() int64            { return c.nnz }
func (c boxCol) At(j int64) int64      { return c.g.col(j) }
func (c boxCol) Range() (int64, int64) { return 0, c.g.b*c.g.b*c.g.b - 1 }
