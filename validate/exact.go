package validate

import (
	"errors"
	"fmt"
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// ExactRef is the closed-form count of one memory reference over a whole
// launch under a device's coalescing rule: the numbers the simulator's
// coalescer gives when every warp instruction is streamed through it.
type ExactRef struct {
	// Ref indexes traces.Launch.Refs; Text is the reference as written.
	Ref  int
	Text string
	Op   traces.Op
	// Requests is the number of warp instructions with an active lane (the
	// profiler's requests: gld_request, inst_executed_global_loads).
	Requests int64
	// Transactions is the number of memory transactions; Txn32, Txn64 and
	// Txn128 split them by size, and Bytes is their total size.
	Transactions int64
	Txn32        int64
	Txn64        int64
	Txn128       int64
	Bytes        int64
	// ActiveLanes is the number of lane accesses.
	ActiveLanes int64
	// HalfWarps counts the half-warps with an active lane.
	HalfWarps int64
	// CoalescedHalfWarps counts, on a CC 1.0/1.1 device, the half-warps
	// that met the coalescing conditions of the strict rule; it is 0 under
	// every other rule.
	CoalescedHalfWarps int64
}

// ExactCounts computes, for every reference of l, the warp instructions and
// transactions that dev's coalescing rule produces over the whole kernel,
// in closed form rather than by generating the instructions.
//
// A warp instruction's lane addresses are A + off(lane): off depends only on
// the lane's thread coordinates within the block, A on the block
// coordinates and the in-thread loop values. Every rule is invariant under
// shifts by 128 bytes, the largest segment, so a warp's transactions depend
// only on which lanes are active, on their offsets and on A mod 128. The
// warps therefore fall into classes (warp index within the block × whether
// the block is the last one along each mapped axis, where lanes past the
// extent are inactive), and for each class the histogram of A mod 128 over
// its blocks and over the in-thread loop iterations is a convolution of
// arithmetic progressions modulo 128. The rule is applied once per class
// and residue (classes with the same active lanes and relative offsets
// share the results): the cost is O((loops + 8) × 128² + classes × 128)
// steps plus the rule applications, independent of the kernel's size.
// Matmul at M=N=P=4096 (over 4·10^9 warp instructions) takes about 0.1 ms.
//
// The rules are written from the CUDA C Programming Guide as quoted in
// shared/reference/hardware.md §2, independently of package sim/coalesce;
// where the guide leaves a choice open they follow the decisions
// documented in sim/coalesce (see exactRule).
//
// Only rectangular nests are closed-form here: a reference inside a
// divergent in-thread loop (bounds that depend on a thread-mapped loop) or
// inside an in-thread loop whose bounds depend on an outer loop
// (triangular) gives an error that says "not closed-form"; a per-thread
// kernel gives ErrExactPerThread.
func ExactCounts(dev *arch.Device, l *traces.Launch) ([]ExactRef, error) {
	if l.Info().PerThread {
		return nil, fmt.Errorf("%s: %w", l.Kernel.Name, ErrExactPerThread)
	}
	ru, err := exactRuleOf(dev)
	if err != nil {
		return nil, err
	}
	g, err := exactGeometryOf(l)
	if err != nil {
		return nil, err
	}
	enclosing, err := exactEnclosingLoops(l)
	if err != nil {
		return nil, err
	}
	out := make([]ExactRef, len(l.Refs))
	for i := range l.Refs {
		r := &l.Refs[i]
		if err := exactCountRef(ru, &g, l, r, enclosing[r.ID], &out[i]); err != nil {
			return nil, fmt.Errorf("%s: %s (line %d): %w", l.Kernel.Name, r.Text, r.Line, err)
		}
		out[i].Ref, out[i].Text, out[i].Op = i, r.Text, r.Op
	}
	return out, nil
}

// ErrExactPerThread says the closed form does not apply to a per-thread
// kernel, whose ifs and loops decide which lanes take part.
var ErrExactPerThread = errors.New("the closed-form counts apply to loop nests only: a per-thread kernel's ifs and loops decide which lanes run each instruction; hint: run simulates its counts")

// exactResidues is the number of residues tracked: the largest segment.
const exactResidues = 128

// exactHist is a histogram over addresses modulo 128.
type exactHist [exactResidues]int64

// exactProgression returns the histogram of x0 + k·d mod 128 for
// k = 0 … n-1. The residues repeat with period 128/gcd(d, 128), so it
// costs at most 128 steps whatever n is.
func exactProgression(x0, d uint64, n int64) exactHist {
	var h exactHist
	if n <= 0 {
		return h
	}
	period := int64(exactResidues)
	if dm := d % exactResidues; dm == 0 {
		period = 1
	} else {
		period = exactResidues >> bits.TrailingZeros64(dm)
	}
	full, rem := n/period, n%period
	for k := range period {
		c := full
		if k < rem {
			c++
		}
		h[(x0+uint64(k)*d)%exactResidues] += c
	}
	return h
}

// exactConvolve is the histogram of the sum of two independent residues.
func exactConvolve(a, b *exactHist) exactHist {
	var h exactHist
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			if y != 0 {
				h[(i+j)%exactResidues] += x * y
			}
		}
	}
	return h
}

