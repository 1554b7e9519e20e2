package traces

import (
	"fmt"
	"math"

	"gpumemsim/kernel"
)

// Dymaxion remaps (kernel/remap.go): a remapped array keeps its original
// index space in the source, and its element old lives at T(old). The
// per-thread cursor applies T to the element index it computes; the
// gather instead reads V'[e] where the source reads V[COL[e]] (and COL
// is not read). The static models see the remapped addresses of the
// affine transforms and of the gather, and refuse a tiled array by name.

// remapping is a bound remap: the transform of a 2-D array's row-major
// element index, with the array's height and width.
type remapping struct {
	kind   kernel.RemapKind
	height int64
	width  int64
	tile   [2]int64 // RemapTile's tile height and width
}

// apply is T(old) for an element index old in [0, height·width).
func (m remapping) apply(old int64) int64 {
	switch m.kind {
	case kernel.RemapRow2Col: // transform_row2col
		return m.height*(old%m.width) + old/m.width
	case kernel.RemapCol2Row: // old = c·H + r, column-major
		return m.width*(old%m.height) + old/m.height
	case kernel.RemapDiagonal: // transform_diagonal; height = width = dim
		dim := m.width
		return dim*((old%dim)+old/dim) + old/dim
	case kernel.RemapTile: // tiles in row-major order, row-major inside
		th, tw := m.tile[0], m.tile[1]
		r, c := old/m.width, old%m.width
		return ((r/th)*(m.width/tw)+c/tw)*th*tw + (r%th)*tw + c%tw
	}
	return old
}

// remapOf is the remap of a bound array.
func remapOf(a *BoundArray) remapping {
	m := remapping{kind: a.Remap, tile: a.Tile}
	if len(a.Dims) == 2 {
		m.height, m.width = a.Dims[0], a.Dims[1]
	}
	return m
}

// Elements is the number of elements of a's original index space: the
// product of its dims (for a gathered array, its index array's).
func (a *BoundArray) Elements() int64 {
	n := int64(1)
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// remapArray sizes ba, bound from a, for its remap: a diagonal strip
// takes (2·dim − 1)·dim slots of a dim × dim array; a gathered array has
// its index array's extents. value evaluates dims.
func (l *Launch) remapArray(ba *BoundArray, a *kernel.Array, value func(*kernel.Expr) (int64, error)) error {
	r := a.Remap
	ba.Remap = r.Kind
	pos := kernel.Pos{Line: r.Line, Col: r.Col}
	switch r.Kind {
	case kernel.RemapDiagonal:
		h, w := ba.Dims[0], ba.Dims[1]
		if h != w {
			return at(pos, fmt.Errorf("array %s: remap diagonal: the array is %d×%d; a diagonal strip remaps a square array (transform_diagonal has one dim); hint: make dims equal, e.g. [N, N]", a.Name, h, w))
		}
		if h > math.MaxInt64/a.ElemSize()/(2*h-1) {
			return at(pos, fmt.Errorf("array %s: remap diagonal: (2·%d − 1)·%d slots exceed 2^63 bytes; hint: use smaller params", a.Name, h, h))
		}
		ba.Size = (2*h - 1) * h * a.ElemSize()
	case kernel.RemapTile:
		return bindTile(ba, a, value)
	case kernel.RemapGather:
		ix := l.Kernel.ArrayNamed(r.Index)
		ib, err := boundArray(ix, value)
		if err != nil {
			return err
		}
		ba.Dims, ba.Size = ib.Dims, ib.Elements()*a.ElemSize()
	}
	return nil
}

// bindTile evaluates the tile of a's tile remap into ba, after checking
// that whole tiles cover the array.
func bindTile(ba *BoundArray, a *kernel.Array, value func(*kernel.Expr) (int64, error)) error {
	for i, e := range a.Remap.Tile {
		v, err := value(e)
		if err != nil {
			return within("array "+a.Name+": remap: tile", err)
		}
		if v <= 0 || ba.Dims[i]%v != 0 {
			side, from := [2]string{"height", "width"}[i], ""
			if e.Line == 0 {
				from = " " + a.Remap.Origin()
			}
			return at(kernel.Pos{Line: e.Line, Col: e.Col}, fmt.Errorf("array %s: remap%s: tile %s: %s does not divide the array's %s %d; hint: choose a tile whose sides divide dims %v",
				a.Name, from, side, valueText(e, v), side, ba.Dims[i], ba.Dims))
		}
		ba.Tile[i] = v
	}
	return nil
}

// remapRefusal is the static models' refusal of reference r, whose
// array is tiled: a tile's place is not affine in the subscripts (the
// other transforms are, and the affine view applies them: remapForms);
// nil for any other reference.
func (l *Launch) remapRefusal(r *kernel.MemRef) error {
	rm := r.Array.Remap
	if rm == nil || rm.Kind != kernel.RemapTile {
		return nil
	}
	return inFile(l.Kernel.File, at(kernel.Pos{Line: r.Line, Col: r.Col}, fmt.Errorf(
		"%s: array %s is remapped (%s %s), and a tile's place divides and takes remainders of the subscripts, which the static models' affine forms cannot; hint: simulate it with run, or drop the remap to model the original layout",
		r.Text, r.Array.Name, rm.Text(), rm.Origin())))
}

// gathered says reference id reads an index array for a gather only, so
// the remapped kernel leaves it out.
func (l *Launch) gathered(id int) bool {
	for _, r := range l.Kernel.Program.Refs {
		if x := kernel.GatherIndex(r); x != nil && x.Index == id {
			return true
		}
	}
	return false
}
