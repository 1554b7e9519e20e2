package traces

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"gpumemsim/arch"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
)

// threadProg is a per-thread kernel compiled for the SIMT cursor.
type threadProg struct {
	code []tcode
	// pos is, per step of code, the place in the source of the
	// statement, condition or reference it comes from: where an error
	// met at the step is reported.
	pos    []kernel.Pos
	refs   []ptRef
	vary   []bool // per local: lanes may disagree
	depth  int    // the deepest expression stack
	frames int    // the deepest control nesting
	// slots are the references whose values expressions read (by ID):
	// ptRef.slot indexes it.
	slots []int
	// gathered are the index reads (by ID) that a gather made before the
	// kernel (V[COL[e]] reads V'[e]): not emitted.
	gathered []int

	once sync.Once
	work ptWork
	// countBudget bounds the instructions threadWork counts and warpCap
	// those of one warp (LimitWork); 0: CountBudget and maxWarpInsts.
	countBudget, warpCap int64
	// stop stops threadWork when it is closed, and counted is told how
	// far it has got (WatchWork).
	stop    <-chan struct{}
	counted func(int64)

	// viewOnce computes view, the affine view the static models read.
	viewOnce sync.Once
	view     *threadView

	mu  sync.Mutex
	err error // the first error a cursor met
}

// Steps of the compiled per-thread program (tcode.kind).
const (
	tMem     uint8 = iota // a memory instruction of reference ref
	tCompute              // a statement's count plus pending control, as one OpCompute
	tAssign               // an int local gets x (op: "=" as ExprConst, else the compound operator)
	tIf                   // test x: the lanes where it holds run on, the others jump to the else part
	tElse                 // end of the then part: run the else lanes, or jump past
	tEndIf                // reconverge
	tEnter                // enter a loop: remember the lanes
	tTest                 // test x: lanes where it fails leave; none left: jump past the loop
	tBack                 // jump back to the test
	tBarrier              // __syncthreads()
	tReturn               // the active lanes end
)

type tcode struct {
	kind  uint8
	ref   int32
	local int32
	count int32
	jump  int32
	op    kernel.ExprKind
	x     *xprog
	// trip is a tTest's loop when it is canonical (trip.go).
	trip *tripLoop
	// plan is a tAssign's varying value (=) where its lanes are read in
	// place (subPlan) and can be written into the local's (selfFirst),
	// else nil.
	plan *ptSub
}

// ptRef is how a reference's lane addresses are computed.
type ptRef struct {
	// base is the array's, plus a struct field's offset; size the bytes
	// of an element, width those each thread reads or writes.
	base        uint64
	size, width int64
	// subs are the subscripts; a single one is a flat element index.
	subs    []*xprog
	strides []int64 // elements per unit of each subscript
	limits  []int64 // each subscript's extent (the whole array for a flat one)
	// texWidth is, for a tex2D, the width in texels of the cudaArray it
	// reads: its subscripts [y, x] clamp to the edges and its address is
	// block-linear. 0 for other references.
	texWidth int64
	// texPlans are, for a tex2D, the indices in plan of its subscripts
	// [y, x] where their lanes are read in place, else -1 (evaluated).
	texPlans [2]int32
	text     string
	array    string
	pos      kernel.Pos
	// slot is where the lanes' values go when expressions read them (an
	// index array's element), from data, the array's contents; -1 when
	// nothing reads them.
	slot int32
	data indexdata.Contents
	// remap is the array's remap, applied to the element index.
	remap remapping
	// plan and origin are the subscripts as the cursor forms addresses
	// from them (planAddresses); tids, per warp of the launch's block,
	// what the varying ones add where each is a thread index (planTids).
	plan   []ptSub
	origin uint64
	tids   []tidWarp
}

// sharedAlign is where each __shared__ array starts in a block's shared
// memory: every array begins at bank 0, as the bank-conflict examples of
// the programming guide draw them.
const sharedAlign = 128

