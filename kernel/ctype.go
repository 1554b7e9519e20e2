package kernel

import (
	"math"
	"strings"
)

// IntType is the C type of an integer value of a per-thread kernel:
// what its operators, comparisons and conversions follow (C11 6.3.1).
// Every value is held in 64 bits, in the form its type gives it: a
// 32-bit int sign-extended, an unsigned int zero-extended, a bool 0 or
// 1; unsigned long's bits as they are.
type IntType uint8

// Integer types; NoInt is an expression of no C type (a loop nest's).
const (
	NoInt IntType = iota
	Bool
	Char
	UChar
	Short
	UShort
	Int
	UInt
	Long // long and long long: 64 bits, as in CUDA on a 64-bit host
	ULong
)

var intTypes = [...]struct {
	name     string
	bits     uint8
	unsigned bool
}{
	Bool: {"bool", 1, true}, Char: {"char", 8, false}, UChar: {"unsigned char", 8, true},
	Short: {"short", 16, false}, UShort: {"unsigned short", 16, true},
	Int: {"int", 32, false}, UInt: {"unsigned int", 32, true},
	Long: {"long", 64, false}, ULong: {"unsigned long", 64, true},
}

func (t IntType) String() string {
	if t == NoInt || int(t) >= len(intTypes) {
		return "no C type"
	}
	return intTypes[t].name
}

// Bits is the width of t's values (1 for bool).
func (t IntType) Bits() int { return int(intTypes[t].bits) }

// Unsigned says t's values are never negative.
func (t IntType) Unsigned() bool { return intTypes[t].unsigned }

// Promoted is t after C's integer promotions: the types narrower than
// int are int.
func (t IntType) Promoted() IntType {
	if t < Int {
		return Int
	}
	return t
}

// Common is the type C's usual arithmetic conversions give the operands
// of a binary operator (C11 6.3.1.8): the wider after promotion, or of
// one width the unsigned one.
func Common(a, b IntType) IntType {
	a, b = a.Promoted(), b.Promoted()
	switch {
	case a == b:
		return a
	case a.Bits() != b.Bits():
		// long holds every unsigned int, so it wins as the wider.
		if a.Bits() > b.Bits() {
			return a
		}
		return b
	case a.Unsigned():
		return a
	}
	return b
}

// Range is the least and greatest value of t, as its 64-bit form holds
// them; unsigned long's are those of long, its bits as they are.
func (t IntType) Range() (lo, hi int64) {
	switch t {
	case Bool:
		return 0, 1
	case Long, ULong:
		return math.MinInt64, math.MaxInt64
	}
	n := t.Bits()
	if t.Unsigned() {
		return 0, 1<<n - 1
	}
	return -1 << (n - 1), 1<<(n-1) - 1
}

// Convert is v converted to t (C11 6.3.1.2, 6.3.1.3; a signed type
// wraps as the two's-complement hardware does): its 64-bit form.
func (t IntType) Convert(v int64) int64 {
	switch t {
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	case Long, ULong, NoInt:
		return v
	}
	n := 64 - t.Bits()
	if t.Unsigned() {
		return int64(uint64(v) << n >> n)
	}
	return v << n >> n
}

// CIntType is the integer type of a normalised C type name ("unsigned
// int", "const short"); NoInt for a float type or none.
func CIntType(name string) IntType {
	name = strings.TrimPrefix(name, "const ")
	switch name {
	case "long long":
		return Long
	case "unsigned long long", "size_t":
		return ULong
	}
	for t := Bool; t <= ULong; t++ {
		if intTypes[t].name == name {
			return t
		}
	}
	return NoInt
}

// LiteralType is the type of an integer literal as written (C11
// 6.4.4.1): the first of its list that holds v, int, long for a decimal
// without a suffix; a hexadecimal or octal one may also be unsigned; u
// makes it unsigned, l at least long.
func LiteralType(text string, v int64) IntType {
	digits := strings.TrimRight(text, "uUlL")
	suffix := strings.ToLower(text[len(digits):])
	hexOrOctal := len(digits) > 1 && digits[0] == '0' // C11 treats both alike
	unsigned := strings.Contains(suffix, "u")
	long := strings.Contains(suffix, "l")
	switch {
	case !long && !unsigned && v >= math.MinInt32 && v <= math.MaxInt32:
		return Int
	case !long && (unsigned || hexOrOctal) && v <= math.MaxUint32:
		return UInt
	case unsigned:
		return ULong
	}
	return Long // a literal past long's range is refused by the lexer
}

// ConstType is the type of an integer constant: its literal's or
// #define's (Expr.Type), or that of a decimal of its value (warpSize,
// true, false, a literal without a suffix).
func ConstType(e *Expr) IntType {
	if e.Type != NoInt {
		return e.Type
	}
	return LiteralType("0", e.Val)
}

