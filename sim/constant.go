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

// ReadOnlyStats count the loads of a read-only space of all SMs:
// constant memory (Result.Constant) or texture fetches (Result.Texture).
type ReadOnlyStats struct {
	// Requests are warp instructions; Passes the separate lookups the
	// SMs' caches served them in: for constant memory one per distinct
	// address of a request (a half-warp on CC 1.x; see sim/constmem), for
	// a texture fetch one per distinct 32-byte line of the warp.
	Requests int64 `json:"requests"`
	Passes   int64 `json:"passes"`
	// Bytes are what the active lanes asked for.
	Bytes int64 `json:"bytes"`
	// Cache counts the passes at the SMs' constant (texture) caches, as
	// L1 counts global loads at the L1s: a pass is one access, and
	// Cache.FillSectors are the sectors its misses read from the L2, or
	// from DRAM on a device without one.
	Cache L1Stats `json:"cache,omitzero"`
}

// record counts a read-only-space instruction that took passes.
func (st *ReadOnlyStats) record(ref *RefCounts, width int, active uint32, passes int) {
	st.Requests++
	st.Passes += int64(passes)
	st.Bytes += ref.recordPasses(width, active, passes)
}

// constUnit is the constant-memory path of an SM: its compute
// capability's pass rule and its read path through the constant cache.
type constUnit struct {
	rule arch.CoalescingRule
	readPath
}

// readPath is the way a read-only space's loads take through a cache of
// the SM (the constant or the texture cache; nil when the launch reads
// no such memory), with the scratch of one instruction's lookups.
type readPath struct {
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
	w, cu, ok := &s.warps[slot], &s.constant, false
	if w.lazy { // each half-warp's one address, without the lanes
		h := &w.halves
		cu.addrs, ok = constmem.HalvesPasses(cu.rule, h.Lo, h.Hi, h.Stride, cu.addrs[:0])
	}
	if !ok {
		w = s.addressed(slot)
		cu.addrs = constmem.Passes(cu.rule, w.mem.Active, &w.mem.Addr, cu.addrs[:0])
	}
	s.readThrough(slot, t, &cu.readPath, &s.res.Constant)
}

// addressed is the warp in slot with its lanes' addresses filled in.
func (s *sm) addressed(slot int) *warp {
	w := &s.warps[slot]
	if w.lazy {
		w.hcur.Addresses(&w.mem.Addr)
	}
	return w
}

// readThrough sends the lookups at rp.addrs of the warp in slot, issued
// at t, through rp's cache one per cycle (see loadTxns), each for the
// 32-byte sector holding its address, and counts the instruction in st.
func (s *sm) readThrough(slot int, t int64, rp *readPath, st *ReadOnlyStats) {
	w := &s.warps[slot]
	rp.txns = rp.txns[:0]
	for _, a := range rp.addrs {
		rp.txns = append(rp.txns, coalesce.Txn{Addr: a &^ (atomBytes - 1), Size: atomBytes, Sectors: 1 << (a % 128 / atomBytes)})
	}
	st.record(&s.res.Refs[w.ref].RefCounts, w.mem.Width, w.mem.Active, len(rp.addrs))
	if !s.loadTxns(rp.cache, slot, int(w.ref), rp.txns, t) {
		w.pending++
	}
}

// constRefs says, per reference of a launch, whether the constant cache
// serves it. A device without a constant cache cannot run a launch that
// reads constant memory, and no launch may write it.
func constRefs(dev *arch.Device, info *traces.Info) ([]bool, error) {
	return readOnlyRefs(dev.Name, dev.Constant, info, kernel.SpaceConstant)
}

// readOnlyRefs says, per reference of a launch, whether it reads space,
// a read-only space served by cache c of each SM. A device without the
// cache cannot run a launch that reads the space, and no launch may
// write it.
func readOnlyRefs(device string, c arch.Cache, info *traces.Info, space kernel.Space) ([]bool, error) {
	in := make([]bool, len(info.Refs))
	for i, r := range info.Refs {
		if r.Space != space {
			continue
		}
		if r.Op == traces.OpStore {
			return nil, fmt.Errorf("%s stores to %s memory, which a kernel only reads", r.Text, space)
		}
		in[i] = true
	}
	if slices.Contains(in, true) && !c.Present() {
		return nil, fmt.Errorf("device %s has no %[2]s cache (%[2]s: size 0B), and the kernel reads %[2]s memory; hint: describe the device's %[2]s cache in its config", device, space)
	}
	return in, nil
}

// newConstUnit builds s's constant path for a launch whose references
// are in space, counting into s's Result.
func (s *sm) newConstUnit(dev *arch.Device, space []refSpace) error {
	lv, err := newReadLevel(dev.Name, "constant", dev.Constant, slices.Contains(space, spaceConstant), &s.res.Constant)
	if err != nil {
		return err
	}
	s.constant = constUnit{rule: dev.Coalescer.Rule, readPath: newReadPath(lv)}
	return nil
}

// newReadLevel builds cache c of a read-only space, counting into st,
// when a reference of the launch reads through it (used), else returns
// nil.
func newReadLevel(device, name string, c arch.Cache, used bool, st *ReadOnlyStats) (*level, error) {
	if !used {
		return nil, nil
	}
	lv, err := newLevel(c, c.Sets(), &st.Cache)
	if err != nil {
		return nil, fmt.Errorf("device %s: %s: %w", device, name, err)
	}
	lv.inFlight = lv.sector
	return lv, nil
}

// newReadPath is the read path through cache level lv (nil: none), with
// the scratch of one instruction's lookups.
func newReadPath(lv *level) readPath {
	if lv == nil {
		return readPath{}
	}
	return readPath{cache: lv, addrs: make([]uint64, 0, traces.WarpSize), txns: make([]coalesce.Txn, 0, traces.WarpSize)}
}
