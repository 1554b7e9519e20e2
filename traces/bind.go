package traces

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"gpumemsim/arch"
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
	Name   string
	Type   kernel.ElemType
	Dims   []int64
	Layout kernel.Layout
	Space  kernel.Space
	Base   uint64
	// Size is the array's size in bytes.
	Size int64
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
	// Width is the bytes per lane.
	Width int
	// Text is the reference as written, e.g. "A[i1][i3]".
	Text string
	// Addr is the byte address, base included, as an affine form of the
	// loop variables (loop nests only).
	Addr Linear
	// Space is the array's memory space; a shared reference's addresses
	// are offsets in its block's shared memory.
	Space kernel.Space
}

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
	// pt is the compiled program of a per-thread kernel (nil for a loop
	// nest, whose program is code).
	pt *threadProg

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
		return bindThreads(k, m, block, grid, params, dev)
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
	env := map[string]int64{}
	for _, p := range l.Params {
		env[p.Name] = p.Value
	}
	if err := l.placeArrays(env); err != nil {
		return nil, err
	}
	if err := l.bindLoops(env, blockAt); err != nil {
		return nil, err
	}
	if err := l.bindRefs(env); err != nil {
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

// MaxBlockThreads bounds the threads of a block when no device does. Bind
// keeps a 4-byte lane mask per warp of a block, so this keeps a launch's
// tables within 128 KiB whatever -block says; GPUs run at most 1024 or
// 2048 threads per block, and the stream tests bind blocks of up to
// 76800 threads without a device.
const MaxBlockThreads = 1 << 20

// checkBlock checks that a block has positive extents and at most
// MaxBlockThreads threads, computing the product without overflow, and,
// with a device, that the device runs it.
func checkBlock(b arch.Dim3, dev *arch.Device) error {
	if b.X <= 0 || b.Y <= 0 || b.Z <= 0 {
		return errors.New("extents must be positive")
	}
	// Each factor is at most 2^20 when the check is reached, so no
	// product below exceeds 2^40.
	if n := int64(b.X); n > MaxBlockThreads || n*int64(b.Y) > MaxBlockThreads || n*int64(b.Y)*int64(b.Z) > MaxBlockThreads {
		return fmt.Errorf("more than %d threads; hint: GPUs run at most 1024 or 2048 threads per block", MaxBlockThreads)
	}
	if dev == nil {
		return nil
	}
	sm := dev.SM
	var errs []string
	if sm.MaxThreadsPerBlock > 0 && b.Threads() > sm.MaxThreadsPerBlock {
		errs = append(errs, fmt.Sprintf("%d threads; %s runs at most %d threads per block", b.Threads(), dev.Name, sm.MaxThreadsPerBlock))
	}
	md := sm.MaxBlockDim
	if md != (arch.Dim3{}) && (b.X > md.X || b.Y > md.Y || b.Z > md.Z) {
		errs = append(errs, fmt.Sprintf("%s exceeds the largest block extents of %s, %s", b, dev.Name, md))
	}
	if errs == nil {
		return nil
	}
	return errors.New(strings.Join(errs, "; ") + "; hint: use a smaller block")
}

// smemUse is a block's shared memory and where the file asks for it.
type smemUse struct {
	bytes arch.Bytes
	at    kernel.Pos
	what  string // what the bytes are, when not the file's smem alone
}

// checkResources checks the kernel's registers and shared memory against
// the device, alone and with the block (a block whose registers or
// shared memory exceed an SM's cannot run at all); an error names the
// file's regs or where it asks for the shared memory.
func checkResources(k *kernel.Kernel, su smemUse, b arch.Dim3, dev *arch.Device) error {
	if dev == nil {
		return nil
	}
	sm := dev.SM
	if sm.MaxRegistersPerThread > 0 && k.Regs > sm.MaxRegistersPerThread {
		return at(k.Where.Regs, fmt.Errorf("%d registers per thread; %s allows at most %d; hint: give at most %d", k.Regs, dev.Name, sm.MaxRegistersPerThread, sm.MaxRegistersPerThread))
	}
	smem, smemAt := su.bytes, su.at
	if sm.MaxSharedMemoryPerBlock > 0 && smem > sm.MaxSharedMemoryPerBlock {
		return at(smemAt, fmt.Errorf("%s of shared memory per block%s; %s allows at most %s; hint: ask for at most %s", smem, su.what, dev.Name, sm.MaxSharedMemoryPerBlock, sm.MaxSharedMemoryPerBlock))
	}
	if dev.WarpSize <= 0 {
		return nil // a partial device, as tests build: no occupancy
	}
	if _, err := dev.Occupancy(b, 0, 0); err != nil {
		return nil // the block's own limits are checkBlock's
	}
	if _, err := dev.Occupancy(b, k.Regs, 0); err != nil {
		return at(k.Where.Regs, fmt.Errorf("regs %d: %w; hint: use fewer registers per thread or a smaller block", k.Regs, err))
	}
	if _, err := dev.Occupancy(b, k.Regs, smem); err != nil {
		return at(smemAt, fmt.Errorf("smem %s: %w; hint: use less shared memory per block or a smaller block", smem, err))
	}
	return nil
}

// placeArrays evaluates each array's extents and places it in memory.
func (l *Launch) placeArrays(env map[string]int64) error {
	next := DefaultBase
	var constant []BoundArray // the constant arrays so far
	for _, a := range l.Kernel.Arrays {
		ba, err := boundArray(a, func(e *kernel.Expr) (int64, error) { return eval(e, env) })
		if err != nil {
			return err
		}
		if a.Space == kernel.SpaceConstant {
			constant = append(constant, ba)
			if err := fitConstant(constant); err != nil {
				return at(kernel.Pos{Line: a.Line, Col: a.Col}, err)
			}
		}
		if a.HasBase {
			ba.Base = a.Base
		} else {
			al := uint64(a.Align)
			rounded, carry := bits.Add64(next, al-1, 0)
			if carry != 0 {
				return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("array %s does not fit below address 2^64 after the arrays before it", a.Name))
			}
			ba.Base = rounded / al * al
		}
		end, carry := bits.Add64(ba.Base, uint64(ba.Size), 0)
		if carry != 0 {
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("array %s at %#x of %d bytes ends past address 2^64; hint: give it a lower base", a.Name, ba.Base, ba.Size))
		}
		next = max(next, end)
		l.Arrays = append(l.Arrays, ba)
	}
	order := make([]int, len(l.Arrays))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(l.Arrays[i].Base, l.Arrays[j].Base) })
	for i := 1; i < len(order); i++ {
		p, q := l.Arrays[order[i-1]], l.Arrays[order[i]]
		if p.Base+uint64(p.Size) > q.Base {
			a := l.Kernel.Arrays[order[i]]
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("arrays %s [%#x, %#x) and %s [%#x, %#x) overlap; hint: change base",
				p.Name, p.Base, p.Base+uint64(p.Size), q.Name, q.Base, q.Base+uint64(q.Size)))
		}
	}
	return nil
}

