package sim

import (
	"gpumemsim/arch"
	"gpumemsim/sim/banks"
	"gpumemsim/sim/coalesce"
	"gpumemsim/traces"
)

// smSpec is what every SM of a device is built from.
type smSpec struct {
	icnt          int64 // interconnect latency, each way
	dependent     bool  // every load waits for the previous ones
	warpsPerBlock int
	// space is, per reference, the memory space that serves it: one byte
	// asked once per instruction and per transaction.
	space []refSpace
	// texShare is the number of consecutive SMs that share a texture
	// cache (texture.shared_by, at least 1).
	texShare int
	// touched says to count the sectors each store touches
	// (sm.storeSectors): a sampled run fits its L2 write sectors to them.
	// A full run does not need them, and they cost 0.7% of a store-bound
	// run's instructions (transpose on fermi).
	touched bool
	// src makes the warp slots' cursors, each when its slot first holds
	// a warp: a launch of a few blocks on a large device (a step of a
	// wavefront sequence on a100's 6,912 slots) makes a few.
	src traces.Source
	// What sm.build makes an SM's slots from: its resident blocks, warp
	// schedulers, their issue rate and whether they are greedy then
	// oldest (else loose round robin).
	blocks, scheds int
	ipc            int64
	gto            bool
}

// refSpace is the memory space that serves a reference's accesses.
type refSpace uint8

const (
	spaceGlobal   refSpace = iota // the coalescer, the L1 where it caches loads, the memory side
	spaceShared                   // the SM's shared memory
	spaceConstant                 // the constant cache
	spaceTexture                  // the texture cache: texture fetches and loads through the read-only data cache
)

// launchSpaces is the space of each reference of a launch on dev (an
// error where dev cannot serve one) and, where it uses shared memory,
// dev's bank rule.
func launchSpaces(dev *arch.Device, info *traces.Info) ([]refSpace, banks.Rule, error) {
	shared, rule, err := sharedRefs(dev, info)
	if err != nil {
		return nil, 0, err
	}
	constant, err := constRefs(dev, info)
	if err != nil {
		return nil, 0, err
	}
	texture, err := texRefs(dev, info)
	if err != nil {
		return nil, 0, err
	}
	sp := make([]refSpace, len(shared))
	for r := range sp {
		switch {
		case shared[r]:
			sp[r] = spaceShared
		case constant[r]:
			sp[r] = spaceConstant
		case texture[r]:
			sp[r] = spaceTexture
		}
	}
	return sp, rule, nil
}

type blockCtx struct {
	warpsLeft int
	// arrived counts the live warps waiting at a barrier; when it reaches
	// warpsLeft, all go on.
	arrived int
}

// sm is one streaming multiprocessor: its resident warps and blocks, its
// warp schedulers, its load/store unit, L1, shared memory, constant and
// texture caches, and the shared units it talks to.
type sm struct {
	id       int
	spec     *smSpec
	warps    []warp
	scheds   []scheduler
	blocks   []blockCtx
	freeBlk  []int32
	l1       *level // nil when global loads are not cached
	lsu      lsu
	shared   sharedMem
	constant constUnit
	texture  readPath
	// inst receives the header of each instruction a warp fetches; its
	// Addr is never written.
	inst traces.WarpInst

	firstStart int64
	lastEnd    int64
	warpCycles int64
	// storeSectors are the sectors the stores' transactions touched, where
	// spec.touched says to count them.
	storeSectors int64

	clk  *clock
	grid *grid
	mem  memSide
	// texMem is where texture-cache misses go: mem, or the L2 where it
	// caches textures only and mem is DRAM.
	texMem memSide
	// held is the memory side's hold cell (see hold): l2.holdUntil, or a
	// cell nobody sets on a device without an L2.
	held *int64
	co   *Coalescer
	// shapes is the launch's memo of the transactions and counts of the
	// shapes its warp instructions have met.
	shapes *shapeMemo
	res    *Result
}

