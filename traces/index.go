package traces

import (
	"fmt"
	"slices"

	"gpumemsim/kernel"
)

// The static models of package validate (J14's access matrices, Peng's
// strides) read a launch through AccessColumns, IndexForms,
// EnclosingLoops, AddrForm and ThreadExtents. For a loop nest the columns
// are its loops; for a per-thread kernel they come from its affine view
// (affine.go).

// AccessColumn is one column of J14's memory access matrices, one entry of
// the iteration vector: a loop of the kernel, or an index that runs
// across threads.
type AccessColumn struct {
	// Var names the column: the loop variable, or threadIdx.x, .y, .z.
	Var string
	// Thread says the column runs across the threads of a work group,
	// along Axis: a loop mapped to Axis, or threadIdx of a per-thread
	// kernel (a "thread loop" over the block's extent).
	Thread bool
	Axis   kernel.Axis
	// Step is how much the variable changes per iteration, or per thread
	// index for a thread column (1 for threadIdx); 0 for a per-thread
	// loop without an induction variable.
	Step int64
	// ProblemSize says the loop's trip count depends on the input
	// problem size (J14's "loop variable of the input problem size") or
	// on data.
	ProblemSize bool
	// Data says the loop's variable starts at a value read from data
	// (for (j = ROW[i]; …)): the values it takes are data, so every
	// entry of the access matrices in this column is J14's Z
	// (IndexUnknowns).
	Data bool
	// DataAlongX says a Data loop's first value is read at a subscript
	// that varies along threadIdx.x (ROW[row], row from threadIdx.x), so
	// its variable differs between the lanes of a warp by amounts the
	// data choose; false where every lane reads the same start
	// (ROW[blockIdx.x]).
	DataAlongX bool
}

// AccessColumns returns the columns of the access matrices of l: one per
// loop of l.Loops for a loop nest (mapped loops are thread columns); for
// a per-thread kernel, the thread indices it reads, outermost first
// (threadIdx.z, .y, .x), then its loops in source order. A loop nest's
// loop runs over the problem size when its lower bound, upper bound or
// step mentions a param or the variable of such a loop; a per-thread
// loop when its condition mentions a param, gridDim or an int local whose
// value does (see affine.go).
func (l *Launch) AccessColumns() []AccessColumn {
	if l.pt != nil {
		return l.threadView().cols
	}
	problem := problemSizeLoops(l.Kernel.Program)
	cols := make([]AccessColumn, len(l.Loops))
	for v, bl := range l.Loops {
		cols[v] = AccessColumn{Var: bl.Var, Thread: bl.Mapped, Axis: bl.Axis, Step: bl.Step, ProblemSize: problem[v]}
	}
	return cols
}

// IndexForms returns the subscripts of reference ref (an index of l.Refs)
// as affine forms of the columns (AccessColumns) with the params
// substituted, outermost array dimension first: row d of J14's memory
// access matrix is IndexForms(ref)[d].Coef and entry d of its offset
// vector is IndexForms(ref)[d].Const. The forms are in elements of the
// array, before the layout turns them into a byte address (AddrForm).
//
// A per-thread kernel's forms are those of work group 0, and a flat
// subscript of a multi-dimensional array is split into its dimensions
// (see affine.go); a subscript that depends on data read from an array
// has J14's Z entries, 0 in its form (IndexUnknowns says which); a
// shared-memory reference, or one whose subscript is otherwise not
// affine in the thread indices and loop variables, is an error that
// says why, at the reference's file:line:col.
func (l *Launch) IndexForms(ref int) ([]Linear, error) {
	if l.pt != nil {
		vr, err := l.viewRef(ref)
		if err != nil {
			return nil, err
		}
		return cloneForms(vr.index), nil
	}
	r, err := l.memRef(ref)
	if err != nil {
		return nil, err
	}
	env := l.ParamValues()
	forms := make([]Linear, len(r.Index))
	for d, ix := range r.Index {
		if forms[d], err = linear(ix, env, len(l.Loops)); err != nil {
			return nil, fmt.Errorf("%s: %s: subscript %d: %v", l.Kernel.Name, r.Text, d, err)
		}
	}
	return forms, nil
}

// IndexUnknowns returns, per subscript of reference ref (as
// IndexForms), the columns whose entry of J14's access matrix is Z, a
// data-dependent, statically unknown entry, and whether its offset is
// Z; nil, nil for a reference whose subscripts are affine (every loop
// nest's). IndexForms and AddrForm hold 0 at a Z entry (see affine.go
// for which entries are Z).
func (l *Launch) IndexUnknowns(ref int) (cols [][]bool, offset []bool, err error) {
	if l.pt == nil {
		_, err := l.memRef(ref)
		return nil, nil, err
	}
	vr, err := l.viewRef(ref)
	if err != nil || vr.unknown == nil {
		return nil, nil, err
	}
	cols = make([][]bool, len(vr.unknown))
	for d, z := range vr.unknown {
		cols[d] = slices.Clone(z)
	}
	return cols, slices.Clone(vr.unknownConst), nil
}

