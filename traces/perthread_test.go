package traces

import (
	"fmt"
	"slices"
	"testing"

	"gpumemsim/kernel"
)

// lowerToThreads writes a bound loop nest as the per-thread kernel a
// programmer would write for it by hand: each mapped loop becomes
// v = lower + (blockIdx·blockDim + threadIdx)·step guarded by
// if (v < upper), each in-thread loop a while loop over an int local. Its
// warp stream is an independent oracle for the SIMT cursor: the loop
// nest's cursor shares no code with it.
func lowerToThreads(t *testing.T, l *Launch) *kernel.Kernel {
	t.Helper()
	src := l.Kernel.Program
	p := &kernel.Program{Form: kernel.PerThread, Func: l.Kernel.Name}
	local := map[int]*kernel.Local{} // by loop index
	for i, lp := range src.Loops {
		lc := &kernel.Local{Name: lp.Var, Int: true, Index: len(p.Locals)}
		p.Locals = append(p.Locals, lc)
		local[i] = lc
	}
	var conv func(e *kernel.Expr) *kernel.Expr
	conv = func(e *kernel.Expr) *kernel.Expr {
		c := *e
		if e.Kind == kernel.ExprLoop {
			c.Kind, c.Index = kernel.ExprScalar, local[e.Index].Index
		}
		c.Args = nil
		for _, a := range e.Args {
			c.Args = append(c.Args, conv(a))
		}
		return &c
	}
	refs := map[*kernel.MemRef]*kernel.MemRef{}
	for _, r := range src.Refs {
		c := *r
		c.Index = nil
		for _, ix := range r.Index {
			c.Index = append(c.Index, conv(ix))
		}
		refs[r] = &c
		p.Refs = append(p.Refs, &c)
	}
	cnst := func(v int64) *kernel.Expr { return &kernel.Expr{Kind: kernel.ExprConst, Val: v} }
	bin := func(k kernel.ExprKind, a, b *kernel.Expr) *kernel.Expr {
		return &kernel.Expr{Kind: k, Args: []*kernel.Expr{a, b}}
	}
	scalar := func(lc *kernel.Local) *kernel.Expr {
		return &kernel.Expr{Kind: kernel.ExprScalar, Name: lc.Name, Index: lc.Index}
	}
	set := func(lc *kernel.Local, op string, v *kernel.Expr) *kernel.Stmt {
		s := &kernel.Stmt{Index: len(p.Stmts), Scalar: lc.Name, Local: lc, Assign: op, Value: v, Compute: 1}
		p.Stmts = append(p.Stmts, s)
		return s
	}
	var lower func(nodes []kernel.Node) []kernel.Node
	lower = func(nodes []kernel.Node) []kernel.Node {
		var out []kernel.Node
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				c := *n
				c.Loads = nil
				for _, r := range n.Loads {
					c.Loads = append(c.Loads, refs[r])
				}
				if n.Store != nil {
					c.Store = refs[n.Store]
				}
				c.Local = nil
				c.Index = len(p.Stmts)
				p.Stmts = append(p.Stmts, &c)
				out = append(out, &c)
			case *kernel.Loop:
				lc := local[n.Index]
				bl := &l.Loops[n.Index]
				if bl.Mapped {
					out = append(out, lower(n.Body)...) // set at the top
					continue
				}
				out = append(out, set(lc, "=", conv(n.Lower)),
					&kernel.While{Cond: bin(kernel.ExprLt, scalar(lc), conv(n.Upper)), Body: lower(n.Body),
						Post: []kernel.Node{set(lc, "+=", conv(n.Step))}, Compute: 2})
			}
		}
		return out
	}
	// The loop nest runs only the threads inside every axis's extent (1
	// along an axis without a mapped loop), and each mapped variable is
	// lower + g·step of the thread's global coordinate g.
	var guard *kernel.Expr
	var top []kernel.Node
	for ax := range 3 {
		g := bin(kernel.ExprAdd,
			bin(kernel.ExprMul, &kernel.Expr{Kind: kernel.ExprSpecial, Index: int(kernel.BlockIdxX) + ax}, &kernel.Expr{Kind: kernel.ExprSpecial, Index: int(kernel.BlockDimX) + ax}),
			&kernel.Expr{Kind: kernel.ExprSpecial, Index: int(kernel.ThreadIdxX) + ax})
		in := bin(kernel.ExprLt, g, cnst(l.extent[ax]))
		if guard == nil {
			guard = in
		} else {
			guard = bin(kernel.ExprAnd, guard, in)
		}
		if v := l.mapLoop[ax]; v >= 0 {
			bl := &l.Loops[v]
			top = append(top, set(local[v], "=", bin(kernel.ExprAdd, cnst(bl.Lower.Const), bin(kernel.ExprMul, g, cnst(bl.Step)))))
		}
	}
	p.Body = append(top, &kernel.If{Cond: guard, Then: lower(src.Body), Compute: 6})
	k := *l.Kernel
	k.Program, k.Mapping = p, nil
	params := map[string]int64{}
	for _, pm := range l.Params {
		params[pm.Name] = pm.Value
	}
	k.Params = slices.Clone(l.Params)
	return &k
}

// memInsts lists the memory instructions of warp w of block b.
func memInsts(src Source, b, w int) []WarpInst {
	c := src.NewWarp()
	c.Reset(b, w)
	var out []WarpInst
	var in WarpInst
	for c.NextTo(&in, &in.Addr) {
		if in.Op == OpLoad || in.Op == OpStore {
			out = append(out, in)
		}
	}
	return out
}

// TestThreadsMatchLoopNest streams every stream case both as the loop
// nest and as its hand-lowered per-thread kernel: the memory instructions
// (reference, active lanes, every active lane's address) must agree.
func TestThreadsMatchLoopNest(t *testing.T) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			nest := bindCase(t, tc)
			if nest.Blocks()*nest.Block.Threads() > 1<<17 {
				t.Skip("too large to compare lane by lane")
			}
			k := lowerToThreads(t, nest)
			pt, err := BindGrid(k, nil, nest.Block, nest.Grid(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for b := range nest.Blocks() {
				for w := range nest.WarpsPerBlock() {
					want, got := memInsts(nest, b, w), memInsts(pt, b, w)
					if err := sameMem(want, got); err != nil {
						t.Fatalf("block %d warp %d: %v", b, w, err)
					}
				}
			}
			if err := pt.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sameMem(want, got []WarpInst) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d memory instructions; want %d", len(got), len(want))
	}
	for i := range want {
		w, g := &want[i], &got[i]
		if w.Ref != g.Ref || w.Op != g.Op || w.Active != g.Active || w.Width != g.Width {
			return fmt.Errorf("instruction %d: ref %d %v active %#x width %d; want ref %d %v active %#x width %d",
				i, g.Ref, g.Op, g.Active, g.Width, w.Ref, w.Op, w.Active, w.Width)
		}
		for lane := range WarpSize {
			if w.Active&(1<<lane) != 0 && w.Addr[lane] != g.Addr[lane] {
				return fmt.Errorf("instruction %d (ref %d) lane %d: address %#x; want %#x", i, w.Ref, lane, g.Addr[lane], w.Addr[lane])
			}
		}
	}
	return nil
}
