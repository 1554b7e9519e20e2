package kernel

import (
	"fmt"
	"strings"
)

// arrayRef parses A[e]...[e] and checks its subscripts.
func (ps *parser) arrayRef() *Expr {
	nt := ps.next()
	a := ps.arrays[nt.text]
	e := &Expr{Kind: ExprLoad, Name: nt.text}
	e.Line, e.Col = ps.pos(nt.line, nt.col)
	if !ps.is("[") && ps.cuda != nil {
		ps.fail(ps.peek(), fmt.Sprintf("array %s needs a subscript", nt.text), "write "+nt.text+"[i] or "+nt.text+strings.Repeat("[i]", len(a.Dims)))
	}
	if !ps.is("[") {
		ps.fail(ps.peek(), fmt.Sprintf("array %s needs %d subscripts", nt.text, len(a.Dims)), "write "+nt.text+strings.Repeat("[i]", len(a.Dims)))
	}
	var end token
	for ps.is("[") {
		ps.next()
		ix := ps.expr()
		if ps.cuda != nil {
			ps.checkSubscript(ix, nt.text)
		} else {
			ps.degree(ix, "index of "+nt.text)
		}
		e.Args = append(e.Args, ix)
		end = ps.expect("]", "close the subscript with ]")
	}
	if ps.cuda != nil {
		ps.checkRank(e, a, nt)
	} else if len(e.Args) != len(a.Dims) {
		ps.fail(nt, fmt.Sprintf("array %s has %d dimensions; got %d subscripts", nt.text, len(a.Dims), len(e.Args)),
			"write one subscript per dimension: "+nt.text+strings.Repeat("[i]", len(a.Dims)))
	}
	if f := ps.field(a, nt); f != nil {
		e.Field = f
		end = ps.toks[ps.p-1]
	}
	ps.refTexts[e] = refText(ps.src[nt.off:end.end])
	ps.measure(e, nt)
	return e
}

// field parses .f after the subscripts of a struct array's reference and
// returns the field; nil for an array of scalars, which may have none.
func (ps *parser) field(a *Array, nt token) *Field {
	if a.Struct == nil {
		if ps.is(".") {
			ps.fail(ps.peek(), fmt.Sprintf("array %s has elements of type %s, not a struct", a.Name, a.Type), "drop the ."+ps.toks[ps.p+1].text)
		}
		return nil
	}
	s := a.Struct
	hint := fmt.Sprintf("name one of %s's fields: %s", s.Name, strings.Join(s.FieldNames(), ", "))
	if !ps.is(".") {
		ps.fail(ps.peek(), fmt.Sprintf("array %s holds structs %s; a reference reads or writes one field", a.Name, s.Name), hint+", e.g. "+nt.text+"[i]."+s.Fields[0].Name)
	}
	ps.next()
	ft := ps.peek()
	f := s.Field(ft.text)
	if ft.kind != tIdent || f == nil {
		ps.fail(ft, fmt.Sprintf("struct %s has no field %s", s.Name, describe(ft)), hint)
	}
	ps.next()
	return f
}

// degree returns the degree of e in the loop variables (0 or 1); higher
// or non-affine forms fail with a message about what.
func (ps *parser) degree(e *Expr, what string) int {
	switch e.Kind {
	case ExprConst, ExprParam:
		return 0
	case ExprLoop:
		return 1
	case ExprFloat:
		ps.failAt(e.Line, e.Col, what+" must be an integer expression", "drop the fraction")
	case ExprScalar:
		ps.failAt(e.Line, e.Col, fmt.Sprintf("%s must not depend on scalar %s", what, e.Name), "indices and bounds are affine in loop variables and params; scalars hold data")
	case ExprLoad:
		ps.failAt(e.Line, e.Col, fmt.Sprintf("%s must not read an array (indirect indices are not supported yet)", what), "use an affine expression of loop variables and params")
	case ExprAdd, ExprSub:
		return max(ps.degree(e.Args[0], what), ps.degree(e.Args[1], what))
	case ExprNeg:
		return ps.degree(e.Args[0], what)
	case ExprMul:
		d := ps.degree(e.Args[0], what) + ps.degree(e.Args[1], what)
		if d > 1 {
			ps.failAt(e.Line, e.Col, what+" must be affine in the loop variables", "a product may have at most one factor that depends on a loop variable; the other factors are params or constants")
		}
		return d
	case ExprDiv, ExprMod:
		if ps.degree(e.Args[0], what)+ps.degree(e.Args[1], what) > 0 {
			ps.failAt(e.Line, e.Col, what+" must be affine in the loop variables: / and % apply only to params and constants", "strip-mine the loop instead of dividing a loop variable")
		}
		return 0
	case ExprCall:
		if e.Name != "min" && e.Name != "max" {
			ps.failAt(e.Line, e.Col, fmt.Sprintf("%s must not call %s", what, e.Name), "only min and max of params are allowed")
		}
		for _, a := range e.Args {
			if ps.degree(a, what) > 0 {
				ps.failAt(e.Line, e.Col, what+" must be affine in the loop variables: min/max apply only to params and constants", "split the loop at the bound")
			}
		}
		return 0
	}
	return 0
}

