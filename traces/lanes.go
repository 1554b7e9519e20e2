package traces

import (
	"fmt"

	"gpumemsim/internal/truth"
	"gpumemsim/kernel"
)

// The integer expressions of a per-thread kernel (subscripts, conditions,
// int locals) compiled to postfix programs. A program whose value is the
// same in every lane (it reads no threadIdx and no varying local) runs
// once on scalars; the others run on lane vectors, one operator at a time
// over all 32 lanes.

// xop is one step of a postfix program.
type xop struct {
	kind kernel.ExprKind
	// val is an ExprConst's value; arg is the axis of a threadIdx
	// (ExprSpecial, 0–2) or blockIdx (3–5) read, a local's slot
	// (ExprScalar), or a call's function (ExprCall).
	val int64
	arg int32
}

// lanes is the per-warp state expressions read: thread and block indices
// and the locals.
type lanes struct {
	tid [3][WarpSize]int64
	bid [3]int64
	// vary says, per local slot, whether it lives in vregs (its lanes
	// may disagree) or in uregs.
	vary  []bool
	vregs [][WarpSize]int64
	// owed is, per varying local, a uniform addend every lane still owes
	// its vregs entry: a lane's value is vregs[s][i] + owed[s]. A += or
	// −= of a uniform value while every lane is active adds to it instead
	// of to the 32 lanes (a pointer walked by a loop: indexA++); a read
	// settles it (vreg), but for the addresses' fast path, which adds it
	// in as it scales the lanes.
	owed  []int64
	uregs []int64
	vst   [][WarpSize]int64
	vops  []operand
	sst   []int64
	// why is guardedLane's stack of reasons, beside sst.
	why []string
	// vals are, per slot (xcompiler.slots), the values the lanes last
	// read of an index array, and elems the elements they read.
	vals, elems [][WarpSize]int64
	// bad is set by an operation no lane may do (division by zero, a
	// shift out of range) on an active lane, badLane that lane (-1 where
	// a uniform program went wrong, in every lane): fail.
	bad     string
	badLane int
}

// fail records the first operation that went wrong, in lane (-1: all).
func (ln *lanes) fail(why string, lane int) { ln.bad, ln.badLane = why, lane }

func (ln *lanes) reserve(depth, locals, slots int) {
	ln.vst = grow(ln.vst, depth)
	ln.vops = grow(ln.vops, depth)
	ln.sst = grow(ln.sst, depth)
	ln.why = grow(ln.why, depth)
	ln.vregs = grow(ln.vregs, locals)
	ln.owed = grow(ln.owed, locals)
	ln.uregs = grow(ln.uregs, locals)
	ln.vals = grow(ln.vals, slots)
	ln.elems = grow(ln.elems, slots)
}

// vreg is varying local s with every lane's value settled: what it owed
// added to its lanes.
func (ln *lanes) vreg(s int32) *[WarpSize]int64 {
	r := &ln.vregs[s]
	if d := ln.owed[s]; d != 0 {
		for i := range r {
			r[i] += d
		}
		ln.owed[s] = 0
	}
	return r
}

// scalar evaluates a uniform program; one that only reads a value (a
// loop counter as a subscript) reads it without the stack.
func (ln *lanes) scalar(p *xprog) int64 {
	if len(p.ops) == 1 {
		switch o := p.ops[0]; o.kind {
		case kernel.ExprConst:
			return o.val
		case kernel.ExprScalar:
			return ln.uregs[o.arg]
		}
	}
	if p.pair {
		v, why := binary(p.ops[2], ln.read(p.ops[0]), ln.read(p.ops[1]))
		if why != "" && ln.bad == "" {
			ln.fail(why, -1)
		}
		return v
	}
	st := ln.sst[:0]
	for _, o := range p.ops {
		switch o.kind {
		case kernel.ExprConst:
			st = append(st, o.val)
		case kernel.ExprSpecial:
			st = append(st, ln.bid[o.arg-int32(kernel.BlockIdxX)])
		case kernel.ExprScalar:
			st = append(st, ln.uregs[o.arg])
		case kernel.ExprNeg:
			st[len(st)-1] = -st[len(st)-1]
		case kernel.ExprNot:
			st[len(st)-1] = truth.Int(st[len(st)-1] == 0)
		case kernel.ExprCond:
			n := len(st)
			if st[n-3] != 0 {
				st[n-3] = st[n-2]
			} else {
				st[n-3] = st[n-1]
			}
			st = st[:n-2]
		case kernel.ExprCall:
			if o.arg == callAbs {
				st[len(st)-1] = abs64(st[len(st)-1])
				continue
			}
			fallthrough
		default:
			n := len(st)
			v, why := binary(o, st[n-2], st[n-1])
			if why != "" && ln.bad == "" {
				ln.fail(why, -1)
			}
			st[n-2] = v
			st = st[:n-1]
		case exprGuarded: // last, so that the cases above keep their lines
			return ln.guardedScalar(p)
		}
	}
	return st[0]
}

