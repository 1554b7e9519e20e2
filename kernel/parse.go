package kernel

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gpumemsim/arch"
)

// srcPos maps a position in the source text (1-based) to one in the
// kernel file.
type srcPos func(line, col int) (int, int)

// parser reads the C subset of a kernel's source into a Program.
type parser struct {
	src    string
	toks   []token
	p      int
	file   string
	pos    srcPos
	params map[string]bool
	arrays map[string]*Array

	prog    *Program
	scope   []*Loop          // enclosing loops, outermost first
	loops   map[string]*Loop // every loop variable seen so far
	scalars map[string]bool
	// refTexts holds each array reference as written, spaces removed.
	refTexts map[*Expr]string
	// dims is set while parsing a dims entry.
	dims bool
	// nest is how deep the recursive descent is in expressions, and
	// depth the depth of each expression node built (leaves are 0 deep):
	// both stay within MaxExprDepth.
	nest  int
	depth map[*Expr]int
	// cuda is the state of the per-thread form's parser; nil while
	// parsing a loop nest or a dims entry.
	cuda *cudaParser
}

func (ps *parser) paramList() string {
	var names []string
	for n := range ps.params {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// bailout carries the first error out of the recursive descent.
type bailout struct{ err error }

// posError builds a positioned error with a hint.
func posError(file string, line, col int, msg, hint string) error {
	if hint != "" {
		msg += "; hint: " + hint
	}
	return &arch.PosError{File: file, Line: line, Column: col, Err: errors.New(msg)}
}

// failAt fails at a kernel-file position (that of an Expr).
func (ps *parser) failAt(line, col int, msg, hint string) {
	panic(bailout{posError(ps.file, line, col, msg, hint)})
}

// fail fails at a token (source position).
func (ps *parser) fail(t token, msg, hint string) {
	l, c := ps.pos(t.line, t.col)
	ps.failAt(l, c, msg, hint)
}

// parseSource parses the kernel source: a __global__ function when it
// has one (Form PerThread), else a loop nest. params and arrays are what
// the file declares, arrays in declaration order.
func parseSource(file, src string, pos srcPos, params map[string]bool, arrays []*Array) (prog *Program, err error) {
	toks, lerr := lex(src)
	if lerr != nil {
		l, c := pos(lerr.line, lerr.col)
		return nil, posError(file, l, c, lerr.msg, lerr.hint)
	}
	byName := map[string]*Array{}
	for _, a := range arrays {
		byName[a.Name] = a
	}
	ps := &parser{src: src, toks: toks, file: file, pos: pos, params: params, arrays: byName,
		prog: &Program{}, loops: map[string]*Loop{}, scalars: map[string]bool{}, refTexts: map[*Expr]string{}}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			prog, err = nil, b.err
		}
	}()
	if hasGlobal(toks) {
		ps.perThread(arrays)
		return ps.prog, nil
	}
	for ps.peek().kind != tEOF {
		if n := ps.stmt(); n != nil {
			ps.prog.Body = append(ps.prog.Body, n)
		}
	}
	if len(ps.prog.Stmts) == 0 {
		ps.fail(ps.peek(), "the source has no statements", "write at least one array statement such as C[i] = A[i] + B[i];")
	}
	return ps.prog, nil
}

func (ps *parser) peek() token { return ps.toks[ps.p] }
func (ps *parser) next() token {
	t := ps.toks[ps.p]
	if t.kind != tEOF {
		ps.p++
	}
	return t
}

func (ps *parser) is(text string) bool {
	t := ps.peek()
	return t.kind == tPunct && t.text == text || t.kind == tIdent && t.text == text
}

func (ps *parser) expect(text, hint string) token {
	t := ps.peek()
	if !ps.is(text) {
		ps.fail(t, fmt.Sprintf("expected %q, found %s", text, describe(t)), hint)
	}
	return ps.next()
}

