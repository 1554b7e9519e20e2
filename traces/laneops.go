package traces

// This file holds the lane stack's operators: each applies one operator
// to a warp's lanes, or to lanes and a uniform value (lanes.go keeps the
// stack and its reads).

import (
	"math/bits"

	"gpumemsim/internal/truth"
	"gpumemsim/kernel"
)

// unaryLanes applies -, ! or abs to x, whose slot's array is s.
func unaryLanes(o xop, x *operand, s *[WarpSize]int64) {
	a := x.p
	if a == nil {
		switch o.kind {
		case kernel.ExprNeg:
			x.u = -x.u
		case kernel.ExprNot:
			x.u = truth.Int(x.u == 0)
		default:
			x.u = abs64(x.u)
		}
		return
	}
	switch o.kind {
	case kernel.ExprNeg:
		for i := range s {
			s[i] = -a[i]
		}
	case kernel.ExprNot:
		for i := range s {
			s[i] = truth.Int(a[i] == 0)
		}
	default:
		for i := range s {
			s[i] = abs64(a[i])
		}
	}
	x.p = s
}

// condLanes applies c ? a : b to the stack's top three operands x, whose
// slots' arrays are s, leaving the value in x[0]. A uniform condition
// picks an operand whole; one whose lanes are in its own slot's array is
// copied to x[0]'s, as an operand points into no other slot's array.
func condLanes(x []operand, s [][WarpSize]int64) {
	c, a, b := x[0], x[1], x[2]
	if c.p == nil {
		pick, from := b, &s[2]
		if c.u != 0 {
			pick, from = a, &s[1]
		}
		if pick.p == from {
			s[0] = *from
			pick.p = &s[0]
		}
		x[0] = pick
		return
	}
	if a.p == nil {
		fill(&s[1], a.u)
		a.p = &s[1]
	}
	if b.p == nil {
		fill(&s[2], b.u)
		b.p = &s[2]
	}
	out, cv, av, bv := &s[0], c.p, a.p, b.p
	for i := range out {
		if cv[i] != 0 {
			out[i] = av[i]
		} else {
			out[i] = bv[i]
		}
	}
	x[0].p = out
}

// binaryOperands applies a binary operator to the stack's operands a and
// b, whose slots' arrays are sa and sb, leaving the value in a. Two
// uniform operands make a uniform value: an operation that goes wrong
// goes wrong in every lane, so in the first active one. A uniform right
// operand, or left one of an operator that commutes, is an immediate.
func (ln *lanes) binaryOperands(o xop, a *operand, b operand, sa, sb *[WarpSize]int64, mask uint32) {
	switch {
	case a.p == nil && b.p == nil:
		v, why := binary(o, a.u, b.u)
		if why != "" && mask != 0 && ln.bad == "" {
			ln.fail(why, bits.TrailingZeros32(mask))
		}
		a.u = v
		return
	case b.p == nil:
		if immLanes(o.kind, o.arg, sa, a.p, b.u) {
			a.p = sa
			return
		}
		fill(sb, b.u)
		b.p = sb
	case a.p == nil:
		if k, ok := swapped(o); ok && immLanes(k, o.arg, sa, b.p, a.u) {
			a.p = sa
			return
		}
		fill(sa, a.u)
		a.p = sa
	}
	ln.lanesInto(o, sa, a.p, b.p, mask)
	a.p = sa
}

// swapped is the operator that gives a op b from b and a, where there
// is one among those immLanes runs: o itself where it commutes, min and
// max among the calls, a comparison mirrored as a canonical loop's bound
// is (trip.go).
func swapped(o xop) (kernel.ExprKind, bool) {
	switch o.kind {
	case kernel.ExprAdd, kernel.ExprMul, kernel.ExprEq, kernel.ExprNe, kernel.ExprAnd, kernel.ExprOr:
		return o.kind, true
	case kernel.ExprCall:
		return o.kind, o.arg == callMin || o.arg == callMax
	}
	k, ok := mirrored[o.kind]
	return k, ok
}

