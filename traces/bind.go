package traces

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
)

// DefaultBase is the address Bind places the first array at, when the
// kernel file gives it no base.
const DefaultBase uint64 = 0x10000000

// Linear is an affine form over the loop variables of a launch:
// Const + Σ Coef[v]·(value of Launch.Loops[v]). Coef has one entry per
// loop.
type Linear struct {
	Const int64
	Coef  []int64
}

// Eval evaluates the form at the given loop values (one per loop).
func (f Linear) Eval(vals []int64) int64 {
	s := f.Const
	for v, c := range f.Coef {
		s += c * vals[v]
	}
	return s
}

func (f Linear) isConst() bool {
	for _, c := range f.Coef {
		if c != 0 {
			return false
		}
	}
	return true
}

// BoundArray is an array with its extents evaluated and its place in
// memory.
type BoundArray struct {
	Name string
	// Type is the element type; Struct, for one group of a struct
	// array's fields (structs.go), the group's structure instead.
	Type   kernel.ElemType
	Struct *kernel.Struct
	Dims   []int64
	Layout kernel.Layout
	Space  kernel.Space
	Base   uint64
	// Size is the array's size in bytes.
	Size int64
	// BlockLinear says the array is a cudaArray that tex2D reads, laid
	// out block-linear (blocklinear.go); Size counts its padding.
	BlockLinear bool
	// Remap is the array's Dymaxion remap (remap.go): Dims stay the
	// original index space (a gathered array's are its index array's),
	// and Size counts the remapped slots.
	Remap kernel.RemapKind
	// Tile is a tile remap's tile height and width.
	Tile [2]int64
}

// BoundLoop is a loop of the program with params substituted.
type BoundLoop struct {
	Var string
	// Mapped loops run across threads: the variable of the thread with
	// global coordinate g on Axis is Lower.Const + g·Step.
	Mapped bool
	Axis   kernel.Axis
	// Extent is the number of iterations of a mapped loop.
	Extent int64
	// Lower and Upper (exclusive) are affine in outer loop variables.
	Lower, Upper Linear
	Step         int64
	// Divergent says lanes of one warp may disagree on the loop's bounds
	// (they depend on a thread-mapped variable), so lanes drop out at
	// their own bound.
	Divergent bool
}

// Ref is a memory reference of a launch, the target of WarpInst.Ref.
type Ref struct {
	ID        int
	Array     string
	Line, Col int
	Op        Op
	// Width is the bytes per lane: the element's, or the field's of a
	// struct array's reference, which lies Offset bytes into an element
	// of ElemSize bytes (Width and 0 for arrays of scalars).
	Width    int
	ElemSize int
	Offset   int
	// Text is the reference as written, e.g. "A[i1][i3]".
	Text string
	// Addr is the byte address, base included, as an affine form of the
	// loop variables (loop nests only).
	Addr Linear
	// Space is the reference's memory space: its array's, or readonly
	// for a global load through the read-only data cache (refSpace); a
	// shared reference's addresses are offsets in its block's shared
	// memory.
	Space kernel.Space
	// Unissued marks a read the kernel as bound does not make: a
	// gather's index read (COL[e] of V[COL[e]]), made by the remap before
	// the kernel. The simulator counts it as 0 requests, and the static
	// models leave it out, as they leave out shared memory.
	Unissued bool
}

// Modelled says the static models read reference r: one the kernel makes
// outside shared memory (not Unissued).
func (r *Ref) Modelled() bool { return r.Space != kernel.SpaceShared && !r.Unissued }