func describe(t token) string {
	if t.kind == tEOF {
		return t.text // end of source, or of a directive's line
	}
	return fmt.Sprintf("%q", t.text)
}

// named says name is declared where an expression is being parsed (a
// local, a loop variable, a scalar, a param, an array, a #define): (i8)
// is then that name in parentheses, not a cast to an element type.
func (ps *parser) named(name string) bool {
	if ps.params[name] || ps.arrays[name] != nil || ps.loops[name] != nil || ps.scalars[name] {
		return true
	}
	return ps.cuda != nil && (ps.cuda.lookup(name) != nil || ps.cuda.defines[name] != nil)
}

var typeWords = map[string]bool{
	"float": true, "double": true, "int": true, "long": true, "short": true, "char": true,
	"unsigned": true, "signed": true, "bool": true, "size_t": true, "const": true,
	"i8": true, "u8": true, "i16": true, "u16": true, "i32": true, "u32": true,
	"f32": true, "i64": true, "u64": true, "f64": true,
}

var unsupported = map[string]string{
	"if":              "conditionals are outside the subset; use min/max or a loop bound",
	"while":           "write the loop as for (v = lo; v < hi; v++), or write the kernel as a __global__ function",
	"do":              "write the loop as for (v = lo; v < hi; v++)",
	"return":          "the source is a loop nest, not a function",
	"struct":          "struct arrays are not supported yet",
	"break":           "loops run to their bound",
	"continue":        "loops run to their bound",
	"goto":            "not in the subset",
	"switch":          "not in the subset",
	"else":            "conditionals are outside the subset",
	"__device__":      "not in the subset",
	"__constant__":    "in a loop nest, give the array space: constant under arrays:",
	"__restrict__":    "not in the subset",
	"__forceinline__": "not in the subset",
}

// perThreadOnly are the names that only a __global__ kernel knows, with
// the hint a loop nest that uses one gets.
var perThreadOnly = map[string]string{
	"threadIdx":     "write the kernel as a __global__ function, or map the loop to tx with mapping:",
	"blockIdx":      "write the kernel as a __global__ function, or map the loops to tx/ty/tz with mapping: (the grid follows from their extents)",
	"blockDim":      "write the kernel as a __global__ function, or use the param the loop's extent comes from",
	"gridDim":       "write the kernel as a __global__ function, or use the param the loop's extent comes from",
	"warpSize":      "write the kernel as a __global__ function, or write 32",
	"__syncthreads": "write the kernel as a __global__ function: a loop nest has no barriers",
	"__shared__":    "write the kernel as a __global__ function to declare __shared__ arrays",
}

// outside fails at a name outside the loop-nest subset.
func (ps *parser) outside(t token) {
	if hint, ok := perThreadOnly[t.text]; ok {
		ps.fail(t, t.text+" is only available in a __global__ kernel", hint)
	}
	ps.fail(t, fmt.Sprintf("%q is outside the supported C subset", t.text), unsupported[t.text])
}

func (ps *parser) stmt() Node {
	t := ps.peek()
	switch {
	case t.kind == tPunct && t.text == ";":
		ps.next()
		return nil
	case t.kind == tPunct && t.text == "#":
		ps.fail(t, "preprocessor lines are only read in a __global__ kernel", "write the loop nest's constants as params, or write the kernel as a __global__ function")
	case t.kind == tPunct && t.text == "{":
		ps.fail(t, "a block { } is allowed only as a loop body", "put the statements inside a for loop, or drop the braces")
	case t.kind == tIdent && t.text == "for":
		return ps.forLoop()
	case t.kind == tIdent && typeWords[t.text]:
		return ps.decl()
	case t.kind == tIdent && (unsupported[t.text] != "" || perThreadOnly[t.text] != ""):
		ps.outside(t)
	case t.kind == tIdent:
		return ps.assign()
	}
	ps.fail(t, fmt.Sprintf("expected a statement, found %s", describe(t)), "statements are for loops, declarations such as float acc = 0; and assignments ending in ;")
	return nil
}

