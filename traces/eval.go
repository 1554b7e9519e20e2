package traces

import (
	"errors"
	"fmt"
	"math"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// exprError is an error in expression e of the kernel file, at its
// position; Bind names the file (inFile).
func exprError(e *kernel.Expr, format string, args ...any) error {
	return &arch.PosError{Line: e.Line, Column: e.Col, Err: fmt.Errorf(format, args...)}
}

// inFile names the kernel file in a positioned error that lacks it.
func inFile(file string, err error) error {
	var pe *arch.PosError
	if errors.As(err, &pe) && pe.File == "" {
		c := *pe
		c.File = file
		return &c
	}
	return err
}

// Checked 64-bit arithmetic: every value Bind computes is exact or an
// error, so the cursor's wrapping arithmetic only ever meets values that
// fit.

func add64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) != (b >= 0) || (s >= 0) == (a >= 0)
}

func sub64(a, b int64) (int64, bool) {
	s := a - b
	return s, (a >= 0) == (b >= 0) || (s >= 0) == (a >= 0)
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 || p/b != a {
		return p, false
	}
	return p, true
}

// eval evaluates an expression of params.
func eval(e *kernel.Expr, env map[string]int64) (int64, error) {
	switch e.Kind {
	case kernel.ExprConst:
		return e.Val, nil
	case kernel.ExprParam:
		return env[e.Name], nil
	case kernel.ExprNeg:
		v, err := eval(e.Args[0], env)
		if err != nil {
			return 0, err
		}
		if v == math.MinInt64 {
			return 0, exprError(e, "%s overflows 64 bits; hint: use smaller params", e)
		}
		return -v, nil
	case kernel.ExprAdd, kernel.ExprSub, kernel.ExprMul, kernel.ExprDiv, kernel.ExprMod, kernel.ExprCall:
		a, err := eval(e.Args[0], env)
		if err != nil {
			return 0, err
		}
		b, err := eval(e.Args[1], env)
		if err != nil {
			return 0, err
		}
		return arith(e, a, b)
	}
	panic(fmt.Sprintf("traces: eval of %s: not an expression of params", e))
}

// arith applies the operator of e (or min or max) to a and b.
func arith(e *kernel.Expr, a, b int64) (int64, error) {
	var v int64
	ok := true
	switch e.Kind {
	case kernel.ExprAdd:
		v, ok = add64(a, b)
	case kernel.ExprSub:
		v, ok = sub64(a, b)
	case kernel.ExprMul:
		v, ok = mul64(a, b)
	case kernel.ExprDiv, kernel.ExprMod:
		if b == 0 {
			return 0, exprError(e, "%s divides by zero (%s = 0); hint: check the params", e, e.Args[1])
		}
		if a == math.MinInt64 && b == -1 {
			return 0, exprError(e, "%s overflows 64 bits; hint: use smaller params", e)
		}
		if v = a / b; e.Kind == kernel.ExprMod {
			v = a % b
		}
	case kernel.ExprCall:
		if v = max(a, b); e.Name == "min" {
			v = min(a, b)
		}
	}
	if !ok {
		return 0, exprError(e, "%s overflows 64 bits (%d %s %d); hint: use smaller params", e, a, opText(e.Kind), b)
	}
	return v, nil
}

func opText(k kernel.ExprKind) string {
	switch k {
	case kernel.ExprAdd:
		return "+"
	case kernel.ExprSub:
		return "-"
	}
	return "*"
}

// linear evaluates an affine expression of loop variables and params.
func linear(e *kernel.Expr, env map[string]int64, nloops int) (Linear, error) {
	switch e.Kind {
	case kernel.ExprLoop:
		f := Linear{Coef: make([]int64, nloops)}
		f.Coef[e.Index] = 1
		return f, nil
	case kernel.ExprAdd, kernel.ExprSub, kernel.ExprNeg:
		a, err := linear(e.Args[0], env, nloops)
		if err != nil {
			return a, err
		}
		b := Linear{Coef: make([]int64, nloops)}
		if e.Kind == kernel.ExprNeg {
			a, b = b, a // 0 - a
		} else if b, err = linear(e.Args[1], env, nloops); err != nil {
			return a, err
		}
		s := int64(1)
		if e.Kind != kernel.ExprAdd {
			s = -1
		}
		return combine(e, a, b, s)
	case kernel.ExprMul:
		a, err := linear(e.Args[0], env, nloops)
		if err != nil {
			return a, err
		}
		b, err := linear(e.Args[1], env, nloops)
		if err != nil {
			return a, err
		}
		if !a.isConst() {
			a, b = b, a
		}
		if !a.isConst() {
			panic("traces: product of two loop-dependent factors passed the parser")
		}
		return combine(e, Linear{Coef: make([]int64, nloops)}, b, a.Const)
	}
	v, err := eval(e, env)
	return Linear{Const: v, Coef: make([]int64, nloops)}, err
}

// combine is a + s·b, term by term, for expression e.
func combine(e *kernel.Expr, a, b Linear, s int64) (Linear, error) {
	f, ok := combineForm(a, b, s)
	if !ok {
		return f, exprError(e, "%s overflows 64 bits; hint: use smaller params", e)
	}
	return f, nil
}
