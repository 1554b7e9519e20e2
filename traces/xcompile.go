package traces

import (
	"slices"

	"gpumemsim/kernel"
)

// The compiler of the integer expressions: each C operator to a step of
// a postfix program, with the conversions C's types ask (ctypes.go).

// Calls an integer expression may make, as xop.arg of an ExprCall:
// callAbs takes one argument, the others two (ctypes.go adds those the
// compiler makes).
const (
	callMin = iota
	callMax
	callAbs
)

// xprog is a compiled expression.
type xprog struct {
	ops []xop
	// varying says lanes may disagree on the value.
	varying bool
	// pair says the program is two reads and a binary operator (k < SL,
	// a + aStep), which a uniform one evaluates without the stack.
	pair  bool
	depth int
	// typed counts the steps C's types added: conversions, sign flips,
	// unsigned operators (ctypes.go).
	typed int
	// cmp is the program as a comparison of a lane read in place with a
	// uniform read (tid < s, i >= N), where it is one.
	cmp laneCmp
}

// laneCmp is a comparison of lanes read in place (a thread index, a
// varying local, an index array's values) with a uniform read (a
// constant, a block index, a uniform local), as lanesWhere takes a
// branch's condition: read kind uni. kind is 0 where the program is not
// one.
type laneCmp struct {
	read, uni xop
	kind      kernel.ExprKind
}

// comparisonOf is p as a laneCmp, where its code is a lane read and a
// uniform read, in either order, and a comparison; vary says which
// locals are varying.
func comparisonOf(p *xprog, vary []bool) laneCmp {
	if len(p.ops) != 3 {
		return laneCmp{}
	}
	a, b, k := p.ops[0], p.ops[1], p.ops[2].kind
	if _, ok := mirrored[k]; !ok && k != kernel.ExprEq {
		return laneCmp{}
	}
	switch {
	case laneRead(a, vary) && uniformRead(b, vary):
		return laneCmp{read: a, uni: b, kind: k}
	case uniformRead(a, vary) && laneRead(b, vary):
		if k != kernel.ExprEq {
			k = mirrored[k]
		}
		return laneCmp{read: b, uni: a, kind: k}
	}
	return laneCmp{}
}

// laneRead says o reads lanes in place: a thread index, a varying local
// or an index array's values.
func laneRead(o xop, vary []bool) bool {
	return readsOf(o, vary) != 0 || o.kind == kernel.ExprLoad
}

// uniformRead says o reads one value every lane agrees on: a constant, a
// block index or a uniform local.
func uniformRead(o xop, vary []bool) bool {
	switch o.kind {
	case kernel.ExprConst:
		return true
	case kernel.ExprSpecial:
		return o.arg >= int32(kernel.BlockIdxX)
	case kernel.ExprScalar:
		return int(o.arg) < len(vary) && !vary[o.arg]
	}
	return false
}

// xcompiler compiles the expressions of one launch.
type xcompiler struct {
	env map[string]int64
	// dims are blockDim and gridDim, folded into constants.
	dims [6]int64
	// vary says, per local, that its value may differ between lanes.
	vary []bool
	// slots are the references whose values the expressions read
	// (by MemRef.ID), each in its slot of lanes.vals.
	slots []int
	// prog is the kernel's program, whose locals, parameters and arrays
	// have the types the expressions read (nil: an expression of the
	// host, of params and blockDim).
	prog *kernel.Program
	// locals are, per local, its type and the values it can hold
	// (localRanges).
	locals []cval
	// dry compiles for the type and range alone, taking no slot.
	dry bool
	// aliases are, per local, the thread index it holds wherever it is
	// read, or -1 (threadAliases); nil: none.
	aliases []int32
}

// compile compiles an integer expression; an error names its position.
func (xc *xcompiler) compile(e *kernel.Expr) (*xprog, error) {
	p, _, err := xc.compileTyped(e)
	return p, err
}

