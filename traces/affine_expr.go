package traces

import (
	"fmt"
	"slices"

	"gpumemsim/internal/truth"
	"gpumemsim/kernel"
)

// avalue is an int value of a per-thread kernel in its affine view: an
// affine form f whose Coef are the view's columns, then blockIdx.x, .y
// and .z; or, when why is set, no affine form, and why. A value that
// depends on data read from an array (J14's Z) has z set: z marks the
// columns (and blockIdx terms) the data read depends on, f keeps the
// known part (zero at z's columns) and its constant is unknown.
type avalue struct {
	f   Linear
	why string
	z   []bool
}

func sameValue(a, b avalue) bool {
	return a.why == b.why && a.f.Const == b.f.Const && slices.Equal(a.f.Coef, b.f.Coef) && slices.Equal(a.z, b.z)
}

// data is a value read from data that depends on the columns of vs: on
// those their forms mention and those they depend on through data.
func (w *affineWalker) data(vs ...avalue) avalue {
	v := w.konst(0)
	v.z = make([]bool, w.ncols+3)
	for _, u := range vs {
		for j, c := range u.f.Coef {
			v.z[j] = v.z[j] || c != 0 || u.z != nil && u.z[j]
		}
	}
	return v
}

// unknownIn joins the data dependences of a and b into f: f is unknown
// wherever either is.
func unknownIn(f avalue, a, b avalue) avalue {
	if a.z == nil && b.z == nil {
		return f
	}
	f.z = make([]bool, len(f.f.Coef))
	for j := range f.z {
		f.z[j] = a.z != nil && a.z[j] || b.z != nil && b.z[j]
		if f.z[j] {
			f.f.Coef[j] = 0
		}
	}
	return f
}

// firstWhy is the first of vs without an affine form, if any.
func firstWhy(vs ...avalue) (avalue, bool) {
	for _, v := range vs {
		if v.why != "" {
			return v, true
		}
	}
	return avalue{}, false
}

// args evaluates e's arguments; ok is false, with the first of them
// that has no affine form, when one has none.
func (w *affineWalker) args(e *kernel.Expr, env []avalue) (vals []avalue, why avalue, ok bool) {
	vals = make([]avalue, len(e.Args))
	for i, a := range e.Args {
		vals[i] = w.eval(a, env)
	}
	if v, bad := firstWhy(vals...); bad {
		return nil, v, false
	}
	return vals, avalue{}, true
}

func (w *affineWalker) konst(v int64) avalue {
	return avalue{f: Linear{Const: v, Coef: make([]int64, w.ncols+3)}}
}

// column is the value of column j.
func (w *affineWalker) column(j int) avalue {
	v := w.konst(0)
	v.f.Coef[j] = 1
	return v
}

// combine is a + s·b for expression e.
func (w *affineWalker) combine(a, b avalue, s int64, e *kernel.Expr) avalue {
	switch {
	case a.why != "":
		return a
	case b.why != "":
		return b
	}
	f, ok := combineForm(Linear{Const: a.f.Const, Coef: slices.Clone(a.f.Coef)}, b.f, s)
	if !ok {
		return avalue{why: fmt.Sprintf("%s overflows 64 bits", e)}
	}
	return unknownIn(avalue{f: f}, a, b)
}

// eval is the value of int expression e where the locals hold env.
func (w *affineWalker) eval(e *kernel.Expr, env []avalue) avalue {
	switch e.Kind {
	case kernel.ExprConst:
		return w.konst(e.Val)
	case kernel.ExprParam:
		return w.konst(w.param(e.Name))
	case kernel.ExprSpecial:
		return w.special(kernel.Special(e.Index))
	case kernel.ExprScalar:
		return env[e.Index] // an int local: the parser allows no other in an int expression
	case kernel.ExprAdd, kernel.ExprSub:
		s := int64(1)
		if e.Kind == kernel.ExprSub {
			s = -1
		}
		return w.combine(w.eval(e.Args[0], env), w.eval(e.Args[1], env), s, e)
	case kernel.ExprNeg:
		return w.combine(w.konst(0), w.eval(e.Args[0], env), -1, e)
	case kernel.ExprMul:
		return w.product(e, w.eval(e.Args[0], env), w.eval(e.Args[1], env))
	case kernel.ExprCond:
		return w.conditional(e, env)
	case kernel.ExprCast:
		// The view takes subscripts that stay within their types.
		v := w.eval(e.Args[0], env)
		if v.z == nil && v.why == "" && v.f.isConst() {
			return w.konst(e.Type.Convert(v.f.Const))
		}
		return v
	case kernel.ExprLoad:
		return w.load(e, env)
	case kernel.ExprFloat, kernel.ExprLoop:
		return avalue{why: fmt.Sprintf("%s is not an int of the thread", e)}
	}
	return w.fold(e, env)
}

