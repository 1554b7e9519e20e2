package kernel

import (
	"fmt"
	"strings"
)

// stmtErrors are the statements of C that a per-thread kernel cannot
// have, with a hint on what to write instead.
var stmtErrors = map[string][2]string{
	"break":      {"break is not supported yet", "end the loop through its condition"},
	"continue":   {"continue is not supported yet", "put the rest of the body under an if"},
	"goto":       {"goto is not supported", "use if and loops"},
	"switch":     {"switch is not supported", "write if (...) ... else if (...) ..."},
	"case":       {"case is not supported", "write if (...) ... else if (...) ..."},
	"default":    {"default is not supported", "write if (...) ... else if (...) ..."},
	"do":         {"do-while loops are not supported", "write while (cond) { ... } or a for loop"},
	"else":       {"else without if", "put else right after the if's statement or block"},
	"extern":     {"dynamic shared memory (extern __shared__) is not supported", "size the array with a param: __shared__ float s[BS];"},
	"volatile":   {"volatile is not supported", "drop it: the simulator reorders nothing"},
	"static":     {"static locals are not supported", "drop static"},
	"struct":     {"structs are not supported", "use one array per field"},
	"__global__": {"functions cannot nest", "close the function before another one; a kernel file holds one"},
	"__device__": {"functions cannot nest", "inline the __device__ function's body"},
	"__constant__": {"a __constant__ array is declared outside the function",
		"declare it before the __global__ function, e.g. __constant__ float c[N];, and name it under arrays:"},
}

// cudaStmt parses one statement of a __global__ function's body. A { }
// block's statements come back in its place, and a for loop's init
// statements before its While.
func (ps *parser) cudaStmt() []Node {
	t := ps.peek()
	switch {
	case t.kind == tPunct && t.text == ";":
		ps.next()
		return nil
	case t.kind == tPunct && t.text == "{":
		return ps.block()
	case t.kind == tPunct && t.text == "#":
		return ps.bodyDirective()
	case t.kind == tPunct && (t.text == "++" || t.text == "--"), t.kind == tIdent && !keywords[t.text] && !cTypeWords[t.text]:
		return []Node{ps.simpleStmt()}
	case t.kind != tIdent:
		ps.fail(t, fmt.Sprintf("expected a statement, found %s", describe(t)), "statements are declarations, assignments, if, for, while, __syncthreads(); and return;")
	}
	switch t.text {
	case "if":
		return []Node{ps.ifStmt()}
	case "for":
		return ps.forStmt(false)
	case "while":
		return []Node{ps.whileStmt()}
	case "__syncthreads":
		return []Node{ps.barrier()}
	case "return":
		return []Node{ps.returnStmt()}
	case "__shared__":
		ps.sharedDecl()
		return nil
	}
	if cTypeWords[t.text] {
		out := ps.declarators()
		ps.expect(";", "end the declaration with ;")
		return out
	}
	if e, ok := stmtErrors[t.text]; ok {
		ps.fail(t, e[0], e[1])
	}
	ps.fail(t, fmt.Sprintf("%s cannot start a statement", t.text), "statements are declarations, assignments, if, for, while, __syncthreads(); and return;")
	return nil
}

// cudaList parses statements up to the } that closes open.
func (ps *parser) cudaList(open token) []Node {
	var out []Node
	for !ps.is("}") {
		if ps.peek().kind == tEOF {
			ps.fail(open, "unclosed {", "add the matching }")
		}
		out = append(out, ps.cudaStmt()...)
	}
	ps.next()
	return out
}

// block parses a { } block in a body: a scope of its own, whose
// statements join the body.
func (ps *parser) block() []Node {
	open := ps.next()
	ps.enterNest(open)
	defer ps.leaveNest()
	ps.cuda.push(false)
	defer ps.popScope()
	return ps.cudaList(open)
}

// cudaBody parses the body of an if, else or loop: one statement or a
// { } block, a scope of its own.
func (ps *parser) cudaBody() []Node {
	ps.cuda.push(true)
	defer ps.popScope()
	if ps.is("{") {
		return ps.cudaList(ps.next())
	}
	if ps.peek().kind == tEOF || ps.is("else") {
		ps.fail(ps.peek(), "missing body", "add a statement, ; for none, or a { } block")
	}
	return ps.cudaStmt()
}

// condition parses (cond) after if or while.
func (ps *parser) condition(kw string) *Expr {
	ps.expect("(", "write "+kw+" (cond)")
	c := ps.expr()
	ps.checkCond(c, "the "+kw+" condition")
	ps.expect(")", "close the condition with )")
	return c
}