// launchBlock makes block id of the grid resident on s at time t.
func (s *sm) launchBlock(id int, t int64) {
	if s.warps == nil {
		s.build()
	}
	b := s.freeBlk[len(s.freeBlk)-1]
	s.freeBlk = s.freeBlk[:len(s.freeBlk)-1]
	if s.firstStart < 0 {
		s.firstStart = t
	}
	wpb := s.spec.warpsPerBlock
	s.blocks[b] = blockCtx{warpsLeft: wpb}
	for w := range wpb {
		slot := int(b)*wpb + w
		wp := &s.warps[slot]
		wp.block = b
		if wp.cur == nil {
			wp.cur = s.spec.src.NewWarp()
			wp.hcur, _ = wp.cur.(traces.HalvesWarp)
		}
		wp.cur.Reset(id, w)
		wp.fetch(&s.inst)
		wp.readyAt = t
		wp.pending = 0
		wp.loadsDone = t
		wp.stores = 0
		wp.storesDone = t
		wp.start = t
		wp.live = true
		sc := &s.scheds[wp.sched]
		if sc.byAge {
			sc.toBack(s.warps, int(wp.local))
		}
		s.refresh(wp)
		if !wp.has {
			s.finishWarp(slot, t)
			continue
		}
		s.wake(int(wp.sched), t)
	}
}

// finishWarp retires a warp whose instructions have all issued and whose
// loads and stores have all completed, at time t.
func (s *sm) finishWarp(slot int, t int64) {
	w := &s.warps[slot]
	w.live = false
	s.warpCycles += t - w.start
	s.lastEnd = max(s.lastEnd, t)
	s.clk.last = max(s.clk.last, t)
	blk := &s.blocks[w.block]
	blk.warpsLeft--
	if blk.warpsLeft > 0 {
		if blk.arrived == blk.warpsLeft {
			s.release(w.block, t)
		}
		return
	}
	s.freeBlk = append(s.freeBlk, w.block)
	s.grid.finished(s.clk, s.id, t)
}

// tryFinish retires the warp in slot if it has issued everything and
// every load and store of it has completed (a warp waiting at a barrier
// counts the barrier among its pending loads: arrive).
func (s *sm) tryFinish(slot int) {
	w := &s.warps[slot]
	if !w.has && w.pending == 0 && w.stores == 0 {
		s.finishWarp(slot, max(w.readyAt, w.loadsDone, w.storesDone))
	}
}

// resolve delivers a load whose time was unknown to the warp in slot.
func (s *sm) resolve(slot int, t int64) {
	w := &s.warps[slot]
	w.loadsDone = max(w.loadsDone, t)
	w.pending--
	if w.pending > 0 {
		return
	}
	s.refresh(w)
	if !w.has {
		s.tryFinish(slot)
		return
	}
	s.wake(int(w.sched), max(w.readyAt, w.loadsDone))
}

// wake makes sure scheduler si runs no later than t (never: no wake-up
// needed).
func (s *sm) wake(si int, t int64) {
	if t == never {
		return
	}
	sc := &s.scheds[si]
	t = max(t, s.clk.now)
	if t < sc.wakeAt {
		sc.wakeAt = t
		s.clk.q.push(t, evSchedule, int32(s.id), int32(si))
	}
}

// refresh recomputes the issue state of warp w in its scheduler's arrays;
// it is called whenever the warp's instruction or loads change.
func (s *sm) refresh(w *warp) {
	sc := &s.scheds[w.sched]
	k := int(w.local)
	if !w.has {
		sc.set(k, never, never)
		return
	}
	if w.atBarrier {
		sc.set(k, never, never)
		return
	}
	t := w.readyAt
	op := w.op
	if op != traces.OpLoad || s.spec.dependent {
		if w.pending > 0 {
			t = never
		} else {
			t = max(t, w.loadsDone)
		}
	}
	if op == traces.OpLoad || op == traces.OpStore {
		sc.set(k, never, t)
	} else {
		sc.set(k, t, never)
	}
}