func (w *affineWalker) param(name string) int64 {
	for _, p := range w.l.Params {
		if p.Name == name {
			return p.Value
		}
	}
	panic(fmt.Sprintf("traces: %s: unknown param %s passed the parser", w.l.Kernel.Name, name))
}

// special is a special register's value: a column for threadIdx, a
// blockIdx term, the launch's numbers for blockDim and gridDim.
func (w *affineWalker) special(s kernel.Special) avalue {
	ax := s.Axis()
	switch {
	case s <= kernel.ThreadIdxZ:
		return w.column(w.thread[ax])
	case s <= kernel.BlockIdxZ:
		return w.column(w.ncols + ax)
	}
	d := w.l.dimConsts(w.l.grid)
	return w.konst(d[s-kernel.BlockDimX])
}

// load is an int read from an array (COL[i]): data, which depends on
// what its subscripts depend on.
func (w *affineWalker) load(e *kernel.Expr, env []avalue) avalue {
	subs, why, ok := w.args(e, env)
	if !ok {
		return why
	}
	return w.data(subs...)
}

// product is a·b: affine when one factor is a constant, data when a
// factor is data.
func (w *affineWalker) product(e *kernel.Expr, a, b avalue) avalue {
	switch {
	case a.why != "":
		return a
	case b.why != "":
		return b
	case a.z == nil && a.f.isConst() && a.f.Const == 0, b.z == nil && b.f.isConst() && b.f.Const == 0:
		return w.konst(0)
	case a.z == nil && a.f.isConst():
		return w.combine(w.konst(0), b, a.f.Const, e)
	case b.z == nil && b.f.isConst():
		return w.combine(w.konst(0), a, b.f.Const, e)
	case a.z != nil || b.z != nil:
		return w.data(a, b)
	case a.f.isConst():
		return w.combine(w.konst(0), b, a.f.Const, e)
	case b.f.isConst():
		return w.combine(w.konst(0), a, b.f.Const, e)
	}
	return avalue{why: fmt.Sprintf("%s multiplies two terms that are not constants (%s and %s)", e, e.Args[0], e.Args[1])}
}

// conditional is c ? a : b, affine when c is a constant, data when c
// is.
func (w *affineWalker) conditional(e *kernel.Expr, env []avalue) avalue {
	c := w.eval(e.Args[0], env)
	if c.why == "" && c.z != nil {
		a, b := w.eval(e.Args[1], env), w.eval(e.Args[2], env)
		if v, ok := firstWhy(a, b); ok {
			return v
		}
		return w.data(c, a, b)
	}
	switch {
	case c.why != "" || !c.f.isConst():
		return avalue{why: fmt.Sprintf("%s is a conditional expression whose condition is not a constant", e)}
	case c.f.Const != 0:
		return w.eval(e.Args[1], env)
	}
	return w.eval(e.Args[2], env)
}

// foldVerbs say what an operator that keeps no affine form does to a
// term that is not a constant.
var foldVerbs = map[kernel.ExprKind]string{
	kernel.ExprDiv: "divides", kernel.ExprMod: "takes the remainder of", kernel.ExprShl: "shifts",
	kernel.ExprShr: "shifts", kernel.ExprNot: "negates",
	kernel.ExprBitAnd: "masks", kernel.ExprBitOr: "masks", kernel.ExprBitXor: "masks",
}

// fold is the value of an operator or call that keeps no affine form:
// a constant when every argument is one, with C's integer semantics
// (binary, as the cursor computes it).
func (w *affineWalker) fold(e *kernel.Expr, env []avalue) avalue {
	vals, why, ok := w.args(e, env)
	if !ok {
		return why
	}
	if slices.ContainsFunc(vals, func(v avalue) bool { return v.z != nil }) {
		return w.data(vals...) // VOX[j] / (N*N): still data
	}
	args := make([]int64, len(e.Args))
	for i, a := range e.Args {
		v := vals[i]
		switch {
		case !v.f.isConst():
			verb, ok := foldVerbs[e.Kind]
			switch {
			case e.Kind == kernel.ExprCall:
				verb = "takes the " + e.Name + " of"
			case !ok:
				verb = "compares"
			}
			return avalue{why: fmt.Sprintf("%s %s a term that is not a constant (%s)", e, verb, a)}
		}
		args[i] = v.f.Const
	}
	switch {
	case e.Kind == kernel.ExprNot:
		return w.konst(truth.Int(args[0] == 0))
	case e.Kind == kernel.ExprCall && e.Name == "abs":
		return w.konst(abs64(args[0]))
	}
	o := xop{kind: e.Kind}
	if e.Kind == kernel.ExprCall && e.Name == "min" {
		o.arg = callMin
	} else if e.Kind == kernel.ExprCall {
		o.arg = callMax
	}
	v, bad := binary(o, args[0], args[1])
	if bad != "" {
		return avalue{why: fmt.Sprintf("%s: %s", e, bad)}
	}
	return w.konst(v)
}