// body parses a loop body: one statement or a braced list.
func (ps *parser) body() []Node {
	var out []Node
	if ps.is("{") {
		open := ps.next()
		for !ps.is("}") {
			if ps.peek().kind == tEOF {
				ps.fail(open, "unclosed {", "add the matching }")
			}
			if n := ps.stmt(); n != nil {
				out = append(out, n)
			}
		}
		ps.next()
		return out
	}
	if ps.peek().kind == tEOF {
		ps.fail(ps.peek(), "missing loop body", "add a statement or a { } block after the for header")
	}
	if n := ps.stmt(); n != nil {
		out = append(out, n)
	}
	return out
}

func (ps *parser) forLoop() Node {
	kw := ps.next()
	if len(ps.prog.Loops) == MaxLoops {
		ps.fail(kw, fmt.Sprintf("more than %d loops", MaxLoops), "gpumemsim keeps state per loop in every warp; merge loops or split the kernel into several kernel files")
	}
	ps.expect("(", "write for (v = lo; v < hi; v++)")
	for ps.peek().kind == tIdent && typeWords[ps.peek().text] {
		ps.next()
	}
	vt := ps.peek()
	if vt.kind != tIdent {
		ps.fail(vt, fmt.Sprintf("expected the loop variable, found %s", describe(vt)), "write for (v = lo; v < hi; v++)")
	}
	ps.next()
	v := vt.text
	if prev := ps.loops[v]; prev != nil {
		ps.fail(vt, fmt.Sprintf("loop variable %s already used by the loop at line %d", v, prev.Line), "give each loop its own variable so that mappings can name it")
	}
	if ps.params[v] || ps.arrays[v] != nil || ps.scalars[v] {
		ps.fail(vt, fmt.Sprintf("loop variable %s shadows a param, array or scalar of the same name", v), "rename the loop variable")
	}
	ps.expect("=", "write for (v = lo; v < hi; v++)")
	lower := ps.expr()
	ps.checkBound(lower, "lower bound")
	ps.expect(";", "write for (v = lo; v < hi; v++)")
	ct := ps.peek()
	if ct.kind != tIdent || ct.text != v {
		ps.fail(ct, fmt.Sprintf("the condition must test the loop variable %s", v), "write "+v+" < hi or "+v+" <= hi")
	}
	ps.next()
	op := ps.peek()
	if !ps.is("<") && !ps.is("<=") {
		ps.fail(op, fmt.Sprintf("unsupported loop condition %s", describe(op)), "loops count up: use < or <=")
	}
	ps.next()
	upper := ps.expr()
	ps.checkBound(upper, "upper bound")
	if op.text == "<=" {
		upper = &Expr{Kind: ExprAdd, Args: []*Expr{upper, {Kind: ExprConst, Val: 1, Line: upper.Line, Col: upper.Col}}, Line: upper.Line, Col: upper.Col}
	}
	ps.expect(";", "write for (v = lo; v < hi; v++)")
	step := ps.step(v)
	ps.expect(")", "write for (v = lo; v < hi; v++)")
	l := &Loop{Var: v, Index: len(ps.prog.Loops), Depth: len(ps.scope), Lower: lower, Upper: upper, Step: step}
	l.Line, l.Col = ps.pos(kw.line, kw.col)
	if len(ps.scope) > 0 {
		l.Parent = ps.scope[len(ps.scope)-1]
	}
	ps.loops[v] = l
	ps.prog.Loops = append(ps.prog.Loops, l)
	ps.scope = append(ps.scope, l)
	l.Body = ps.body()
	ps.scope = ps.scope[:len(ps.scope)-1]
	return l
}

