package traces

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gpumemsim/kernel"
)

// The affine view of a per-thread kernel is what the static models read
// of it: the columns of J14's access matrices and, per global reference,
// its subscripts as affine forms of them (IndexForms, AccessColumns).
//
//   - Columns. The thread indices the kernel reads are the inter-thread
//     columns, J14's "thread loops" over the block (threadIdx.z, .y, .x,
//     outermost first, as a loop nest's i1→ty, i2→tx); its loops, in
//     source order, are the intra-thread ones. A loop's column is the
//     value of its induction variable: an int local that changes once per
//     iteration by a constant (i += C at the top level of the body, or in
//     a for's increment), preferably one the condition tests. Other
//     induction variables of the same loop follow it: in for (a = aBegin,
//     b = bBegin; a <= aEnd; a += aStep, b += bStep), b is bBegin +
//     (bStep/aStep)·(a − aBegin).
//   - Values. The analysis runs through the body once, in order, with
//     each int local's value as an affine form: assigned once before use
//     (int row = blockIdx.y*blockDim.y + threadIdx.y) it is that form
//     until assigned again; blockDim, gridDim and params are the launch's
//     numbers. A local that changes inside a loop other than as an
//     induction variable (an accumulator), one assigned under an if, and
//     one read after the loop that changes it have no form, and neither
//     has anything computed from them.
//   - blockIdx is constant within a work group, and J14's cost and gain
//     are per work group (J10 draws the first one): blockIdx terms move
//     every address of a group by the same amount, so the view is work
//     group 0's, and they are left out of the matrix and the offset. They
//     are kept until then, so that a product of blockIdx with a thread
//     index or a loop variable is refused, as not affine.
//   - Data (J14's Z). An int read from an array (COL[i], ROW[row]) is
//     data: a statically unknown value that depends on the columns its
//     subscripts mention (or depend on through data). Arithmetic keeps
//     the dependence: COL[i] + tx is unknown in COL[i]'s columns and 1 in
//     tx's; a product, division, remainder, shift, comparison, bit
//     operation or call with data among its terms, and a conditional
//     expression whose condition is data, are data depending on all of
//     their terms' columns. A subscript that is data has Z entries in
//     its row of M at those columns, and a Z offset (IndexUnknowns); a
//     flat data subscript of a multi-dimensional array is the
//     contiguous dimension's (the one delinearize gives any term, as
//     stride 1 divides every coefficient). blockIdx dependences are
//     dropped with blockIdx, so V[COL[blockIdx.x]] has a Z offset only.
//   - Data loops. A loop whose variable starts at data (for (j =
//     ROW[i]; j < ROW[i+1]; j++)) visits values the data choose: its
//     column stays the variable's value, but every entry of M in it is
//     Z (AccessColumn.Data), so DATA[j] is unknown in j's column and
//     V[COL[j]], which reads data at COL[j], too. A loop whose start is
//     affine and whose condition reads data (k < LEN[i]) keeps its
//     entries; its trip count is data, so it counts as a loop of the
//     problem size (variable-length in Peng's terms). A data-dependent
//     if changes no entry: a reference's matrix is that of the threads
//     that reach it.
//   - Not affine: a product of two terms that are not constants, a
//     division, remainder, shift, comparison, bit operation or call
//     (min, max, abs) of a term that is not, a conditional expression whose
//     condition is not constant, when none of them is data; and a local
//     as above. Such a subscript gets an error that names the reference
//     and why; the models refuse the kernel rather than guess.
//   - Flat subscripts. C pointer arithmetic writes A[a + K*ty + tx] for
//     A[M][K]; the view splits it into one form per dimension
//     (delinearize), so that J14's last row is the contiguous dimension
//     and a walk along a row (B[i3][tx] written B[b + N*ty + tx]) is a
//     linear intra-thread pattern, as in the loop nest.
//   - Shared-memory references are not part of the models.

// threadView is a per-thread kernel's affine view.
type threadView struct {
	cols []AccessColumn
	refs []viewRef // by index of Launch.Refs
}

// viewRef is a reference of the view: its subscripts (one per dimension)
// and byte address in work group 0, the columns around it, or why it has
// none.
type viewRef struct {
	index []Linear
	addr  Linear
	loops []int
	err   error
	// unknown marks, per subscript, the columns whose entry is Z, and
	// unknownConst the subscripts whose offset is; both nil for an
	// affine reference. index keeps the known entries (0 at a Z).
	unknown      [][]bool
	unknownConst []bool
}