// fitConstant checks that the constant arrays fit in constant memory
// together (the last one is the one just added).
func fitConstant(arrays []BoundArray) error {
	last := arrays[len(arrays)-1]
	if last.Size > kernel.ConstantMemory {
		return fmt.Errorf("constant array %s has %d bytes; constant memory holds %d (64 KiB); hint: keep %s in global memory, or use smaller params",
			last.Name, last.Size, kernel.ConstantMemory, last.Name)
	}
	var total int64
	names := make([]string, len(arrays))
	for i, a := range arrays {
		total += a.Size // each at most 64 KiB: no overflow
		names[i] = a.Name
	}
	if total > kernel.ConstantMemory {
		return fmt.Errorf("constant arrays %s have %d bytes together; constant memory holds %d (64 KiB); hint: keep some of them in global memory, or use smaller params",
			strings.Join(names, ", "), total, kernel.ConstantMemory)
	}
	return nil
}

// ParamText writes the launch's params as K=V,... in declaration order.
func (l *Launch) ParamText() string {
	var b strings.Builder
	for i, p := range l.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", p.Name, p.Value)
	}
	return b.String()
}

// boundArray evaluates the extents of a with value and its size in
// bytes.
func boundArray(a *kernel.Array, value func(*kernel.Expr) (int64, error)) (BoundArray, error) {
	ba := BoundArray{Name: a.Name, Type: a.Type, Layout: a.Layout, Space: a.Space}
	n := int64(1)
	for _, d := range a.Dims {
		v, err := value(d)
		if err != nil {
			return ba, within("array "+a.Name+": dims", err)
		}
		if v <= 0 {
			return ba, exprError(d, "array %s: dims: %s; extents must be positive; hint: check the params", a.Name, valueText(d, v))
		}
		if n > math.MaxInt64/8/v {
			return ba, exprError(d, "array %s: dims: the array has more than 2^63 bytes; hint: use smaller params", a.Name)
		}
		n *= v
		ba.Dims = append(ba.Dims, v)
	}
	ba.Size = n * int64(a.Type.Size())
	return ba, nil
}

// valueText writes expression e and its value v, or only the value for
// a constant.
func valueText(e *kernel.Expr, v int64) string {
	if e.Kind == kernel.ExprConst {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%s = %d", e, v)
}

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
// checking that every subscript stays inside its dimension.
func (l *Launch) bindRefs(env map[string]int64) error {
	n := len(l.Loops)
	in := innermost(l.Kernel.Program)
	for _, r := range l.Kernel.Program.Refs {
		var ba *BoundArray
		for i := range l.Arrays {
			if l.Arrays[i].Name == r.Array.Name {
				ba = &l.Arrays[i]
			}
		}
		width := int64(ba.Type.Size())
		addr := Linear{Const: int64(ba.Base), Coef: make([]int64, n)}
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
			stride := width * elemStride(ba, d)
			addr.Const += stride * f.Const
			for v, c := range f.Coef {
				addr.Coef[v] += stride * c
			}
		}
		l.Refs = append(l.Refs, Ref{ID: r.ID, Array: ba.Name, Space: ba.Space, Line: r.Line, Col: r.Col, Op: opOf(r),
			Width: int(width), Text: r.Text, Addr: addr})
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