// exactGeometry is the launch's thread geometry per axis (x, y, z).
type exactGeometry struct {
	dim    [3]int64 // block extent
	grid   [3]int64 // blocks
	extent [3]int64 // iterations of the mapped loop, 1 if none
	loop   [3]int   // mapped loop, -1 if none
	warps  int
}

func exactGeometryOf(l *traces.Launch) (exactGeometry, error) {
	g := exactGeometry{
		dim:    [3]int64{int64(l.Block.X), int64(l.Block.Y), int64(l.Block.Z)},
		extent: [3]int64{1, 1, 1},
		loop:   [3]int{-1, -1, -1},
		warps:  l.WarpsPerBlock(),
	}
	gr := l.Grid()
	g.grid = [3]int64{int64(gr.X), int64(gr.Y), int64(gr.Z)}
	for v := range l.Loops {
		lp := &l.Loops[v]
		if !lp.Mapped {
			continue
		}
		if exactDependsOnLoops(lp.Lower) || exactDependsOnLoops(lp.Upper) {
			return g, fmt.Errorf("%s: not closed-form: mapped loop %s has bounds that depend on another loop", l.Kernel.Name, lp.Var)
		}
		g.loop[lp.Axis] = v
		g.extent[lp.Axis] = lp.Extent
	}
	for ax := range 3 {
		if g.dim[ax] <= 0 || g.grid[ax] <= 0 || g.extent[ax] > g.grid[ax]*g.dim[ax] || g.extent[ax] <= (g.grid[ax]-1)*g.dim[ax] {
			return g, fmt.Errorf("%s: grid %s of block %s does not cover extent %d on axis %s exactly",
				l.Kernel.Name, gr, l.Block, g.extent[ax], kernel.Axis(ax))
		}
	}
	return g, nil
}

func exactDependsOnLoops(f traces.Linear) bool {
	for _, c := range f.Coef {
		if c != 0 {
			return true
		}
	}
	return false
}

// exactEnclosingLoops returns, by reference ID, the loops around each
// reference, outermost first.
func exactEnclosingLoops(l *traces.Launch) ([][]int, error) {
	p := l.Kernel.Program
	out := make([][]int, len(p.Refs))
	var stack []int
	var walk func(nodes []kernel.Node) error
	walk = func(nodes []kernel.Node) error {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Loop:
				stack = append(stack, n.Index)
				if err := walk(n.Body); err != nil {
					return err
				}
				stack = stack[:len(stack)-1]
			case *kernel.Stmt:
				refs := n.Loads
				if n.Store != nil {
					refs = append(refs[:len(refs):len(refs)], n.Store)
				}
				for _, r := range refs {
					if r.ID < 0 || r.ID >= len(out) {
						return fmt.Errorf("%s: reference %s has ID %d outside the program's %d references", l.Kernel.Name, r.Text, r.ID, len(out))
					}
					out[r.ID] = append([]int(nil), stack...)
				}
			default:
				return fmt.Errorf("%s: not closed-form: program node %T", l.Kernel.Name, n)
			}
		}
		return nil
	}
	if err := walk(p.Body); err != nil {
		return nil, err
	}
	for _, r := range l.Refs {
		if r.ID < 0 || r.ID >= len(out) {
			return nil, fmt.Errorf("%s: reference %s has ID %d outside the program's %d references", l.Kernel.Name, r.Text, r.ID, len(out))
		}
	}
	return out, nil
}