var calls = map[string]int{
	"min": 2, "max": 2, "fmin": 2, "fmax": 2, "pow": 2, "powf": 2,
	"sqrt": 1, "sqrtf": 1, "rsqrt": 1, "rsqrtf": 1, "fabs": 1, "fabsf": 1, "abs": 1,
	"exp": 1, "expf": 1, "log": 1, "logf": 1, "sin": 1, "sinf": 1, "cos": 1, "cosf": 1,
	"floor": 1, "floorf": 1, "ceil": 1, "ceilf": 1,
}

// arithOps are the binary operators of the loop-nest subset; a
// per-thread kernel has all of C's (cOps, those binOps prints).
var (
	arithOps = map[string]ExprKind{"+": ExprAdd, "-": ExprSub, "*": ExprMul, "/": ExprDiv, "%": ExprMod}
	cOps     = func() map[string]ExprKind {
		m := map[string]ExprKind{}
		for k, op := range binOps {
			m[op] = k
		}
		return m
	}()
)

// Expression grammar: expr = binary operators over unary operands, by
// precedence climbing with C's precedences (prec), left-associative;
// unary = -unary | +unary | primary. The loop-nest subset has + - * / %;
// a per-thread kernel adds C's other binary operators, ?: (cudaexpr.go),
// ! and casts.
func (ps *parser) expr() *Expr {
	ps.enter(ps.peek())
	defer func() { ps.nest-- }()
	if ps.cuda != nil {
		return ps.conditional()
	}
	return ps.binary(precAdd)
}

// binary parses operands joined by operators of precedence min or
// higher.
func (ps *parser) binary(min int) *Expr {
	e := ps.unary()
	for {
		op := ps.peek()
		ops := arithOps
		if ps.cuda != nil {
			ops = cOps
		}
		k, ok := ops[op.text]
		if op.kind != tPunct || !ok || prec(k) < min {
			return e
		}
		ps.next()
		r := ps.binary(prec(k) + 1)
		e = ps.node(k, op, e, r)
	}
}

func (ps *parser) node(k ExprKind, t token, args ...*Expr) *Expr {
	e := &Expr{Kind: k, Args: args}
	e.Line, e.Col = ps.pos(t.line, t.col)
	ps.measure(e, t)
	return e
}

// enter counts one level of recursion into an expression starting at t.
func (ps *parser) enter(t token) {
	if ps.nest++; ps.nest > MaxExprDepth {
		ps.fail(t, fmt.Sprintf("expression nests more than %d deep", MaxExprDepth), "split it with scalar temporaries")
	}
}

// measure records the depth of e, whose arguments are complete, built at
// token t.
func (ps *parser) measure(e *Expr, t token) {
	if len(e.Args) == 0 {
		return // a leaf is 0 deep
	}
	if ps.depth == nil {
		ps.depth = map[*Expr]int{}
	}
	d := 0
	for _, a := range e.Args {
		d = max(d, ps.depth[a])
	}
	if d++; d > MaxExprDepth {
		ps.fail(t, fmt.Sprintf("expression nests more than %d deep (operators chained, parentheses, calls and subscripts)", MaxExprDepth), "split it with scalar temporaries")
	}
	ps.depth[e] = d
}

func (ps *parser) unary() *Expr {
	if ps.is("-") {
		t := ps.next()
		ps.enter(t)
		defer func() { ps.nest-- }()
		return ps.node(ExprNeg, t, ps.unary())
	}
	if ps.is("+") {
		ps.enter(ps.next())
		defer func() { ps.nest-- }()
		return ps.unary()
	}
	if ps.cuda != nil && ps.peek().kind == tPunct {
		if e := ps.cudaUnary(); e != nil {
			return e
		}
	}
	return ps.primary()
}

