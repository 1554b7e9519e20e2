package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// A sampled run counts its skipped blocks exactly where the addresses
// alone decide the counts: each reference's requests and transactions
// (sizes, sectors, bytes, lanes, half-warps), shared memory's passes, and
// the constant and texture requests and passes. Extrapolating them would
// give them within an interval; streaming the skipped blocks through the
// coalescer, bank rule and pass rules (Count's work, without a timing
// model) gives them to the last unit for a small part of what simulating
// those blocks would cost. What the caches, the DRAM and time make of them
// stays extrapolated, but for the requests DRAM is sent where no cache
// stands between (Counts.directRequests).

// A sampled run counts its skipped blocks when that is cheap against
// the simulation: when the blocks it streams through the cursor (the
// skipped blocks less those that add the counts of a like block,
// countclass.go) are at most countRatio per simulated one, or hold at
// most countFree memory instructions. Counting a loop nest's memory
// instruction by its shape costs 45 to 100 ns on the development machine
// (BenchmarkCount; 3.2 s for the 67 M of J14's uncoalesced matmul 1024³
// on gt200, block by block), simulating it 0.7 µs (matmul on fermi, the
// cheapest) to 9 µs (BenchmarkRun; docs/design.md, "Where the time
// goes"), so streaming 2 blocks per simulated one adds at most about a
// quarter to a run, and 5e7 instructions a few seconds. Beyond both the
// counts are extrapolated, with their intervals.
const (
	countRatio = 2
	countFree  = 5e7
)

// worthCounting says whether a sampled run of src that skips the
// skipped blocks from from on, of total, each of about perBlock memory
// instructions, counts them: when its cursor counts warp instructions by
// their shape (a loop nest; a per-thread kernel's interpreter and bank
// rule cost about what simulating does) and the blocks to stream are few
// by the bounds above.
func worthCounting(src traces.Source, from, skipped, total int64, perBlock float64) bool {
	if src.Info().PerThread {
		return false
	}
	if _, shapes := src.NewWarp().(traces.HalvesWarp); !shapes {
		return false
	}
	n := streamed(src, from, from+skipped)
	return n <= countRatio*(total-skipped) || float64(n)*perBlock <= countFree
}

// countSkipped counts blocks [from, to) of src on dev, split over the
// cores into contiguous runs of blocks whose counts are added in order:
// the sums are those of one pass. counted, if not nil, is told the blocks
// counted so far, from one goroutine.
func countSkipped(ctx context.Context, dev *arch.Device, src traces.Source, from, to int64, counted func(n int64)) (*Counts, error) {
	workers := int64(max(1, min(runtime.GOMAXPROCS(0), 8)))
	workers = max(1, min(workers, (to-from)/64))
	refs := len(src.Info().Refs)
	parts := make([]*Counts, workers)
	errs := make([]error, workers)
	done := make([]atomic.Int64, workers)
	var wg sync.WaitGroup
	for i := range workers {
		a := from + (to-from)*i/workers
		b := from + (to-from)*(i+1)/workers
		parts[i] = &Counts{Refs: make([]RefCounts, refs)}
		var report func(done, total int64)
		if counted != nil {
			report = func(d, _ int64) {
				done[i].Store(d - a)
				if i == 0 {
					var n int64
					for j := range done {
						n += done[j].Load()
					}
					counted(n)
				}
			}
		}
		wg.Go(func() {
			k, err := newCounter(dev, src)
			if err == nil {
				k.touched = true // as the simulated blocks' SMs count them
				err = k.blocks(ctx, parts[i], a, b, report)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if counted != nil {
		counted(to - from)
	}
	sum := &Counts{Refs: make([]RefCounts, refs)}
	for i, p := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		sum.add(p)
	}
	return sum, nil
}

// add adds o's counts to c, reference by reference.
func (c *Counts) add(o *Counts) {
	c.Loads.add(&o.Loads)
	c.Stores.add(&o.Stores)
	c.Shared.add(&o.Shared)
	c.Constant.addPasses(&o.Constant)
	c.Texture.addPasses(&o.Texture)
	c.storeSectors += o.storeSectors
	for i := range c.Refs {
		c.Refs[i].add(&o.Refs[i])
	}
}

func (st *SharedStats) add(o *SharedStats) {
	st.LoadRequests += o.LoadRequests
	st.LoadTransactions += o.LoadTransactions
	st.StoreRequests += o.StoreRequests
	st.StoreTransactions += o.StoreTransactions
	st.LoadBytes += o.LoadBytes
	st.StoreBytes += o.StoreBytes
}

// addPasses adds what the SMs count of o (requests, passes, bytes), not
// what their caches do.
func (st *ReadOnlyStats) addPasses(o *ReadOnlyStats) {
	st.Requests += o.Requests
	st.Passes += o.Passes
	st.Bytes += o.Bytes
}

// simulatedCounts is what the SMs of the simulated run r counted, as a
// Counts: each reference's requests and transactions, shared memory's
// passes, and the constant and texture requests and passes (not what
// their caches did). Adding the skipped blocks' Counts to it gives the
// whole launch's.
func simulatedCounts(r *Result) *Counts {
	c := &Counts{Refs: make([]RefCounts, len(r.Refs)), Shared: r.Shared}
	for i := range r.Refs {
		c.Refs[i] = r.Refs[i].RefCounts
	}
	c.Constant.addPasses(&r.Constant)
	c.Texture.addPasses(&r.Texture)
	return c
}

// setIn puts the launch's exact counts c into r, an extrapolated run; a
// nil c, where nothing was counted, leaves r alone.
func (c *Counts) setIn(r *Result) {
	if c == nil {
		return
	}
	r.MemInsts = 0
	for i := range r.Refs {
		r.Refs[i].RefCounts = c.Refs[i]
		r.MemInsts += c.Refs[i].Requests
	}
	r.Shared = c.Shared
	r.Constant.Requests, r.Constant.Passes, r.Constant.Bytes = c.Constant.Requests, c.Constant.Passes, c.Constant.Bytes
	r.Texture.Requests, r.Texture.Passes, r.Texture.Bytes = c.Texture.Requests, c.Texture.Passes, c.Texture.Bytes
}

// directRequests is the DRAM requests the counted blocks c send, where
// every transaction of the launch goes to DRAM as it is: on a device whose
// global memory has no L2, each global load or store transaction is one
// request (directRequests says so of a Result, and reconcile sets DRAM's
// requests, bytes and sectors from the counted transactions). DRAM's own
// counters (row hits, bus time) grow per request at the window's rates.
// Where a reference reads through the constant or texture caches, whose
// fills are extrapolated, it is -1, and so where an L1 caches global
// loads (its fills are); refs says which reference is which.
func (c *Counts) directRequests(dev *arch.Device, refs []RefStats) int64 {
	if dev.L2.CachesGlobal() || dev.Coalescer.CacheGlobalLoads {
		return -1
	}
	var n int64
	for i := range refs {
		switch {
		case refs[i].Space == kernel.SpaceShared.String():
		case refs[i].Space != "":
			return -1
		default:
			n += c.Refs[i].Transactions
		}
	}
	return n
}

// checkRequests holds the launch's counted requests c against the closed
// form, where the source has one: both count every warp instruction of
// every reference.
func checkRequests(c *Counts, exact *closedForm) error {
	if exact == nil {
		return nil
	}
	for i, n := range exact.refInsts {
		if c.Refs[i].Requests != int64(n) {
			return fmt.Errorf("sampling: reference %d has %d warp instructions in closed form; the simulated and counted blocks have %d", i, int64(n), c.Refs[i].Requests)
		}
	}
	return nil
}
