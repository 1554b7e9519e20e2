package validate

import (
	"fmt"

	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// Thread 0's access sequence, which Peng's reuse analysis walks, and the
// lanes of a warp at each of its accesses: from a loop nest's loops, or
// from warp 0 of block 0 run through the SIMT cursor.

// pengStep is one execution in thread 0's access sequence: of access
// ref (an index of PengResult.Accesses), at byte address addr.
type pengStep struct {
	ref  int
	addr int64
}

// pengTrace is global thread 0's access sequence and, per access, the
// byte addresses of the active lanes of warp 0 of block 0 at its first
// execution by thread 0. accOf maps each reference of l to its access
// (-1: none, for shared memory); n is the number of accesses.
func pengTrace(l *traces.Launch, accOf []int, n int) ([]pengStep, [][]int64, error) {
	if l.Info().PerThread {
		return pengThreadTrace(l, accOf, n)
	}
	trace, first, err := pengNestTrace(l, accOf)
	if err != nil {
		return nil, nil, err
	}
	lanes := make([][]int64, n)
	for i, k := range accOf {
		if k >= 0 {
			lanes[k] = pengWarpLanes(l, i, first[i])
		}
	}
	return trace, lanes, nil
}

// pengThreadTrace runs warp 0 of block 0 of a per-thread kernel through
// its cursor, as the simulator would: thread 0's accesses are lane 0's,
// with their actual control flow, and an access's lanes are those of
// the first instruction lane 0 takes part in.
func pengThreadTrace(l *traces.Launch, accOf []int, n int) ([]pengStep, [][]int64, error) {
	c := l.NewWarp()
	c.Reset(0, 0)
	var w traces.WarpInst
	var trace []pengStep
	lanes := make([][]int64, n)
	for insts := 0; c.NextTo(&w, &w.Addr); insts++ {
		if insts >= PengMaxTrace {
			return nil, nil, fmt.Errorf("%s: warp 0 runs more than %d instructions; Peng's estimate runs thread 0 through them all, so shrink the params", l.Kernel.Name, PengMaxTrace)
		}
		if (w.Op != traces.OpLoad && w.Op != traces.OpStore) || w.Active&1 == 0 || accOf[w.Ref] < 0 {
			continue
		}
		k := accOf[w.Ref]
		trace = append(trace, pengStep{ref: k, addr: int64(w.Addr[0])})
		if lanes[k] == nil {
			for lane := range traces.WarpSize {
				if w.Active&(1<<lane) != 0 {
					lanes[k] = append(lanes[k], int64(w.Addr[lane]))
				}
			}
		}
	}
	if err := l.Err(); err != nil {
		return nil, nil, err
	}
	return trace, lanes, nil
}

// pengNestTrace unrolls global thread 0's program of a loop nest: mapped
// loop variables at their first value, in-thread loops with their actual
// trip counts. It returns the sequence and, per reference, the loop
// values at its first execution (nil when it never executes).
func pengNestTrace(l *traces.Launch, accOf []int) ([]pengStep, [][]int64, error) {
	vals := make([]int64, len(l.Loops))
	first := make([][]int64, len(l.Refs))
	var trace []pengStep
	var run func(nodes []kernel.Node) error
	emit := func(ref int) error {
		if len(trace) >= PengMaxTrace {
			return fmt.Errorf("%s: one thread executes more than %d accesses; Peng's estimate unrolls them all, so shrink the params", l.Kernel.Name, PengMaxTrace)
		}
		if first[ref] == nil {
			first[ref] = append([]int64{}, vals...)
		}
		trace = append(trace, pengStep{ref: accOf[ref], addr: l.Refs[ref].Addr.Eval(vals)})
		return nil
	}
	run = func(nodes []kernel.Node) error {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				for _, r := range n.Loads {
					if err := emit(pengRefIndex(l, r.ID)); err != nil {
						return err
					}
				}
				if n.Store != nil {
					if err := emit(pengRefIndex(l, n.Store.ID)); err != nil {
						return err
					}
				}
			case *kernel.Loop:
				lp := l.Loops[n.Index]
				if lp.Mapped {
					vals[n.Index] = lp.Lower.Const
					if err := run(n.Body); err != nil {
						return err
					}
					continue
				}
				for x := lp.Lower.Eval(vals); x < lp.Upper.Eval(vals); x += lp.Step {
					vals[n.Index] = x
					if err := run(n.Body); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := run(l.Kernel.Program.Body); err != nil {
		return nil, nil, err
	}
	return trace, first, nil
}

func pengRefIndex(l *traces.Launch, id int) int {
	for i, r := range l.Refs {
		if r.ID == id {
			return i
		}
	}
	panic(fmt.Sprintf("validate: %s: reference id %d not bound", l.Kernel.Name, id))
}

// pengWarpLanes is the byte address of every active lane of warp 0 of
// block 0 for reference ref, in-thread loops at vals (thread 0's values
// at the reference's first execution).
func pengWarpLanes(l *traces.Launch, ref int, vals []int64) []int64 {
	if vals == nil {
		vals = make([]int64, len(l.Loops))
	}
	ext := l.ThreadExtents()
	b := l.Block
	lanes := make([]int64, 0, traces.WarpSize)
	for lane := range min(traces.WarpSize, b.Threads()) {
		g := [3]int64{int64(lane % b.X), int64(lane / b.X % b.Y), int64(lane / (b.X * b.Y))}
		if g[0] >= ext[0] || g[1] >= ext[1] || g[2] >= ext[2] {
			continue
		}
		f := l.Refs[ref].Addr
		addr := f.Const
		for v, c := range f.Coef {
			x := vals[v]
			if lp := l.Loops[v]; lp.Mapped {
				x = lp.Lower.Const + lp.Step*g[lp.Axis]
			}
			addr += c * x
		}
		lanes = append(lanes, addr)
	}
	return lanes
}