func (ps *parser) step(v string) *Expr {
	t := ps.peek()
	hint := "write " + v + "++ or " + v + " += c with a constant c > 0"
	switch {
	case ps.is("++"):
		ps.next()
		vt := ps.next()
		if vt.kind != tIdent || vt.text != v {
			ps.fail(vt, fmt.Sprintf("the increment must step the loop variable %s", v), hint)
		}
		return &Expr{Kind: ExprConst, Val: 1}
	case t.kind == tIdent && t.text == v:
		ps.next()
		if ps.is("++") {
			ps.next()
			return &Expr{Kind: ExprConst, Val: 1}
		}
		if ps.is("+=") {
			ps.next()
			e := ps.expr()
			if d := ps.degree(e, "step"); d != 0 {
				ps.failAt(e.Line, e.Col, "loop step must be a constant or an expression of params", hint)
			}
			if e.Kind == ExprConst && e.Val <= 0 {
				ps.failAt(e.Line, e.Col, fmt.Sprintf("loop step must be positive, got %d", e.Val), hint)
			}
			return e
		}
		ps.fail(ps.peek(), fmt.Sprintf("unsupported loop increment %s", describe(ps.peek())), hint)
	}
	ps.fail(t, fmt.Sprintf("the increment must step the loop variable %s", v), hint)
	return nil
}

// checkBound requires a loop bound affine in params and enclosing loop
// variables.
func (ps *parser) checkBound(e *Expr, what string) {
	ps.degree(e, what)
}

func (ps *parser) decl() Node {
	start := ps.peek()
	for ps.peek().kind == tIdent && typeWords[ps.peek().text] {
		ps.next()
	}
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected a variable name, found %s", describe(nt)), "declare a scalar as float acc = 0;")
	}
	if ps.params[nt.text] || ps.arrays[nt.text] != nil || ps.loops[nt.text] != nil {
		ps.fail(nt, fmt.Sprintf("scalar %s shadows a param, array or loop variable of the same name", nt.text), "rename the scalar")
	}
	ps.next()
	if ps.is("[") {
		ps.fail(ps.peek(), "local arrays are outside the subset", "declare arrays under arrays: in the kernel file")
	}
	s := ps.newStmt(start)
	s.Scalar, s.Decl = nt.text, true
	if ps.is("=") {
		s.Assign = "="
		ps.next()
		e := ps.expr()
		s.Value = e
		s.Compute = ps.countOps(e, s)
	}
	ps.scalars[nt.text] = true
	ps.finishStmt(s, start, true)
	return s
}

// compoundOps are the compound assignments and their operators; a loop
// nest has the arithmetic ones (ExprAdd to ExprMod), a per-thread kernel
// all of them.
var compoundOps = map[string]ExprKind{"+=": ExprAdd, "-=": ExprSub, "*=": ExprMul, "/=": ExprDiv, "%=": ExprMod,
	"<<=": ExprShl, ">>=": ExprShr, "&=": ExprBitAnd, "|=": ExprBitOr, "^=": ExprBitXor}

// CompoundOp is the operator of a compound assignment such as "+=".
func CompoundOp(assign string) (ExprKind, bool) {
	k, ok := compoundOps[assign]
	return k, ok
}

func isCompound(assign string) bool {
	_, ok := compoundOps[assign]
	return ok
}

