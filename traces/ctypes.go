package traces

import (
	"math"
	"math/bits"
	"strconv"

	"gpumemsim/kernel"
)

// C's integer types in the lane programs. Every value is an int64 in its
// type's form (kernel.IntType): an int sign-extended, an unsigned int
// zero-extended, a bool 0 or 1, an unsigned long's bits. The compiler
// gives each subexpression its C type and the range its values can take
// in this launch (threadIdx.x below blockDim.x, a constant itself, a
// local what every assignment to it can give), and emits a conversion
// only where a value can leave its type's form: an unsigned int's
// arithmetic that may wrap (threadIdx.x - 5), an operand the usual
// arithmetic conversions turn unsigned while it may be negative, a cast
// or an assignment to a narrower type that may change the value. So a
// kernel whose integers stay within their types, as almost every
// kernel's do, runs the programs it ran before types were modelled. A
// signed int's overflow, undefined in C, keeps its 64-bit value.

// crange is the values an expression can take, in their 64-bit form.
type crange struct{ lo, hi int64 }

// full is every 64-bit value: nothing known.
var full = crange{math.MinInt64, math.MaxInt64}

func typeRangeOf(t kernel.IntType) crange {
	lo, hi := t.Range()
	return crange{lo, hi}
}

func (r crange) within(s crange) bool { return r.lo >= s.lo && r.hi <= s.hi }

func (r crange) union(s crange) crange { return crange{min(r.lo, s.lo), max(r.hi, s.hi)} }

// cval is a compiled subexpression's C type and range.
type cval struct {
	t kernel.IntType
	r crange
}

// Calls the compiler adds (xop.arg of an ExprCall, after callAbs), each
// of two arguments: unsigned long's division, remainder and right shift,
// and the shifts of a 32-bit value by a count that may reach 32.
const (
	callUDiv = iota + callAbs + 1
	callUMod
	callUShr
	callShl32
	callShr32
)

// typedCall applies a call the compiler adds (binary's ExprCall past
// callAbs).
func typedCall(o xop, a, b int64) (int64, string) {
	x, y := uint64(a), uint64(b)
	switch o.arg {
	case callUDiv, callUMod:
		if y == 0 {
			return 0, "division by zero"
		}
		if o.arg == callUDiv {
			return int64(x / y), ""
		}
		return int64(x % y), ""
	}
	width := uint64(32)
	if o.arg == callUShr {
		width = 64
	}
	if y >= width { // b < 0 too
		return 0, "shift by " + strconv.FormatInt(b, 10)
	}
	switch o.arg {
	case callShl32:
		return a << y, ""
	case callShr32:
		return a >> y, ""
	}
	return int64(x >> y), ""
}

// convert makes v a value of type t: a conversion where one of v's
// values would change, none where t holds them all.
func (xc *xcompiler) convert(p *xprog, v cval, t kernel.IntType) cval {
	switch tr := typeRangeOf(t); {
	case t.Bits() == 64:
		return cval{t, v.r} // its bits, which C keeps
	case v.t == t:
		return v // a signed overflow keeps its value
	case v.r.within(tr):
		return cval{t, v.r}
	}
	p.ops = append(p.ops, conversion(t)...)
	p.typed++
	return cval{t, typeRangeOf(t)}
}

// conversion is the code that converts the value on top of the stack to
// t, of the lane programs' operators, which run it at no cost to the
// programs that need none: != 0 to bool, a mask to an unsigned type, a
// shift up and back to a signed one.
func conversion(t kernel.IntType) []xop {
	konst := func(v int64) xop { return xop{kind: kernel.ExprConst, val: v} }
	switch n := int64(64 - t.Bits()); {
	case t == kernel.Bool:
		return []xop{konst(0), {kind: kernel.ExprNe}}
	case t.Unsigned():
		return []xop{konst(int64(^uint64(0) >> n)), {kind: kernel.ExprBitAnd}}
	default:
		return []xop{konst(n), {kind: kernel.ExprShl}, konst(n), {kind: kernel.ExprShr}}
	}
}

// flip is the code that flips the sign bit of the value on top of the
// stack, which makes a signed comparison of unsigned longs an unsigned
// one.
var flip = []xop{{kind: kernel.ExprConst, val: math.MinInt64}, {kind: kernel.ExprBitXor}}