// compileTyped is compile, with the value's type and range.
func (xc *xcompiler) compileTyped(e *kernel.Expr) (*xprog, cval, error) {
	p := &xprog{}
	if guarded(e) {
		p.ops = append(p.ops, xop{kind: exprGuarded})
	}
	v, err := xc.emit(p, e)
	xc.finish(p)
	return p, v, err
}

// finish sets what a program's code says of it: the stack it needs,
// whether it is two reads and an operator, and whether a comparison of
// lanes with a uniform value.
func (xc *xcompiler) finish(p *xprog) {
	p.ops = folded(p.ops)
	n := 0
	p.depth = 0
	for _, o := range p.ops {
		switch {
		case isRead(o) || o.kind == kernel.ExprLoad:
			n++
		case o.kind == kernel.ExprCond:
			n -= 2
		case isBinary(o) && o.kind != exprGuarded:
			n--
		}
		p.depth = max(p.depth, n)
	}
	p.pair = len(p.ops) == 3 && isRead(p.ops[0]) && isRead(p.ops[1]) && isBinary(p.ops[2])
	p.cmp = comparisonOf(p, xc.vary)
}

// folded is ops with each operator whose operands are constants, and
// which cannot go wrong, replaced by its value (BS - 1, min(16, 16), the
// conversions of a constant), in place: a comparison with a constant
// expression becomes a comparison with one constant (laneCmp), a sum of
// them one addend, and the lane stack runs fewer steps. Postfix code
// keeps an operator's operands on top of the stack, so two constants
// that end the code so far are the operands of a binary operator that
// follows them.
func folded(ops []xop) []xop {
	out := ops[:0]
	for _, o := range ops {
		n := len(out)
		switch {
		case n < 1 || out[n-1].kind != kernel.ExprConst:
		case o.kind == kernel.ExprNeg || o.kind == kernel.ExprNot || o.kind == kernel.ExprCall && o.arg == callAbs:
			x := operand{u: out[n-1].val}
			unaryLanes(o, &x, nil)
			out[n-1].val = x.u
			continue
		case n < 2 || out[n-2].kind != kernel.ExprConst || !isBinary(o) || o.kind == exprGuarded:
		default:
			if v, why := binary(o, out[n-2].val, out[n-1].val); why == "" {
				out[n-2].val = v
				out = out[:n-1]
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// compileAs compiles e as the value of an assignment to a local of type
// t, converted to it.
func (xc *xcompiler) compileAs(e *kernel.Expr, t kernel.IntType) (*xprog, error) {
	p, v, err := xc.compileTyped(e)
	if err == nil && t != kernel.NoInt {
		xc.convert(p, v, t)
		xc.finish(p)
	}
	return p, err
}

// isRead says o pushes a value it reads: a constant, an index or a local.
func isRead(o xop) bool {
	switch o.kind {
	case kernel.ExprConst, kernel.ExprSpecial, kernel.ExprScalar:
		return true
	}
	return false
}

// isBinary says o takes two values and leaves one (binary applies it).
func isBinary(o xop) bool {
	switch o.kind {
	case kernel.ExprConst, kernel.ExprSpecial, kernel.ExprScalar, kernel.ExprLoad,
		kernel.ExprNeg, kernel.ExprNot, kernel.ExprCond:
		return false
	case kernel.ExprCall:
		return o.arg != callAbs
	}
	return true
}

// emit appends e's postfix code to p and returns the value's type and
// range.
func (xc *xcompiler) emit(p *xprog, e *kernel.Expr) (cval, error) {
	switch e.Kind {
	case kernel.ExprConst:
		p.ops = append(p.ops, xop{kind: kernel.ExprConst, val: e.Val})
		return cval{kernel.ConstType(e), crange{e.Val, e.Val}}, nil
	case kernel.ExprParam:
		v, ok := xc.env[e.Name]
		if !ok {
			return cval{}, exprError(e, "unknown param %s", e.Name)
		}
		t := xc.paramType(e.Name, v)
		v = t.Convert(v) // the value the kernel's argument receives
		p.ops = append(p.ops, xop{kind: kernel.ExprConst, val: v})
		return cval{t, crange{v, v}}, nil
	case kernel.ExprSpecial:
		return xc.special(p, kernel.Special(e.Index)), nil
	case kernel.ExprScalar:
		if e.Index < 0 || e.Index >= len(xc.vary) {
			return cval{}, exprError(e, "%s is not an integer local", e.Name)
		}
		p.varying = p.varying || xc.vary[e.Index]
		v := xc.local(e.Index)
		if a := xc.alias(e.Index, v.t); a >= 0 {
			// The same value, read where the lanes keep it already.
			p.ops = append(p.ops, xop{kind: kernel.ExprSpecial, arg: a})
			return v, nil
		}
		p.ops = append(p.ops, xop{kind: kernel.ExprScalar, arg: int32(e.Index)})
		return v, nil
	case kernel.ExprCall:
		return xc.call(p, e)
	case kernel.ExprLoad:
		// An index array's element: the lanes' values, which the
		// cursor fills when it issues the read (reference e.Index).
		p.varying = true
		p.ops = append(p.ops, xop{kind: kernel.ExprLoad, arg: xc.slot(e.Index)})
		return xc.element(e.Index), nil
	case kernel.ExprFloat, kernel.ExprLoop:
		return cval{}, exprError(e, "%s is not an integer value of the thread", e)
	case kernel.ExprCast:
		v, err := xc.emit(p, e.Args[0])
		return xc.convert(p, v, e.Type), err
	case kernel.ExprNeg:
		v, err := xc.emit(p, e.Args[0])
		v = xc.convert(p, v, v.t.Promoted())
		p.ops = append(p.ops, xop{kind: kernel.ExprNeg})
		r, ok := rangeOf(kernel.ExprSub, crange{}, v.r)
		return xc.wrapped(p, v.t, r, ok, false), err
	case kernel.ExprNot:
		_, err := xc.emit(p, e.Args[0])
		p.ops = append(p.ops, xop{kind: kernel.ExprNot})
		return comparisonVal, err
	case kernel.ExprCond:
		return xc.conditional(p, e)
	}
	return xc.binary(p, e)
}

// comparisonVal is the type and range of a comparison or a logical operator.
var comparisonVal = cval{kernel.Int, crange{0, 1}}

// operands emits the two operands of e, the first converted to the
// type the second's gives them with it (common: C's usual arithmetic
// conversions; else the first's promoted type, a shift's), and returns
// them and where the first one's code ends.
func (xc *xcompiler) operands(p *xprog, e *kernel.Expr, common bool) (a, b cval, end int, err error) {
	if a, err = xc.emit(p, e.Args[0]); err != nil {
		return
	}
	at := len(p.ops)
	if b, err = xc.emit(p, e.Args[1]); err != nil {
		return
	}
	if !common {
		a, end = xc.convertAt(p, at, a, a.t.Promoted())
		return
	}
	t := kernel.Common(a.t, b.t)
	a, end = xc.convertAt(p, at, a, t)
	return a, xc.convert(p, b, t), end, nil
}

// binary emits a binary operator: its operands converted to the type C
// computes it in, and the operator for that type.
func (xc *xcompiler) binary(p *xprog, e *kernel.Expr) (cval, error) {
	k := e.Kind
	o := xop{kind: k}
	switch k {
	case kernel.ExprAnd, kernel.ExprOr:
		_, _, _, err := xc.operands(p, e, false)
		p.ops = append(p.ops, o)
		return comparisonVal, err
	case kernel.ExprShl, kernel.ExprShr:
		a, b, _, err := xc.operands(p, e, false)
		return xc.shift(p, o, a, b), err
	}
	a, b, end, err := xc.operands(p, e, true)
	if err != nil {
		return cval{}, err
	}
	t := a.t
	negative := t == kernel.ULong && (a.r.lo < 0 || b.r.lo < 0) // past 2^63
	switch k {
	case kernel.ExprLt, kernel.ExprLe, kernel.ExprGt, kernel.ExprGe:
		if negative { // compare unsigned longs with their sign bits flipped
			flipOperands(p, end)
		}
		fallthrough
	case kernel.ExprEq, kernel.ExprNe:
		p.ops = append(p.ops, o)
		return comparisonVal, nil
	case kernel.ExprAdd, kernel.ExprSub, kernel.ExprMul:
		p.ops = append(p.ops, o)
		r, ok := rangeOf(k, a.r, b.r)
		return xc.wrapped(p, t, r, ok, false), nil
	case kernel.ExprDiv, kernel.ExprMod:
		if negative {
			o = xop{kind: kernel.ExprCall, arg: callUDiv}
			if k == kernel.ExprMod {
				o.arg = callUMod
			}
			p.ops = append(p.ops, o)
			p.typed++
			return cval{t, full}, nil
		}
		p.ops = append(p.ops, o)
		return cval{t, quotient(k, a.r, b.r)}, nil
	}
	// & | ^
	p.ops = append(p.ops, o)
	r := typeRangeOf(t)
	switch {
	case a.r.lo >= 0 && b.r.lo >= 0:
		r = bitwise(k, a.r, b.r)
	case !a.r.within(r) || !b.r.within(r):
		r = full // a signed int's overflow in an operand
	}
	return cval{t, r}, nil
}

// convertAt is convert for an operand whose code ends at at, before the
// code of the next: the conversion goes there. It returns where the
// operand's code now ends.
func (xc *xcompiler) convertAt(p *xprog, at int, v cval, t kernel.IntType) (cval, int) {
	n := len(p.ops)
	v = xc.convert(p, v, t)
	if added := len(p.ops) - n; added > 0 {
		conv := slices.Clone(p.ops[n:]) // convert counted it
		p.ops = slices.Insert(p.ops[:n], at, conv...)
		return v, at + added
	}
	return v, at
}

// flipOperands flips the sign bits of both operands, the first's code
// ending at end: a signed comparison of unsigned longs is then the
// unsigned one.
func flipOperands(p *xprog, end int) {
	p.ops = slices.Insert(p.ops, end, flip...)
	p.ops = append(p.ops, flip...)
	p.typed += 2
}

// shift emits a << or >> of a, of its promoted type, by b. C bounds the
// count by that type's width: a 32-bit value's shift by a count that may
// reach 32 is a call that checks it (binary checks 64). An unsigned
// long that may be past 2^63 shifts right unsigned.
func (xc *xcompiler) shift(p *xprog, o xop, a, b cval) cval {
	t := a.t
	switch {
	case t == kernel.ULong && a.r.lo < 0 && o.kind == kernel.ExprShr:
		p.ops = append(p.ops, xop{kind: kernel.ExprCall, arg: callUShr})
		p.typed++
		return cval{t, full}
	case t.Bits() == 32 && (b.r.lo < 0 || b.r.hi >= 32):
		call := xop{kind: kernel.ExprCall, arg: callShl32}
		if o.kind == kernel.ExprShr {
			call.arg = callShr32
		}
		o = call
		p.typed++
	}
	p.ops = append(p.ops, o)
	if o.kind == kernel.ExprShl || o.arg == callShl32 {
		r, ok := rangeOf(kernel.ExprShl, a.r, b.r)
		// C++: a signed int shifted left is its unsigned bits.
		return xc.wrapped(p, t, r, ok, true)
	}
	if a.r.lo >= 0 {
		return cval{t, crange{0, a.r.hi >> max(min(b.r.lo, 63), 0)}}
	}
	return cval{t, crange{min(a.r.lo, 0), max(a.r.hi, 0)}}
}

// conditional emits c ? a : b, a and b converted to their common type.
func (xc *xcompiler) conditional(p *xprog, e *kernel.Expr) (cval, error) {
	if _, err := xc.emit(p, e.Args[0]); err != nil {
		return cval{}, err
	}
	sub := &kernel.Expr{Kind: kernel.ExprAdd, Args: e.Args[1:]} // for its operands
	a, b, _, err := xc.operands(p, sub, true)
	p.ops = append(p.ops, xop{kind: kernel.ExprCond})
	return cval{a.t, a.r.union(b.r)}, err
}

func (xc *xcompiler) call(p *xprog, e *kernel.Expr) (cval, error) {
	fn := map[string]int32{"min": callMin, "max": callMax, "abs": callAbs}
	f, ok := fn[e.Name]
	if !ok || (f == callAbs) != (len(e.Args) == 1) || len(e.Args) > 2 {
		return cval{}, exprError(e, "%s is not an integer function; hint: integer expressions may call min(a, b), max(a, b) and abs(a)", e)
	}
	o := xop{kind: kernel.ExprCall, arg: f}
	if f == callAbs {
		a, err := xc.emit(p, e.Args[0])
		a = xc.convert(p, a, a.t.Promoted())
		p.ops = append(p.ops, o)
		if a.r.lo >= 0 {
			return a, err
		}
		return cval{a.t, crange{0, absBound(a.r)}}, err
	}
	a, b, end, err := xc.operands(p, e, true)
	if err != nil {
		return cval{}, err
	}
	r := crange{min(a.r.lo, b.r.lo), min(a.r.hi, b.r.hi)}
	if f == callMax {
		r = crange{max(a.r.lo, b.r.lo), max(a.r.hi, b.r.hi)}
	}
	if a.t == kernel.ULong && (a.r.lo < 0 || b.r.lo < 0) {
		flipOperands(p, end) // signed min or max of the flipped, flipped back
		p.ops = append(p.ops, o)
		p.ops = append(p.ops, flip...)
		p.typed++
		return cval{a.t, full}, nil
	}
	p.ops = append(p.ops, o)
	return cval{a.t, r}, nil
}

// special emits a read of threadIdx, blockIdx, blockDim or gridDim, all
// unsigned ints: the indices below their extents, the extents constants.
func (xc *xcompiler) special(p *xprog, s kernel.Special) cval {
	if s >= kernel.BlockDimX {
		v := xc.dims[s-kernel.BlockDimX]
		p.ops = append(p.ops, xop{kind: kernel.ExprConst, val: v})
		return cval{kernel.UInt, crange{v, v}}
	}
	extent := xc.dims[3+int(s)-int(kernel.BlockIdxX)] // gridDim for blockIdx
	if s <= kernel.ThreadIdxZ {
		p.varying = true
		extent = xc.dims[s]
	}
	p.ops = append(p.ops, xop{kind: kernel.ExprSpecial, arg: int32(s)})
	return cval{kernel.UInt, crange{0, max(extent-1, 0)}}
}

// alias is the thread index local i holds wherever it is read, or -1
// where it holds none or t, its type, cannot hold every index of the
// block (a char of a block 512 wide).
func (xc *xcompiler) alias(i int, t kernel.IntType) int32 {
	if i >= len(xc.aliases) || xc.aliases[i] < 0 {
		return -1
	}
	a := xc.aliases[i]
	if last := xc.dims[a] - 1; t.Convert(last) != last {
		return -1
	}
	return a
}

// paramType is the declared type of an integer parameter of the kernel's
// function, or, for a param it does not declare, its value's.
func (xc *xcompiler) paramType(name string, v int64) kernel.IntType {
	if xc.prog != nil {
		for _, a := range xc.prog.Args {
			if a.Name == name && a.Int && a.Array == nil {
				if t := kernel.CIntType(a.Type); t != kernel.NoInt {
					return t
				}
			}
		}
	}
	return kernel.LiteralType("0", v)
}

// local is an int local's type and the values it can hold.
func (xc *xcompiler) local(i int) cval {
	if i < len(xc.locals) {
		return xc.locals[i]
	}
	return cval{kernel.Long, full}
}

// element is the type and range of an index array's element read by
// reference id: its element type's, which its contents fit (fits).
func (xc *xcompiler) element(id int) cval {
	if xc.prog != nil && id >= 0 && id < len(xc.prog.Refs) {
		if a := xc.prog.Refs[id].Array; a != nil && a.Struct == nil {
			if t := a.Type.IntType(); t != kernel.NoInt {
				lo, hi := typeRange(a.Type)
				return cval{t, crange{lo, hi}}
			}
		}
	}
	return cval{kernel.Long, full}
}