// Launch is a kernel bound to a mapping, a block shape and parameter
// values: everything needed to generate its warp instructions.
type Launch struct {
	Kernel  *kernel.Kernel
	Mapping kernel.Mapping
	Block   arch.Dim3
	// Params are the values in effect, in declaration order.
	Params []kernel.Param
	Arrays []BoundArray
	Loops  []BoundLoop
	Refs   []Ref
	Regs   int
	// Smem is the shared memory per block: the file's smem plus the
	// __shared__ arrays (SharedArrays), which Shared places.
	Smem         arch.Bytes
	SharedArrays arch.Bytes
	Shared       []BoundArray
	Dependent    bool
	// Set are the params that the kernel file's launches gave this
	// launch of a sequence, in their entry's order (BindSequence).
	Set []kernel.Param
	// RemapOf names the array a remap launch remaps (RemapLaunches); ""
	// for a launch of the kernel file.
	RemapOf string
	// pt is the compiled program of a per-thread kernel (nil for a loop
	// nest, whose program is code).
	pt *threadProg
	// matrix is the kernel's sparse matrix and contents its arrays'
	// contents, by name (contents.go).
	matrix   *indexdata.CSR
	contents map[string]indexdata.Contents

	grid    arch.Dim3
	extent  [3]int64 // per axis: iterations of the mapped loop, 1 if none
	mapLoop [3]int   // per axis: mapped loop index, -1 if none
	refs    []refGen
	bounds  []loopGen
	code    []pcode
	// laneTab holds, for warp w of a block and reference r at
	// [w·len(refs)+r], each lane's address offset from its thread
	// coordinates within the block (see laneOffsets); a warp adds one
	// scalar per reference for the block and the loop values. It is nil
	// for blocks too large to tabulate.
	laneTab [][WarpSize]uint64
	// laneStride is, per entry of laneTab, the stride of its half-warps
	// when it has the shape Halves describes (see halvesStride).
	laneStride []laneShape
	// warpMask is, per warp of a block, the lanes below the block's
	// thread count.
	warpMask []uint32
	// steps are, per uniform loop (loopGen.deps order), each dependent
	// reference's offset change per iteration, coef·step.
	steps []refStep
	// divergent says some loop is divergent: cursors then keep per-lane
	// values of the mapped loops.
	divergent bool
	// runs says, per loop, whether it may run at all, and trips bounds
	// its iterations per entry (exact for constant bounds; see range.go).
	runs  []bool
	trips []int64
	// varTrips says some in-thread loop that may run has bounds that vary
	// (with the thread or an outer loop): trips is then only an upper
	// bound of its iterations.
	varTrips bool
}

// Bind binds a kernel to a mapping (nil: the kernel's), a block shape
// (zero: the kernel's) and parameter overrides (nil: the defaults). With a
// device, it checks that the device can run the block. An error in what
// the kernel file gives (its block, regs, smem, dims, loop bounds,
// subscripts) names the file, line and column; one in what the caller
// gives names the kernel.
func Bind(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, params map[string]int64, dev *arch.Device) (*Launch, error) {
	return BindGrid(k, m, block, arch.Dim3{}, params, dev)
}

// BindGrid is Bind with a grid (zero: the kernel file's) for a per-thread
// kernel; a loop nest derives its grid from its mapped loops and refuses
// one. A kernel file that describes a sequence of launches is refused
// (ErrSequence): BindSequence binds it.
func BindGrid(k *kernel.Kernel, m kernel.Mapping, block, grid arch.Dim3, params map[string]int64, dev *arch.Device) (*Launch, error) {
	if len(k.Launches) > 0 {
		return nil, fmt.Errorf("%s: %w", k.Name, ErrSequence)
	}
	l, err := bindOne(k, m, block, grid, params, dev)
	if err != nil {
		return nil, named(k, err)
	}
	return l, nil
}

// bindOne binds one launch of k.
func bindOne(k *kernel.Kernel, m kernel.Mapping, block, grid arch.Dim3, params map[string]int64, dev *arch.Device) (*Launch, error) {
	switch {
	case k.Program.Form == kernel.PerThread:
		return bindThreads(k, m, block, grid, params, dev, nil)
	case grid != (arch.Dim3{}):
		return nil, errors.New("a loop nest's grid follows from its mapped loops and the block; hint: leave out -grid, or write the kernel as a __global__ function")
	}
	return bind(k, m, block, params, dev)
}

// named names the kernel file in a positioned error, else the kernel.
func named(k *kernel.Kernel, err error) error {
	var pe *arch.PosError
	if errors.As(err, &pe) {
		return inFile(k.File, err)
	}
	return fmt.Errorf("%s: %w", k.Name, err)
}

func bind(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, params map[string]int64, dev *arch.Device) (*Launch, error) {
	if m == nil {
		m = k.Mapping
	}
	var blockAt kernel.Pos // where the file gives the block, when it is the file's
	if block == (arch.Dim3{}) {
		block, blockAt = k.Block, k.Where.Block
	}
	l := &Launch{Kernel: k, Mapping: m, Block: block, Regs: k.Regs, Smem: k.Smem, Dependent: k.Dependent}
	if err := l.bindParams(params); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, at(k.Where.Top, noMapping(k))
	}
	if err := m.Check(k.Program); err != nil {
		return nil, err
	}
	if err := checkBlock(block, dev); err != nil {
		return nil, at(blockAt, fmt.Errorf("block %s: %w", block, err))
	}
	if err := checkResources(k, smemUse{k.Smem, k.Where.Smem, ""}, block, dev); err != nil {
		return nil, err
	}
	env := l.ParamValues()
	if err := l.placeArrays(env); err != nil {
		return nil, err
	}
	if err := l.bindLoops(env, blockAt); err != nil {
		return nil, err
	}
	if err := l.bindRefs(env, dev); err != nil {
		return nil, err
	}
	l.compile()
	return l, nil
}

