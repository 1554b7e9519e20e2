package kernel

import (
	"fmt"
	"slices"
	"strings"
)

// cudaCalls are the builtins of a per-thread kernel and their arities:
// the loop nest's and CUDA's single-precision and intrinsic ones.
var cudaCalls = func() map[string]int {
	m := map[string]int{"__fdividef": 2, "__expf": 1, "__logf": 1, "__sinf": 1, "__cosf": 1, "__powf": 2,
		"fminf": 2, "fmaxf": 2, "__mul24": 2, "__umul24": 2}
	for f, n := range calls {
		m[f] = n
	}
	return m
}()

// intCalls are the builtins whose value is an integer when their
// arguments are; the others' is a float.
var intCalls = map[string]bool{"min": true, "max": true, "abs": true, "__mul24": true, "__umul24": true}

func cudaCallList() string {
	var names []string
	for f := range cudaCalls {
		names = append(names, f)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// namedConsts are the constants a per-thread kernel knows by name.
var namedConsts = map[string]int64{"warpSize": 32, "true": 1, "false": 0}

// cudaName parses an expression that starts with a name.
func (ps *parser) cudaName() *Expr {
	t := ps.peek()
	name := t.text
	c := ps.cuda
	if name == "threadIdx" || name == "blockIdx" || name == "blockDim" || name == "gridDim" {
		return ps.special()
	}
	if v, ok := namedConsts[name]; ok {
		return ps.namedConst(t, v)
	}
	if d := c.defines[name]; d != nil {
		e := ps.namedConst(t, d.Val)
		e.Type = d.Type
		return e
	}
	if l := c.lookup(name); l != nil {
		ps.next()
		ps.noPostfix(name)
		e := ps.node(ExprScalar, t)
		e.Name, e.Index = name, l.Index
		return e
	}
	if ps.arrays[name] != nil {
		e := ps.arrayRef()
		ps.noPostfix(name)
		return e
	}
	if a := c.args[name]; a != nil && a.Array == nil && !a.Int {
		ps.next()
		e := ps.node(ExprFloat, t)
		e.Name = name
		return e
	}
	if ps.params[name] {
		ps.next()
		e := ps.node(ExprParam, t)
		e.Name = name
		return e
	}
	if nt := ps.toks[ps.p+1]; nt.kind == tPunct && nt.text == "(" {
		switch name {
		case "tex1Dfetch":
			return ps.texFetch()
		case "tex2D":
			return ps.tex2D()
		case "__ldg":
			return ps.ldg()
		case "tex1D", "tex3D", "tex1DLayered", "tex2DLayered", "texCubemap":
			ps.fail(t, name+" is not simulated: only tex1Dfetch of linear memory and tex2D of a cudaArray are",
				"read the array with tex1Dfetch(A, i) at its linear index, tex2D(A, x, y) if it is 2-D, or as A[i] in global memory")
		}
		return ps.call()
	}
	ps.unknownName(t)
	return nil
}

// unknownName fails at a name that means nothing here.
func (ps *parser) unknownName(t token) {
	name := t.text
	if e, ok := stmtErrors[name]; ok {
		ps.fail(t, e[0], e[1])
	}
	if keywords[name] || cTypeWords[name] {
		ps.fail(t, fmt.Sprintf("unexpected %s", name), "an expression is made of names, numbers, operators and calls")
	}
	if ps.cuda.grid {
		ps.fail(t, "unknown param "+name, ps.cuda.hostNames+"; the params are "+ps.paramList())
	}
	for _, a := range ps.prog.Shared {
		if a.Name == name {
			ps.fail(t, fmt.Sprintf("__shared__ array %s is not in scope here", name), "use it inside the block that declares it, or declare it at the top of the function")
		}
	}
	for _, l := range ps.prog.Locals {
		if l.Name == name {
			ps.fail(t, fmt.Sprintf("local %s is not in scope here", name), fmt.Sprintf("the %s declared at line %d is visible only in its block; declare it where both uses see it", name, l.Line))
		}
	}
	ps.fail(t, "unknown name "+name, "names are the function's parameters, params, #define constants, locals declared before, __shared__ arrays, threadIdx, blockIdx, blockDim, gridDim and warpSize")
}

// noPostfix fails at x++ inside an expression.
func (ps *parser) noPostfix(name string) {
	if ps.is("++") || ps.is("--") {
		ps.fail(ps.peek(), fmt.Sprintf("%s%s inside an expression is not supported", name, ps.peek().text), "write it as a statement of its own")
	}
}

func (ps *parser) namedConst(t token, v int64) *Expr {
	ps.next()
	e := ps.node(ExprConst, t)
	e.Name, e.Val = t.text, v
	return e
}

// special parses threadIdx.x and its kin.
func (ps *parser) special() *Expr {
	t := ps.next()
	hint := "write " + t.text + ".x, " + t.text + ".y or " + t.text + ".z"
	if !ps.is(".") {
		ps.fail(t, t.text+" needs a component", hint)
	}
	ps.next()
	ct := ps.peek()
	s, ok := LookupSpecial(t.text + "." + ct.text)
	if ct.kind != tIdent || !ok {
		ps.fail(ct, fmt.Sprintf("%s has no component %s", t.text, describe(ct)), hint)
	}
	ps.next()
	if ps.cuda.grid && (s < BlockDimX || s > BlockDimZ) {
		ps.fail(t, t.text+" is not known when the grid is set", ps.cuda.hostNames)
	}
	e := ps.node(ExprSpecial, t)
	e.Index = int(s)
	return e
}

// cudaUnary parses the unary operators a per-thread kernel adds to - and
// +; nil when there is none.
func (ps *parser) cudaUnary() *Expr {
	t := ps.peek()
	switch t.text {
	case "!":
		ps.enter(ps.next())
		defer func() { ps.nest-- }()
		return ps.node(ExprNot, t, ps.unary())
	case "~":
		ps.fail(t, "~ is not supported", "write x ^ -1")
	case "++", "--":
		ps.fail(t, t.text+" inside an expression is not supported", "write it as a statement of its own")
	case "&":
		ps.fail(t, "taking an address is not supported", "index the array directly")
	case "*":
		ps.fail(t, "dereferencing a pointer is not supported", "write A[i] for *(A + i)")
	}
	return nil
}

// cast parses a cast after its (. A cast to an integer type is an
// ExprCast, refused of a float value; a cast to a float type makes the
// operand float data, which the IR keeps alone.
func (ps *parser) cast(open token) *Expr {
	ct := ps.cType()
	if ps.is("*") {
		ps.fail(ps.peek(), "pointer casts are not supported", "index the array directly")
	}
	ps.expect(")", "close the cast with )")
	ps.enter(open)
	defer func() { ps.nest-- }()
	e := ps.unary()
	if !ct.int {
		ps.cuda.floatCast[e] = true
		return e
	}
	if at := ps.floatIn(e); at != nil {
		ps.failAt(at.Line, at.Col, fmt.Sprintf("value depends on float data (%s): a cast to %s of a float value is not supported", ps.describeData(at), ct.name),
			"compute integers from thread and block indices, int locals and params")
	}
	c := ps.node(ExprCast, open, e)
	c.Type = CIntType(ct.name)
	return c
}

// conditional parses c ? a : b, or what binds tighter.
func (ps *parser) conditional() *Expr {
	c := ps.binary(precOr)
	if !ps.is("?") {
		return c
	}
	q := ps.next()
	ps.checkCond(c, "the condition of ?:")
	a := ps.expr()
	ps.expect(":", "write cond ? a : b")
	return ps.node(ExprCond, q, c, a, ps.expr())
}

// checkRank requires one subscript per dimension of a, or one flat one.
func (ps *parser) checkRank(e *Expr, a *Array, nt token) {
	if n := len(e.Args); n != 1 && n != len(a.Dims) {
		ps.fail(nt, fmt.Sprintf("array %s has %d dimensions; got %d subscripts", nt.text, len(a.Dims), n),
			fmt.Sprintf("write one subscript per dimension, %s%s, or one flat element index, %s[i]", nt.text, strings.Repeat("[i]", len(a.Dims)), nt.text))
	}
}

// intHint lists what integer expressions are made of.
const intHint = "threadIdx, blockIdx, blockDim, gridDim, int locals, params and constants"

// checkSubscript requires a subscript that is an integer value of the
// thread (intData).
func (ps *parser) checkSubscript(ix *Expr, array string) {
	if at, why := ps.intData(ix); at != nil {
		ps.failAt(at.Line, at.Col, fmt.Sprintf("index of %s %s", array, why), indexDataHint)
	}
}

// checkCond requires a condition that is an integer value of the thread;
// what names it.
func (ps *parser) checkCond(c *Expr, what string) {
	if at, why := ps.intData(c); at != nil {
		ps.failAt(at.Line, at.Col, fmt.Sprintf("%s %s", what, why), indexDataHint)
	}
}

// checkIntValue requires an integer value of the thread for the int
// local name.
func (ps *parser) checkIntValue(e *Expr, name string) {
	if at, why := ps.intData(e); at != nil {
		ps.failAt(at.Line, at.Col, fmt.Sprintf("int local %s gets a value that %s", name, why),
			fmt.Sprintf("declare %s float if only its value matters; %s", name, indexDataHint))
	}
}

// dataIn finds the first node of e, left to right, whose value is data
// rather than an integer known from the thread's indices and the launch:
// a float (literal, local, parameter, float-valued call, cast to float),
// or an array read (load).
func (ps *parser) dataIn(e *Expr) (at *Expr, load bool) {
	switch {
	case ps.isFloat(e):
		return e, false
	case e.Kind == ExprLoad:
		return e, true
	}
	for _, a := range e.Args {
		if at, load := ps.dataIn(a); at != nil {
			return at, load
		}
	}
	return nil, false
}

// floatIn finds the first node of e that makes it a float value: a float
// as for dataIn, or a read of a float array.
func (ps *parser) floatIn(e *Expr) *Expr {
	switch {
	case ps.isFloat(e):
		return e
	case e.Kind == ExprLoad:
		if t := ps.arrays[e.Name].Type; t == F32 || t == F64 {
			return e
		}
		return nil
	}
	for _, a := range e.Args {
		if at := ps.floatIn(a); at != nil {
			return at
		}
	}
	return nil
}

// isFloat says e itself, not through its arguments, is a float value.
func (ps *parser) isFloat(e *Expr) bool {
	switch {
	case ps.cuda.floatCast[e], e.Kind == ExprFloat:
		return true
	case e.Kind == ExprScalar:
		return !ps.prog.Locals[e.Index].Int
	case e.Kind == ExprCall:
		return !intCalls[e.Name]
	}
	return false
}

// describeData says what the node that dataIn or floatIn found is.
func (ps *parser) describeData(e *Expr) string {
	switch {
	case ps.cuda.floatCast[e]:
		return "a cast to float"
	case e.Kind == ExprScalar:
		return "float local " + e.Name
	case e.Kind == ExprFloat && ps.cuda.args[e.Name] != nil:
		return "float parameter " + e.Name
	case e.Kind == ExprFloat:
		return "float literal " + e.Name
	case e.Kind == ExprCall:
		return "the float function " + e.Name
	}
	return "array " + e.Name
}

// launchConst returns the first node of e that is not known at launch;
// nil when e is an expression of integer constants and params (min, max
// and abs included).
func launchConst(e *Expr) *Expr { return notConst(e, false) }

// blockConst is launchConst that also takes blockDim: what a launch knows
// when it allocates a block's shared memory.
func blockConst(e *Expr) *Expr { return notConst(e, true) }

func notConst(e *Expr, blockDim bool) *Expr {
	switch e.Kind {
	case ExprConst, ExprParam:
		return nil
	case ExprSpecial:
		if blockDim && e.Index >= int(BlockDimX) && e.Index <= int(BlockDimZ) {
			return nil
		}
		return e
	case ExprFloat, ExprScalar, ExprLoad, ExprLoop:
		return e
	case ExprCall:
		if e.Name != "min" && e.Name != "max" && e.Name != "abs" {
			return e
		}
	}
	for _, a := range e.Args {
		if bad := notConst(a, blockDim); bad != nil {
			return bad
		}
	}
	return nil
}