// problemSize marks what depends on the input problem size: the int
// locals one of whose assignments mentions a param, gridDim (the grid
// follows the problem) or such a local, the loops whose condition does,
// and, with such a loop, the locals its condition tests and it changes
// (its variables, as a loop nest's variable of a problem-size loop).
type problemSize struct {
	local []bool
	loop  map[*kernel.While]bool
}

func problemSizeOf(p *kernel.Program) problemSize {
	ps := problemSize{local: make([]bool, len(p.Locals)), loop: map[*kernel.While]bool{}}
	changed := true
	mark := func(v int) {
		if !ps.local[v] {
			ps.local[v], changed = true, true
		}
	}
	for changed {
		changed = false
		walkNodes(p.Body, func(n kernel.Node) {
			switch n := n.(type) {
			case *kernel.Stmt:
				if lc := n.Local; lc != nil && lc.Int && n.Value != nil && ps.mentions(n.Value) {
					mark(lc.Index)
				}
			case *kernel.While:
				if !ps.loop[n] && ps.mentions(n.Cond) {
					ps.loop[n], changed = true, true
				}
				if ps.loop[n] {
					walkExpr(n.Cond, func(e *kernel.Expr) {
						if e.Kind == kernel.ExprScalar && assignsIn(n, e.Index) {
							mark(e.Index)
						}
					})
				}
			}
		})
	}
	return ps
}

func (ps *problemSize) mentions(e *kernel.Expr) bool {
	found := false
	walkExpr(e, func(x *kernel.Expr) {
		switch x.Kind {
		case kernel.ExprParam, kernel.ExprLoad: // a trip count read from data is not fixed either
			found = true
		case kernel.ExprSpecial:
			found = found || kernel.Special(x.Index) >= kernel.GridDimX
		case kernel.ExprScalar:
			found = found || x.Index >= 0 && x.Index < len(ps.local) && ps.local[x.Index]
		}
	})
	return found
}

// assignsIn says loop n's body or increment assigns local v.
func assignsIn(n *kernel.While, v int) bool {
	found := false
	walkNodes(append(slices.Clip(n.Body), n.Post...), func(m kernel.Node) {
		if s, ok := m.(*kernel.Stmt); ok && s.Local != nil && s.Local.Index == v {
			found = true
		}
	})
	return found
}

// walkNodes calls f on every node of a per-thread body, parents first.
func walkNodes(body []kernel.Node, f func(kernel.Node)) {
	for _, n := range body {
		f(n)
		switch n := n.(type) {
		case *kernel.If:
			walkNodes(n.Then, f)
			walkNodes(n.Else, f)
		case *kernel.While:
			walkNodes(n.Body, f)
			walkNodes(n.Post, f)
		}
	}
}

// forEachExpr calls f on the top expressions of a per-thread body: the
// values assigned, the stores' subscripts, the conditions.
func forEachExpr(body []kernel.Node, f func(*kernel.Expr)) {
	walkNodes(body, func(n kernel.Node) {
		switch n := n.(type) {
		case *kernel.Stmt:
			if n.Value != nil {
				f(n.Value)
			}
			if n.Store != nil {
				for _, ix := range n.Store.Index {
					f(ix)
				}
			}
		case *kernel.If:
			f(n.Cond)
		case *kernel.While:
			f(n.Cond)
		}
	})
}

// walkExpr calls f on e and every node under it.
func walkExpr(e *kernel.Expr, f func(*kernel.Expr)) {
	f(e)
	for _, a := range e.Args {
		walkExpr(a, f)
	}
}

// firstLocal is the first local e reads (left to right) that pred
// accepts, or -1.
func firstLocal(e *kernel.Expr, pred func(v int) bool) int {
	found := -1
	walkExpr(e, func(x *kernel.Expr) {
		if found < 0 && x.Kind == kernel.ExprScalar && x.Index >= 0 && pred(x.Index) {
			found = x.Index
		}
	})
	return found
}

func mentionsLocal(e *kernel.Expr, pred func(v int) bool) bool {
	return firstLocal(e, pred) >= 0
}
