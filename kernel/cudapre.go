package kernel

import (
	"fmt"
	"math"
	"unicode/utf8"

	"gpumemsim/internal/truth"
)

// directiveHint says which preprocessor lines a per-thread kernel reads.
const directiveHint = "the source may have #define NAME value lines and #include lines (ignored) before the function, and #pragma unroll right before a for loop"

// directive reads the preprocessor line at the # token: the token after
// # (the directive's name) and the rest of the line.
func (ps *parser) directive() (token, []token) {
	hash := ps.next()
	if ps.p >= 2 && ps.toks[ps.p-2].line == hash.line {
		ps.fail(hash, "# must start a line", "put the directive on a line of its own")
	}
	nt := ps.peek()
	if nt.kind != tIdent || nt.line != hash.line {
		ps.fail(hash, "expected a directive after #", directiveHint)
	}
	ps.next()
	start := ps.p
	for ps.peek().kind != tEOF && ps.peek().line == hash.line {
		ps.next()
	}
	return nt, ps.toks[start:ps.p]
}

// topDirective reads a preprocessor line outside the function.
func (ps *parser) topDirective() {
	name, rest := ps.directive()
	switch name.text {
	case "define":
		ps.define(name, rest)
	case "include":
	case "pragma":
		ps.fail(name, "#pragma outside the function", "write #pragma unroll right before the for loop it unrolls")
	default:
		ps.fail(name, fmt.Sprintf("#%s is not supported", name.text), directiveHint)
	}
}

// bodyDirective reads a preprocessor line inside the function: #pragma
// unroll and the for loop after it.
func (ps *parser) bodyDirective() []Node {
	name, rest := ps.directive()
	switch name.text {
	case "pragma":
	case "define", "include":
		ps.fail(name, fmt.Sprintf("#%s inside the function", name.text), "move it before the __global__ function")
	default:
		ps.fail(name, fmt.Sprintf("#%s is not supported", name.text), directiveHint)
	}
	if len(rest) == 0 || rest[0].text != "unroll" {
		at := name
		if len(rest) > 0 {
			at = rest[0]
		}
		ps.fail(at, "unknown #pragma", "only #pragma unroll is read")
	}
	unroll := true
	switch {
	case len(rest) == 1:
	case len(rest) == 2 && rest[1].kind == tInt && rest[1].val == 1:
		unroll = false // #pragma unroll 1: do not unroll
	default:
		ps.fail(rest[1], "partial unrolling is not supported", "write #pragma unroll to unroll the loop fully (or #pragma unroll 1 not to), or drop the line")
	}
	if !ps.is("for") {
		ps.fail(ps.peek(), "#pragma unroll must come right before a for loop", "move it to the line before the for")
	}
	return ps.forStmt(unroll)
}

// define reads #define NAME value: a named integer constant.
func (ps *parser) define(kw token, rest []token) {
	if len(rest) == 0 || rest[0].kind != tIdent {
		ps.fail(kw, "#define needs a name and a value", "write #define NAME value")
	}
	nt := rest[0]
	if len(rest) > 1 && rest[1].text == "(" && rest[1].off == nt.end {
		ps.fail(rest[1], "function-like macros are not supported", "write the expression out where it is used, or compute it into a local")
	}
	if len(rest) == 1 {
		ps.fail(nt, "#define "+nt.text+" needs a value", "write #define NAME value; a #define is an integer constant")
	}
	ps.checkReserved(nt, "#define")
	if !wholeParens(rest[1:]) {
		ps.fail(rest[1], fmt.Sprintf("the value of #define %s must be one token or in parentheses", nt.text),
			"C pastes a macro's text where it is used, so a value is read as one only in parentheses: #define "+nt.text+" (...)")
	}
	var e *Expr
	ps.within(rest[1:], func() {
		e = ps.expr()
		if t := ps.peek(); t.kind != tEOF {
			ps.fail(t, fmt.Sprintf("unexpected %s in #define %s", describe(t), nt.text), "a #define is an integer constant expression")
		}
	})
	if bad := launchConst(e); bad != nil || ps.cuda.floatCast[e] {
		if bad == nil {
			bad = e
		}
		ps.failAt(bad.Line, bad.Col, fmt.Sprintf("#define %s is not an integer constant", nt.text),
			"a #define is an expression of integers and earlier #defines; write params and floats where they are used")
	}
	if bad := paramIn(e); bad != nil {
		ps.failAt(bad.Line, bad.Col, fmt.Sprintf("#define %s uses param %s", nt.text, bad.Name), "a #define is a constant of the source; use the param where "+nt.text+" is used")
	}
	v, t, ok := constTyped(e)
	if !ok {
		ps.constValue(e) // fails where 64 bits do
		ps.failAt(e.Line, e.Col, fmt.Sprintf("#define %s: %s has no value in C (a signed overflow, a division by zero or a shift past the width)", nt.text, e), "use smaller constants, or unsigned ones")
	}
	d := &Define{Name: nt.text, Value: e, Val: v, Type: t}
	d.Line, d.Col = ps.pos(nt.line, nt.col)
	ps.cuda.defines[d.Name] = d
	ps.prog.Defines = append(ps.prog.Defines, d)
}

