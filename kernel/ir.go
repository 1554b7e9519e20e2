package kernel

import (
	"fmt"
	"strings"

	"gpumemsim/internal/truth"
)

// ElemType is the element type of an array.
type ElemType uint8

// Element types.
const (
	I8 ElemType = iota + 1
	U8
	I16
	U16
	I32
	U32
	F32
	I64
	U64
	F64
)

var elemTypes = [...]struct {
	name string
	size int
}{
	I8: {"i8", 1}, U8: {"u8", 1}, I16: {"i16", 2}, U16: {"u16", 2},
	I32: {"i32", 4}, U32: {"u32", 4}, F32: {"f32", 4},
	I64: {"i64", 8}, U64: {"u64", 8}, F64: {"f64", 8},
}

// Size is the element size in bytes.
func (t ElemType) Size() int {
	if int(t) >= len(elemTypes) {
		return 0
	}
	return elemTypes[t].size
}

func (t ElemType) String() string {
	if t == 0 || int(t) >= len(elemTypes) {
		return fmt.Sprintf("ElemType(%d)", uint8(t))
	}
	return elemTypes[t].name
}

// ParseElemType reads a type name such as "f32".
func ParseElemType(s string) (ElemType, error) {
	for t := I8; t <= F64; t++ {
		if elemTypes[t].name == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown element type %q; want one of i8 u8 i16 u16 i32 u32 f32 i64 u64 f64", s)
}

// Layout is how a multi-dimensional array is laid out in memory.
type Layout uint8

// Layouts.
const (
	RowMajor Layout = iota // last index contiguous (C order)
	ColMajor               // first index contiguous (Fortran order)
)

func (l Layout) String() string {
	if l == ColMajor {
		return "col-major"
	}
	return "row-major"
}

// Space is the memory space an array lives in.
type Space uint8

// Memory spaces: global memory, the shared memory of a block
// (__shared__ arrays of per-thread kernels), constant memory (read
// through each SM's constant cache; see space.go), texture memory
// (fetches through each SM's texture cache) and global memory read
// through the read-only data cache of compute capability 3.5 and later
// (LDG: __ldg, or a load through a const __restrict__ pointer; the
// texture cache's hardware, PG-3x and PG-5x).
const (
	SpaceGlobal Space = iota
	SpaceShared
	SpaceConstant
	SpaceTexture
	SpaceReadOnly
)

func (s Space) String() string {
	switch s {
	case SpaceShared:
		return "shared"
	case SpaceConstant:
		return "constant"
	case SpaceTexture:
		return "texture"
	case SpaceReadOnly:
		return "readonly"
	}
	return "global"
}

// Array is an array declared in a kernel file.
type Array struct {
	Name string
	// Type is the element type; Struct the structure instead (Type 0).
	Type   ElemType
	Struct *Struct
	// Dims are the extents, expressions of params, outermost first.
	Dims   []*Expr
	Layout Layout
	Space  Space
	// Align is the base alignment in bytes (DefaultAlign unless given;
	// a __shared__ array's is its element size).
	Align int64
	// Base is the fixed base address when HasBase; else traces.Bind
	// places it.
	Base    uint64
	HasBase bool
	// Line and Col locate the declaration in the kernel file.
	Line, Col int
	// Data gives an integer array's contents, which reads of it as an
	// index (V[COL[j]]), a bound or a condition see (nil: none).
	Data *Data
	// Remap is the array's Dymaxion remap (remap.go; nil: none).
	Remap *Remap
}

// ExprKind is the kind of an expression node.
type ExprKind uint8

// Expression kinds. Index terms are ExprConst, ExprParam and ExprLoop;
// CUDA-style kernels add thread- and block-index kinds, and an indirect
// index (V[COL[i]]) is an ExprLoad inside an index.
const (
	ExprConst  ExprKind = iota // integer constant (Val; Name is set for a named one, see below)
	ExprFloat                  // floating-point literal or float parameter (Name; value irrelevant to the trace)
	ExprParam                  // kernel parameter (Name)
	ExprLoop                   // loop variable (Name, Index = loop index)
	ExprScalar                 // register scalar (Name)
	ExprLoad                   // array element read (Index = MemRef ID, Args = subscripts)
	ExprAdd
	ExprSub
	ExprMul
	ExprDiv
	ExprMod
	ExprNeg
	ExprCall // function call (Name, Args)
	// Per-thread kernels add the special registers, comparisons, logic,
	// shifts, bitwise operators and the conditional operator.
	ExprSpecial // threadIdx.x … gridDim.z (Index is a Special)
	ExprLt
	ExprLe
	ExprGt
	ExprGe
	ExprEq
	ExprNe
	ExprAnd // &&
	ExprOr  // ||
	ExprNot // !
	ExprShl
	ExprShr
	ExprBitAnd
	ExprBitOr
	ExprBitXor
	ExprCond // Args[0] ? Args[1] : Args[2]
	ExprCast // (Type) Args[0]: a cast to an integer type
)

// Expr is an expression tree node of the kernel source or of a dims entry.
//
// In a per-thread kernel an ExprConst may carry a Name: a #define
// constant, warpSize (32), true (1) or false (0). Val is its value and
// the expression prints as the name. An ExprFloat there is a float
// literal (Name as written) or a float scalar parameter of the
// __global__ function (Name is the parameter's name).
type Expr struct {
	Kind  ExprKind
	Val   int64
	Name  string
	Index int
	Args  []*Expr
	// Fetch says how an ExprLoad reads its element when it is not
	// written A[i]: tex1Dfetch, tex2D or __ldg (see Fetch).
	Fetch Fetch
	// Field is the field an ExprLoad of a struct array reads (P[i].x).
	Field *Field
	// Type is an ExprCast's type, and an integer literal's when a suffix
	// (u, l) gives it one (NoInt: its value's, LiteralType).
	Type IntType
	// Line and Col locate the node in the kernel file.
	Line, Col int
}

// Logic applies k to a and b as C does on integers where k is a
// comparison (<, <=, >, >=, ==, !=), a logical operator (&&, ||), which
// give 1 or 0, or a bitwise operator (&, |, ^); ok is false for any other
// kind. The #define evaluator and the lane programs (traces) both apply it.
func (k ExprKind) Logic(a, b int64) (v int64, ok bool) {
	switch k {
	case ExprLt:
		return truth.Int(a < b), true
	case ExprLe:
		return truth.Int(a <= b), true
	case ExprGt:
		return truth.Int(a > b), true
	case ExprGe:
		return truth.Int(a >= b), true
	case ExprEq:
		return truth.Int(a == b), true
	case ExprNe:
		return truth.Int(a != b), true
	case ExprAnd:
		return truth.Int(a != 0 && b != 0), true
	case ExprOr:
		return truth.Int(a != 0 || b != 0), true
	case ExprBitAnd:
		return a & b, true
	case ExprBitOr:
		return a | b, true
	case ExprBitXor:
		return a ^ b, true
	}
	return 0, false
}

var binOps = map[ExprKind]string{ExprAdd: "+", ExprSub: "-", ExprMul: "*", ExprDiv: "/", ExprMod: "%",
	ExprLt: "<", ExprLe: "<=", ExprGt: ">", ExprGe: ">=", ExprEq: "==", ExprNe: "!=", ExprAnd: "&&", ExprOr: "||",
	ExprShl: "<<", ExprShr: ">>", ExprBitAnd: "&", ExprBitOr: "|", ExprBitXor: "^"}

func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// Precedences, as in C: a higher one binds tighter.
const (
	precCond = iota + 1
	precOr
	precAnd
	precBitOr
	precBitXor
	precBitAnd
	precEq
	precRel
	precShift
	precAdd
	precMul
	precUnary
	precAtom
)

func prec(k ExprKind) int {
	switch k {
	case ExprCond:
		return precCond
	case ExprOr:
		return precOr
	case ExprAnd:
		return precAnd
	case ExprBitOr:
		return precBitOr
	case ExprBitXor:
		return precBitXor
	case ExprBitAnd:
		return precBitAnd
	case ExprEq, ExprNe:
		return precEq
	case ExprLt, ExprLe, ExprGt, ExprGe:
		return precRel
	case ExprShl, ExprShr:
		return precShift
	case ExprAdd, ExprSub:
		return precAdd
	case ExprMul, ExprDiv, ExprMod:
		return precMul
	case ExprNeg, ExprNot, ExprCast:
		return precUnary
	}
	return precAtom
}

func (e *Expr) write(b *strings.Builder, outer int) {
	p := prec(e.Kind)
	if p < outer {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch e.Kind {
	case ExprConst:
		if e.Name != "" {
			b.WriteString(e.Name)
			break
		}
		fmt.Fprintf(b, "%d%s", e.Val, literalSuffix(e.Type))
	case ExprFloat, ExprParam, ExprLoop, ExprScalar:
		b.WriteString(e.Name)
	case ExprLoad:
		e.writeLoad(b)
	case ExprSpecial:
		b.WriteString(Special(e.Index).String())
	case ExprNeg, ExprNot:
		op := byte('-')
		if e.Kind == ExprNot {
			op = '!'
		}
		b.WriteByte(op)
		o := precUnary
		if e.Args[0].Kind == e.Kind && e.Kind == ExprNeg {
			o = precAtom // -(-a): "--a" would read as a decrement
		}
		e.Args[0].write(b, o)
	case ExprCast:
		b.WriteString("(" + e.Type.String() + ")")
		e.Args[0].write(b, precUnary)
	case ExprCond:
		e.Args[0].write(b, precCond+1)
		b.WriteString(" ? ")
		e.Args[1].write(b, precCond)
		b.WriteString(" : ")
		e.Args[2].write(b, precCond)
	case ExprCall:
		b.WriteString(e.Name)
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b, 0)
		}
		b.WriteByte(')')
	default:
		e.Args[0].write(b, p)
		b.WriteString(" " + binOps[e.Kind] + " ")
		e.Args[1].write(b, p+1)
	}
}