// exactMul multiplies non-negative counts, reporting overflow of int64.
func exactMul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	return int64(lo), true
}

// exactTrips is the number of iterations of a loop with constant bounds.
func exactTrips(lp *traces.BoundLoop) int64 {
	span := lp.Upper.Const - lp.Lower.Const
	if span <= 0 {
		return 0
	}
	return (span + lp.Step - 1) / lp.Step
}

// exactPattern is a warp's active lanes and their address offsets from the
// lowest active lane, with the rule's result per residue of that lane's
// address, filled in on first use.
type exactPattern struct {
	mask uint32
	off  [traces.WarpSize]int64
	done [exactResidues]bool
	txns [exactResidues]exactWarpTxns
}

func exactCountRef(ru exactRule, g *exactGeometry, l *traces.Launch, r *traces.Ref, enclosing []int, out *ExactRef) error {
	if err := exactCheckRef(l, r); err != nil {
		return err
	}
	hist, lane, err := exactThreadHist(g, l, r, enclosing)
	if err != nil {
		return err
	}
	var patterns []*exactPattern
	// Edge classes: bit ax set means the last block along axis ax.
	for edge := range 8 {
		blocks, ok := exactBlockHist(g, lane, edge)
		if !ok {
			continue
		}
		h := exactConvolve(&hist, &blocks)
		var weight int64
		for _, c := range h {
			weight += c
		}
		if weight == 0 {
			continue
		}
		for w := range g.warps {
			mask, off, first := exactWarpPattern(g, lane, edge, w)
			if mask == 0 {
				continue
			}
			p := exactIntern(&patterns, mask, &off)
			p.count(ru, r, &h, weight, first, out)
		}
	}
	out.Transactions = out.Txn32 + out.Txn64 + out.Txn128
	out.Bytes = 32*out.Txn32 + 64*out.Txn64 + 128*out.Txn128
	return nil
}

// exactCheckRef refuses a reference the closed form does not take.
func exactCheckRef(l *traces.Launch, r *traces.Ref) error {
	if !exactValidWidth(r.Width) {
		return fmt.Errorf("width %d bytes: the coalescing rules take 1, 2, 4, 8 or 16", r.Width)
	}
	if r.Op != traces.OpLoad && r.Op != traces.OpStore {
		return fmt.Errorf("op %s is not a memory access", r.Op)
	}
	for _, a := range l.Arrays {
		if a.Name == r.Array && a.Space != kernel.SpaceGlobal {
			return fmt.Errorf("not closed-form: array %s is not in global memory", a.Name)
		}
	}
	return nil
}

// exactThreadHist is the histogram of r's address residues over the
// iterations of one thread (the base, with the mapped loops' lower
// bounds, and one progression per in-thread loop around r), and the bytes
// r moves per thread step along each axis.
func exactThreadHist(g *exactGeometry, l *traces.Launch, r *traces.Ref, enclosing []int) (exactHist, [3]int64, error) {
	coef := r.Addr.Coef
	var lane [3]int64 // bytes per thread step on each axis
	base := uint64(r.Addr.Const)
	for ax, v := range g.loop {
		if v >= 0 {
			lane[ax] = coef[v] * l.Loops[v].Step
			base += uint64(coef[v] * l.Loops[v].Lower.Const)
		}
	}
	hist := exactProgression(base, 0, 1)
	bound, ok := exactMul(int64(l.Blocks()), int64(g.warps))
	inThread := make([]bool, len(l.Loops))
	for _, v := range enclosing {
		lp := &l.Loops[v]
		if lp.Mapped {
			continue
		}
		inThread[v] = true
		if lp.Divergent {
			return hist, lane, fmt.Errorf("not closed-form: loop %s is divergent (its bounds depend on a thread-mapped loop)", lp.Var)
		}
		if exactDependsOnLoops(lp.Lower) || exactDependsOnLoops(lp.Upper) {
			return hist, lane, fmt.Errorf("not closed-form: loop %s has bounds that depend on an outer loop (a triangular nest)", lp.Var)
		}
		n := exactTrips(lp)
		if ok {
			bound, ok = exactMul(bound, n)
		}
		p := exactProgression(uint64(coef[v]*lp.Lower.Const), uint64(coef[v]*lp.Step), n)
		hist = exactConvolve(&hist, &p)
	}
	// Each warp instruction makes at most 64 transactions of at most 128
	// bytes; the totals must fit.
	if ok {
		_, ok = exactMul(bound, 64*128)
	}
	if !ok {
		return hist, lane, errors.New("the counts overflow int64")
	}
	for v, c := range coef {
		if c != 0 && !l.Loops[v].Mapped && !inThread[v] {
			return hist, lane, fmt.Errorf("not closed-form: the address uses loop %s, which does not enclose it", l.Loops[v].Var)
		}
	}
	return hist, lane, nil
}