// bindThreads binds a per-thread kernel: parameters, the grid (the file's
// or the caller's), global and shared arrays, and its program; preset
// gives index arrays their contents in place of their data: (a remap
// kernel's gather reads the contents of the kernel it runs for).
func bindThreads(k *kernel.Kernel, m kernel.Mapping, block, grid arch.Dim3, params map[string]int64, dev *arch.Device, preset map[string]indexdata.Contents) (*Launch, error) {
	if len(m) > 0 {
		return nil, errors.New("a per-thread kernel has no loops to map; hint: leave out -map: the kernel computes its own indices from threadIdx and blockIdx")
	}
	var blockAt kernel.Pos
	if block == (arch.Dim3{}) {
		block, blockAt = k.Block, k.Where.Block
	}
	l := &Launch{Kernel: k, Block: block, Regs: k.Regs, Smem: k.Smem, Dependent: k.Dependent, contents: preset}
	params, fixed := matrixParams(k, params)
	if err := l.bindParams(params); err != nil {
		return nil, err
	}
	if err := l.bindMatrix(fixed); err != nil {
		return nil, err
	}
	if err := checkBlock(block, dev); err != nil {
		return nil, at(blockAt, fmt.Errorf("block %s: %w", block, err))
	}
	env := l.ParamValues()
	if err := l.checkRequires(env); err != nil {
		return nil, err // before the grid, whose extents may be 0 for a block that does not fit
	}
	if err := l.bindGrid(env, grid); err != nil {
		return nil, err
	}
	if err := l.placeArrays(env); err != nil {
		return nil, err
	}
	if err := l.bindContents(env); err != nil {
		return nil, err
	}
	if err := l.checkConstantDecls(env); err != nil {
		return nil, err
	}
	if err := l.placeShared(env); err != nil {
		return nil, err
	}
	if err := checkResources(k, l.smemUse(dev), block, dev); err != nil {
		return nil, err
	}
	pt, err := l.compileThreads(env, dev)
	if err != nil {
		return nil, err
	}
	l.pt = pt
	return l, nil
}

// bindGrid sets the grid: the caller's, else the file's expressions of
// params and blockDim.
func (l *Launch) bindGrid(env map[string]int64, grid arch.Dim3) error {
	k := l.Kernel
	if grid == (arch.Dim3{}) {
		if len(k.Grid) == 0 {
			return at(k.Where.Top, fmt.Errorf("kernel %s gives no grid; hint: add grid: [BLOCKS_X, BLOCKS_Y] to the kernel file, e.g. grid: [\"(N + blockDim.x - 1) / blockDim.x\"], or pass -grid", k.Name))
		}
		var err error
		if grid, err = gridExtents(k.Grid, env, l.Block); err != nil {
			return err
		}
	}
	if grid.X <= 0 || grid.Y <= 0 || grid.Z <= 0 {
		return fmt.Errorf("grid %s: extents must be positive", grid)
	}
	if int64(grid.X)*int64(grid.Y)*int64(grid.Z) > math.MaxInt32 {
		return fmt.Errorf("grid %s has more than 2^31-1 blocks; hint: use a smaller problem", grid)
	}
	l.grid = grid
	return nil
}

// checkRequires checks the kernel file's conditions on the block and the
// params.
func (l *Launch) checkRequires(env map[string]int64) error {
	for _, e := range l.Kernel.Requires {
		v, err := launchValue(e, env, l.Block, noValue)
		if err != nil {
			return within("requires", err)
		}
		if v == 0 {
			return exprError(e, "block %s with %s does not fit the kernel: it requires %s; hint: choose a block that meets it, or change the params", l.Block, l.ParamText(), e)
		}
	}
	return nil
}

// launchValue is hostValue where an expression without a value (a
// division by zero) is an error: e "has no value " and then why, which
// ends in a hint.
func launchValue(e *kernel.Expr, env map[string]int64, block arch.Dim3, why string) (int64, error) {
	v, ok, err := hostValue(e, env, block)
	if err == nil && !ok {
		err = exprError(e, "%s has no value %s", e, why)
	}
	return v, err
}

// noValue is why a kernel file's launch-time expression has no value.
const noValue = "with these params (a division by zero); hint: check the params"

// gridExtents evaluates a grid's extents, expressions of params (env)
// and blockDim.
func gridExtents(exprs []*kernel.Expr, env map[string]int64, block arch.Dim3) (arch.Dim3, error) {
	g := [3]int{1, 1, 1}
	for i, e := range exprs {
		v, ok, err := hostValue(e, env, block)
		if err != nil {
			return arch.Dim3{}, within("grid", err)
		}
		if !ok || v <= 0 || v > math.MaxInt32 {
			return arch.Dim3{}, exprError(e, "grid: %s gives %d blocks; hint: a grid extent is a positive number of blocks below 2^31", e, v)
		}
		g[i] = int(v)
	}
	return arch.Dim3{X: g[0], Y: g[1], Z: g[2]}, nil
}

