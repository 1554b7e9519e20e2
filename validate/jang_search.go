package validate

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// JangHalfWarp is the access unit of J14's model: the lowest work-group
// dimension (tx) of every 2-D candidate is a multiple of it, and it is the
// smallest work-group size the default search space visits.
const JangHalfWarp = 16

// JangCandidate is one work-group configuration of J14's Algorithm 2, with
// the numbers its priority orders compare.
type JangCandidate struct {
	// Block is the work-group shape: X = tx (width W), Y = ty (height H).
	Block arch.Dim3
	// AWG is the number of active work groups per compute unit: the
	// occupancy calculator's active blocks under the register file (Eq. 1),
	// the thread and block limits, and the local memory ALM (Eq. 2).
	AWG int
	// Occupancy is active warps over the maximum warps per CU, 0 to 1.
	Occupancy float64
	// Cost is the expected number of uncoalesced accesses per work group,
	// Gain the number of elements prefetched into local memory, both
	// summed over the kernel's references.
	Cost, Gain int64
	// ALM is the local memory one work group needs: Gain × element size.
	ALM arch.Bytes
	// Valid is false when Algorithm 2 visits the configuration but does not
	// push it into its priority queue; Reason then says why.
	Valid  bool
	Reason string
	// Rank is the dense rank of the valid candidates by the priority order
	// (1 is best, ties share a rank); 0 for invalid ones.
	Rank int
}

// JangShapes lists J14's candidate work-group shapes, largest size first:
// for every power of two from maxSize down to minSize, the size itself as a
// 1-D work group (dims = 1), or for dims = 2 every ty×tx whose product is
// the size, with ty ≥ 2 and tx a multiple of JangHalfWarp, ty ascending.
// With sizes 512 to 128 that is J14 Table 1's list: 2×256, 4×128, 8×64,
// 16×32, 32×16, 2×128, …, 8×16. A size with no 2-D shape (16 for dims = 2)
// contributes nothing.
func JangShapes(maxSize, minSize, dims int) ([]arch.Dim3, error) {
	switch {
	case dims != 1 && dims != 2:
		return nil, fmt.Errorf("work-group search: %d-D mapping; J14 enumerates 1-D and 2-D work groups only", dims)
	case !jangPowerOfTwo(maxSize) || !jangPowerOfTwo(minSize):
		return nil, fmt.Errorf("work-group search: sizes %d to %d; want powers of two", maxSize, minSize)
	case minSize > maxSize:
		return nil, fmt.Errorf("work-group search: smallest size %d exceeds the largest %d", minSize, maxSize)
	}
	var shapes []arch.Dim3
	for size := maxSize; size >= minSize; size /= 2 {
		if dims == 1 {
			shapes = append(shapes, arch.Dim3{X: size, Y: 1, Z: 1})
			continue
		}
		for ty := 2; ty <= size/JangHalfWarp; ty *= 2 {
			if tx := size / ty; tx%JangHalfWarp == 0 {
				shapes = append(shapes, arch.Dim3{X: tx, Y: ty, Z: 1})
			}
		}
	}
	return shapes, nil
}

// JangDefaultShapes is JangShapes over the device's own range: from the
// largest power of two not above its maximum threads per block (512 on
// GT200, as in J14) down to JangHalfWarp. Shapes wider or taller than the
// device's largest block extents are left out.
func JangDefaultShapes(d *arch.Device, dims int) ([]arch.Dim3, error) {
	maxSize := 1
	for maxSize*2 <= d.SM.MaxThreadsPerBlock {
		maxSize *= 2
	}
	if maxSize < JangHalfWarp {
		return nil, fmt.Errorf("work-group search: %s allows only %d threads per block; the search starts at %d",
			d.Name, d.SM.MaxThreadsPerBlock, JangHalfWarp)
	}
	shapes, err := JangShapes(maxSize, JangHalfWarp, dims)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(shapes, func(b arch.Dim3) bool {
		return b.X > d.SM.MaxBlockDim.X || b.Y > d.SM.MaxBlockDim.Y
	}), nil
}

// JangCostGain returns the cost and gain of the kernel's references for one
// work-group shape (J14 §III: both depend on W, H and the strip length).
type JangCostGain func(block arch.Dim3) (cost, gain int64)

