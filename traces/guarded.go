package traces

import (
	"gpumemsim/internal/truth"
	"gpumemsim/kernel"
)

// C evaluates the right operand of && and || only where the left one
// leaves the result open, and only the chosen operand of ?:. The lane
// programs evaluate every operand in every lane, which is the same
// but for an operator that can go wrong (a division by zero, a shift
// out of range): t != 0 && 32 / t > 2 must not fail in the lane where
// t is 0. A program with such an operator in an operand C may skip is
// guarded: it starts with an exprGuarded step, and runs here, lane by
// lane, each value with the reason it went wrong, which the &&, || or
// ?: that skips it drops. Other programs keep the fast paths of
// lanes.go, which meet exprGuarded only as a guarded program's first
// step, in the last case of their switch.

// exprGuarded marks a guarded program. It is ExprLoop, which no
// compiled program holds (emit refuses a loop variable in a per-thread
// kernel), so that the kinds the switches of lanes.go test stay as dense
// as they were: a kind of its own past them cost vector 8% more
// instructions on stencil-shared.
const exprGuarded = kernel.ExprLoop

// guarded says e has, in an operand of && or || or ?: that C may leave
// unevaluated, an operator that can go wrong.
func guarded(e *kernel.Expr) bool {
	found := false
	walkExpr(e, func(x *kernel.Expr) {
		switch x.Kind {
		case kernel.ExprAnd, kernel.ExprOr, kernel.ExprCond:
			for _, a := range x.Args[1:] {
				found = found || mayFail(a)
			}
		}
	})
	return found
}

// mayFail says e has an operator that can go wrong: a division, a
// remainder or a shift.
func mayFail(e *kernel.Expr) bool {
	found := false
	walkExpr(e, func(x *kernel.Expr) {
		switch x.Kind {
		case kernel.ExprDiv, kernel.ExprMod, kernel.ExprShl, kernel.ExprShr:
			found = true
		}
	})
	return found
}

// guardedVector is vector for a guarded program.
func (ln *lanes) guardedVector(p *xprog, mask uint32, out *[WarpSize]int64) {
	for i := range out {
		v, why := ln.guardedLane(p, i)
		if why != "" && mask&(1<<i) != 0 && ln.bad == "" {
			ln.fail(why, i)
		}
		out[i] = v
	}
}

// guardedScalar is scalar for a guarded program: a uniform one reads
// no lane's own value, so lane 0 stands for every lane.
func (ln *lanes) guardedScalar(p *xprog) int64 {
	v, why := ln.guardedLane(p, 0)
	if why != "" && ln.bad == "" {
		ln.fail(why, -1)
	}
	return v
}

// guardedLane evaluates p in lane i with C's order of evaluation: the
// value, and why it went wrong ("" if it did not) in an operand C
// evaluates.
func (ln *lanes) guardedLane(p *xprog, i int) (int64, string) {
	st, why := ln.sst[:0], ln.why[:0]
	for _, o := range p.ops[1:] { // after exprGuarded
		n := len(st)
		switch o.kind {
		case kernel.ExprConst:
			st, why = append(st, o.val), append(why, "")
		case kernel.ExprSpecial:
			var v int64
			if o.arg <= int32(kernel.ThreadIdxZ) {
				v = ln.tid[o.arg][i]
			} else {
				v = ln.bid[o.arg-int32(kernel.BlockIdxX)]
			}
			st, why = append(st, v), append(why, "")
		case kernel.ExprScalar:
			v := ln.uregs[o.arg]
			if int(o.arg) < len(ln.vary) && ln.vary[o.arg] {
				v = ln.vreg(o.arg)[i]
			}
			st, why = append(st, v), append(why, "")
		case kernel.ExprLoad:
			st, why = append(st, ln.vals[o.arg][i]), append(why, "")
		case kernel.ExprNeg:
			st[n-1] = -st[n-1]
		case kernel.ExprNot:
			st[n-1] = truth.Int(st[n-1] == 0)
		case kernel.ExprCond:
			pick := n - 1
			if st[n-3] != 0 {
				pick = n - 2
			}
			st[n-3] = st[pick]
			why[n-3] = first(why[n-3], why[pick])
			st, why = st[:n-2], why[:n-2]
		case kernel.ExprCall:
			if o.arg == callAbs {
				st[n-1] = abs64(st[n-1])
				continue
			}
			fallthrough
		default:
			a, b := st[n-2], st[n-1]
			v, w := binary(o, a, b)
			// The right operand's failure counts where C evaluates it.
			right := why[n-1]
			if o.kind == kernel.ExprAnd && a == 0 || o.kind == kernel.ExprOr && a != 0 {
				right = ""
			}
			st[n-2], why[n-2] = v, first(why[n-2], right, w)
			st, why = st[:n-1], why[:n-1]
		}
	}
	return st[0], why[0]
}

// first is the first of reasons that is not "".
func first(reasons ...string) string {
	for _, r := range reasons {
		if r != "" {
			return r
		}
	}
	return ""
}
