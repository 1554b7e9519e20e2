package sim

import (
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/constmem"
	"gpumemsim/traces"
)

// ConstantStats count the constant-memory loads of all SMs.
type ConstantStats struct {
	// Requests are warp instructions; Passes the separate requests the
	// constant caches served them in, one per distinct address of a
	// request (a half-warp on CC 1.x; see sim/constmem).
	Requests int64 `json:"requests"`
	Passes   int64 `json:"passes"`
	// Bytes are what the active lanes asked for.
	Bytes int64 `json:"bytes"`
	// Cache counts the passes at the SMs' constant caches, as L1 counts
	// global loads at the L1s: a pass is one access.
	Cache L1Stats `json:"cache,omitzero"`
	// FillSectors are the 32-byte sectors the caches' misses read from
	// the L2, or from DRAM on a device without one.
	FillSectors int64 `json:"fill_sectors,omitempty"`
}

// record counts a constant-memory instruction that took passes.
func (st *ConstantStats) record(ref *RefCounts, width int, active uint32, passes int) {
	st.Requests++
	st.Passes += int64(passes)
	st.Bytes += ref.recordPasses(width, active, passes)
}

// constUnit is the constant-memory path of an SM: its compute
// capability's pass rule, its constant cache (nil when the launch reads
// no constant memory) and the scratch of one instruction's passes.
type constUnit struct {
	rule  arch.CoalescingRule
	cache *level
	addrs []uint64
	txns  []coalesce.Txn
}

// constantAccess serves the constant-memory load of the warp in slot,
// issued at t. Each distinct address of a request is one pass, a lookup
// of the SM's constant cache for the 32-byte sector holding it; the
// load/store unit sends the passes one per cycle, as GPGPU-Sim's
// ldst_unit::constant_cycle sends one access of an instruction per cycle
// to the constant cache, and a miss fetches the line from below. The
// warp's data is there when its last pass's is.
func (s *sm) constantAccess(slot int, t int64) {
	w := &s.warps[slot]
	if w.lazy {
		w.hcur.Addresses(&w.mem.Addr)
	}
	cu := &s.constant
	cu.addrs = constmem.Passes(cu.rule, w.mem.Active, &w.mem.Addr, cu.addrs[:0])
	cu.txns = cu.txns[:0]
	for _, a := range cu.addrs {
		cu.txns = append(cu.txns, coalesce.Txn{Addr: a &^ (atomBytes - 1), Size: atomBytes, Sectors: 1 << (a % 128 / atomBytes)})
	}
	s.res.Constant.record(&s.res.Refs[w.ref].RefCounts, w.mem.Width, w.mem.Active, len(cu.addrs))
	if !s.loadTxns(slot, int(w.ref), cu.txns, t) {
		w.pending++
	}
}

// levelOf is the cache level that serves reference ref's loads: the
// constant cache, the L1, or nil (straight to the memory side).
func (s *sm) levelOf(ref int) *level {
	if s.spec.constant[ref] {
		return s.constant.cache
	}
	return s.l1
}

// constRefs says, per reference of a launch, whether the constant cache
// serves it. A device without a constant cache cannot run a launch that
// reads constant memory, and no launch may write it.
func constRefs(dev *arch.Device, info *traces.Info) ([]bool, error) {
	constant := make([]bool, len(info.Refs))
	for i, r := range info.Refs {
		if r.Space != kernel.SpaceConstant {
			continue
		}
		if r.Op == traces.OpStore {
			return nil, fmt.Errorf("%s stores to constant memory, which a kernel only reads", r.Text)
		}
		constant[i] = true
	}
	if slices.Contains(constant, true) && !dev.Constant.Present() {
		return nil, fmt.Errorf("device %s has no constant cache (constant: size 0B), and the kernel reads constant memory; hint: describe the device's constant cache in its config", dev.Name)
	}
	return constant, nil
}

// newConstUnit builds s's constant path for a launch whose references
// constant marks, counting into s's Result.
func (s *sm) newConstUnit(dev *arch.Device, constant []bool) error {
	s.constant = constUnit{rule: dev.Coalescer.Rule}
	if !slices.Contains(constant, true) {
		return nil
	}
	lv, err := newLevel(dev.Constant, dev.Constant.Sets(), &s.res.Constant.Cache)
	if err != nil {
		return fmt.Errorf("device %s: constant: %w", dev.Name, err)
	}
	s.constant.cache = lv
	s.constant.addrs = make([]uint64, 0, traces.WarpSize)
	s.constant.txns = make([]coalesce.Txn, 0, traces.WarpSize)
	return nil
}