// AddrForm returns the byte address of reference ref, base included, as
// an affine form of the columns: Ref.Addr for a loop nest; for a
// per-thread kernel, the address in work group 0, or IndexForms' error.
func (l *Launch) AddrForm(ref int) (Linear, error) {
	if l.pt != nil {
		vr, err := l.viewRef(ref)
		if err != nil {
			return Linear{}, err
		}
		return cloneForms([]Linear{vr.addr})[0], nil
	}
	if _, err := l.memRef(ref); err != nil {
		return Linear{}, err
	}
	return l.Refs[ref].Addr, nil
}

// EnclosingLoops returns the columns (indices of AccessColumns) whose
// bodies hold reference ref, outermost first. Thread columns are
// included: a mapped loop encloses the reference in the source even
// though it runs across threads, and a per-thread kernel's thread indices
// enclose all of it.
func (l *Launch) EnclosingLoops(ref int) ([]int, error) {
	if l.pt != nil {
		vr, err := l.viewRef(ref)
		if err != nil {
			return nil, err
		}
		return slices.Clone(vr.loops), nil
	}
	r, err := l.memRef(ref)
	if err != nil {
		return nil, err
	}
	var found []int
	var walk func(nodes []kernel.Node, stack []int) bool
	walk = func(nodes []kernel.Node, stack []int) bool {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				hit := n.Store == r
				for _, ld := range n.Loads {
					hit = hit || ld == r
				}
				if hit {
					found = append([]int{}, stack...)
					return true
				}
			case *kernel.Loop:
				if walk(n.Body, append(stack, n.Index)) {
					return true
				}
			}
		}
		return false
	}
	if !walk(l.Kernel.Program.Body, nil) {
		panic(fmt.Sprintf("traces: reference %s of %s is in no statement", r.Text, l.Kernel.Name))
	}
	return found, nil
}

// ThreadExtents returns, per axis (x, y, z), the number of threads along
// it that run the kernel: a loop nest's mapped loop extent (1 for an axis
// without one; threads past it are inactive), and for a per-thread kernel
// the block's extent times the grid's, as every thread it launches runs.
func (l *Launch) ThreadExtents() [3]int64 {
	if l.pt != nil {
		b, g := l.Block, l.grid
		return [3]int64{int64(b.X) * int64(g.X), int64(b.Y) * int64(g.Y), int64(b.Z) * int64(g.Z)}
	}
	return l.extent
}

// problemSizeLoops marks the loops of a loop nest whose trip count
// depends on the input problem size: a bound or the step mentions a
// param, or the variable of a loop so marked.
func problemSizeLoops(p *kernel.Program) []bool {
	marked := make([]bool, len(p.Loops))
	var mentions func(e *kernel.Expr) bool
	mentions = func(e *kernel.Expr) bool {
		if e == nil {
			return false
		}
		switch e.Kind {
		case kernel.ExprParam:
			return true
		case kernel.ExprLoop:
			return marked[e.Index]
		}
		return slices.ContainsFunc(e.Args, mentions)
	}
	// Bounds mention outer loops only, and p.Loops is in source order,
	// so outer loops are marked first.
	for i, lp := range p.Loops {
		marked[i] = mentions(lp.Lower) || mentions(lp.Upper) || mentions(lp.Step)
	}
	return marked
}

func cloneForms(fs []Linear) []Linear {
	out := make([]Linear, len(fs))
	for i, f := range fs {
		out[i] = Linear{Const: f.Const, Coef: slices.Clone(f.Coef)}
	}
	return out
}

// memRef finds the parsed reference behind l.Refs[ref].
func (l *Launch) memRef(ref int) (*kernel.MemRef, error) {
	if err := l.checkRef(ref); err != nil {
		return nil, err
	}
	id := l.Refs[ref].ID
	for _, r := range l.Kernel.Program.Refs {
		if r.ID == id {
			return r, nil
		}
	}
	panic(fmt.Sprintf("traces: reference %d of %s has no parsed reference", id, l.Kernel.Name))
}

func (l *Launch) checkRef(ref int) error {
	if ref < 0 || ref >= len(l.Refs) {
		return fmt.Errorf("%s: reference %d out of range (the launch has %d)", l.Kernel.Name, ref, len(l.Refs))
	}
	return nil
}
