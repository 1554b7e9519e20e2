package sim_test

import (
	"context"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// irb builds per-thread kernels in Go, for tests that must not wait on a
// parser: each helper makes one IR node.
type irb struct {
	p      *kernel.Program
	arrays []*kernel.Array
}

func newIRB() *irb { return &irb{p: &kernel.Program{Form: kernel.PerThread, Func: "test"}} }

func cst(v int64) *kernel.Expr { return &kernel.Expr{Kind: kernel.ExprConst, Val: v} }
func spc(s kernel.Special) *kernel.Expr {
	return &kernel.Expr{Kind: kernel.ExprSpecial, Index: int(s), Name: s.String()}
}
func op(k kernel.ExprKind, a, b *kernel.Expr) *kernel.Expr {
	return &kernel.Expr{Kind: k, Args: []*kernel.Expr{a, b}}
}
func add(a, b *kernel.Expr) *kernel.Expr { return op(kernel.ExprAdd, a, b) }
func mul(a, b *kernel.Expr) *kernel.Expr { return op(kernel.ExprMul, a, b) }

func (b *irb) local(name string) *kernel.Local {
	l := &kernel.Local{Name: name, Int: true, Index: len(b.p.Locals)}
	b.p.Locals = append(b.p.Locals, l)
	return l
}

func (b *irb) get(l *kernel.Local) *kernel.Expr {
	return &kernel.Expr{Kind: kernel.ExprScalar, Name: l.Name, Index: l.Index}
}

func (b *irb) set(l *kernel.Local, assign string, v *kernel.Expr) *kernel.Stmt {
	s := &kernel.Stmt{Index: len(b.p.Stmts), Scalar: l.Name, Local: l, Assign: assign, Value: v, Compute: 1}
	b.p.Stmts = append(b.p.Stmts, s)
	return s
}

func (b *irb) array(name string, sp kernel.Space, dims ...int64) *kernel.Array {
	a := &kernel.Array{Name: name, Type: kernel.F32, Space: sp, Align: kernel.DefaultAlign}
	for _, d := range dims {
		a.Dims = append(a.Dims, cst(d))
	}
	if sp == kernel.SpaceShared {
		b.p.Shared = append(b.p.Shared, a)
	} else {
		b.arrays = append(b.arrays, a)
	}
	return a
}

func (b *irb) ref(a *kernel.Array, store bool, ix ...*kernel.Expr) *kernel.MemRef {
	r := &kernel.MemRef{ID: len(b.p.Refs), Array: a, Index: ix, Store: store, Text: a.Name + "[..]"}
	b.p.Refs = append(b.p.Refs, r)
	return r
}

// copyStmt is dst = src: one load, one store.
func (b *irb) copyStmt(dst, src *kernel.MemRef) *kernel.Stmt {
	s := &kernel.Stmt{Index: len(b.p.Stmts), Loads: []*kernel.MemRef{src}, Store: dst, Assign: "=", Compute: 2}
	b.p.Stmts = append(b.p.Stmts, s)
	return s
}

// loop is for (l = 0; l < n; l += step) body.
func (b *irb) loop(l *kernel.Local, n, step int64, body ...kernel.Node) []kernel.Node {
	return []kernel.Node{b.set(l, "=", cst(0)), &kernel.While{Cond: op(kernel.ExprLt, b.get(l), cst(n)), Body: body,
		Post: []kernel.Node{b.set(l, "+=", cst(step))}, Compute: 2}}
}

func (b *irb) kernel(block arch.Dim3, grid ...int64) *kernel.Kernel {
	k := &kernel.Kernel{Name: b.p.Func, File: "test.yaml", Arrays: b.arrays, Program: b.p, Block: block}
	for _, g := range grid {
		k.Grid = append(k.Grid, cst(g))
	}
	return k
}

// transposeShared is NVIDIA's coalesced transpose of an N×N matrix
// (the CUDA samples' transposeCoalesced, TILE_DIM 32, BLOCK_ROWS 8): a
// 32×cols tile (cols 32, or 33 with the padding column) written by rows
// and read by columns, a barrier between.
func transposeShared(n, cols int64) *kernel.Kernel {
	b := newIRB()
	in := b.array("idata", kernel.SpaceGlobal, n*n)
	out := b.array("odata", kernel.SpaceGlobal, n*n)
	tile := b.array("tile", kernel.SpaceShared, 32, cols)
	x, y, j := b.local("x"), b.local("y"), b.local("j")
	tx, ty := spc(kernel.ThreadIdxX), spc(kernel.ThreadIdxY)
	bx, by := spc(kernel.BlockIdxX), spc(kernel.BlockIdxY)
	body := []kernel.Node{
		b.set(x, "=", add(mul(bx, cst(32)), tx)),
		b.set(y, "=", add(mul(by, cst(32)), ty)),
	}
	body = append(body, b.loop(j, 32, 8,
		b.copyStmt(b.ref(tile, true, add(ty, b.get(j)), tx), b.ref(in, false, add(mul(add(b.get(y), b.get(j)), cst(n)), b.get(x)))))...)
	body = append(body, &kernel.Barrier{},
		b.set(x, "=", add(mul(by, cst(32)), tx)),
		b.set(y, "=", add(mul(bx, cst(32)), ty)))
	body = append(body, b.loop(j, 32, 8,
		b.copyStmt(b.ref(out, true, add(mul(add(b.get(y), b.get(j)), cst(n)), b.get(x))), b.ref(tile, false, tx, add(ty, b.get(j)))))...)
	b.p.Body = body
	return b.kernel(arch.Dim3{X: 32, Y: 8, Z: 1}, n/32, n/32)
}

func runKernel(t *testing.T, device string, k *kernel.Kernel) (*arch.Device, *sim.Result) {
	t.Helper()
	dev, err := configs.Load(device)
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), dev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dev, res
}

