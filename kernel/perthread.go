package kernel

// Form is the source form of a kernel.
type Form uint8

// Source forms.
const (
	// LoopNest is the serial loop nest as the papers print it; a Mapping
	// runs some of its loops across threads.
	LoopNest Form = iota
	// PerThread is a CUDA-style __global__ function: what one thread
	// runs, with threadIdx, blockIdx, blockDim and gridDim.
	PerThread
)

func (f Form) String() string {
	if f == PerThread {
		return "per-thread"
	}
	return "loop-nest"
}

// Special is a special register of a per-thread kernel: the value of an
// ExprSpecial.
type Special uint8

// Special registers, in the order x, y, z of threadIdx, blockIdx,
// blockDim and gridDim: Special/3 is the register, Special%3 the axis.
const (
	ThreadIdxX Special = iota
	ThreadIdxY
	ThreadIdxZ
	BlockIdxX
	BlockIdxY
	BlockIdxZ
	BlockDimX
	BlockDimY
	BlockDimZ
	GridDimX
	GridDimY
	GridDimZ
	numSpecials
)

var specialRegs = [...]string{"threadIdx", "blockIdx", "blockDim", "gridDim"}

func (s Special) String() string {
	if s >= numSpecials {
		return "special?"
	}
	return specialRegs[s/3] + "." + string("xyz"[s%3])
}

// Axis is the dimension (x, y or z) the register reads.
func (s Special) Axis() int { return int(s % 3) }

// LookupSpecial finds a special register by its name, e.g.
// "threadIdx.x".
func LookupSpecial(name string) (Special, bool) {
	for s := range numSpecials {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// Local is a local variable of a per-thread kernel. An int local's value
// is tracked per lane: it may index arrays and steer control flow. A
// float local's value is irrelevant to the trace, so it may do neither.
type Local struct {
	Name string
	Int  bool
	// Type is the C type as declared, normalised ("unsigned int",
	// "const float"), for printing; Int is what matters to the trace.
	Type      string
	Index     int // position in Program.Locals
	Line, Col int
}

// Arg is a parameter of a per-thread kernel's __global__ function. A
// pointer names an array of the kernel file (Array); an integer scalar
// is the param of the same name (it reads as an ExprParam); a float
// scalar reads as an ExprFloat.
type Arg struct {
	Name string
	// Type is the C type as declared, normalised for printing: "int",
	// "float", "const float *", "float *__restrict__".
	Type string
	// Array is the array a pointer parameter is; nil for a scalar.
	Array *Array
	// Const says a pointer parameter points to const data (const float
	// *A): the kernel must not store through it. Restrict says it is
	// declared __restrict__.
	Const, Restrict bool
	// Int says a scalar is of an integer type.
	Int       bool
	Line, Col int
}

// ConstantDecl is a per-thread kernel's file-scope declaration
// __constant__ TYPE NAME[d]...[d]; of an array of the kernel file, which
// puts it in constant memory. The function reads it by its name, as CUDA
// code reads a __constant__ variable, not through a parameter.
type ConstantDecl struct {
	Array *Array
	// Dims are the extents as declared, expressions of constants, params
	// and #defines; traces.Bind checks them against the array's dims.
	Dims      []*Expr
	Line, Col int
}

// Define is a #define line of a per-thread kernel's source: a named
// integer constant. Uses of the name are ExprConst nodes with Name set.
type Define struct {
	Name string
	// Value is the expression as written (of integer literals and
	// earlier defines) and Val its value.
	Value *Expr
	Val   int64
	// Type is Value's C type (a decimal's int, 5u's unsigned int).
	Type      IntType
	Line, Col int
}

// If is an if statement of a per-thread kernel; Else is empty without an
// else. Lanes whose condition holds run Then, the others Else; a warp
// whose lanes disagree runs both, one after the other, each with its
// lanes active (SIMT), and reconverges after the statement.
type If struct {
	Cond *Expr
	// Loads are the array reads of Cond, in order, issued before the
	// branch (if (COL[j] > 0)).
	Loads      []*MemRef
	Then, Else []Node
	// Compute is the instructions of evaluating Cond and branching: 1 per
	// operator and call of Cond and 1 for the branch.
	Compute   int
	Line, Col int
}

// Pos returns the position of the if keyword.
func (n *If) Pos() (int, int) { return n.Line, n.Col }

// While is a loop of a per-thread kernel. for (init; cond; post) body
// becomes the init statement followed by While{Cond, Body, Post};
// while (cond) body has no Post. Each lane leaves the loop when its Cond
// fails; the warp runs the loop while any lane is in it.
type While struct {
	Cond *Expr
	// Loads are the array reads of Cond, in order, issued at each test
	// (j < ROW[i+1] reads ROW once per iteration, as the source says;
	// int end = ROW[i+1]; before the loop reads it once).
	Loads []*MemRef
	// Init is how many of the nodes just before the While in its body
	// are the for's init statements (they run once, before the first
	// test of Cond; a local they declare is visible in the loop only).
	// 0 for a while loop or a for without init.
	Init int
	Body []Node
	// Post runs after each iteration, before Cond is tested again.
	Post []Node
	// Compute is the instructions of each test of Cond: 1 per operator
	// and call of Cond and 1 for the branch (0 when Unroll).
	Compute int
	// Unroll says the loop is fully unrolled (#pragma unroll): no loop
	// control is counted for it, neither Compute nor Post's (the parser
	// sets both to 0), and the references whose innermost loop it is
	// need no address arithmetic (their offsets become immediates).
	Unroll    bool
	Line, Col int
}

// Pos returns the position of the loop's keyword.
func (n *While) Pos() (int, int) { return n.Line, n.Col }

// Barrier is __syncthreads(): a warp waits until every live warp of its
// block has arrived. It is one warp instruction.
type Barrier struct{ Line, Col int }

// Pos returns the position of __syncthreads.
func (n *Barrier) Pos() (int, int) { return n.Line, n.Col }

// Return ends the lanes that reach it; the others go on.
type Return struct{ Line, Col int }

// Pos returns the position of the return keyword.
func (n *Return) Pos() (int, int) { return n.Line, n.Col }