// exactBlockHist is the histogram of the blocks' address offsets in edge
// class edge (bit ax set: the last block along axis ax, else the interior
// ones); false when the class has no blocks.
func exactBlockHist(g *exactGeometry, lane [3]int64, edge int) (exactHist, bool) {
	var blocks exactHist
	blocks[0] = 1
	for ax := range 3 {
		last := edge&(1<<ax) != 0
		if !last && g.grid[ax] < 2 {
			return blocks, false // no interior blocks on this axis
		}
		step := uint64(lane[ax] * g.dim[ax])
		var f exactHist
		if last {
			f = exactProgression(step*uint64(g.grid[ax]-1), 0, 1)
		} else {
			f = exactProgression(0, step, g.grid[ax]-1)
		}
		blocks = exactConvolve(&blocks, &f)
	}
	return blocks, true
}

// count adds to out the requests and transactions of the warps of pattern
// p whose first lane's address residues are h (weight in all), with first
// the offset of the pattern's first lane.
func (p *exactPattern) count(ru exactRule, r *traces.Ref, h *exactHist, weight, first int64, out *ExactRef) {
	lanes := int64(bits.OnesCount32(p.mask))
	halves := int64(0)
	if p.mask&0xFFFF != 0 {
		halves++
	}
	if p.mask&0xFFFF0000 != 0 {
		halves++
	}
	out.Requests += weight
	out.ActiveLanes += weight * lanes
	out.HalfWarps += weight * halves
	for res, c := range h {
		if c == 0 {
			continue
		}
		rho := (uint64(res) + uint64(first)) % exactResidues
		if !p.done[rho] {
			p.txns[rho] = ru.warp(r.Op, int64(r.Width), p.mask, &p.off, int64(rho))
			p.done[rho] = true
		}
		t := &p.txns[rho]
		out.Txn32 += c * t.t32
		out.Txn64 += c * t.t64
		out.Txn128 += c * t.t128
		out.CoalescedHalfWarps += c * t.coalesced
	}
}

// exactWarpPattern returns the active lanes of warp w in a block of the
// given edge class, their offsets from the lowest active lane, and that
// lane's offset from the block's first thread.
func exactWarpPattern(g *exactGeometry, lane [3]int64, edge, w int) (mask uint32, rel [traces.WarpSize]int64, first int64) {
	threads := g.dim[0] * g.dim[1] * g.dim[2]
	var off [traces.WarpSize]int64
	for i := range traces.WarpSize {
		t := int64(w)*traces.WarpSize + int64(i)
		if t >= threads {
			break
		}
		coord := [3]int64{t % g.dim[0], t / g.dim[0] % g.dim[1], t / (g.dim[0] * g.dim[1])}
		active := true
		for ax := range 3 {
			if edge&(1<<ax) != 0 && (g.grid[ax]-1)*g.dim[ax]+coord[ax] >= g.extent[ax] {
				active = false
			}
			off[i] += lane[ax] * coord[ax]
		}
		if active {
			mask |= 1 << i
		}
	}
	if mask == 0 {
		return 0, rel, 0
	}
	first = off[bits.TrailingZeros32(mask)]
	for i := range traces.WarpSize {
		if mask&(1<<i) != 0 {
			rel[i] = off[i] - first
		}
	}
	return mask, rel, first
}

// exactIntern returns the pattern of *ps with these lanes and offsets,
// adding one if there is none.
func exactIntern(ps *[]*exactPattern, mask uint32, off *[traces.WarpSize]int64) *exactPattern {
	for _, q := range *ps {
		if q.mask == mask && q.off == *off {
			return q
		}
	}
	p := &exactPattern{mask: mask, off: *off}
	*ps = append(*ps, p)
	return p
}