// wrapped is the result of an operator of type t whose exact values lie
// in r: an unsigned int's wrap where they may leave it (and a signed
// int's, for <<, whose C++ result is the unsigned one's bits), nothing
// where they cannot; a 64-bit type wraps by itself, and r then says
// nothing.
func (xc *xcompiler) wrapped(p *xprog, t kernel.IntType, r crange, ok, wraps bool) cval {
	tr := typeRangeOf(t)
	switch {
	case t.Bits() == 64:
		if !ok {
			r = full
		}
		return cval{t, r}
	case ok && r.within(tr):
		return cval{t, r}
	case t.Unsigned() || wraps:
		p.ops = append(p.ops, conversion(t)...)
		p.typed++
		return cval{t, tr}
	case !ok:
		r = full
	}
	return cval{t, r} // a signed int's overflow: undefined, kept as it is
}

// rangeOf is the exact range of a op b over their ranges, and whether it
// fits in 64 bits.
func rangeOf(k kernel.ExprKind, a, b crange) (crange, bool) {
	switch k {
	case kernel.ExprAdd:
		lo, ok1 := add64(a.lo, b.lo)
		hi, ok2 := add64(a.hi, b.hi)
		return crange{lo, hi}, ok1 && ok2
	case kernel.ExprSub:
		lo, ok1 := sub64(a.lo, b.hi)
		hi, ok2 := sub64(a.hi, b.lo)
		return crange{lo, hi}, ok1 && ok2
	case kernel.ExprMul:
		r := crange{math.MaxInt64, math.MinInt64}
		for _, x := range [2]int64{a.lo, a.hi} {
			for _, y := range [2]int64{b.lo, b.hi} {
				v, ok := mul64(x, y)
				if !ok {
					return full, false
				}
				r = crange{min(r.lo, v), max(r.hi, v)}
			}
		}
		return r, true
	case kernel.ExprShl:
		if a.lo < 0 || b.lo < 0 || b.hi > 62 || a.hi > math.MaxInt64>>b.hi {
			return full, false
		}
		return crange{a.lo << b.lo, a.hi << b.hi}, true
	}
	return full, false
}

// quotient bounds a / b and a % b (C's truncation) over their ranges.
func quotient(k kernel.ExprKind, a, b crange) crange {
	m := max(absBound(a), 0)
	if k == kernel.ExprMod {
		m = min(m, max(absBound(b)-1, 0))
		if a.lo >= 0 {
			return crange{0, m}
		}
		return crange{-m, m}
	}
	if a.lo >= 0 && b.lo > 0 {
		return crange{a.lo / b.hi, a.hi / b.lo}
	}
	return crange{-m, m}
}

// absBound is the largest |x| of r, saturated.
func absBound(r crange) int64 {
	if r.lo == math.MinInt64 {
		return math.MaxInt64
	}
	return max(-r.lo, r.hi)
}

// bitwise bounds a & b, a | b and a ^ b of two ranges not below 0.
func bitwise(k kernel.ExprKind, a, b crange) crange {
	if k == kernel.ExprBitAnd {
		return crange{0, min(a.hi, b.hi)}
	}
	n := bits.Len64(uint64(max(a.hi, b.hi)))
	if n >= 63 {
		return crange{0, math.MaxInt64}
	}
	return crange{0, 1<<n - 1}
}

// localRanges gives each int local its declared type and the values it
// can hold: those its plain assignments can give it (int row =
// blockIdx.y * 16 + threadIdx.y), and past them those of a counter
// (counted); a local with another compound assignment can hold all of
// its type's. A declaration without a value sets 0. The locals go in
// order, each reading the ranges found so far (a later local's is still
// its type's), so no range is narrower than the values that run.
func (xc *xcompiler) localRanges() {
	p := xc.prog
	xc.locals = make([]cval, len(p.Locals))
	values := make([][]*kernel.Expr, len(p.Locals))
	compound := make([]int, len(p.Locals)) // each local's compound assignments
	for i, l := range p.Locals {
		t := kernel.CIntType(l.Type)
		if !l.Int || t == kernel.NoInt {
			t = kernel.Long
		}
		xc.locals[i] = cval{t, typeRangeOf(t)}
	}
	walkNodes(p.Body, func(n kernel.Node) {
		if s, ok := n.(*kernel.Stmt); ok && s.Local != nil && s.Local.Int {
			if s.Assign != "=" && s.Assign != "" {
				compound[s.Local.Index]++
			} else {
				values[s.Local.Index] = append(values[s.Local.Index], s.Value)
			}
		}
	})
	counters := xc.counters(compound)
	xc.dry = true
	defer func() { xc.dry = false }()
	for i, vs := range values {
		c, counted := counters[i]
		if len(vs) == 0 || compound[i] > 0 && !counted {
			continue
		}
		t := xc.locals[i].t
		r, ok := crange{math.MaxInt64, math.MinInt64}, true // none yet
		for _, e := range vs {
			v := cval{kernel.Int, crange{0, 0}}
			if e != nil {
				var err error
				if v, err = xc.emit(&xprog{}, e); err != nil {
					ok = false
					break
				}
			}
			r = r.union(xc.convert(&xprog{}, v, t).r)
		}
		if counted {
			r, ok = xc.counted(c, r, ok)
		}
		if ok && r.within(typeRangeOf(t)) {
			xc.locals[i].r = r
		}
	}
}

