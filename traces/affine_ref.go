package traces

import (
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// A reference's place in the affine view: its subscripts per dimension,
// the entries J14 calls Z, and its byte address.

// ref records the view of global reference r at this point of the walk.
func (w *affineWalker) ref(r *kernel.MemRef, env []avalue) {
	if r.Array.Space == kernel.SpaceShared {
		return
	}
	vr := &w.view.refs[w.refAt[r.ID]]
	vr.loops = slices.Clone(w.stack)
	if vr.err != nil { // refused already (a remap)
		return
	}
	ba, offset := w.l.refArray(r, kernel.SpaceGlobal)
	subs := r.Index
	if x := kernel.GatherIndex(r); x != nil {
		subs = x.Args // V[COL[e]] reads V'[e]
	}
	index := make([]Linear, len(subs))
	unknown, unknownConst := make([][]bool, len(subs)), make([]bool, len(subs))
	for d, ix := range subs {
		v := w.eval(ix, env)
		if v.why != "" {
			vr.err = w.notAffine(r, v.why)
			return
		}
		// blockIdx terms dropped: work group 0.
		index[d] = Linear{Const: v.f.Const, Coef: slices.Clone(v.f.Coef[:w.ncols])}
		unknown[d], unknownConst[d] = w.unknownEntries(&index[d], v)
	}
	if len(index) == 1 && len(ba.Dims) > 1 {
		index = delinearize(index[0], ba)
		unknown, unknownConst = contiguousUnknowns(unknown[0], unknownConst[0], ba)
	}
	if slices.Contains(unknownConst, true) || slices.ContainsFunc(unknown, func(z []bool) bool { return slices.Contains(z, true) }) {
		vr.unknown, vr.unknownConst = unknown, unknownConst
	}
	if remapped(ba) {
		if vr.unknown != nil {
			vr.err = w.notAffine(r, fmt.Sprintf("array %s is remapped (%s) and read at data-dependent subscripts", r.Array.Name, r.Array.Remap.Text()))
			return
		}
		var ok bool
		if index, ba, ok = remapForms(index, ba); !ok {
			vr.err = w.notAffine(r, fmt.Sprintf("its element's place under array %s's remap (%s) overflows 64 bits", r.Array.Name, r.Array.Remap.Text()))
			return
		}
	}
	addr, ok := addrForm(index, ba, offset)
	if !ok {
		vr.err = w.notAffine(r, "its byte address overflows 64 bits")
		return
	}
	vr.index, vr.addr = index, addr
}

// unknownEntries are the Z entries of a subscript of value v whose
// known part is f: the columns v depends on through data, and those of
// the data loops f mentions (zeroed in f); and whether its offset is Z.
func (w *affineWalker) unknownEntries(f *Linear, v avalue) ([]bool, bool) {
	z := make([]bool, w.ncols)
	if v.z != nil {
		copy(z, v.z[:w.ncols])
	}
	for j, c := range f.Coef {
		if c != 0 && w.dataCol[j] {
			z[j], f.Coef[j] = true, 0
		}
	}
	if v.z != nil {
		f.Const = 0
	}
	return z, v.z != nil
}

// contiguousUnknowns places the Z entries of a flat subscript of array
// a in its contiguous dimension's row (see delinearize).
func contiguousUnknowns(z []bool, zc bool, a *BoundArray) ([][]bool, []bool) {
	rows, consts := make([][]bool, len(a.Dims)), make([]bool, len(a.Dims))
	for d := range rows {
		rows[d] = make([]bool, len(z))
		if elemStride(a, d) == 1 {
			copy(rows[d], z)
			consts[d] = zc
		}
	}
	return rows, consts
}

func (w *affineWalker) notAffine(r *kernel.MemRef, why string) error {
	return inFile(w.l.Kernel.File, &arch.PosError{Line: r.Line, Column: r.Col, Err: fmt.Errorf(
		"%s: not affine in thread and block indices: %s", r.Text, why)})
}

// delinearize splits flat, an element index of array a written as one
// subscript, into one form per dimension: each term goes to the
// dimension of largest stride that divides its coefficient (the
// contiguous one, of stride 1, takes any), and the constant is split by
// the strides, each inner part in [0, stride of the next outer
// dimension). For A[M][K], A[a + K*ty + tx] becomes A[ty][a + tx].
func delinearize(flat Linear, a *BoundArray) []Linear {
	rows := make([]Linear, len(a.Dims))
	strides := make([]int64, len(a.Dims))
	order := make([]int, len(a.Dims))
	for d := range rows {
		rows[d].Coef = make([]int64, len(flat.Coef))
		strides[d], order[d] = elemStride(a, d), d
	}
	slices.SortStableFunc(order, func(x, y int) int { return int(sign64(strides[y] - strides[x])) })
	for j, c := range flat.Coef {
		for _, d := range order {
			if c != 0 && c%strides[d] == 0 {
				rows[d].Coef[j] = c / strides[d]
				break
			}
		}
	}
	rest := flat.Const
	for _, d := range order {
		q := floorDiv64(rest, strides[d])
		rows[d].Const, rest = q, rest-q*strides[d]
	}
	return rows
}

// addrForm is the byte address of the element at index (one form per
// dimension of a, or one flat index of a one-dimensional a), plus a
// field's offset: base + offset + size·Σ stride·index.
func addrForm(index []Linear, a *BoundArray, offset int64) (Linear, bool) {
	width := a.ElemSize()
	f := Linear{Const: int64(a.Base) + offset, Coef: make([]int64, len(index[0].Coef))}
	for d, ix := range index {
		s, ok := mul64(width, elemStride(a, d))
		if !ok {
			return f, false
		}
		if f, ok = combineForm(f, ix, s); !ok {
			return f, false
		}
	}
	return f, true
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func sign64(x int64) int64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// remapped says a's elements live where a 2-D transform (row2col,
// col2row, diagonal) puts them; a gathered array's subscripts are its
// index array's, read as they stand.
func remapped(a *BoundArray) bool {
	switch a.Remap {
	case kernel.RemapRow2Col, kernel.RemapCol2Row, kernel.RemapDiagonal:
		return true
	}
	return false
}

// remapForms are the subscripts (r, c) of a 2-D remapped array a, in the
// original row-major index space, as subscripts of the array the remap
// lays out, and that array's shape: every transform but the tile is
// affine in (r, c). row2col puts (r, c) at row c, column r of a W×H
// array; col2row reads old = r·W + c as column-major, (old % H, old / H),
// and puts that at its row-major place; diagonal puts it at row r + c,
// column r of a (2·dim − 1)×dim array. The split of a flat subscript
// into (r, c) is delinearize's, exact where each form stays within its
// dimension, as the subscripts of a kernel that indexes in bounds do.
func remapForms(index []Linear, a *BoundArray) ([]Linear, *BoundArray, bool) {
	h, w := a.Dims[0], a.Dims[1]
	r, c := index[0], index[1]
	view := *a
	view.Layout = kernel.RowMajor
	switch a.Remap {
	case kernel.RemapRow2Col:
		view.Dims = []int64{w, h}
		return []Linear{c, r}, &view, true
	case kernel.RemapCol2Row:
		old, ok := combineForm(cloneForms([]Linear{c})[0], r, w)
		cr := delinearize(old, &BoundArray{Dims: []int64{w, h}})
		view.Dims = []int64{h, w}
		return []Linear{cr[1], cr[0]}, &view, ok
	}
	// RemapDiagonal
	d, ok := combineForm(cloneForms([]Linear{r})[0], c, 1)
	view.Dims = []int64{2*h - 1, h}
	return []Linear{d, r}, &view, ok
}