// JangSearch runs J14's Algorithm 2 over the candidate shapes (in the order
// given, largest first) on device d, for a kernel with regsPerThread
// registers per thread and local-memory elements of elemSize bytes.
//
// Line 1: the search starts at the largest size whose register count
// allows at least 2 active work groups (with no such size, at the largest
// size the device can run at all); larger shapes are not visited and not
// returned. Each visited shape gets its cost and gain from costGain, its
// local memory ALM = gain × elemSize, and AWG and occupancy from the
// device's occupancy calculator ((*arch.Device).Occupancy, with ALM as the
// shared memory per block). A shape whose ALM does not fit (Eq. 2) is
// returned with Valid false. The valid candidates are then ranked by
// RankJang, with the local-memory priority when any of them has a gain.
//
// Eq. (1) is printed with a strict "<" in J14, but the calculator admits a
// block whose registers fill the register file exactly, and J14's own
// tables agree with the calculator (Table 1's AWG 2 at 512 threads needs
// 16 × 512 × 2 = 16384 registers to fit 16384), so the calculator decides.
func JangSearch(d *arch.Device, shapes []arch.Dim3, regsPerThread int, elemSize arch.Bytes, costGain JangCostGain) ([]JangCandidate, error) {
	if elemSize <= 0 {
		return nil, fmt.Errorf("work-group search: element size %d B; want a positive size", elemSize)
	}
	// AWG by registers, threads and blocks alone: Algorithm 2's line 1
	// and line 3.
	byRegisters := make([]int, len(shapes))
	var errs []error
	for i, b := range shapes {
		o, err := d.Occupancy(b, regsPerThread, 0)
		if err != nil {
			errs = append(errs, fmt.Errorf("work group %dx%d: %w", b.Y, b.X, err))
			continue
		}
		byRegisters[i] = o.ActiveBlocks
	}
	if len(errs) == len(shapes) {
		if len(shapes) == 0 {
			return nil, errors.New("work-group search: no candidate shapes")
		}
		return nil, fmt.Errorf("work-group search: no candidate shape runs on %s: %w", d.Name, errors.Join(errs...))
	}
	start := -1
	for i, awg := range byRegisters {
		if awg >= 2 {
			start = i
			break
		}
	}
	if start < 0 {
		start = slices.IndexFunc(byRegisters, func(awg int) bool { return awg >= 1 })
	}
	startSize := shapes[start].Threads()

	var cands []JangCandidate
	localMemoryUsed := false
	for i, b := range shapes {
		if b.Threads() > startSize || byRegisters[i] == 0 {
			continue
		}
		c := JangCandidate{Block: b}
		c.Cost, c.Gain = costGain(b)
		c.ALM = arch.Bytes(c.Gain) * elemSize
		o, err := d.Occupancy(b, regsPerThread, c.ALM)
		if err != nil {
			c.Reason = fmt.Sprintf("local memory %v per work group: %v", c.ALM, err)
			cands = append(cands, c)
			continue
		}
		c.AWG, c.Occupancy, c.Valid = o.ActiveBlocks, o.Occupancy, true
		localMemoryUsed = localMemoryUsed || c.Gain > 0
		cands = append(cands, c)
	}
	RankJang(cands, localMemoryUsed)
	return cands, nil
}

// RankJang assigns dense ranks (1 best; equal keys share a rank and the
// next key gets the next integer) to the valid candidates by J14's
// priority order, and rank 0 to invalid ones. With local memory used the
// order is high gain, then low cost, then large work-group size; without,
// low cost, then high occupancy, then many active work groups ("the work
// group size does not play any role").
func RankJang(c []JangCandidate, localMemoryUsed bool) {
	order := make([]int, 0, len(c))
	for i := range c {
		c[i].Rank = 0
		if c[i].Valid {
			order = append(order, i)
		}
	}
	key := func(a, b int) int { return jangComparePriority(&c[a], &c[b], localMemoryUsed) }
	slices.SortStableFunc(order, key)
	for k, i := range order {
		switch {
		case k == 0:
			c[i].Rank = 1
		case key(order[k-1], i) == 0:
			c[i].Rank = c[order[k-1]].Rank
		default:
			c[i].Rank = c[order[k-1]].Rank + 1
		}
	}
}

// jangComparePriority orders a before b (negative) when a has the higher
// priority.
func jangComparePriority(a, b *JangCandidate, localMemoryUsed bool) int {
	if localMemoryUsed {
		if a.Gain != b.Gain {
			return jangCmpDesc(a.Gain, b.Gain)
		}
		if a.Cost != b.Cost {
			return cmp.Compare(a.Cost, b.Cost)
		}
		return jangCmpDesc(int64(a.Block.Threads()), int64(b.Block.Threads()))
	}
	if a.Cost != b.Cost {
		return cmp.Compare(a.Cost, b.Cost)
	}
	// Occupancy is active warps over one device's fixed maximum, a
	// correctly rounded quotient: equal warp counts give equal values and
	// more warps a larger one, so comparing the floats is exact.
	if a.Occupancy != b.Occupancy {
		if a.Occupancy > b.Occupancy {
			return -1
		}
		return 1
	}
	return jangCmpDesc(int64(a.AWG), int64(b.AWG))
}

func jangCmpDesc(a, b int64) int { return cmp.Compare(b, a) }

func jangPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// JangStripLength is the strip length SL of J14's data prefetching: "the
// strip length cannot exceed the size of the smallest dimension of thread
// map", and J14 uses exactly that. dims is the number of thread dimensions
// the mapping uses (1: W; 2: min(H, W); 3: min(D, H, W)).
func JangStripLength(block arch.Dim3, dims int) int {
	sl := block.X
	if dims >= 2 {
		sl = min(sl, block.Y)
	}
	if dims >= 3 {
		sl = min(sl, block.Z)
	}
	return sl
}

