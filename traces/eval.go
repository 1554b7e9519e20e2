package traces

import (
	"fmt"

	"gpumemsim/kernel"
)

// eval evaluates an expression of params.
func eval(e *kernel.Expr, env map[string]int64) (int64, error) {
	switch e.Kind {
	case kernel.ExprConst:
		return e.Val, nil
	case kernel.ExprParam:
		return env[e.Name], nil
	case kernel.ExprNeg:
		v, err := eval(e.Args[0], env)
		return -v, err
	case kernel.ExprAdd, kernel.ExprSub, kernel.ExprMul, kernel.ExprDiv, kernel.ExprMod:
		a, err := eval(e.Args[0], env)
		if err != nil {
			return 0, err
		}
		b, err := eval(e.Args[1], env)
		if err != nil {
			return 0, err
		}
		switch e.Kind {
		case kernel.ExprAdd:
			return a + b, nil
		case kernel.ExprSub:
			return a - b, nil
		case kernel.ExprMul:
			if a != 0 && (a*b)/a != b {
				return 0, fmt.Errorf("%s overflows", e)
			}
			return a * b, nil
		}
		if b == 0 {
			return 0, fmt.Errorf("%s divides by zero", e)
		}
		if e.Kind == kernel.ExprDiv {
			return a / b, nil
		}
		return a % b, nil
	case kernel.ExprCall:
		a, err := eval(e.Args[0], env)
		if err != nil {
			return 0, err
		}
		b, err := eval(e.Args[1], env)
		if err != nil {
			return 0, err
		}
		if e.Name == "min" {
			return min(a, b), nil
		}
		return max(a, b), nil
	}
	panic(fmt.Sprintf("traces: eval of %s: not an expression of params", e))
}

// linear evaluates an affine expression of loop variables and params.
func linear(e *kernel.Expr, env map[string]int64, nloops int) (Linear, error) {
	switch e.Kind {
	case kernel.ExprLoop:
		f := Linear{Coef: make([]int64, nloops)}
		f.Coef[e.Index] = 1
		return f, nil
	case kernel.ExprAdd, kernel.ExprSub:
		a, err := linear(e.Args[0], env, nloops)
		if err != nil {
			return a, err
		}
		b, err := linear(e.Args[1], env, nloops)
		if err != nil {
			return a, err
		}
		s := int64(1)
		if e.Kind == kernel.ExprSub {
			s = -1
		}
		a.Const += s * b.Const
		for i := range a.Coef {
			a.Coef[i] += s * b.Coef[i]
		}
		return a, nil
	case kernel.ExprNeg:
		a, err := linear(e.Args[0], env, nloops)
		a.Const = -a.Const
		for i := range a.Coef {
			a.Coef[i] = -a.Coef[i]
		}
		return a, err
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
		c := a.Const
		b.Const *= c
		for i := range b.Coef {
			b.Coef[i] *= c
		}
		return b, nil
	}
	v, err := eval(e, env)
	return Linear{Const: v, Coef: make([]int64, nloops)}, err
}