// threadView computes the view of a per-thread launch once.
func (l *Launch) threadView() *threadView {
	l.pt.viewOnce.Do(func() { l.pt.view = newThreadView(l) })
	return l.pt.view
}

// viewRef returns reference ref of the view, and its error.
func (l *Launch) viewRef(ref int) (*viewRef, error) {
	if err := l.checkRef(ref); err != nil {
		return nil, err
	}
	vr := &l.threadView().refs[ref]
	return vr, vr.err
}

// affineWalker runs through a per-thread program once and builds its
// view.
type affineWalker struct {
	l *Launch
	p *kernel.Program
	// ncols is the number of columns; a value's form has them, then the
	// three blockIdx terms.
	ncols   int
	thread  [3]int // per axis, threadIdx's column; -1 when not read
	loopCol map[*kernel.While]int
	problem problemSize
	dataCol []bool      // per column: a data loop's (AccessColumn.Data)
	refAt   map[int]int // MemRef.ID → index of Launch.Refs
	view    *threadView
	stack   []int // the columns around the node being walked
}

func newThreadView(l *Launch) *threadView {
	p := l.Kernel.Program
	w := &affineWalker{l: l, p: p, thread: [3]int{-1, -1, -1}, loopCol: map[*kernel.While]int{},
		problem: problemSizeOf(p), refAt: map[int]int{}, view: &threadView{refs: make([]viewRef, len(l.Refs))}}
	w.columns()
	for i, r := range l.Refs {
		w.refAt[r.ID] = i
		if r.Space == kernel.SpaceShared {
			err := fmt.Errorf("%s is in shared memory, which the static models leave out", r.Text)
			w.view.refs[i].err = inFile(l.Kernel.File, at(kernel.Pos{Line: r.Line, Col: r.Col}, err))
		}
	}
	for _, r := range p.Refs {
		if err := l.remapRefusal(r); err != nil {
			w.view.refs[w.refAt[r.ID]].err = err
		}
	}
	env := make([]avalue, len(p.Locals))
	for i, lc := range p.Locals {
		env[i] = avalue{why: lc.Name + " has no value yet"}
	}
	w.body(p.Body, env)
	return w.view
}

// columns lays out the columns: the thread indices the kernel reads, z
// to x, then every loop in source order (filled in as the walk reaches
// it). Thread columns enclose everything.
func (w *affineWalker) columns() {
	var read [3]bool
	forEachExpr(w.p.Body, func(e *kernel.Expr) {
		walkExpr(e, func(x *kernel.Expr) {
			if s := kernel.Special(x.Index); x.Kind == kernel.ExprSpecial && s <= kernel.ThreadIdxZ {
				read[s.Axis()] = true
			}
		})
	})
	cols := &w.view.cols
	for ax := 2; ax >= 0; ax-- {
		if read[ax] {
			w.thread[ax] = len(*cols)
			w.stack = append(w.stack, len(*cols))
			*cols = append(*cols, AccessColumn{Var: (kernel.ThreadIdxX + kernel.Special(ax)).String(), Thread: true, Axis: kernel.Axis(ax), Step: 1})
		}
	}
	walkNodes(w.p.Body, func(n kernel.Node) {
		if lp, ok := n.(*kernel.While); ok {
			w.loopCol[lp] = len(*cols)
			*cols = append(*cols, AccessColumn{ProblemSize: w.problem.loop[lp]})
		}
	})
	w.ncols = len(*cols)
	w.dataCol = make([]bool, w.ncols)
}

// body walks nodes, updating env (per int local, its value) in place.
func (w *affineWalker) body(nodes []kernel.Node, env []avalue) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *kernel.Stmt:
			w.stmt(n, env)
		case *kernel.If:
			w.branch(n, env)
		case *kernel.While:
			w.loop(n, env)
		}
	}
}

