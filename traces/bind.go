package traces

import (
	"cmp"
	"errors"
	"fmt"
	"math"
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
	// loop variables.
	Addr Linear
}

// Launch is a kernel bound to a mapping, a block shape and parameter
// values: everything needed to generate its warp instructions.
type Launch struct {
	Kernel  *kernel.Kernel
	Mapping kernel.Mapping
	Block   arch.Dim3
	// Params are the values in effect, in declaration order.
	Params    []kernel.Param
	Arrays    []BoundArray
	Loops     []BoundLoop
	Refs      []Ref
	Regs      int
	Smem      arch.Bytes
	Dependent bool

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
}

// Bind binds a kernel to a mapping (nil: the kernel's), a block shape
// (zero: the kernel's) and parameter overrides (nil: the defaults). With a
// device, it checks that the device can run the block.
func Bind(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, params map[string]int64, dev *arch.Device) (*Launch, error) {
	if m == nil {
		m = k.Mapping
	}
	if block == (arch.Dim3{}) {
		block = k.Block
	}
	l := &Launch{Kernel: k, Mapping: m, Block: block, Regs: k.Regs, Smem: k.Smem, Dependent: k.Dependent}
	if err := l.bindParams(params); err != nil {
		return nil, err
	}
	env := map[string]int64{}
	for _, p := range l.Params {
		env[p.Name] = p.Value
	}
	if err := m.Check(k.Program); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	if err := checkBlock(block, dev); err != nil {
		return nil, fmt.Errorf("%s: block %s: %v", k.Name, block, err)
	}
	if err := checkResources(k, dev); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	if err := l.placeArrays(env); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	if err := l.bindLoops(env); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	if err := l.bindRefs(env); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Name, err)
	}
	l.compile()
	return l, nil
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
		return fmt.Errorf("%s: unknown param %s (the params are %s)", k.Name, strings.Join(unknown, ", "), strings.Join(names, ", "))
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
	var errs []error
	if sm.MaxThreadsPerBlock > 0 && b.Threads() > sm.MaxThreadsPerBlock {
		errs = append(errs, fmt.Errorf("%d threads; %s runs at most %d threads per block", b.Threads(), dev.Name, sm.MaxThreadsPerBlock))
	}
	md := sm.MaxBlockDim
	if md != (arch.Dim3{}) && (b.X > md.X || b.Y > md.Y || b.Z > md.Z) {
		errs = append(errs, fmt.Errorf("%s exceeds the largest block extents of %s, %s", b, dev.Name, md))
	}
	return errors.Join(errs...)
}

// checkResources checks the kernel's registers and shared memory against
// the device.
func checkResources(k *kernel.Kernel, dev *arch.Device) error {
	if dev == nil {
		return nil
	}
	sm := dev.SM
	var errs []error
	if sm.MaxRegistersPerThread > 0 && k.Regs > sm.MaxRegistersPerThread {
		errs = append(errs, fmt.Errorf("%d registers per thread; %s allows at most %d", k.Regs, dev.Name, sm.MaxRegistersPerThread))
	}
	if sm.MaxSharedMemoryPerBlock > 0 && k.Smem > sm.MaxSharedMemoryPerBlock {
		errs = append(errs, fmt.Errorf("%s of shared memory per block; %s allows at most %s", k.Smem, dev.Name, sm.MaxSharedMemoryPerBlock))
	}
	return errors.Join(errs...)
}

func (l *Launch) placeArrays(env map[string]int64) error {
	next := DefaultBase
	for _, a := range l.Kernel.Arrays {
		ba := BoundArray{Name: a.Name, Type: a.Type, Layout: a.Layout, Space: a.Space}
		n := int64(1)
		for _, d := range a.Dims {
			v, err := eval(d, env)
			if err != nil {
				return fmt.Errorf("array %s: dims: %v", a.Name, err)
			}
			if v <= 0 {
				return fmt.Errorf("array %s: dims: %s = %d; extents must be positive", a.Name, d, v)
			}
			if n > math.MaxInt64/8/v {
				return fmt.Errorf("array %s: size overflows", a.Name)
			}
			n *= v
			ba.Dims = append(ba.Dims, v)
		}
		ba.Size = n * int64(a.Type.Size())
		if a.HasBase {
			ba.Base = a.Base
		} else {
			al := uint64(a.Align)
			ba.Base = (next + al - 1) / al * al
		}
		next = max(next, ba.Base+uint64(ba.Size))
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
			return fmt.Errorf("arrays %s [%#x, %#x) and %s [%#x, %#x) overlap; change base", p.Name, p.Base, p.Base+uint64(p.Size), q.Name, q.Base, q.Base+uint64(q.Size))
		}
	}
	return nil
}