// counter is a loop's counter: a local whose one compound assignment is
// the loop's increment, v op= step, and which the loop's body does not
// assign.
type counter struct {
	local int
	loop  *kernel.While
	op    kernel.ExprKind
	step  *kernel.Expr
}

// counters finds the loops' counters among the locals, given how many
// compound assignments each has.
func (xc *xcompiler) counters(compound []int) map[int]counter {
	out := map[int]counter{}
	walkNodes(xc.prog.Body, func(n kernel.Node) {
		w, ok := n.(*kernel.While)
		if !ok || len(w.Post) != 1 {
			return
		}
		s, ok := w.Post[0].(*kernel.Stmt)
		if !ok || s.Local == nil || compound[s.Local.Index] != 1 || s.Assign == "=" || s.Assign == "" {
			return // not the local's one compound assignment
		}
		k, _ := kernel.CompoundOp(s.Assign)
		if changed, _ := loopAssigns(w.Body); !changed[s.Local.Index] {
			out[s.Local.Index] = counter{local: s.Local.Index, loop: w, op: k, step: s.Value}
		}
	})
	return out
}

// counted widens r, the values of a counter's plain assignments, by
// those its increments reach. v >>= s and v /= s of values not below 0
// only fall towards 0. v += s, and v *= s from values not below 0, step
// up from a value that passed the test v < bound (or <=), v -= s down
// from one that passed v > bound (or >=): each at most a step past the
// bound. ok is false for another form, a step that may go the other
// way, or a test that may compare a negative counter unsigned.
func (xc *xcompiler) counted(c counter, r crange, ok bool) (crange, bool) {
	s, err := xc.emit(&xprog{}, c.step)
	if !ok || err != nil {
		return r, false
	}
	switch c.op {
	case kernel.ExprShr, kernel.ExprDiv:
		if r.lo >= 0 && (s.r.lo >= 1 || c.op == kernel.ExprShr && s.r.lo >= 0) {
			return crange{0, r.hi}, true
		}
		return r, false
	}
	k, b, unsigned, ok := xc.test(c, r)
	if !ok {
		return r, false
	}
	var last crange // the values that pass the test
	switch {
	case c.op != kernel.ExprSub && k == kernel.ExprLt:
		last = crange{r.lo, b.hi - 1}
	case c.op != kernel.ExprSub && k == kernel.ExprLe:
		last = crange{r.lo, b.hi}
	case c.op == kernel.ExprSub && k == kernel.ExprGt:
		last = crange{b.lo + 1, r.hi}
	case c.op == kernel.ExprSub && k == kernel.ExprGe:
		last = crange{b.lo, r.hi}
	default:
		return r, false
	}
	switch {
	case c.op == kernel.ExprMul && (s.r.lo < 1 || r.lo < 0):
		return r, false
	case c.op != kernel.ExprMul && s.r.lo < 0:
		return r, false
	}
	next, ok := rangeOf(c.op, last, s.r)
	// Below 0, an unsigned test would let a falling counter through.
	return r.union(next), ok && !(unsigned && next.lo < 0)
}

// test is a counter's loop condition as v k bound, the bound's range
// and whether C compares them unsigned; ok is false where it is not a
// comparison of v, or where it may compare unsigned a counter whose
// values r reach below 0.
func (xc *xcompiler) test(c counter, r crange) (k kernel.ExprKind, b crange, unsigned, ok bool) {
	cond := c.loop.Cond
	if k, ok = mirrored[cond.Kind]; !ok {
		return 0, crange{}, false, false
	}
	v, bound := cond.Args[0], cond.Args[1]
	if v.Kind == kernel.ExprScalar && v.Index == c.local {
		k = cond.Kind
	} else {
		v, bound = bound, v
	}
	bv, err := xc.emit(&xprog{}, bound)
	unsigned = kernel.Common(xc.locals[c.local].t, bv.t).Unsigned()
	ok = v.Kind == kernel.ExprScalar && v.Index == c.local && err == nil && (!unsigned || r.lo >= 0 && bv.r.lo >= 0)
	return k, bv.r, unsigned, ok
}
