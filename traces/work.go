package traces

import (
	"math"

	"gpumemsim/kernel"
)

// The work of a launch in closed form, so that a caller can refuse a
// launch too large to simulate before streaming any of it. The counts are
// float64: exact below 2^53 (9·10^15 instructions, years of simulation),
// and beyond that still the right magnitude, where a saturating integer
// would say only "a lot"; a product of many large trip counts becomes
// +Inf rather than wrapping.

// WarpInstructions is the number of warp instructions the launch issues:
// 1 per memory instruction and Count per OpCompute (loop control
// included), summed over every warp, as the simulator's schedulers issue
// them. It is exact when every loop that runs inside the threads has
// constant bounds (every warp with an active lane then runs the same
// iterations), and an upper bound otherwise (each loop counted with its
// most iterations over all lanes and outer iterations). It costs time in
// the size of the program and, for partial blocks, the warps per block,
// never in the iterations.
func (l *Launch) WarpInstructions() float64 {
	if l.pt != nil {
		return l.threadWork().insts
	}
	issued, _ := l.perWarp()
	return issued * float64(l.ActiveWarps())
}

// MemoryInstructions is the number of memory warp instructions (loads and
// stores) of the launch, exact or an upper bound as WarpInstructions.
func (l *Launch) MemoryInstructions() float64 {
	if l.pt != nil {
		return l.threadWork().mem
	}
	_, mem := l.perWarp()
	return mem * float64(l.ActiveWarps())
}

// ExactWork reports whether WarpInstructions, MemoryInstructions and
// RefInstructions are exact: every in-thread loop that may run has
// constant bounds.
func (l *Launch) ExactWork() bool {
	if l.pt != nil {
		return l.threadWork().exact
	}
	return !l.varTrips
}

// CountSpread is the relative standard error of WarpInstructions: 0 when
// it is exact, +Inf when it is an upper bound (or a count stopped past
// its budget), and for a per-thread kernel counted on sample blocks the
// sample's own, the blocks' standard deviation over their mean and the
// square root of their number. The sample's error is no bound: a sample
// that misses the rare heavy blocks of a grid shows no spread.
func (l *Launch) CountSpread() float64 {
	switch {
	case l.pt != nil:
		return l.threadWork().spread
	case l.varTrips:
		return math.Inf(1)
	}
	return 0
}

// RefInstructions is, per reference (indexed like Info.Refs), the warp
// instructions that issue it, exact or an upper bound as
// WarpInstructions.
func (l *Launch) RefInstructions() []float64 {
	if l.pt != nil {
		return append([]float64(nil), l.threadWork().refs...)
	}
	per := make([]float64, len(l.Refs))
	l.walkWork(func(st *kernel.Stmt, times float64) {
		for _, r := range st.Loads {
			per[l.refIndex(r)] += times
		}
		if st.Store != nil {
			per[l.refIndex(st.Store)] += times
		}
	}, func(float64) {})
	warps := float64(l.ActiveWarps())
	for i := range per {
		per[i] *= warps
	}
	return per
}

// perWarp is the instructions issued and the memory instructions of a
// warp with an active lane: each statement executes once per iteration of
// the in-thread loops around it and issues its references and its
// compute count, and each iteration of an in-thread loop issues
// loopControl more.
func (l *Launch) perWarp() (issued, mem float64) {
	l.walkWork(func(st *kernel.Stmt, times float64) {
		refs := float64(len(st.Loads))
		if st.Store != nil {
			refs++
		}
		mem += times * refs
		issued += times * (refs + float64(st.Compute))
	}, func(trips float64) { issued += trips * loopControl })
	return issued, mem
}

// walkWork calls stmt for each statement of the program with the times a
// warp executes it, and loop with the iterations of each in-thread loop.
func (l *Launch) walkWork(stmt func(st *kernel.Stmt, times float64), loop func(trips float64)) {
	var walk func(nodes []kernel.Node, times float64)
	walk = func(nodes []kernel.Node, times float64) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				stmt(n, times)
			case *kernel.Loop:
				if l.Loops[n.Index].Mapped {
					walk(n.Body, times)
					continue
				}
				trips := times * float64(l.trips[n.Index])
				loop(trips)
				walk(n.Body, trips)
			}
		}
	}
	walk(l.Kernel.Program.Body, 1)
}

// refIndex is the index in l.Refs of the bound reference r.
func (l *Launch) refIndex(r *kernel.MemRef) int {
	for i := range l.Refs {
		if l.Refs[i].ID == r.ID {
			return i
		}
	}
	panic("traces: a statement's reference is not bound")
}

// ActiveWarps is the number of warps of the grid with at least one
// active lane; the others yield no instructions. Along each axis every
// block is full but the last, so the grid has at most eight kinds of
// block, and only partial ones need their warps looked at.
func (l *Launch) ActiveWarps() int64 {
	if l.pt != nil {
		return int64(l.Blocks()) * int64(l.WarpsPerBlock())
	}
	dim := [3]int64{int64(l.Block.X), int64(l.Block.Y), int64(l.Block.Z)}
	grid := [3]int64{int64(l.grid.X), int64(l.grid.Y), int64(l.grid.Z)}
	var total int64
	for kind := range 8 {
		count := int64(1)
		var valid [3]int64 // per axis, the coordinates below the extent
		for ax := range 3 {
			if kind>>ax&1 == 0 { // the full blocks
				count *= grid[ax] - 1
				valid[ax] = dim[ax]
			} else { // the last block
				valid[ax] = l.extent[ax] - (grid[ax]-1)*dim[ax]
			}
		}
		if count > 0 {
			total += count * l.activeWarpsIn(valid)
		}
	}
	return total
}

// activeWarpsIn is the number of warps of a block with an active lane
// when the lanes at coordinates below valid are the active ones.
func (l *Launch) activeWarpsIn(valid [3]int64) int64 {
	bx, by := int64(l.Block.X), int64(l.Block.Y)
	nw := int64(l.WarpsPerBlock())
	if valid == [3]int64{bx, by, int64(l.Block.Z)} {
		return nw
	}
	var n int64
	for w := int64(0); w < nw; {
		// The first active thread at or after the warp's first thread;
		// it lies inside the block, as valid is at most the block.
		t := w * WarpSize
		x, y, z := t%bx, t/bx%by, t/(bx*by)
		switch {
		case z >= valid[2]:
			return n
		case y >= valid[1]:
			t = (z + 1) * bx * by
			if z+1 >= valid[2] {
				return n
			}
		case x >= valid[0]:
			t = z*bx*by + (y+1)*bx
			if y+1 >= valid[1] {
				if z+1 >= valid[2] {
					return n
				}
				t = (z + 1) * bx * by
			}
		}
		n++
		w = t/WarpSize + 1
	}
	return n
}