func (ps *parser) ifStmt() *If {
	kw := ps.next()
	ps.enterNest(kw)
	defer ps.leaveNest()
	n := &If{Cond: ps.condition("if")}
	n.Line, n.Col = ps.pos(kw.line, kw.col)
	n.Compute, n.Loads = ps.condOps(n.Cond)
	n.Compute++ // the branch
	n.Then = ps.cudaBody()
	if ps.is("else") {
		ps.next()
		n.Else = ps.cudaBody()
	}
	return n
}

func (ps *parser) whileStmt() *While {
	kw := ps.next()
	ps.countLoop(kw)
	ps.enterNest(kw)
	defer ps.leaveNest()
	w := &While{Cond: ps.condition("while")}
	w.Line, w.Col = ps.pos(kw.line, kw.col)
	w.Compute, w.Loads = ps.condOps(w.Cond)
	w.Compute++ // the branch
	ps.cuda.loops = append(ps.cuda.loops, &loopCtx{body: true})
	w.Body = ps.cudaBody()
	ps.cuda.loops = ps.cuda.loops[:len(ps.cuda.loops)-1]
	return w
}

// forStmt parses for (init; cond; post) body into the init statements
// and a While; unroll says #pragma unroll came before it.
func (ps *parser) forStmt(unroll bool) []Node {
	kw := ps.next()
	ps.countLoop(kw)
	ps.enterNest(kw)
	defer ps.leaveNest()
	hint := "write for (int i = 0; i < n; i++)"
	ps.expect("(", hint)
	ps.cuda.push(true) // the header's locals are the loop's
	defer ps.popScope()
	var init []Node
	if !ps.is(";") {
		init = ps.forInit()
	}
	ps.expect(";", hint)
	if ps.is(";") {
		ps.fail(ps.peek(), "a for loop needs a condition", "a loop ends when its condition fails: "+hint)
	}
	w := &While{Init: len(init), Unroll: unroll, Cond: ps.expr()}
	w.Line, w.Col = ps.pos(kw.line, kw.col)
	ps.checkCond(w.Cond, "the for condition")
	ps.expect(";", hint)
	ctx := &loopCtx{unroll: unroll}
	ps.cuda.loops = append(ps.cuda.loops, ctx)
	defer func() { ps.cuda.loops = ps.cuda.loops[:len(ps.cuda.loops)-1] }()
	for !ps.is(")") {
		if len(w.Post) > 0 {
			ps.expect(",", "separate the increments with , and close the header with )")
		}
		start := ps.peek()
		s := ps.simple()
		ps.record(s, start, s.Store == nil)
		w.Post = append(w.Post, s)
	}
	ps.next()
	if unroll {
		ctx.v = ps.checkUnroll(w, init, kw)
		for _, p := range w.Post {
			p.(*Stmt).Compute = 0
		}
	} else {
		w.Compute, w.Loads = ps.condOps(w.Cond)
		w.Compute++ // the branch
	}
	ctx.body = true
	w.Body = ps.cudaBody()
	return append(init, w)
}

// forInit parses a for loop's init: a declaration, or assignments
// separated by commas.
func (ps *parser) forInit() []Node {
	if t := ps.peek(); t.kind == tIdent && cTypeWords[t.text] {
		return ps.declarators()
	}
	var out []Node
	for {
		start := ps.peek()
		s := ps.simple()
		ps.record(s, start, s.Store == nil)
		out = append(out, s)
		if !ps.is(",") {
			return out
		}
		ps.next()
	}
}

// checkUnroll checks that an unrolled loop counts a variable from a
// constant to a constant by a constant (of constants, params and blockDim:
// known at launch, as a template parameter is known at compile time) and
// returns the variable.
func (ps *parser) checkUnroll(w *While, init []Node, kw token) *Local {
	hint := "#pragma unroll needs a trip count known at launch: for (int i = c1; i < c2; i += c3) with constants, params or blockDim in c1, c2, c3; or drop the #pragma"
	msg := "#pragma unroll: the loop's trip count is not known at launch"
	if len(init) != 1 {
		ps.fail(kw, msg+" (the loop needs one init statement)", hint)
	}
	s := init[0].(*Stmt)
	if s.Local == nil || s.Assign != "=" {
		ps.failAt(s.Line, s.Col, msg+" (the init must set a local)", hint)
	}
	if bad := blockConst(s.Value); bad != nil {
		ps.failAt(bad.Line, bad.Col, msg+" (its start is not constant)", hint)
	}
	v := s.Local
	c := w.Cond
	isV := func(e *Expr) bool { return e.Kind == ExprScalar && e.Index == v.Index }
	if c.Kind < ExprLt || c.Kind > ExprNe || !isV(c.Args[0]) && !isV(c.Args[1]) {
		ps.failAt(c.Line, c.Col, msg+" (the condition must compare "+v.Name+")", hint)
	}
	for _, a := range c.Args {
		if bad := blockConst(a); bad != nil && !isV(a) {
			ps.failAt(bad.Line, bad.Col, msg+" (its bound is not constant)", hint)
		}
	}
	steps := map[string]bool{"+=": true, "-=": true, "*=": true, "/=": true, "<<=": true, ">>=": true}
	if len(w.Post) != 1 || w.Post[0].(*Stmt).Local != v || !steps[w.Post[0].(*Stmt).Assign] {
		ps.fail(kw, msg+" (the increment must step "+v.Name+")", hint)
	}
	if bad := blockConst(w.Post[0].(*Stmt).Value); bad != nil {
		ps.failAt(bad.Line, bad.Col, msg+" (its step is not constant)", hint)
	}
	return v
}

