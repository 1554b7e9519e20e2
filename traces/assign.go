package traces

import (
	"math/bits"

	"gpumemsim/kernel"
)

// Assignments to int locals. A uniform local lives in one register; a
// varying one in 32 lanes, updated for the active lanes only. The common
// updates cost no copy of the lanes: a uniform += or −= of a full warp
// is only owed (lanes.owed), the other updates that cannot go wrong are
// made in place, and the rest go through the operators' lane checks.

// assign sets an int local for the active lanes.
func (c *ThreadCursor) assign(op *tcode) {
	ln := &c.ln
	s := op.local
	if !ln.vary[s] {
		// Uniform: every active lane computes the same value.
		v := int64(0)
		if op.x != nil {
			v = ln.scalar(op.x)
		}
		if op.op != kernel.ExprConst {
			var why string
			v, why = binary(xop{kind: op.op}, ln.uregs[s], v)
			if why != "" && ln.bad == "" {
				ln.fail(why, -1)
			}
		}
		ln.uregs[s] = v
		return
	}
	if c.owe(op) {
		return
	}
	reg := ln.vreg(s)
	if c.assignLanes(op, reg) {
		return
	}
	// An operator that may go wrong in a lane (/, %, shifts): the lanes
	// checked by binaryLanes, the active ones kept.
	if op.x != nil {
		c.value(op.x, &c.sub)
	} else {
		clear(c.sub[:])
	}
	c.idx = *reg
	ln.binaryLanes(xop{kind: op.op}, &c.idx, &c.sub, c.mask)
	c.sub = c.idx
	for i := range WarpSize {
		if c.mask&(1<<i) != 0 {
			reg[i] = c.sub[i]
		}
	}
}

// owe adds a uniform += or −= of a warp whose every lane is active to
// what its varying local owes (lanes.owed), and reports whether it did.
func (c *ThreadCursor) owe(op *tcode) bool {
	if c.mask != fullMask || op.x == nil || op.x.varying {
		return false
	}
	switch op.op {
	case kernel.ExprAdd:
		c.ln.owed[op.local] += c.ln.scalar(op.x)
	case kernel.ExprSub:
		c.ln.owed[op.local] -= c.ln.scalar(op.x)
	default:
		return false
	}
	return true
}

// assignLanes sets varying local reg for the active lanes in place when
// op's operator can go wrong in no lane (a plain assignment, +=, -=, *=):
// what assign's general path computes, without its copies of the
// register and the value. It reports false, doing nothing, for the other
// operators. A uniform value is evaluated once, as value would; a warp
// with every lane active, the common case, updates the register whole.
func (c *ThreadCursor) assignLanes(op *tcode, reg *[WarpSize]int64) bool {
	kind := op.op
	switch kind {
	case kernel.ExprConst, kernel.ExprAdd, kernel.ExprSub, kernel.ExprMul:
	default:
		return false
	}
	full := c.mask == fullMask
	if op.x != nil && op.x.varying {
		var v *[WarpSize]int64
		switch {
		case op.plan != nil && full:
			c.lanesOf(reg, op.plan) // may read reg: each lane reads its own
			return true
		case op.plan != nil:
			c.lanesOf(&c.sub, op.plan)
			v = &c.sub
		default:
			v = c.ln.vectorAt(op.x, c.mask, &c.sub) // may be reg: each lane reads its own
		}
		if !full {
			for m := c.mask; m != 0; m &= m - 1 {
				i := bits.TrailingZeros32(m)
				reg[i] = assigned(kind, reg[i], v[i])
			}
			return true
		}
		if kind == kernel.ExprConst {
			*reg = *v
		} else {
			c.ln.binaryLanes(xop{kind: kind}, reg, v, c.mask)
		}
		return true
	}
	v := int64(0) // a declaration without a value sets 0
	if op.x != nil {
		v = c.ln.scalar(op.x)
	}
	switch {
	case !full:
		for m := c.mask; m != 0; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			reg[i] = assigned(kind, reg[i], v)
		}
	case kind == kernel.ExprConst:
		fill(reg, v)
	default: // *=; a full warp's += and −= are owed (owe)
		for i := range reg {
			reg[i] = assigned(kind, reg[i], v)
		}
	}
	return true
}

// assigned is a local's new value under an assignment that cannot go
// wrong: v itself, or old + v, old − v, old · v (wrapping, as C's
// two's-complement hardware does).
func assigned(op kernel.ExprKind, old, v int64) int64 {
	switch op {
	case kernel.ExprAdd:
		return old + v
	case kernel.ExprSub:
		return old - v
	case kernel.ExprMul:
		return old * v
	}
	return v
}