// stmt records the statement's global references, then assigns its int
// local.
func (w *affineWalker) stmt(s *kernel.Stmt, env []avalue) {
	for _, r := range s.Loads {
		w.ref(r, env)
	}
	if s.Store != nil {
		w.ref(s.Store, env)
	}
	lc := s.Local
	if lc == nil || !lc.Int {
		return
	}
	switch s.Assign {
	case "":
		env[lc.Index] = avalue{why: lc.Name + " has no value yet"}
	case "=":
		env[lc.Index] = w.eval(s.Value, env)
	default:
		k, ok := kernel.CompoundOp(s.Assign)
		if !ok {
			panic(fmt.Sprintf("traces: %s: assignment %s passed the parser", s.Text, s.Assign))
		}
		self := &kernel.Expr{Kind: kernel.ExprScalar, Name: lc.Name, Index: lc.Index}
		env[lc.Index] = w.eval(&kernel.Expr{Kind: k, Args: []*kernel.Expr{self, s.Value}}, env)
	}
}

// branch walks both parts of an if; a local they leave with different
// values has none after it, as threads may have taken either part.
func (w *affineWalker) branch(n *kernel.If, env []avalue) {
	for _, r := range n.Loads {
		w.ref(r, env)
	}
	then, els := slices.Clone(env), slices.Clone(env)
	w.body(n.Then, then)
	w.body(n.Else, els)
	for i := range env {
		switch {
		case sameValue(then[i], els[i]):
			env[i] = then[i]
		case then[i].why != "":
			env[i] = then[i]
		case els[i].why != "":
			env[i] = els[i]
		default:
			env[i] = avalue{why: fmt.Sprintf("%s is assigned under the condition at %d:%d (%s), so threads may hold different values",
				w.p.Locals[i].Name, n.Line, n.Col, n.Cond)}
		}
	}
}

// loop walks a loop's body and increment once, with its column standing
// for its induction variable, and leaves every local the loop assigns
// without a value after it.
func (w *affineWalker) loop(n *kernel.While, env []avalue) {
	col := w.loopCol[n]
	sites := w.loopSites(n)
	ind := make([]induction, len(sites))
	for v := range sites {
		if len(sites[v]) > 0 {
			ind[v] = w.induction(n, v, sites, env)
		}
	}
	ctl := w.controlling(n.Cond, sites, ind)
	c := &w.view.cols[col]
	c.Var = w.loopName(n, ctl, sites)
	if ctl >= 0 {
		c.Step = ind[ctl].step
		if env[ctl].why == "" && env[ctl].z != nil { // for (j = ROW[i]; …)
			c.Data, w.dataCol[col] = true, true
			c.DataAlongX = w.alongX(env[ctl].z)
		}
	}
	top := slices.Clone(env)
	for v := range sites {
		if len(sites[v]) > 0 {
			top[v] = w.atTop(n, v, ctl, col, ind, env)
		}
	}
	w.stack = append(w.stack, col)
	for _, r := range n.Loads { // read at each test
		w.ref(r, top)
	}
	w.body(n.Body, top)
	w.body(n.Post, top)
	w.stack = w.stack[:len(w.stack)-1]
	for v := range sites {
		if len(sites[v]) > 0 {
			env[v] = avalue{why: fmt.Sprintf("%s is read after the loop at %d:%d that changes it, where its value depends on the trip count",
				w.p.Locals[v].Name, n.Line, n.Col)}
		}
	}
}

// loopSite is an assignment to an int local inside a loop; once says it
// runs once per iteration (at the top level of the body, or in a for's
// increment).
type loopSite struct {
	s    *kernel.Stmt
	once bool
}

// loopSites lists, per int local, its assignments inside loop n, in
// source order.
func (w *affineWalker) loopSites(n *kernel.While) [][]loopSite {
	sites := make([][]loopSite, len(w.p.Locals))
	add := func(m kernel.Node, once bool) {
		if s, ok := m.(*kernel.Stmt); ok && s.Local != nil && s.Local.Int {
			sites[s.Local.Index] = append(sites[s.Local.Index], loopSite{s, once})
		}
	}
	for _, part := range [][]kernel.Node{n.Body, n.Post} {
		for _, m := range part {
			if _, ok := m.(*kernel.Stmt); ok {
				add(m, true)
				continue
			}
			walkNodes([]kernel.Node{m}, func(x kernel.Node) { add(x, false) })
		}
	}
	return sites
}

// induction is how an int local changes in a loop: by step per
// iteration, or, when why is set, otherwise.
type induction struct {
	step int64
	why  string
}