// TestTransposeSharedBankConflicts is the bank-conflict lesson on Fermi
// (32 banks of 32 bits): reading a 32×32 float tile by columns puts the
// 32 lanes of a warp 32 words apart, all in one bank, so every read takes
// 32 passes; one padding column makes the stride 33 words, 32 different
// banks, 1 pass. Writing by rows is 1 pass either way. N = 128: 16 blocks
// of 8 warps, each warp 4 reads and 4 writes of the tile.
func TestTransposeSharedBankConflicts(t *testing.T) {
	const requests = 16 * 8 * 4
	for _, tc := range []struct {
		cols           int64
		loadTxnsPerReq int64
	}{{32, 32}, {33, 1}} {
		dev, res := runKernel(t, "fermi", transposeShared(128, tc.cols))
		sh := res.Shared
		if sh.LoadRequests != requests || sh.StoreRequests != requests {
			t.Errorf("cols %d: %d shared loads and %d stores; want %d each", tc.cols, sh.LoadRequests, sh.StoreRequests, requests)
		}
		if sh.LoadTransactions != tc.loadTxnsPerReq*requests || sh.StoreTransactions != requests {
			t.Errorf("cols %d: %d load and %d store transactions; want %d and %d", tc.cols, sh.LoadTransactions, sh.StoreTransactions, tc.loadTxnsPerReq*requests, requests)
		}
		// Global memory: 128 B per warp access, both ways, coalesced.
		if res.Loads.Requests != requests || res.Loads.Transactions != requests || res.Stores.Requests != requests {
			t.Errorf("cols %d: global loads %d requests %d transactions, stores %d requests; want %d each", tc.cols, res.Loads.Requests, res.Loads.Transactions, res.Stores.Requests, requests)
		}
		ms, err := sim.Metrics(dev, res, sim.StyleNvprof)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"shared_load_transactions_per_request": float64(tc.loadTxnsPerReq), "shared_store_transactions_per_request": 1,
			"l1_shared_bank_conflict": float64((tc.loadTxnsPerReq - 1) * requests), "shared_efficiency": 100 * 2 / float64(tc.loadTxnsPerReq+1)}
		for _, m := range ms {
			if w, ok := want[m.Name]; ok {
				if m.Value != w {
					t.Errorf("cols %d: %s = %v; want %v", tc.cols, m.Name, m.Value, w)
				}
				delete(want, m.Name)
			}
		}
		if len(want) > 0 {
			t.Errorf("cols %d: metrics missing: %v", tc.cols, want)
		}
		if res.Stalls.Barrier <= 0 {
			t.Errorf("cols %d: no warp waited at the barrier", tc.cols)
		}
	}
}