// read is the value a uniform program's read o pushes (isRead).
func (ln *lanes) read(o xop) int64 {
	switch o.kind {
	case kernel.ExprSpecial:
		return ln.bid[o.arg-int32(kernel.BlockIdxX)]
	case kernel.ExprScalar:
		return ln.uregs[o.arg]
	}
	return o.val
}

// vector evaluates a program for every lane into out; only lanes in
// mask may report an invalid operation.
func (ln *lanes) vector(p *xprog, mask uint32, out *[WarpSize]int64) {
	if v := ln.vectorAt(p, mask, out); v != out {
		*out = *v
	}
}

// operand is a value on vectorAt's stack: uniform (p nil) with value u,
// or the lanes at p, which are the slot's own array of vst or lanes read
// in place (a thread index, a settled varying local, an index array's
// values), never written.
type operand struct {
	p *[WarpSize]int64
	u int64
}

// vectorAt evaluates a program for every lane and returns where the
// lanes are: spare, an array of the stack, or a thread index, local or
// index array's values read in place, valid until the next evaluation.
// A value the same in every lane (a constant, a block index, a uniform
// local, and what operators make of those alone) stays one number on
// the stack, an operator's immediate, rather than 32 copies of it.
func (ln *lanes) vectorAt(p *xprog, mask uint32, spare *[WarpSize]int64) *[WarpSize]int64 {
	n := 0
	st, ops := ln.vst, ln.vops
	for _, o := range p.ops {
		switch o.kind {
		case kernel.ExprConst:
			ops[n] = operand{u: o.val}
			n++
		case kernel.ExprSpecial:
			if o.arg <= int32(kernel.ThreadIdxZ) {
				ops[n] = operand{p: &ln.tid[o.arg]}
			} else {
				ops[n] = operand{u: ln.bid[o.arg-int32(kernel.BlockIdxX)]}
			}
			n++
		case kernel.ExprScalar:
			if ln.vary[o.arg] {
				ops[n] = operand{p: ln.vreg(o.arg)}
			} else {
				ops[n] = operand{u: ln.uregs[o.arg]}
			}
			n++
		case kernel.ExprLoad:
			ops[n] = operand{p: &ln.vals[o.arg]}
			n++
		case kernel.ExprNeg, kernel.ExprNot:
			unaryLanes(o, &ops[n-1], &st[n-1])
		case kernel.ExprCond:
			condLanes(ops[n-3:n], st[n-3:n])
			n -= 2
		case kernel.ExprCall:
			if o.arg == callAbs {
				unaryLanes(o, &ops[n-1], &st[n-1])
				continue
			}
			fallthrough
		default:
			ln.binaryOperands(o, &ops[n-2], ops[n-1], &st[n-2], &st[n-1], mask)
			n--
		case exprGuarded: // last, so that the cases above keep their lines
			ln.guardedVector(p, mask, spare)
			return spare
		}
	}
	if ops[0].p == nil {
		fill(spare, ops[0].u)
		return spare
	}
	return ops[0].p
}

// binary applies a binary operator or a two-argument call with C's
// integer semantics; an operation C leaves undefined gives 0 and a reason.
func binary(o xop, a, b int64) (int64, string) {
	switch o.kind {
	case kernel.ExprAdd:
		return a + b, ""
	case kernel.ExprSub:
		return a - b, ""
	case kernel.ExprMul:
		return a * b, ""
	case kernel.ExprDiv, kernel.ExprMod:
		if b == 0 {
			return 0, "division by zero"
		}
		if o.kind == kernel.ExprDiv {
			return a / b, ""
		}
		return a % b, ""
	case kernel.ExprShl, kernel.ExprShr:
		if b < 0 || b > 63 {
			return 0, fmt.Sprintf("shift by %d", b)
		}
		if o.kind == kernel.ExprShl {
			return a << b, ""
		}
		return a >> b, ""
	case kernel.ExprCall:
		if o.arg == callMin {
			return min(a, b), ""
		}
		if o.arg > callAbs {
			return typedCall(o, a, b)
		}
		return max(a, b), ""
	}
	if v, ok := o.kind.Logic(a, b); ok {
		return v, ""
	}
	panic(fmt.Sprintf("traces: operator %d in an integer expression", o.kind))
}

// fill sets every lane of v to x, four lanes a step.
func fill[T int64 | uint64](v *[WarpSize]T, x T) {
	for i := 0; i < WarpSize; i += 4 {
		q := (*[4]T)(v[i : i+4])
		q[0], q[1], q[2], q[3] = x, x, x, x
	}
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}