// wholeParens says toks are one token, or a ( and the ) that closes it
// last.
func wholeParens(toks []token) bool {
	if len(toks) == 1 {
		return true
	}
	if toks[0].text != "(" {
		return false
	}
	depth := 0
	for i, t := range toks {
		switch t.text {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return i == len(toks)-1
			}
		}
	}
	return false
}

// within runs f with the parser reading toks, then an end of line.
func (ps *parser) within(toks []token, f func()) {
	saved, at := ps.toks, ps.p
	defer func() { ps.toks, ps.p = saved, at }()
	last := toks[len(toks)-1]
	eol := token{kind: tEOF, off: last.end, end: last.end, line: last.line, text: "end of line",
		col: last.col + utf8.RuneCountInString(ps.src[last.off:last.end])}
	ps.toks, ps.p = append(toks[:len(toks):len(toks)], eol), 0
	f()
}

func paramIn(e *Expr) *Expr { return firstKind(e, ExprParam) }

// constValue evaluates an integer constant expression, failing at an
// operation that has no 64-bit value.
func (ps *parser) constValue(e *Expr) int64 {
	if e.Kind == ExprConst {
		return e.Val
	}
	v := make([]int64, len(e.Args))
	for i, a := range e.Args {
		v[i] = ps.constValue(a)
	}
	r, ok := constOp(e, v)
	if !ok {
		ps.failAt(e.Line, e.Col, fmt.Sprintf("%s has no 64-bit value (overflow, division by zero or a shift out of range)", e), "use smaller constants")
	}
	return r
}

// constOp applies e's operator to its arguments' values v.
func constOp(e *Expr, v []int64) (int64, bool) {
	switch e.Kind {
	case ExprNeg:
		return -v[0], v[0] != math.MinInt64
	case ExprNot:
		return truth.Int(v[0] == 0), true
	case ExprCast:
		return e.Type.Convert(v[0]), true
	case ExprCond:
		if v[0] != 0 {
			return v[1], true
		}
		return v[2], true
	case ExprCall:
		switch e.Name {
		case "min":
			return min(v[0], v[1]), true
		case "max":
			return max(v[0], v[1]), true
		}
		return max(v[0], -v[0]), v[0] != math.MinInt64 // abs
	}
	a, b := v[0], v[1]
	switch e.Kind {
	case ExprAdd:
		return a + b, (a+b > a) == (b > 0)
	case ExprSub:
		return a - b, (a-b < a) == (b > 0)
	case ExprMul:
		p := a * b
		return p, a == 0 || p/a == b && !(a == -1 && b == math.MinInt64)
	case ExprDiv, ExprMod:
		if b == 0 || a == math.MinInt64 && b == -1 {
			return 0, false
		}
		if e.Kind == ExprDiv {
			return a / b, true
		}
		return a % b, true
	case ExprShl, ExprShr:
		if b < 0 || b > 63 {
			return 0, false
		}
		if e.Kind == ExprShl {
			return a << b, a<<b>>b == a
		}
		return a >> b, true
	}
	return e.Kind.Logic(a, b)
}