func (ps *parser) assign() Node {
	start := ps.peek()
	if ps.toks[ps.p+1].kind == tPunct && ps.toks[ps.p+1].text == "(" {
		ps.fail(start, fmt.Sprintf("a call to %s is not a statement", start.text), "assign its value to an array element or a scalar")
	}
	s := ps.newStmt(start)
	var target *Expr
	name := start.text
	switch {
	case ps.arrays[name] != nil:
		target = ps.arrayRef()
	case ps.scalars[name]:
		ps.next()
		s.Scalar = name
	case ps.loops[name] != nil:
		ps.fail(start, fmt.Sprintf("cannot assign to loop variable %s", name), "loop variables change only in the for header")
	case ps.params[name]:
		ps.fail(start, fmt.Sprintf("cannot assign to param %s", name), "params are constants; set them with -set")
	default:
		ps.fail(start, fmt.Sprintf("unknown name %s", name), "declare arrays under arrays: in the kernel file and scalars with a type, e.g. float "+name+" = 0;")
	}
	op := ps.peek()
	k, isCompound := compoundOps[op.text]
	isCompound = isCompound && k >= ExprAdd && k <= ExprMod
	if op.kind != tPunct || (op.text != "=" && !isCompound) {
		ps.fail(op, fmt.Sprintf("expected an assignment operator, found %s", describe(op)), "use =, +=, -=, *=, /= or %=")
	}
	ps.next()
	s.Assign = op.text
	// X[..] op= e reads X first.
	if target != nil && isCompound {
		ps.addRef(target, false, s)
	}
	e := ps.expr()
	s.Value = e
	s.Compute += ps.countOps(e, s)
	if isCompound {
		s.Compute++ // the operator of op=
	}
	if target != nil {
		ps.addRef(target, true, s)
	}
	ps.finishStmt(s, start, target == nil)
	return s
}

func (ps *parser) newStmt(start token) *Stmt {
	if len(ps.prog.Stmts) == MaxStmts {
		ps.fail(start, fmt.Sprintf("more than %d statements", MaxStmts), "split the kernel into several kernel files")
	}
	s := &Stmt{Index: len(ps.prog.Stmts)}
	s.Line, s.Col = ps.pos(start.line, start.col)
	return s
}

func (ps *parser) finishStmt(s *Stmt, start token, scalar bool) {
	ps.expect(";", "end the statement with ;")
	ps.record(s, start, scalar)
}

// record appends s, which ends at the token just read, to the program.
func (ps *parser) record(s *Stmt, start token, scalar bool) {
	end := ps.toks[ps.p-1]
	s.Text = strings.Join(strings.Fields(ps.src[start.off:end.end]), " ")
	if scalar && s.Compute == 0 {
		s.Compute = 1 // a register move
	}
	ps.prog.Stmts = append(ps.prog.Stmts, s)
}

// addRef records a memory reference of statement s: its write when
// store, else a read.
func (ps *parser) addRef(e *Expr, store bool, s *Stmt) {
	if len(ps.prog.Refs) == MaxRefs {
		ps.failAt(e.Line, e.Col, fmt.Sprintf("more than %d array references", MaxRefs),
			"gpumemsim keeps state per reference in every warp; read a repeated element once into a scalar, or split the kernel into several kernel files")
	}
	if store {
		ps.checkConstStore(e)
	}
	r := &MemRef{ID: len(ps.prog.Refs), Array: ps.arrays[e.Name], Index: e.Args, Store: store, Fetch: e.Fetch, Field: e.Field}
	r.Line, r.Col = e.Line, e.Col
	r.Text = ps.refTexts[e]
	if !store {
		e.Index = r.ID
	}
	ps.prog.Refs = append(ps.prog.Refs, r)
	if store {
		s.Store = r
	} else {
		s.Loads = append(s.Loads, r)
	}
	if ps.cuda == nil || !ps.cuda.unrolled() {
		s.Compute++ // address arithmetic of the reference
	}
}

// countOps counts the non-memory instructions of a right-hand side and
// records its array reads, left to right.
func (ps *parser) countOps(e *Expr, s *Stmt) int {
	switch e.Kind {
	case ExprLoad:
		ps.indexLoads(e, s) // V[COL[j]] reads COL first
		ps.addRef(e, false, s)
		return 0 // addRef counted the address arithmetic
	case ExprConst, ExprFloat, ExprParam, ExprLoop, ExprScalar, ExprSpecial:
		return 0
	case ExprCast:
		return ps.countOps(e.Args[0], s) // a register's width changes at no cost
	}
	n := 1
	for _, a := range e.Args {
		n += ps.countOps(a, s)
	}
	return n
}