// induction decides whether local v is an induction variable of loop n:
// assigned there once, once per iteration, by += or -= of a constant
// that nothing in the loop changes.
func (w *affineWalker) induction(n *kernel.While, v int, sites [][]loopSite, env []avalue) induction {
	name, s := w.p.Locals[v].Name, sites[v][0].s
	if len(sites[v]) > 1 || !sites[v][0].once || (s.Assign != "+=" && s.Assign != "-=") {
		return induction{why: fmt.Sprintf("%s is assigned at %d:%d inside the loop at %d:%d (%s), so it changes from iteration to iteration",
			name, s.Line, s.Col, n.Line, n.Col, strings.TrimSuffix(s.Text, ";"))}
	}
	notConst := func(what string) induction {
		return induction{why: fmt.Sprintf("%s steps by %s at %d:%d, %s, so it is not an induction variable of the loop at %d:%d",
			name, s.Value, s.Line, s.Col, what, n.Line, n.Col)}
	}
	if mentionsLocal(s.Value, func(u int) bool { return len(sites[u]) > 0 }) {
		return notConst("which changes inside the loop")
	}
	step := w.eval(s.Value, env)
	switch {
	case step.why != "":
		return notConst("which has no affine form (" + step.why + ")")
	case step.z != nil:
		return notConst("which is data")
	case !step.f.isConst():
		return notConst("which is not a constant")
	case step.f.Const == 0 || step.f.Const == math.MinInt64:
		return notConst(fmt.Sprintf("which is %d", step.f.Const))
	}
	if s.Assign == "-=" {
		return induction{step: -step.f.Const}
	}
	return induction{step: step.f.Const}
}

// controlling picks the loop's variable among its induction variables:
// the first one its condition tests, else the first declared; -1 when
// it has none.
func (w *affineWalker) controlling(cond *kernel.Expr, sites [][]loopSite, ind []induction) int {
	isInd := func(v int) bool { return len(sites[v]) > 0 && ind[v].why == "" }
	if v := firstLocal(cond, isInd); v >= 0 {
		return v
	}
	for v := range sites {
		if isInd(v) {
			return v
		}
	}
	return -1
}

// loopName names a loop's column: its variable, else the first local its
// condition tests that it changes, else its position; a name an earlier
// column has gets the loop's position too.
func (w *affineWalker) loopName(n *kernel.While, ctl int, sites [][]loopSite) string {
	if ctl < 0 {
		ctl = firstLocal(n.Cond, func(v int) bool { return len(sites[v]) > 0 })
	}
	name := fmt.Sprintf("loop@%d:%d", n.Line, n.Col)
	if ctl >= 0 {
		name = w.p.Locals[ctl].Name
	}
	if slices.ContainsFunc(w.view.cols, func(c AccessColumn) bool { return c.Var == name }) {
		name = fmt.Sprintf("%s@%d:%d", name, n.Line, n.Col) // two loops over j
	}
	return name
}

// atTop is local v's value at the top of an iteration of loop n, whose
// column col is the value of its variable ctl: for an induction
// variable, its first value plus its step per step of ctl times how far
// ctl has come.
func (w *affineWalker) atTop(n *kernel.While, v, ctl, col int, ind []induction, env []avalue) avalue {
	if ind[v].why != "" {
		return avalue{why: ind[v].why}
	}
	if v == ctl && w.dataCol[col] {
		return w.column(col) // the variable's value, which data choose
	}
	sv, sc := ind[v].step, ind[ctl].step
	if sv%sc != 0 {
		return avalue{why: fmt.Sprintf("%s steps by %d per iteration of the loop at %d:%d and its variable %s by %d, which does not divide it",
			w.p.Locals[v].Name, sv, n.Line, n.Col, w.p.Locals[ctl].Name, sc)}
	}
	far := w.combine(w.column(col), env[ctl], -1, n.Cond)
	return w.combine(env[v], far, sv/sc, n.Cond)
}

// alongX says data that depend on the columns z (avalue.z) vary along
// threadIdx.x: directly, or through a data loop whose start does.
func (w *affineWalker) alongX(z []bool) bool {
	if x := w.thread[kernel.AxisX]; x >= 0 && z[x] {
		return true
	}
	for j, c := range w.view.cols {
		if z[j] && c.DataAlongX {
			return true
		}
	}
	return false
}