// IntType is the C integer type of an element type (NoInt for a float).
func (t ElemType) IntType() IntType {
	switch t {
	case I8:
		return Char
	case U8:
		return UChar
	case I16:
		return Short
	case U16:
		return UShort
	case I32:
		return Int
	case U32:
		return UInt
	case I64:
		return Long
	case U64:
		return ULong
	}
	return NoInt
}

// literalSuffix is the suffix that gives a literal type t, as written.
func literalSuffix(t IntType) string {
	switch t {
	case UInt:
		return "u"
	case Long:
		return "l"
	case ULong:
		return "ul"
	}
	return ""
}

// suffixType is the type a literal's suffix or base gives it where its
// value alone would give another (what Expr.Type keeps), else NoInt.
func suffixType(text string, v int64) IntType {
	if t := LiteralType(text, v); t != LiteralType("0", v) {
		return t
	}
	return NoInt
}

// constTyped is the value and C type of an integer constant expression
// (a #define's), as the kernel's expressions compute it (traces' lane
// programs): C's types and conversions, and a signed overflow, which C
// leaves undefined, keeping its 64-bit value. ok is false where there is
// none: a division by zero, a shift past the width, an overflow of 64
// bits.
func constTyped(e *Expr) (v int64, t IntType, ok bool) {
	switch e.Kind {
	case ExprConst:
		return e.Val, ConstType(e), true
	case ExprCast:
		v, _, ok = constTyped(e.Args[0])
		return e.Type.Convert(v), e.Type, ok
	}
	args := make([]int64, len(e.Args))
	types := make([]IntType, len(e.Args))
	ok = true
	for i, a := range e.Args {
		var ok1 bool
		args[i], types[i], ok1 = constTyped(a)
		ok = ok && ok1
	}
	switch {
	case !ok:
		return 0, NoInt, false
	case e.Kind == ExprCond:
		t = Common(types[1], types[2])
		if args[0] == 0 {
			return t.Convert(args[2]), t, true
		}
		return t.Convert(args[1]), t, true
	case len(args) == 1: // -, !, abs
		t = types[0].Promoted()
		v, ok = constOp(e, []int64{t.Convert(args[0])})
		if e.Kind == ExprNot {
			return v, Int, ok
		}
		return wrapped(v, t, ok)
	case e.Kind == ExprShl || e.Kind == ExprShr:
		t = types[0].Promoted()
		return constShift(e.Kind, t.Convert(args[0]), args[1], t)
	case e.Kind == ExprAnd || e.Kind == ExprOr:
		v, ok = constOp(e, args)
		return v, Int, ok
	}
	t = Common(types[0], types[1])
	return constBinary(e, t.Convert(args[0]), t.Convert(args[1]), t)
}

// constBinary applies a binary operator or min, max to a and b of their
// common type t.
func constBinary(e *Expr, a, b int64, t IntType) (int64, IntType, bool) {
	k := e.Kind
	if t == ULong { // unsigned: comparisons with the sign bits flipped
		switch k {
		case ExprLt, ExprLe, ExprGt, ExprGe:
			v, ok := constOp(e, []int64{a ^ math.MinInt64, b ^ math.MinInt64})
			return v, Int, ok
		case ExprCall:
			v, ok := constOp(e, []int64{a ^ math.MinInt64, b ^ math.MinInt64})
			return v ^ math.MinInt64, t, ok
		case ExprDiv, ExprMod:
			if b == 0 {
				return 0, t, false
			}
			if k == ExprDiv {
				return int64(uint64(a) / uint64(b)), t, true
			}
			return int64(uint64(a) % uint64(b)), t, true
		}
	}
	v, ok := constOp(e, []int64{a, b})
	switch k {
	case ExprLt, ExprLe, ExprGt, ExprGe, ExprEq, ExprNe:
		return v, Int, ok
	case ExprDiv, ExprMod:
		return v, t, ok
	}
	return wrapped(v, t, ok)
}

// wrapped is the result v of + - * & | ^ min max or unary - in type t:
// an unsigned type's wraps, from the low bits a 64-bit overflow keeps;
// a signed one's keeps its 64 bits, or has no value past them.
func wrapped(v int64, t IntType, ok bool) (int64, IntType, bool) {
	if t.Unsigned() {
		return t.Convert(v), t, true
	}
	return v, t, ok
}

// constShift shifts a, of its promoted type t, by b within t's width: a
// signed int shifted left gives its unsigned bits (C++14).
func constShift(k ExprKind, a, b int64, t IntType) (int64, IntType, bool) {
	switch {
	case b < 0 || b >= int64(t.Bits()):
		return 0, t, false
	case k == ExprShr && t == ULong:
		return int64(uint64(a) >> b), t, true
	case k == ExprShr:
		return a >> b, t, true
	}
	return t.Convert(a << b), t, true
}