// at places err at p of the kernel file (Bind names the file); a zero p
// leaves it unplaced.
func at(p kernel.Pos, err error) error {
	if p.Line == 0 {
		return err
	}
	return &arch.PosError{Line: p.Line, Column: p.Col, Err: err}
}

// within puts context before the message of err, inside its position.
func within(context string, err error) error {
	var pe *arch.PosError
	if errors.As(err, &pe) {
		c := *pe
		c.Err = fmt.Errorf("%s: %w", context, pe.Err)
		return &c
	}
	return fmt.Errorf("%s: %w", context, err)
}

// noMapping explains why a kernel without a mapping is refused: it
// would run as a single thread, which is never what a loop nest on a GPU
// means.
func noMapping(k *kernel.Kernel) error {
	if len(k.Program.Loops) == 0 {
		return fmt.Errorf("kernel %s has no loop to map to threads, so it would run as one thread; hint: write the work as a loop nest and map a loop with mapping: {LOOP: tx}", k.Name)
	}
	v := k.Program.Loops[0].Var
	names := make([]string, len(k.Program.Loops))
	for i, lp := range k.Program.Loops {
		names[i] = lp.Var
	}
	return fmt.Errorf("kernel %s maps no loop to threads, so it would run as one thread; hint: add mapping: {%s: tx} to the kernel file, or pass -map %s=tx (the loops are %s)",
		k.Name, v, v, strings.Join(names, ", "))
}