// immLanes sets out to a op u lane by lane for the operators no lane can
// get wrong, min and max (a call of fn callMin or callMax); it reports
// false, doing nothing, for the others. The loops the examples run most
// go four lanes a step, as fill does: a quarter of the loop's own steps.
func immLanes(k kernel.ExprKind, fn int32, out, a *[WarpSize]int64, u int64) bool {
	switch k {
	case kernel.ExprAdd:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]+u, x[1]+u, x[2]+u, x[3]+u
		}
	case kernel.ExprSub:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]-u, x[1]-u, x[2]-u, x[3]-u
		}
	case kernel.ExprMul:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]*u, x[1]*u, x[2]*u, x[3]*u
		}
	case kernel.ExprLt, kernel.ExprGe:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = truth.Int(x[0] < u), truth.Int(x[1] < u), truth.Int(x[2] < u), truth.Int(x[3] < u)
		}
		if k == kernel.ExprGe {
			notLanes(out)
		}
	case kernel.ExprGt, kernel.ExprLe:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = truth.Int(x[0] > u), truth.Int(x[1] > u), truth.Int(x[2] > u), truth.Int(x[3] > u)
		}
		if k == kernel.ExprLe {
			notLanes(out)
		}
	case kernel.ExprEq, kernel.ExprNe:
		for i := 0; i < WarpSize; i += 4 {
			r, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
			r[0], r[1], r[2], r[3] = truth.Int(x[0] == u), truth.Int(x[1] == u), truth.Int(x[2] == u), truth.Int(x[3] == u)
		}
		if k == kernel.ExprNe {
			notLanes(out)
		}
	case kernel.ExprAnd:
		for i := range out {
			out[i] = truth.Int(a[i] != 0 && u != 0)
		}
	case kernel.ExprOr:
		for i := range out {
			out[i] = truth.Int(a[i] != 0 || u != 0)
		}
	case kernel.ExprCall:
		switch fn {
		case callMin:
			for i := range out {
				out[i] = min(a[i], u)
			}
		case callMax:
			for i := range out {
				out[i] = max(a[i], u)
			}
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// binaryLanes applies a binary operator lane by lane in place: a = a op b.
func (ln *lanes) binaryLanes(o xop, a, b *[WarpSize]int64, mask uint32) {
	ln.lanesInto(o, a, a, b, mask)
}

// lanesInto sets out to a op b lane by lane; out may be a or b. The
// operators no lane can get wrong (arithmetic but division and shifts,
// comparisons, && and ||, min and max) run without binary's check.
func (ln *lanes) lanesInto(o xop, out, a, b *[WarpSize]int64, mask uint32) {
	switch o.kind {
	case kernel.ExprAdd:
		for i := 0; i < WarpSize; i += 4 {
			r, x, y := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4]), (*[4]int64)(b[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]+y[0], x[1]+y[1], x[2]+y[2], x[3]+y[3]
		}
	case kernel.ExprSub:
		for i := 0; i < WarpSize; i += 4 {
			r, x, y := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4]), (*[4]int64)(b[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]-y[0], x[1]-y[1], x[2]-y[2], x[3]-y[3]
		}
	case kernel.ExprMul:
		for i := 0; i < WarpSize; i += 4 {
			r, x, y := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4]), (*[4]int64)(b[i:i+4])
			r[0], r[1], r[2], r[3] = x[0]*y[0], x[1]*y[1], x[2]*y[2], x[3]*y[3]
		}
	case kernel.ExprLt, kernel.ExprGe:
		for i := range out {
			out[i] = truth.Int(a[i] < b[i])
		}
		if o.kind == kernel.ExprGe {
			notLanes(out)
		}
	case kernel.ExprGt, kernel.ExprLe:
		for i := range out {
			out[i] = truth.Int(a[i] > b[i])
		}
		if o.kind == kernel.ExprLe {
			notLanes(out)
		}
	case kernel.ExprEq, kernel.ExprNe:
		for i := range out {
			out[i] = truth.Int(a[i] == b[i])
		}
		if o.kind == kernel.ExprNe {
			notLanes(out)
		}
	case kernel.ExprAnd:
		for i := range out {
			out[i] = truth.Int(a[i] != 0 && b[i] != 0)
		}
	case kernel.ExprOr:
		for i := range out {
			out[i] = truth.Int(a[i] != 0 || b[i] != 0)
		}
	case kernel.ExprCall:
		switch o.arg {
		case callMin:
			for i := range out {
				out[i] = min(a[i], b[i])
			}
			return
		case callMax:
			for i := range out {
				out[i] = max(a[i], b[i])
			}
			return
		}
		fallthrough
	default:
		for i := range out {
			v, why := binary(o, a[i], b[i])
			if why != "" && mask&(1<<i) != 0 && ln.bad == "" {
				ln.fail(why, i)
			}
			out[i] = v
		}
	}
}

// notLanes turns each lane's 0 into 1 and its 1 into 0.
func notLanes(a *[WarpSize]int64) {
	for i := range a {
		a[i] ^= 1
	}
}

// compared is the lanes where c holds, its lanes read in place (a
// varying local settled first, as vectorAt reads it): a bit each, lane i
// bit i. A comparison never goes wrong.
func (ln *lanes) compared(c *laneCmp) uint32 {
	var x *[WarpSize]int64
	switch r := c.read; r.kind {
	case kernel.ExprSpecial:
		x = &ln.tid[r.arg]
	case kernel.ExprScalar:
		x = ln.vreg(r.arg)
	default:
		x = &ln.vals[r.arg]
	}
	return cmpMask(c.kind, x, ln.read(c.uni))
}

// cmpMask is the lanes where x[i] k u holds, k a comparison; <=, >= and
// != as the lanes where >, < and == do not. The loops go four lanes a
// step, each lane's bit at a constant shift.
func cmpMask(k kernel.ExprKind, x *[WarpSize]int64, u int64) uint32 {
	var m uint32
	switch k {
	case kernel.ExprLt, kernel.ExprGe:
		for i := 0; i < WarpSize; i += 4 {
			q := (*[4]int64)(x[i : i+4])
			m |= (b2u(q[0] < u) | b2u(q[1] < u)<<1 | b2u(q[2] < u)<<2 | b2u(q[3] < u)<<3) << i
		}
	case kernel.ExprGt, kernel.ExprLe:
		for i := 0; i < WarpSize; i += 4 {
			q := (*[4]int64)(x[i : i+4])
			m |= (b2u(q[0] > u) | b2u(q[1] > u)<<1 | b2u(q[2] > u)<<2 | b2u(q[3] > u)<<3) << i
		}
	default:
		for i := 0; i < WarpSize; i += 4 {
			q := (*[4]int64)(x[i : i+4])
			m |= (b2u(q[0] == u) | b2u(q[1] == u)<<1 | b2u(q[2] == u)<<2 | b2u(q[3] == u)<<3) << i
		}
	}
	if k == kernel.ExprGe || k == kernel.ExprLe || k == kernel.ExprNe {
		return ^m
	}
	return m
}

// b2u is b as a bit.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
