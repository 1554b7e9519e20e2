package traces

import (
	"fmt"
	"iter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// Op is the kind of a warp instruction.
type Op uint8

// Warp instruction kinds.
const (
	OpLoad Op = iota
	OpStore
	OpCompute
	// OpBarrier is __syncthreads(): the warp waits until every live warp
	// of its block has reached it.
	OpBarrier
)

func (o Op) String() string {
	switch o {
	case OpLoad:
		return "load"
	case OpStore:
		return "store"
	case OpCompute:
		return "compute"
	case OpBarrier:
		return "barrier"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Source is a kernel launch as the simulator replays it: its shape and a
// cursor over each warp's instructions. A bound kernel (Launch) is one; a
// trace file or another kernel form is another, and the simulator needs
// nothing else of them.
type Source interface {
	// Info describes the launch.
	Info() *Info
	// NewWarp returns a cursor, positioned by Reset. The simulator keeps
	// one per resident warp slot and reuses it for every warp the slot
	// holds.
	NewWarp() Warp
}

// Counted is a Source that knows its instruction counts in closed form,
// without streaming them: a sampled simulation keeps them exact.
type Counted interface {
	Source
	// WarpInstructions and RefInstructions (per reference, indexed like
	// Info.Refs) count the warp instructions of the launch.
	WarpInstructions() float64
	RefInstructions() []float64
	// ExactWork reports whether the counts are exact rather than upper
	// bounds or estimates.
	ExactWork() bool
	// CountSpread is the relative standard error of WarpInstructions: 0
	// when exact, +Inf for an upper bound, and an estimate's own.
	CountSpread() float64
}

var _ Counted = (*Launch)(nil)

// Warp is a cursor over the instructions of one warp.
type Warp interface {
	// Reset moves the cursor to the start of warp w of block b.
	Reset(b, w int)
	// NextTo fills dst with the warp's next instruction, the lane
	// addresses of a memory instruction going to addr (which may be
	// &dst.Addr); it reports false at the end of the warp.
	NextTo(dst *WarpInst, addr *[WarpSize]uint64) bool
}

// HalvesWarp is a Warp that can describe a full warp whose half-warps each
// step by one stride (Halves) without writing its 32 addresses: the
// simulator's coalescer then takes the transactions in closed form. The
// simulator uses it where a cursor offers it, as io.Copy uses WriterTo.
type HalvesWarp interface {
	Warp
	// NextHalves is NextTo, except that for a memory instruction of the
	// shape Halves describes it may set *h, leave addr unwritten and
	// report lazy.
	NextHalves(dst *WarpInst, addr *[WarpSize]uint64, h *Halves) (has, lazy bool)
	// Addresses writes to addr the lane addresses of the instruction the
	// latest NextHalves reported lazy.
	Addresses(addr *[WarpSize]uint64)
}

// Info is what the simulator needs to know of a launch besides its
// instructions.
type Info struct {
	// Kernel names the kernel; Mapping says how its loops map to threads
	// ("" when the source has no mapping).
	Kernel  string
	Mapping string
	Block   arch.Dim3
	Grid    arch.Dim3
	// Regs is the registers per thread and Smem the shared memory per
	// block, for the occupancy calculator (0: not known).
	Regs int
	Smem arch.Bytes
	// Dependent says every load waits for the previous one (a pointer
	// chase).
	Dependent bool
	// PerThread says the source is a per-thread (CUDA-style) kernel,
	// which may have shared memory and barriers.
	PerThread bool
	// Refs are the memory references, indexed by WarpInst.Ref.
	Refs []RefInfo
}

// RefInfo describes one memory reference of a launch.
type RefInfo struct {
	// Text is the reference as written, e.g. "A[i1][i3]".
	Text string
	Op   Op
	// Space is the reference's memory space: global, or shared memory
	// (the bank rule, no caches).
	Space kernel.Space
}

// Blocks is the number of blocks of the grid.
func (i *Info) Blocks() int { return i.Grid.Threads() }

// WarpsPerBlock is ceil(block threads / 32).
func (i *Info) WarpsPerBlock() int { return (i.Block.Threads() + WarpSize - 1) / WarpSize }

// Stream yields every warp instruction of src: block 0 warps 0, 1, …,
// then block 1, and so on. It reuses one WarpInst, so a consumer that
// keeps an instruction must copy it. Memory is one cursor.
func Stream(src Source) iter.Seq[*WarpInst] {
	return func(yield func(*WarpInst) bool) {
		info := src.Info()
		c := src.NewWarp()
		var w WarpInst
		nb, nw := info.Blocks(), info.WarpsPerBlock()
		for b := range nb {
			for wi := range nw {
				c.Reset(b, wi)
				for c.NextTo(&w, &w.Addr) {
					if !yield(&w) {
						return
					}
				}
			}
		}
	}
}

// Info describes the launch for the simulator.
func (l *Launch) Info() *Info {
	refs := make([]RefInfo, len(l.Refs))
	for i, r := range l.Refs {
		refs[i] = RefInfo{Text: r.Text, Op: r.Op, Space: r.Space}
	}
	return &Info{Kernel: l.Kernel.Name, Mapping: l.Mapping.String(), Block: l.Block, Grid: l.grid,
		Regs: l.Regs, Smem: l.Smem, Dependent: l.Dependent, PerThread: l.pt != nil, Refs: refs}
}

// NewWarp returns a cursor over the warps of l.
func (l *Launch) NewWarp() Warp {
	if l.pt != nil {
		return &ThreadCursor{l: l, pt: l.pt}
	}
	return &WarpCursor{l: l}
}

var (
	_ Source     = (*Launch)(nil)
	_ HalvesWarp = (*WarpCursor)(nil)
)