func (l *Launch) bindLoops(env map[string]int64) error {
	loops := l.Kernel.Program.Loops
	n := len(loops)
	l.mapLoop = [3]int{-1, -1, -1}
	l.extent = [3]int64{1, 1, 1}
	for _, lp := range loops {
		bl := BoundLoop{Var: lp.Var}
		var err error
		if bl.Lower, err = linear(lp.Lower, env, n); err != nil {
			return fmt.Errorf("loop %s: lower bound: %v", lp.Var, err)
		}
		if bl.Upper, err = linear(lp.Upper, env, n); err != nil {
			return fmt.Errorf("loop %s: upper bound: %v", lp.Var, err)
		}
		if bl.Step, err = eval(lp.Step, env); err != nil {
			return fmt.Errorf("loop %s: step: %v", lp.Var, err)
		}
		if bl.Step <= 0 {
			return fmt.Errorf("loop %s: step %s = %d; it must be positive", lp.Var, lp.Step, bl.Step)
		}
		if ax, ok := l.Mapping.Axis(lp.Var); ok {
			bl.Mapped, bl.Axis = true, ax
			span := bl.Upper.Const - bl.Lower.Const
			if span <= 0 {
				return fmt.Errorf("loop %s is mapped to %s but has no iterations (%d to %d)", lp.Var, ax, bl.Lower.Const, bl.Upper.Const)
			}
			bl.Extent = (span + bl.Step - 1) / bl.Step
			l.mapLoop[ax] = lp.Index
			l.extent[ax] = bl.Extent
		} else {
			for _, f := range []Linear{bl.Lower, bl.Upper} {
				for v, c := range f.Coef {
					if c != 0 && (l.Loops[v].Mapped || l.Loops[v].Divergent) {
						bl.Divergent = true
					}
				}
			}
		}
		l.Loops = append(l.Loops, bl)
		l.bounds = append(l.bounds, loopGen{lower: terms(bl.Lower), upper: terms(bl.Upper),
			lo: bl.Lower.Const, up: bl.Upper.Const, step: bl.Step, divergent: bl.Divergent})
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
		return fmt.Errorf("grid %dx%dx%d has more than %d blocks", g[0], g[1], g[2], math.MaxInt32)
	}
	l.grid = arch.Dim3{X: int(g[0]), Y: int(g[1]), Z: int(g[2])}
	return nil
}

func (l *Launch) bindRefs(env map[string]int64) error {
	n := len(l.Loops)
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
				return fmt.Errorf("%s: %v", r.Text, err)
			}
			// Elements between consecutive values of subscript d.
			stride := int64(1)
			if ba.Layout == kernel.RowMajor {
				for _, e := range ba.Dims[d+1:] {
					stride *= e
				}
			} else {
				for _, e := range ba.Dims[:d] {
					stride *= e
				}
			}
			addr.Const += width * stride * f.Const
			for v, c := range f.Coef {
				addr.Coef[v] += width * stride * c
			}
		}
		l.Refs = append(l.Refs, Ref{ID: r.ID, Array: ba.Name, Line: r.Line, Col: r.Col, Op: opOf(r),
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

// Grid is the number of blocks along each axis: ceil(extent/block) for
// mapped axes, 1 for the others.
func (l *Launch) Grid() arch.Dim3 { return l.grid }

// Blocks is the number of blocks of the grid.
func (l *Launch) Blocks() int { return l.grid.Threads() }

// WarpsPerBlock is ceil(block threads / 32).
func (l *Launch) WarpsPerBlock() int { return (l.Block.Threads() + WarpSize - 1) / WarpSize }

// WarpSize is the number of lanes of a warp instruction.
const WarpSize = 32