// Node is an element of a body: a *Loop or a *Stmt; per-thread kernels
// add *If, *While, *Barrier and *Return.
type Node interface {
	Pos() (line, col int)
}

// Loop is a for loop: Var runs from Lower while Var < Upper, by Step.
type Loop struct {
	Var string
	// Index is the loop's position in Program.Loops (source order).
	Index int
	// Depth is the nesting depth, 0 for outermost loops.
	Depth  int
	Parent *Loop
	// Lower and Upper (exclusive; "<=" is stored as "< e+1") are affine in
	// params and outer loop variables; Step is an expression of params.
	Lower, Upper, Step *Expr
	Body               []Node
	Line, Col          int
}

// Pos returns the position of the for keyword.
func (l *Loop) Pos() (int, int) { return l.Line, l.Col }

// Stmt is one statement: an array statement (Store set) or a scalar
// declaration or assignment.
type Stmt struct {
	Index int
	// Loads are the array reads in execution order (left to right; for
	// X[..] op= e the read of X comes first).
	Loads []*MemRef
	// Store is the array write, nil for scalar statements.
	Store *MemRef
	// Scalar is the register assigned by a scalar statement; Decl says
	// the statement declares it (float acc = 0;). In a per-thread kernel
	// Local is that variable (nil for array statements).
	Scalar string
	Decl   bool
	Local  *Local
	// Assign is the assignment operator, "=" or one of "+=", "-=", "*=",
	// "/=", "%=" ("" for a declaration without a value); per-thread
	// kernels add "<<=", ">>=", "&=", "|=", "^=", and x++ and x-- are
	// "+=" and "-=" with Value the constant 1.
	Assign string
	// Value is the right-hand side (nil for a declaration without one).
	Value *Expr
	// Compute is the number of non-memory instructions (see the package
	// doc for the rule).
	Compute   int
	Text      string
	Line, Col int
}