// issue issues the next instruction of the warp in slot at time t.
func (s *sm) issue(sc *scheduler, slot int, t int64) {
	w := &s.warps[slot]
	res := s.res
	units := max(sc.free, t*sc.ipc)
	// Stall accounting: from the moment the warp's order allowed it to
	// the moment its loads were back is memory; the rest is issue.
	dep := w.readyAt
	if w.op != traces.OpLoad || s.spec.dependent {
		dep = max(dep, w.loadsDone)
	}
	res.Stalls.Memory += max(0, dep-w.readyAt)
	res.Stalls.Issue += max(0, t-dep)

	switch w.op {
	case traces.OpCompute:
		n := int64(w.count)
		res.WarpInsts += n
		sc.free = units + n
		w.readyAt = sc.cycleOf(sc.free)
	case traces.OpBarrier:
		res.WarpInsts++
		sc.free = units + 1
		w.readyAt = t + 1
		s.arrive(slot, t+1)
	default:
		res.WarpInsts++
		res.MemInsts++
		sc.free = units + 1
		w.readyAt = t + 1
		switch s.spec.space[w.ref] {
		case spaceShared:
			s.sharedAccess(slot, t)
		case spaceConstant:
			s.constantAccess(slot, t)
		case spaceTexture:
			s.textureAccess(slot, t)
		default:
			s.globalAccess(slot, t)
		}
	}
	w.fetch(&s.inst)
	s.refresh(w)
	if !w.has {
		s.tryFinish(slot)
	}
}

// globalAccess sends the global-memory load or store of the warp in slot,
// issued at t, as its coalesced transactions.
func (s *sm) globalAccess(slot int, t int64) {
	w := &s.warps[slot]
	txns := s.coalesce(w)
	if w.op == traces.OpStore {
		if s.spec.touched {
			s.storeSectors += touchedSectors(txns)
		}
		s.storeTxns(slot, txns, t)
	} else if !s.loadTxns(s.l1, slot, int(w.ref), txns, t) {
		// Some transactions wait in the LSU; the warp may not use its
		// loads before they have all been sent.
		w.pending++
	}
}

// coalesce is the transactions of the memory instruction of w, straight
// from the shape of its addresses where that decides them (through the
// launch's memo of shapes), and adds its counts to its reference's.
func (s *sm) coalesce(w *warp) []coalesce.Txn {
	rc := &s.res.Refs[w.ref].RefCounts
	if w.lazy {
		if txns, ok := s.shapes.coalesce(s.co, int(w.ref), &w.mem, &w.halves, rc); ok {
			return txns
		}
		w.hcur.Addresses(&w.mem.Addr)
	}
	txns := s.co.CoalesceWarp(&w.mem)
	rc.record(&w.mem, txns)
	return txns
}

// arrive makes the warp in slot wait at its block's barrier from t on;
// the last live warp to arrive releases them all.
func (s *sm) arrive(slot int, t int64) {
	w := &s.warps[slot]
	w.atBarrier = true
	// Until release the warp has something pending, so that one whose
	// last instruction is the barrier waits there for its block, as a
	// thread after a closing __syncthreads() does, and is not retired
	// when its last store completes (and again at the release).
	w.pending++
	blk := &s.blocks[w.block]
	blk.arrived++
	if blk.arrived == blk.warpsLeft {
		s.release(w.block, t)
	}
}

// release lets every warp of block b waiting at its barrier go on at t;
// each waited from its own arrival (its readyAt).
func (s *sm) release(b int32, t int64) {
	s.blocks[b].arrived = 0
	wpb := s.spec.warpsPerBlock
	for slot := int(b) * wpb; slot < (int(b)+1)*wpb; slot++ {
		w := &s.warps[slot]
		if !w.atBarrier {
			continue
		}
		w.atBarrier = false
		w.pending--
		s.res.Stalls.Barrier += t - w.readyAt
		w.readyAt = t
		s.refresh(w)
		if !w.has {
			s.tryFinish(slot)
			continue
		}
		s.wake(int(w.sched), max(w.readyAt, w.loadsDone))
	}
}