// JangPrefetchGain is the gain of prefetching one array into local memory,
// in elements per work group: for an array the work group's threads index
// in arrayDims = 2 dimensions, (smallest work-group dimension) × SL; for a
// 1-D array walked by the strip-mined loop alone (arrayDims = 1), SL. With
// SL = JangStripLength this gives J14's numbers: min(H, W)² per 2-D array
// for matmul (16×32: 16·16 = 256 per array, 512 for A and B), and W² + W
// for matrix-vector (A and x; W = 32: 1056).
func JangPrefetchGain(block arch.Dim3, dims, arrayDims int) int64 {
	sl := int64(JangStripLength(block, dims))
	if arrayDims <= 1 {
		return sl
	}
	return sl * sl
}

// JangEstimate is J14's model of a bound kernel on a device with
// Algorithm 2's candidates.
type JangEstimate struct {
	Device string `json:"device"`
	// Model is evaluated at the launch's block.
	Model *JangModel `json:"model"`
	// Candidates are JangSearch's over JangDefaultShapes(d, Model.Dims)
	// with the kernel's registers and Model.ElemSize; invalid candidates
	// (local memory does not fit) are included with Rank 0.
	Candidates []JangCandidate `json:"candidates"`
}

// NewJangEstimate builds the model of l and runs Algorithm 2 on device d
// through JangSearchLaunch. A kernel without a register count is searched
// with 0 registers (the register file never limits it); a mapping of more
// than two thread dimensions is an error, as J14 enumerates 1-D and 2-D
// work groups only.
func NewJangEstimate(d *arch.Device, l *traces.Launch) (*JangEstimate, error) {
	m, err := NewJangModel(l)
	if err != nil {
		return nil, err
	}
	if m.Dims == 0 {
		return nil, fmt.Errorf("%s: mapping %q maps no loop to a thread dimension", m.Kernel, m.Mapping)
	}
	shapes, err := JangDefaultShapes(d, m.Dims)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Kernel, err)
	}
	cands, err := JangSearchLaunch(d, l, m, shapes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Kernel, err)
	}
	return &JangEstimate{Device: d.Name, Model: m, Candidates: cands}, nil
}

// JangSearchLaunch is JangSearch for launch l, whose model is m, over the
// given shapes. A loop nest's access matrices do not depend on the work
// group, so every shape's cost and gain come from m. A per-thread
// kernel's may (blockDim in a subscript or a loop's step), so it is bound
// again at each shape, with l's params and the grid its file gives, and
// each shape's cost and gain come from its own model. A shape the kernel
// refuses (its requires:, or a grid of no block) is returned with Valid
// false and the refusal as its Reason; another error at a shape is an
// error.
func JangSearchLaunch(d *arch.Device, l *traces.Launch, m *JangModel, shapes []arch.Dim3) ([]JangCandidate, error) {
	costGain := JangCostGain(m.CostGain)
	var failed error
	var refused []JangCandidate
	if l.Info().PerThread {
		var bound map[arch.Dim3]*traces.Launch
		shapes, bound, refused = jangBindable(l, shapes)
		costGain = func(b arch.Dim3) (int64, int64) {
			mb, err := jangModelAt(l, m, bound[b])
			if err != nil {
				failed = cmp.Or(failed, err)
				return 0, 0
			}
			return mb.CostGain(b)
		}
	}
	cands, err := JangSearch(d, shapes, m.Regs, m.ElemSize, costGain)
	return append(cands, refused...), cmp.Or(err, failed)
}

// jangBindable binds l's kernel at each shape, with l's params: the
// shapes at which it binds and their launches (l itself at its own
// block), and the refused ones, as invalid candidates.
func jangBindable(l *traces.Launch, shapes []arch.Dim3) ([]arch.Dim3, map[arch.Dim3]*traces.Launch, []JangCandidate) {
	var ok []arch.Dim3
	bound := map[arch.Dim3]*traces.Launch{l.Block: l}
	var refused []JangCandidate
	for _, b := range shapes {
		if bound[b] == nil {
			lb, err := traces.Bind(l.Kernel, l.Mapping, b, l.ParamValues(), nil)
			if err != nil {
				refused = append(refused, JangCandidate{Block: b, Reason: err.Error()})
				continue
			}
			bound[b] = lb
		}
		ok = append(ok, b)
	}
	return ok, bound, refused
}

// jangModelAt is the model of lb, l's kernel bound at another block; m is
// l's model, which serves l's own block.
func jangModelAt(l *traces.Launch, m *JangModel, lb *traces.Launch) (*JangModel, error) {
	if lb == l {
		return m, nil
	}
	mb, err := NewJangModel(lb)
	if err != nil {
		return nil, fmt.Errorf("work group %s: %w", lb.Block, err)
	}
	return mb, nil
}
