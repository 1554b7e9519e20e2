package traces

import (
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// This file compiles a per-thread kernel's program into the flat code
// the SIMT cursor runs (perthread.go binds the launch around it).

// compileThreads compiles the program of a per-thread kernel for dev
// (nil: no device).
func (l *Launch) compileThreads(env map[string]int64, dev *arch.Device) (*threadProg, error) {
	p := l.Kernel.Program
	vary := varyingLocals(p, true)
	if err := checkBarriers(p.Body, varyingLocals(p, false), nil); err != nil {
		return nil, err
	}
	pc := &ptCompiler{l: l, dev: dev, pt: &threadProg{vary: vary}, xc: &xcompiler{env: env, dims: l.dimConsts(l.grid), vary: vary, prog: p}}
	pc.xc.localRanges()
	pc.xc.aliases = threadAliases(p)
	if err := pc.refs(); err != nil {
		return nil, err
	}
	if err := pc.nodes(p.Body, 0, false); err != nil {
		return nil, err
	}
	if err := pc.indexSlots(); err != nil {
		return nil, err
	}
	return pc.pt, nil
}

// ptCompiler flattens a per-thread program into tcode.
type ptCompiler struct {
	l   *Launch
	dev *arch.Device
	pt  *threadProg
	xc  *xcompiler
	// at is where the node being compiled is in the source: the place
	// of the steps it emits.
	at kernel.Pos
}

func (pc *ptCompiler) expr(e *kernel.Expr) (*xprog, error) {
	x, err := pc.xc.compile(e)
	if err != nil {
		return nil, err
	}
	return pc.deepest(x), nil
}

// refs binds every reference: its array, its subscripts and their
// extents, and adds it to the launch's Refs.
func (pc *ptCompiler) refs() error {
	l := pc.l
	for _, r := range l.Kernel.Program.Refs {
		ba, offset := l.refArray(r, r.Array.Space)
		if ba == nil {
			return at(kernel.Pos{Line: r.Line, Col: r.Col}, fmt.Errorf("%s: unknown array %s", r.Text, r.Array.Name))
		}
		pr := ptRef{base: ba.Base + uint64(offset), size: ba.ElemSize(), width: r.Width(), text: r.Text, array: ba.Name, pos: kernel.Pos{Line: r.Line, Col: r.Col}, slot: -1,
			remap: remapOf(ba)}
		index := r.Index
		if x := kernel.GatherIndex(r); x != nil {
			index = x.Args // V[COL[e]] reads V'[e], the element of COL's index space
			pc.pt.gathered = append(pc.pt.gathered, x.Index)
		}
		if len(index) != 1 && len(index) != len(ba.Dims) {
			return at(pr.pos, fmt.Errorf("%s has %d subscripts; array %s has %d dimensions; hint: give one flat index or one per dimension", r.Text, len(index), ba.Name, len(ba.Dims)))
		}
		for d, ix := range index {
			x, err := pc.expr(ix)
			if err != nil {
				return within(r.Text, err)
			}
			pr.subs = append(pr.subs, x)
			if len(index) == 1 {
				pr.strides = append(pr.strides, 1)
				pr.limits = append(pr.limits, flatLimit(ba, pr.size))
				continue
			}
			pr.strides = append(pr.strides, elemStride(ba, d))
			pr.limits = append(pr.limits, ba.Dims[d])
		}
		if r.Fetch == kernel.FetchTex2D {
			pr.texWidth = ba.Dims[1]
		}
		pr.planAddresses(l.Block, pc.pt.vary)
		sp, err := refSpace(l.Kernel, r, ba.Space, pc.dev)
		if err != nil {
			return err
		}
		pc.pt.refs = append(pc.pt.refs, pr)
		l.Refs = append(l.Refs, Ref{ID: r.ID, Array: ba.Name, Space: sp, Line: r.Line, Col: r.Col, Op: opOf(r),
			Width: int(pr.width), ElemSize: int(pr.size), Offset: int(offset), Text: r.Text, Unissued: l.gathered(r.ID)})
	}
	return nil
}

// arrayNamed finds a bound array of a space by name.
func (l *Launch) arrayNamed(name string, sp kernel.Space) *BoundArray {
	arrays := l.Arrays
	if sp == kernel.SpaceShared {
		arrays = l.Shared
	}
	for i := range arrays {
		if arrays[i].Name == name {
			return &arrays[i]
		}
	}
	return nil
}

func (pc *ptCompiler) emit(c tcode) int {
	pc.pt.code = append(pc.pt.code, c)
	pc.pt.pos = append(pc.pt.pos, pc.at)
	return len(pc.pt.code) - 1
}

// nodes compiles a body at control depth d; unrolled says an enclosing
// loop is fully unrolled (its control costs nothing).
func (pc *ptCompiler) nodes(body []kernel.Node, d int, unrolled bool) error {
	pc.pt.frames = max(pc.pt.frames, d)
	for _, n := range body {
		var err error
		line, col := n.Pos()
		pc.at = kernel.Pos{Line: line, Col: col}
		switch n := n.(type) {
		case *kernel.Stmt:
			err = pc.stmt(n, d)
		case *kernel.If:
			err = pc.ifStmt(n, d, unrolled)
		case *kernel.While:
			err = pc.loop(n, d, unrolled)
		case *kernel.Barrier:
			pc.emit(tcode{kind: tBarrier})
		case *kernel.Return:
			pc.emit(tcode{kind: tReturn})
		default:
			err = at(pc.at, fmt.Errorf("a loop-nest loop inside a per-thread kernel"))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// stmt compiles a statement at control depth d: its loads, its count,
// its assignment to an int local, its store.
func (pc *ptCompiler) stmt(s *kernel.Stmt, d int) error {
	if err := pc.stmtLoads(s, d); err != nil {
		return err
	}
	pc.emit(tcode{kind: tCompute, count: int32(s.Compute)})
	if s.Local != nil && s.Local.Int {
		c := tcode{kind: tAssign, local: int32(s.Local.Index), op: kernel.ExprConst}
		if s.Value != nil {
			var err error
			if c.x, c.op, err = pc.assignment(s); err != nil {
				return err
			}
			if p := subPlan(c.x, 0, 1, pc.pt.vary); c.op == kernel.ExprConst && p.reads != 0 && selfFirst(&p, c.local) {
				c.plan = &p
			}
		}
		pc.emit(c)
	}
	if s.Store != nil {
		pc.mem(s.Store)
	}
	return nil
}

// assignment compiles the value an int local is assigned, converted to
// the local's type. A compound one (x += v) is the update's operator and
// v, which the cursor applies in place, where C's types change nothing
// (int x += int v); else x = (T)(x op v), its conversions included.
func (pc *ptCompiler) assignment(s *kernel.Stmt) (*xprog, kernel.ExprKind, error) {
	t := pc.xc.local(s.Local.Index).t
	if s.Assign == "=" || s.Assign == "" {
		x, err := pc.xc.compileAs(s.Value, t)
		return pc.deepest(x), kernel.ExprConst, err
	}
	k, ok := kernel.CompoundOp(s.Assign)
	if !ok {
		return nil, 0, at(kernel.Pos{Line: s.Line, Col: s.Col}, fmt.Errorf("%s: unknown assignment %s", s.Text, s.Assign))
	}
	x, err := pc.xc.compile(s.Value)
	if err != nil {
		return nil, 0, err
	}
	whole, err := pc.xc.compileAs(compoundExpr(s, k), t)
	if err != nil {
		return nil, 0, err
	}
	if inPlace(whole, x, k) {
		return pc.deepest(x), k, nil
	}
	return pc.deepest(whole), kernel.ExprConst, nil
}

// compoundExpr is x op v of the compound assignment x op= v.
func compoundExpr(s *kernel.Stmt, k kernel.ExprKind) *kernel.Expr {
	x := &kernel.Expr{Kind: kernel.ExprScalar, Name: s.Local.Name, Index: s.Local.Index, Line: s.Line, Col: s.Col}
	return &kernel.Expr{Kind: k, Args: []*kernel.Expr{x, s.Value}, Line: s.Line, Col: s.Col}
}

// inPlace says whole, the program of x op v, is x's read, v's program x
// and op alone: no conversion, nothing of C's types to apply.
func inPlace(whole, x *xprog, k kernel.ExprKind) bool {
	n := len(whole.ops)
	return n == len(x.ops)+2 && whole.ops[n-1] == xop{kind: k}
}

// deepest notes x's stack depth in the program's.
func (pc *ptCompiler) deepest(x *xprog) *xprog {
	if x != nil {
		pc.pt.depth = max(pc.pt.depth, x.depth)
	}
	return x
}

// loads emits the reads of a statement or a condition, but not those of
// an index array that a gather has read before the kernel.
func (pc *ptCompiler) loads(rs []*kernel.MemRef) {
	for _, r := range rs {
		if !slices.Contains(pc.pt.gathered, r.ID) {
			pc.mem(r)
		}
	}
}

// mem emits the memory instruction of r, placed at r.
func (pc *ptCompiler) mem(r *kernel.MemRef) {
	stmt := pc.at
	pc.at = kernel.Pos{Line: r.Line, Col: r.Col}
	pc.emit(tcode{kind: tMem, ref: int32(r.ID)})
	pc.at = stmt
}

// flatLimit is the extent of a flat subscript of array a with elements
// of size bytes: its original index space when remapped, else all of it
// (a cudaArray's padding included).
func flatLimit(a *BoundArray, size int64) int64 {
	if a.Remap != kernel.RemapNone {
		return a.Elements()
	}
	return a.Size / size
}

func (pc *ptCompiler) ifStmt(n *kernel.If, d int, unrolled bool) error {
	x, err := pc.expr(n.Cond)
	if err != nil {
		return err
	}
	pc.loads(n.Loads)
	at := pc.emit(tcode{kind: tIf, x: x, count: int32(n.Compute)})
	if err := pc.nodes(n.Then, d+1, unrolled); err != nil {
		return err
	}
	el := pc.emit(tcode{kind: tElse})
	pc.pt.code[at].jump = int32(el + 1)
	if err := pc.nodes(n.Else, d+1, unrolled); err != nil {
		return err
	}
	end := pc.emit(tcode{kind: tEndIf})
	pc.pt.code[el].jump = int32(end)
	return nil
}

func (pc *ptCompiler) loop(n *kernel.While, d int, unrolled bool) error {
	x, err := pc.expr(n.Cond)
	if err != nil {
		return err
	}
	unrolled = unrolled || n.Unroll
	count := int32(n.Compute)
	if n.Unroll {
		count = 0
	}
	pc.emit(tcode{kind: tEnter})
	top := len(pc.pt.code) // each test reads what the condition reads
	pc.loads(n.Loads)
	test := pc.emit(tcode{kind: tTest, x: x, count: count, trip: pc.tripOf(n)})
	if err := pc.nodes(n.Body, d+1, unrolled); err != nil {
		return err
	}
	start := len(pc.pt.code)
	if err := pc.nodes(n.Post, d+1, unrolled); err != nil {
		return err
	}
	if n.Unroll {
		for i := start; i < len(pc.pt.code); i++ {
			if pc.pt.code[i].kind == tCompute {
				pc.pt.code[i].count = 0
			}
		}
	}
	back := pc.emit(tcode{kind: tBack, jump: int32(top)})
	pc.pt.code[test].jump = int32(back + 1)
	return nil
}

// varyingLocals finds the int locals whose lanes may disagree: those
// assigned a value that depends on threadIdx or on another such local,
// or assigned under a condition that does. With loads true a read of
// index data counts as varying, as the cursor keeps its lanes' values
// apart (the locals' registers); with loads false it varies only when
// its subscripts do, the lanes that read one element reading one value
// (index data is its array's contents, which no store changes): so
// ROW[blockIdx.x] bounds a loop alike in every thread of the block,
// and a barrier in it is reached by all.
func varyingLocals(p *kernel.Program, loads bool) []bool {
	vary := make([]bool, len(p.Locals))
	for changed := true; changed; {
		changed = false
		var walk func(body []kernel.Node, div bool)
		walk = func(body []kernel.Node, div bool) {
			for _, n := range body {
				switch n := n.(type) {
				case *kernel.Stmt:
					if lc := n.Local; lc != nil && lc.Int && !vary[lc.Index] && (div || n.Value != nil && exprVaries(n.Value, vary, loads)) {
						vary[lc.Index], changed = true, true
					}
				case *kernel.If:
					d := div || exprVaries(n.Cond, vary, loads)
					walk(n.Then, d)
					walk(n.Else, d)
				case *kernel.While:
					d := div || exprVaries(n.Cond, vary, loads)
					walk(n.Body, d)
					walk(n.Post, d)
				}
			}
		}
		walk(p.Body, false)
	}
	return vary
}

// threadAliases is, per local of p, the thread index it holds wherever
// it is read (kernel.ThreadIdxX to ThreadIdxZ), or -1: a local assigned
// once, by its declaration among the body's top-level statements, a
// thread index and nothing else (int tx = threadIdx.x). C's scope puts
// every read of it after the declaration, which every lane still running
// has executed; the compiler reads the thread index in its place where
// the local's type holds every index of the block (xcompiler.emit).
func threadAliases(p *kernel.Program) []int32 {
	assigns := make([]int, len(p.Locals))
	for _, s := range p.Stmts {
		if s.Local != nil {
			assigns[s.Local.Index]++
		}
	}
	alias := slices.Repeat([]int32{-1}, len(p.Locals))
	for _, n := range p.Body {
		s, ok := n.(*kernel.Stmt)
		if !ok || s.Local == nil || !s.Local.Int || !s.Decl || s.Assign != "=" || assigns[s.Local.Index] != 1 {
			continue
		}
		if v := s.Value; v.Kind == kernel.ExprSpecial && kernel.Special(v.Index) <= kernel.ThreadIdxZ {
			alias[s.Local.Index] = int32(v.Index)
		}
	}
	return alias
}

// exprVaries reports whether e may differ between the lanes of a warp;
// loads says a read of index data does whatever its subscripts (see
// varyingLocals).
func exprVaries(e *kernel.Expr, vary []bool, loads bool) bool {
	switch e.Kind {
	case kernel.ExprSpecial:
		return kernel.Special(e.Index) <= kernel.ThreadIdxZ
	case kernel.ExprScalar:
		return e.Index >= 0 && e.Index < len(vary) && vary[e.Index]
	case kernel.ExprLoad:
		if loads {
			return true
		}
	}
	for _, a := range e.Args {
		if exprVaries(a, vary, loads) {
			return true
		}
	}
	return false
}

// checkBarriers refuses a barrier that some lanes of a warp could reach
// without the others: one inside an if or a loop whose condition varies
// between lanes (the innermost such statement is under).
func checkBarriers(body []kernel.Node, vary []bool, under kernel.Node) error {
	for _, n := range body {
		switch n := n.(type) {
		case *kernel.Barrier:
			if under != nil {
				ul, uc := under.Pos()
				return at(kernel.Pos{Line: n.Line, Col: n.Col}, fmt.Errorf("__syncthreads() under divergent control flow: the condition at %d:%d differs between the threads of a warp, so some would wait at the barrier for threads that never reach it; hint: move __syncthreads() out of the branch or loop, or make the condition the same for every thread of the block", ul, uc))
			}
		case *kernel.If:
			u := under
			if u == nil && exprVaries(n.Cond, vary, false) {
				u = n
			}
			if err := checkBarriers(n.Then, vary, u); err != nil {
				return err
			}
			if err := checkBarriers(n.Else, vary, u); err != nil {
				return err
			}
		case *kernel.While:
			u := under
			if u == nil && exprVaries(n.Cond, vary, false) {
				u = n
			}
			if err := checkBarriers(n.Body, vary, u); err != nil {
				return err
			}
		}
	}
	return nil
}

// fail records the first error any cursor of the launch meets.
func (pt *threadProg) fail(err error) {
	pt.mu.Lock()
	if pt.err == nil {
		pt.err = err
	}
	pt.mu.Unlock()
}

// failed says a cursor of the launch has met an error.
func (pt *threadProg) failed() bool {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.err != nil
}

// Err is the first error a cursor of the launch met while streaming it
// (an access outside its array, a division by zero, a warp that does not
// end), or nil. Only per-thread kernels meet errors while streaming; a
// loop nest's are all found by Bind.
func (l *Launch) Err() error {
	if l.pt == nil {
		return nil
	}
	l.pt.mu.Lock()
	defer l.pt.mu.Unlock()
	if l.pt.err != nil {
		return inFile(l.Kernel.File, l.pt.err)
	}
	return nil
}