func (l *Launch) bindParams(over map[string]int64) error {
	k := l.Kernel
	l.Params = slices.Clone(k.Params)
	var unknown []string
	for name := range over {
		if !slices.ContainsFunc(k.Params, func(p kernel.Param) bool { return p.Name == name }) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		var names []string
		for _, p := range k.Params {
			names = append(names, p.Name)
		}
		return fmt.Errorf("unknown param %s (the params are %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	for i, p := range l.Params {
		if v, ok := over[p.Name]; ok {
			l.Params[i].Value = v
		}
	}
	return nil
}

// ParamText writes the launch's params as K=V,... in declaration order.
func (l *Launch) ParamText() string { return kernel.ParamsText(l.Params, ",") }

// ParamValues are the launch's params by name, as Bind takes them and
// expressions read them.
func (l *Launch) ParamValues() map[string]int64 { return with(nil, l.Params...) }

// maxBound bounds the magnitude of loop bounds and steps: a cursor steps a
// loop variable by its step and compares it with the upper bound, so both
// stay far from where 64-bit arithmetic wraps.
const maxBound = 1 << 60

// bindLoops substitutes the params in the loop bounds, finds the extents
// of the mapped loops and the grid, and marks the divergent loops.
func (l *Launch) bindLoops(env map[string]int64, blockAt kernel.Pos) error {
	l.mapLoop = [3]int{-1, -1, -1}
	l.extent = [3]int64{1, 1, 1}
	for _, lp := range l.Kernel.Program.Loops {
		bl, err := l.boundLoop(lp, env)
		if err != nil {
			return within("loop "+lp.Var, err)
		}
		if bl.Mapped {
			l.mapLoop[bl.Axis] = lp.Index
			l.extent[bl.Axis] = bl.Extent
		}
		l.Loops = append(l.Loops, bl)
		l.bounds = append(l.bounds, loopGen{lower: terms(bl.Lower), upper: terms(bl.Upper),
			lo: bl.Lower.Const, up: bl.Upper.Const, step: bl.Step, divergent: bl.Divergent})
		if err := l.checkLoopRange(lp); err != nil {
			return err
		}
	}
	b := l.Block
	var g [3]int64
	for ax, bd := range [3]int{b.X, b.Y, b.Z} {
		g[ax] = (l.extent[ax]-1)/int64(bd) + 1 // extents are at least 1
	}
	// Each factor is checked before it multiplies, so no product
	// overflows.
	if g[0] > math.MaxInt32 || g[1] > math.MaxInt32 || g[2] > math.MaxInt32 ||
		g[0]*g[1] > math.MaxInt32 || g[0]*g[1]*g[2] > math.MaxInt32 {
		return at(blockAt, fmt.Errorf("block %s: grid %dx%dx%d has more than %d blocks; hint: use a larger block or smaller params", b, g[0], g[1], g[2], math.MaxInt32))
	}
	l.grid = arch.Dim3{X: int(g[0]), Y: int(g[1]), Z: int(g[2])}
	return nil
}

// boundLoop substitutes the params in the bounds of loop lp.
func (l *Launch) boundLoop(lp *kernel.Loop, env map[string]int64) (BoundLoop, error) {
	n := len(l.Kernel.Program.Loops)
	bl := BoundLoop{Var: lp.Var}
	var err error
	if bl.Lower, err = linear(lp.Lower, env, n); err != nil {
		return bl, within("lower bound", err)
	}
	if bl.Upper, err = linear(lp.Upper, env, n); err != nil {
		return bl, within("upper bound", err)
	}
	if bl.Step, err = eval(lp.Step, env); err != nil {
		return bl, within("step", err)
	}
	if bl.Step <= 0 || bl.Step > maxBound {
		return bl, exprError(lp.Step, "step %s; it must be positive and at most 2^60; hint: check the params", valueText(lp.Step, bl.Step))
	}
	ax, ok := l.Mapping.Axis(lp.Var)
	if !ok {
		for _, f := range []Linear{bl.Lower, bl.Upper} {
			for v, c := range f.Coef {
				if c != 0 && (l.Loops[v].Mapped || l.Loops[v].Divergent) {
					bl.Divergent = true
				}
			}
		}
		return bl, nil
	}
	bl.Mapped, bl.Axis = true, ax
	lo, up := bl.Lower.Const, bl.Upper.Const
	if lo < -maxBound || up > maxBound {
		return bl, at(kernel.Pos{Line: lp.Line, Col: lp.Col}, fmt.Errorf("bounds %d to %d beyond ±2^60", lo, up))
	}
	if up <= lo {
		return bl, at(kernel.Pos{Line: lp.Line, Col: lp.Col}, fmt.Errorf("mapped to %s but has no iterations (from %s to %s); hint: a loop that runs across threads needs at least one iteration; check the params",
			ax, valueText(lp.Lower, lo), valueText(lp.Upper, up)))
	}
	bl.Extent = (up-lo-1)/bl.Step + 1
	return bl, nil
}

// bindRefs turns each reference's subscripts into a byte address, after
// checking that every subscript stays inside its dimension, and gives it
// its space on dev (nil: no device).
func (l *Launch) bindRefs(env map[string]int64, dev *arch.Device) error {
	n := len(l.Loops)
	in := innermost(l.Kernel.Program)
	for _, r := range l.Kernel.Program.Refs {
		ba, offset := l.refArray(r, r.Array.Space)
		width, elem := r.Width(), ba.ElemSize()
		addr := Linear{Const: int64(ba.Base) + offset, Coef: make([]int64, n)}
		for d, ix := range r.Index {
			f, err := linear(ix, env, n)
			if err != nil {
				return within(r.Text, err)
			}
			if err := l.checkSubscript(r, d, f, ba, in[r]); err != nil {
				return err
			}
			// Wrapping arithmetic: the address of every element the
			// reference touches lies inside its array, so the sum is
			// exact modulo 2^64.
			stride := elem * elemStride(ba, d)
			addr.Const += stride * f.Const
			for v, c := range f.Coef {
				addr.Coef[v] += stride * c
			}
		}
		sp, err := refSpace(l.Kernel, r, ba.Space, dev)
		if err != nil {
			return err
		}
		l.Refs = append(l.Refs, Ref{ID: r.ID, Array: ba.Name, Space: sp, Line: r.Line, Col: r.Col, Op: opOf(r),
			Width: int(width), ElemSize: int(elem), Offset: int(offset), Text: r.Text, Addr: addr})
		g := refGen{konst: addr.Const, width: uint8(width)}
		for _, t := range terms(addr) {
			switch {
			case l.Loops[t.loop].Mapped:
				g.mapped = append(g.mapped, t)
			case l.Loops[t.loop].Divergent:
				g.divergent = append(g.divergent, t)
			default:
				g.uniform = append(g.uniform, t)
			}
		}
		l.refs = append(l.refs, g)
	}
	return nil
}

// elemStride is the number of elements between consecutive values of
// subscript d of array a.
func elemStride(a *BoundArray, d int) int64 {
	stride := int64(1)
	dims := a.Dims[d+1:]
	if a.Layout == kernel.ColMajor {
		dims = a.Dims[:d]
	}
	for _, e := range dims {
		stride *= e
	}
	return stride
}

// Grid is the number of blocks along each axis: ceil(extent/block) for
// mapped axes, 1 for the others.
func (l *Launch) Grid() arch.Dim3 { return l.grid }

// Blocks is the number of blocks of the grid.
func (l *Launch) Blocks() int { return l.grid.Threads() }

// WarpsPerBlock is ceil(block threads / 32).
func (l *Launch) WarpsPerBlock() int { return (l.Block.Threads() + WarpSize - 1) / WarpSize }

// WarpSize is the number of lanes of a warp instruction.
const WarpSize = 32