// hostValue evaluates an expression the host computes when it launches
// a kernel (a grid extent, a value of launches): of params (env) and
// blockDim. ok is false where the arithmetic has no value (a division by
// zero).
func hostValue(e *kernel.Expr, env map[string]int64, block arch.Dim3) (v int64, ok bool, err error) {
	xc := &xcompiler{env: env, dims: [6]int64{int64(block.X), int64(block.Y), int64(block.Z), 1, 1, 1}}
	p, err := xc.compile(e)
	if err == nil && (p.varying || hasBlockIdx(p)) {
		err = exprError(e, "%s depends on the thread; hint: write an expression of params and blockDim", e)
	}
	if err != nil {
		return 0, false, err
	}
	var ln lanes
	ln.reserve(p.depth, 0, 0)
	v = ln.scalar(p)
	return v, ln.bad == "", nil
}

func hasBlockIdx(p *xprog) bool {
	for _, o := range p.ops {
		if o.kind == kernel.ExprSpecial {
			return true
		}
	}
	return false
}

// dimConsts are blockDim and gridDim, in the order of the Special
// registers.
func (l *Launch) dimConsts(grid arch.Dim3) [6]int64 {
	b := l.Block
	return [6]int64{int64(b.X), int64(b.Y), int64(b.Z), int64(grid.X), int64(grid.Y), int64(grid.Z)}
}

// checkConstantDecls checks that each __constant__ declaration of the
// source has its array's extents under the params of the launch.
func (l *Launch) checkConstantDecls(env map[string]int64) error {
	for _, d := range l.Kernel.Program.Constants {
		ba := l.arrayNamed(d.Array.Name, kernel.SpaceGlobal)
		for i, e := range d.Dims {
			v, err := eval(e, env)
			if err != nil {
				return within("__constant__ "+d.Array.Name, err)
			}
			if v != ba.Dims[i] {
				return exprError(e, "__constant__ %s: extent %s, but arrays: gives %s extent %d there; hint: declare it with the extents of its dims under arrays:",
					d.Array.Name, valueText(e, v), d.Array.Name, ba.Dims[i])
			}
		}
	}
	return nil
}

// placeShared lays out the __shared__ arrays of a block, each at a
// multiple of sharedAlign from 0, and adds them to the block's shared
// memory.
func (l *Launch) placeShared(env map[string]int64) error {
	var next int64
	value := func(e *kernel.Expr) (int64, error) { return launchValue(e, env, l.Block, noValue) }
	for _, a := range l.Kernel.Program.Shared {
		ba, err := boundArray(a, value)
		if err != nil {
			return err
		}
		ba.Space = kernel.SpaceShared
		next = (next + sharedAlign - 1) / sharedAlign * sharedAlign
		ba.Base = uint64(next)
		if ba.Size > math.MaxInt32 || next+ba.Size > math.MaxInt32 {
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("__shared__ %s: %d bytes of shared memory per block; hint: GPUs give a block at most 48 KiB", a.Name, next+ba.Size))
		}
		next += ba.Size
		l.Shared = append(l.Shared, ba)
	}
	l.SharedArrays = arch.Bytes(next)
	l.Smem = l.Kernel.Smem + arch.Bytes(next)
	return nil
}

// smemUse is the block's shared memory, located at the __shared__ array
// that takes it past what dev allows per block (else the last one), or at
// the file's smem when the kernel declares none.
func (l *Launch) smemUse(dev *arch.Device) smemUse {
	k := l.Kernel
	shared := k.Program.Shared
	if len(shared) == 0 {
		return smemUse{l.Smem, k.Where.Smem, ""}
	}
	i := len(shared) - 1
	for j, a := range l.Shared {
		if dev == nil {
			break
		}
		if limit := dev.SM.MaxSharedMemoryPerBlock; limit > 0 && k.Smem+arch.Bytes(a.Base)+arch.Bytes(a.Size) > limit {
			i = j
			break
		}
	}
	what := fmt.Sprintf(" (__shared__ arrays up to %s", shared[i].Name)
	if k.Smem > 0 {
		what += ", and smem"
	}
	return smemUse{l.Smem, kernel.Pos{Line: shared[i].Line, Col: shared[i].Col}, what + ")"}
}