// Pos returns the position of the statement's first token.
func (s *Stmt) Pos() (int, int) { return s.Line, s.Col }

// MemRef is one array reference of the source.
type MemRef struct {
	ID    int
	Array *Array
	// Index are the subscripts, affine in loop variables and params. In a
	// per-thread kernel they are integer expressions of special
	// registers, int locals, params and constants: one per dimension of
	// the array, or a single one, the element's offset from the base in
	// elements whatever the array's rank (C pointer arithmetic).
	Index []*Expr
	// Store says the reference writes the element; else it reads it.
	Store bool
	// Fetch says how the read is written when not as A[i]: tex1Dfetch,
	// tex2D (Index is then [y, x], the element A[y][x]) or __ldg.
	Fetch Fetch
	// Field is the field of a struct array's element the reference
	// reads or writes (P[i].x); nil for an array of scalars.
	Field     *Field
	Text      string
	Line, Col int
}

// Width is the bytes the reference reads or writes per thread: its
// field's size, or the element's.
func (r *MemRef) Width() int64 {
	if r.Field != nil {
		return int64(r.Field.Type.Size())
	}
	return r.Array.ElemSize()
}

// element writes the element the reference names, A[i][j] or P[i].x,
// without a fetch's call.
func (r *MemRef) element() string {
	var t strings.Builder
	t.WriteString(r.Array.Name)
	for _, ix := range r.Index {
		t.WriteString("[" + ix.String() + "]")
	}
	if r.Field != nil {
		t.WriteString("." + r.Field.Name)
	}
	return t.String()
}

// Program is the per-thread program of a kernel: a loop nest with
// statements before mapping (Form LoopNest), or the body of a CUDA-style
// __global__ function (Form PerThread).
type Program struct {
	Form Form
	Body []Node
	// Loops lists every loop in source order.
	Loops []*Loop
	// Refs lists every memory reference in execution order within each
	// statement, statements in source order.
	Refs  []*MemRef
	Stmts []*Stmt
	// Per-thread kernels only: the function's name, its parameters in
	// order, its local variables in declaration order (ExprScalar.Index
	// indexes them), its __shared__ arrays in declaration order, the
	// source's #define constants in order and its __constant__
	// declarations in order.
	Func      string
	Args      []*Arg
	Locals    []*Local
	Shared    []*Array
	Defines   []*Define
	Constants []*ConstantDecl
}

// Loop returns the loop with variable name v, or nil.
func (p *Program) Loop(v string) *Loop {
	for _, l := range p.Loops {
		if l.Var == v {
			return l
		}
	}
	return nil
}