func (ps *parser) primary() *Expr {
	t := ps.peek()
	switch t.kind {
	case tInt:
		ps.next()
		e := ps.node(ExprConst, t)
		e.Val = t.val
		if ps.cuda != nil {
			e.Type = suffixType(t.text, t.val)
		}
		return e
	case tFloat:
		ps.next()
		e := ps.node(ExprFloat, t)
		e.Name = t.text
		return e
	case tPunct:
		if t.text == "(" {
			ps.next()
			if ps.cuda != nil && ps.peek().kind == tIdent && cTypeWords[ps.peek().text] {
				return ps.cast(t)
			}
			if n := ps.peek(); n.kind == tIdent && typeWords[n.text] && !ps.named(n.text) {
				ps.fail(n, "casts are outside the subset", "drop the cast")
			}
			e := ps.expr()
			ps.expect(")", "close the parenthesis")
			return e
		}
	case tIdent:
		if ps.cuda != nil {
			return ps.cudaName()
		}
		name := t.text
		switch {
		case ps.arrays[name] != nil:
			return ps.arrayRef()
		case ps.toks[ps.p+1].kind == tPunct && ps.toks[ps.p+1].text == "(":
			return ps.call()
		case ps.params[name]:
			ps.next()
			e := ps.node(ExprParam, t)
			e.Name = name
			return e
		case ps.scalars[name]:
			ps.next()
			e := ps.node(ExprScalar, t)
			e.Name = name
			return e
		case ps.loops[name] != nil:
			l := ps.loops[name]
			for _, s := range ps.scope {
				if s == l {
					ps.next()
					e := ps.node(ExprLoop, t)
					e.Name, e.Index = name, l.Index
					return e
				}
			}
			ps.fail(t, fmt.Sprintf("loop variable %s is not in scope here", name), "use it only inside its loop")
		case unsupported[name] != "" || perThreadOnly[name] != "":
			ps.outside(t)
		}
		if ps.dims {
			ps.fail(t, fmt.Sprintf("unknown param %s", name), "dims are expressions of params; the params are "+ps.paramList())
		}
		if nt := ps.toks[ps.p+1]; nt.kind == tPunct && nt.text == "[" {
			ps.fail(t, fmt.Sprintf("unknown array %s", name), "declare it under arrays: in the kernel file")
		}
		ps.fail(t, fmt.Sprintf("unknown name %s", name), "names are params, arrays (declared in the kernel file), loop variables in scope and declared scalars")
	}
	ps.fail(t, fmt.Sprintf("expected an expression, found %s", describe(t)), "an expression is made of numbers, names, calls and operators, such as 2 * A[i] + 1")
	return nil
}

func (ps *parser) call() *Expr {
	t := ps.next()
	n, ok := calls[t.text]
	if ps.cuda != nil {
		n, ok = cudaCalls[t.text]
		if !ok {
			ps.fail(t, fmt.Sprintf("unknown function %s", t.text), "the supported builtins are "+cudaCallList())
		}
	}
	if !ok {
		ps.fail(t, fmt.Sprintf("unknown function %s", t.text), "the subset knows min, max, fmin, fmax, pow, sqrt, rsqrt, fabs, abs, exp, log, sin, cos, floor, ceil")
	}
	e := ps.node(ExprCall, t)
	e.Name = t.text
	ps.expect("(", "")
	for !ps.is(")") {
		if len(e.Args) > 0 {
			ps.expect(",", "separate arguments with ,")
		}
		e.Args = append(e.Args, ps.expr())
	}
	ps.next()
	if len(e.Args) != n {
		ps.fail(t, fmt.Sprintf("%s takes %d arguments, got %d", t.text, n, len(e.Args)), fmt.Sprintf("call it with %d, separated by ,", n))
	}
	ps.measure(e, t)
	return e
}

// refText is a reference's source without its white space, but where it
// parts two words ((unsigned char)i).
func refText(src string) string {
	var b strings.Builder
	for _, f := range strings.Fields(src) {
		if b.Len() > 0 && isWordByte(b.String()[b.Len()-1]) && isWordByte(f[0]) {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) }
