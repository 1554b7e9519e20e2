package sim

import (
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim/banks"
	"gpumemsim/traces"
)

// SharedStats count the shared-memory accesses of all SMs: warp
// instructions (requests) and the passes through the banks they took
// (transactions; more than one per request is a bank conflict).
type SharedStats struct {
	LoadRequests      int64 `json:"load_requests"`
	LoadTransactions  int64 `json:"load_transactions"`
	StoreRequests     int64 `json:"store_requests"`
	StoreTransactions int64 `json:"store_transactions"`
	// LoadBytes and StoreBytes are what the active lanes asked for.
	LoadBytes  int64 `json:"load_bytes"`
	StoreBytes int64 `json:"store_bytes"`
}

// sharedMem is an SM's shared memory: banks that serve one pass per
// cycle, under its compute-capability family's rule.
type sharedMem struct {
	rule    banks.Rule
	latency int64
	// free is the first cycle the banks are free: passes of successive
	// accesses queue behind one another.
	free int64
}

// access serves the shared-memory instruction of the warp in slot,
// issued at t: its passes take the banks one cycle each, and a load's
// data is there latency cycles after its last pass begins.
func (s *sm) sharedAccess(slot int, t int64) {
	w := &s.warps[slot]
	sh := &s.shared
	var passes int
	if w.lazy {
		passes = sh.lazyPasses(w)
	} else {
		passes = banks.Transactions(sh.rule, w.mem.Width, w.mem.Active, &w.mem.Addr)
	}
	start := max(t, sh.free)
	sh.free = start + int64(passes)
	s.res.Shared.count(&s.res.Refs[w.ref].RefCounts, w.op == traces.OpStore, w.mem.Width, w.mem.Active, passes)
	if w.op != traces.OpStore {
		w.known(start + int64(passes) - 1 + sh.latency)
	}
}

// lazyPasses is the passes of the full warp w, whose addresses came as
// Halves: in closed form where the banks have one, else from its
// addresses.
func (sh *sharedMem) lazyPasses(w *warp) int {
	h := &w.halves
	if passes, ok := banks.Halves(sh.rule, w.mem.Width, h.Lo, h.Hi, h.Stride); ok {
		return passes
	}
	w.hcur.Addresses(&w.mem.Addr)
	return banks.Transactions(sh.rule, w.mem.Width, w.mem.Active, &w.mem.Addr)
}

// record counts a shared-memory instruction that took passes.
func (st *SharedStats) record(ref *RefCounts, in *traces.WarpInst, passes int) {
	st.count(ref, in.Op == traces.OpStore, int(in.Width), in.Active, passes)
}

// count adds a shared-memory instruction to st and to its reference.
func (st *SharedStats) count(ref *RefCounts, store bool, width int, active uint32, passes int) {
	bytes := ref.recordPasses(width, active, passes)
	if store {
		st.StoreRequests++
		st.StoreTransactions += int64(passes)
		st.StoreBytes += bytes
		return
	}
	st.LoadRequests++
	st.LoadTransactions += int64(passes)
	st.LoadBytes += bytes
}

// sharedRefs says, per reference of a launch, whether shared memory
// serves it, and gives dev's bank rule when any does.
func sharedRefs(dev *arch.Device, info *traces.Info) ([]bool, banks.Rule, error) {
	shared := make([]bool, len(info.Refs))
	for i, r := range info.Refs {
		shared[i] = r.Space == kernel.SpaceShared
	}
	if !slices.Contains(shared, true) {
		return shared, 0, nil
	}
	rule, err := BankRule(dev)
	return shared, rule, err
}

// BankRule is dev's shared-memory bank rule; its bank count must be the
// config's. A device whose fields disagree is refused only when a kernel
// uses shared memory: the rest of it can still run other kernels (a
// coalescing rule of CC 1.x on a device of 32 banks, to compare the
// coalescing alone).
func BankRule(dev *arch.Device) (banks.Rule, error) {
	r, err := banks.RuleFor(dev.Coalescer.Rule, dev.SM.BankWidth)
	if err == nil && banks.Banks(r) != dev.SM.SharedMemoryBanks {
		err = fmt.Errorf("sm.shared_memory_banks is %d, but coalescer.rule %v has the %v bank rule of %d banks; "+
			"set sm.shared_memory_banks: %d in the device's config, or a rule whose banks it has",
			dev.SM.SharedMemoryBanks, dev.Coalescer.Rule, r, banks.Banks(r), banks.Banks(r))
	}
	if err != nil {
		return 0, fmt.Errorf("device %s: shared memory, which the kernel uses: %w", dev.Name, err)
	}
	return r, nil
}