// TestBarrierWaitsForSlowWarp: a block of two warps where warp 1 first
// computes k instructions, then both meet at a barrier. On gt200 (one
// scheduler issuing one warp instruction per cycle) warp 0 reaches the
// barrier first and waits while warp 1 issues its k instructions.
func TestBarrierWaitsForSlowWarp(t *testing.T) {
	const k = 1000
	b := newIRB()
	w := b.local("w")
	slow := &kernel.Stmt{Index: len(b.p.Stmts), Compute: k, Scalar: "f", Assign: "="}
	b.p.Stmts = append(b.p.Stmts, slow)
	b.p.Body = []kernel.Node{
		b.set(w, "=", op(kernel.ExprDiv, spc(kernel.ThreadIdxX), cst(32))),
		&kernel.If{Cond: op(kernel.ExprEq, b.get(w), cst(1)), Then: []kernel.Node{slow}, Compute: 2},
		&kernel.Barrier{},
	}
	_, res := runKernel(t, "gt200", b.kernel(arch.Dim3{X: 64, Y: 1, Z: 1}, 1))
	// Both warps issue w = … (1) and the if (2); warp 1 then issues k.
	// Warp 0 arrives at its barrier about k cycles before warp 1 does.
	if res.Stalls.Barrier < k-10 || res.Stalls.Barrier > k+10 {
		t.Errorf("barrier stall %d warp-cycles; want about %d", res.Stalls.Barrier, k)
	}
	if want := int64(2*(1+2+1) + k); res.WarpInsts != want {
		t.Errorf("%d warp instructions; want %d", res.WarpInsts, want)
	}
}

// TestBarrierLastAfterStore: the kernel's last statement is the barrier,
// after a store: each thread writes A[threadIdx.x], warp 1 computing k
// instructions first, then __syncthreads(). Warp 0's store completes
// while it waits at the barrier; it must wait there for warp 1 all the
// same (about k cycles, as above; k/2 on kepler, whose schedulers issue
// two a cycle) and retire once, when the block is
// released. The simulator used to retire such a warp when its store
// completed and again at the release, and stopped with "stalled with -1
// of 1 blocks unfinished". On devices whose SMs have two schedulers or
// more, so that warp 1's k instructions do not hold up warp 0's (on
// gt200's one scheduler warp 0's store and barrier would issue after
// them).
func TestBarrierLastAfterStore(t *testing.T) {
	const k = 1000
	b := newIRB()
	a := b.array("A", kernel.SpaceGlobal, 64)
	w := b.local("w")
	slow := &kernel.Stmt{Index: len(b.p.Stmts), Compute: k, Scalar: "f", Assign: "="}
	b.p.Stmts = append(b.p.Stmts, slow)
	store := &kernel.Stmt{Index: len(b.p.Stmts), Store: b.ref(a, true, spc(kernel.ThreadIdxX)), Assign: "=", Value: cst(1), Compute: 1}
	b.p.Stmts = append(b.p.Stmts, store)
	b.p.Body = []kernel.Node{
		b.set(w, "=", op(kernel.ExprDiv, spc(kernel.ThreadIdxX), cst(32))),
		&kernel.If{Cond: op(kernel.ExprEq, b.get(w), cst(1)), Then: []kernel.Node{slow}, Compute: 2},
		store,
		&kernel.Barrier{},
	}
	for _, device := range []string{"fermi", "kepler", "maxwell", "a100"} {
		dev, res := runKernel(t, device, b.kernel(arch.Dim3{X: 64, Y: 1, Z: 1}, 1))
		wait := int64(k / dev.Scheduler.IssuePerCycle)
		if res.Stalls.Barrier < wait-10 || res.Stalls.Barrier > wait+10 {
			t.Errorf("%s: barrier stall %d warp-cycles; want about %d", device, res.Stalls.Barrier, wait)
		}
		if res.Cycles < wait {
			t.Errorf("%s: %d cycles; warp 1's %d instructions alone take %d", device, res.Cycles, k, wait)
		}
	}
}