func (ps *parser) barrier() *Barrier {
	t := ps.next()
	n := &Barrier{}
	n.Line, n.Col = ps.pos(t.line, t.col)
	ps.expect("(", "write __syncthreads();")
	ps.expect(")", "__syncthreads takes no arguments")
	ps.expect(";", "end the statement with ;")
	return n
}

func (ps *parser) returnStmt() *Return {
	t := ps.next()
	n := &Return{}
	n.Line, n.Col = ps.pos(t.line, t.col)
	ps.expect(";", "a __global__ function returns nothing: write return;")
	return n
}

// simpleStmt parses an assignment statement and its ;.
func (ps *parser) simpleStmt() *Stmt {
	start := ps.peek()
	s := ps.simple()
	ps.expect(";", "end the statement with ;")
	ps.record(s, start, s.Store == nil)
	return s
}

// simple parses an assignment, x++, x--, ++x or --x, without what ends
// it; x++ is x += 1.
func (ps *parser) simple() *Stmt {
	start := ps.peek()
	s := ps.newStmt(start)
	var op token
	if ps.is("++") || ps.is("--") {
		op = ps.next()
	}
	target := ps.target(s)
	if op.text == "" {
		op = ps.next()
	}
	switch {
	case op.text == "++" || op.text == "--":
		s.Assign = op.text[:1] + "="
		s.Value = &Expr{Kind: ExprConst, Val: 1}
		s.Value.Line, s.Value.Col = ps.pos(op.line, op.col)
	case op.kind == tPunct && (op.text == "=" || isCompound(op.text)):
		s.Assign = op.text
	default:
		ps.fail(op, fmt.Sprintf("expected an assignment operator, found %s", describe(op)), "use =, +=, -=, *=, /=, %=, <<=, >>=, &=, |=, ^=, ++ or --")
	}
	compound := s.Assign != "="
	if target != nil {
		ps.indexLoads(target, s)
	}
	if target != nil && compound {
		ps.addRef(target, false, s) // X[..] op= e reads X first
	}
	if s.Value == nil {
		s.Value = ps.expr()
	}
	if s.Local != nil && s.Local.Int {
		ps.checkIntValue(s.Value, s.Local.Name)
	}
	s.Compute += ps.countOps(s.Value, s)
	if compound {
		s.Compute++ // the operator of op=
	}
	if target != nil {
		ps.addRef(target, true, s)
	}
	return s
}

// target parses what an assignment writes: an array element (returned)
// or a local (set in s).
func (ps *parser) target(s *Stmt) *Expr {
	t := ps.peek()
	name := t.text
	if l := ps.cuda.lookup(name); l != nil && t.kind == tIdent {
		ps.next()
		if strings.HasPrefix(l.Type, "const ") {
			ps.fail(t, "cannot assign to const local "+name, "drop const from its declaration")
		}
		for _, c := range ps.cuda.loops {
			if c.unroll && c.body && c.v == l {
				ps.fail(t, "cannot assign to "+name+", the variable of an unrolled loop", "it changes only in the for header; drop #pragma unroll, or use another local")
			}
		}
		s.Scalar, s.Local = name, l
		return nil
	}
	switch {
	case t.kind != tIdent:
		ps.fail(t, fmt.Sprintf("expected a local or an array element, found %s", describe(t)), "write x = ..., A[i] = ..., or x++")
	case ps.arrays[name] != nil:
		return ps.arrayRef()
	case ps.params[name] || ps.cuda.args[name] != nil:
		ps.fail(t, "cannot assign to parameter "+name, fmt.Sprintf("parameters are constants of the launch here; copy it to a local: int n = %s;", name))
	case builtinNames[name] || ps.cuda.defines[name] != nil:
		ps.fail(t, "cannot assign to "+name, name+" is a constant of the launch or of the source")
	case ps.toks[ps.p+1].text == "(":
		if cudaCalls[name] == 0 {
			ps.call() // fails: unknown function
		}
		ps.fail(t, fmt.Sprintf("a call to %s is not a statement", name), "assign its value to a local or an array element")
	}
	ps.unknownName(t)
	return nil
}
