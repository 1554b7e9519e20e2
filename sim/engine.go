package sim

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/sim/cache"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/dram"
	"gpumemsim/traces"
)

// Options adjust one run.
type Options struct {
	// Regs is the registers per thread for the occupancy calculator; 0
	// takes the kernel file's regs (and no register limit if it has none).
	Regs int
	// Smem is the shared memory per block; 0 takes the kernel file's.
	Smem arch.Bytes
	// Progress, if not nil, is called now and then with the blocks
	// finished and the total.
	Progress func(done, total int64)
}

const never = math.MaxInt64

// warp is one resident warp context. The fields an issue reads and
// writes come first, next to the header of the instruction it issues; the
// cursor, touched once per instruction by Next, comes last.
type warp struct {
	readyAt int64 // earliest issue of in (issue-slot and ordering rules)
	// pending counts loads whose return time is not known yet;
	// loadsDone is the latest known return.
	pending   int32
	block     int32 // index into sm.blocks
	loadsDone int64
	// stores counts store transactions not acknowledged yet, with an
	// unknown time; storesDone is the latest known acknowledgement. A warp
	// exits only when its stores are acknowledged (as in GPGPU-Sim).
	stores     int32
	sched      int32
	storesDone int64
	local      int32 // index in its scheduler's arrays
	has        bool  // the next instruction to issue is held below
	live       bool
	start      int64 // dispatch time, for achieved occupancy

	// The next instruction: its kind, reference (memory) or instruction
	// count (compute), and for a memory instruction the warp the
	// coalescer reads, lane addresses filled in place by the cursor.
	op    traces.Op
	ref   int32
	count int32
	// lazy says the lane addresses were left unwritten: the warp's
	// half-warps step as halves describes, and the cursor writes mem.Addr
	// only if the coalescer needs them.
	lazy   bool
	halves traces.Halves
	mem    coalesce.Warp

	// cur is the warp's cursor; hcur is the same cursor when it offers the
	// closed-form half-warp path, else nil.
	cur  traces.Warp
	hcur traces.HalvesWarp
}

// next fetches the warp's next instruction through the engine's scratch
// instruction, which carries only its header; the lane addresses go
// straight to w.mem.
func (e *engine) next(w *warp) {
	in := &e.inst
	if w.hcur != nil {
		w.has, w.lazy = w.hcur.NextHalves(in, &w.mem.Addr, &w.halves)
	} else {
		w.has, w.lazy = w.cur.NextTo(in, &w.mem.Addr), false
	}
	w.op, w.ref, w.count = in.Op, int32(in.Ref), in.Count
	w.mem.Width, w.mem.Active = int(in.Width), in.Active
	w.mem.Op = coalesce.Load
	if in.Op == traces.OpStore {
		w.mem.Op = coalesce.Store
	}
}

// scheduler is one warp scheduler. The issue state of its warps is kept
// in small parallel arrays so that picking a warp scans a few cache lines,
// not whole warp contexts. Under loose round robin the arrays are in slot
// order, which its rotation follows; under greedy-then-oldest they are in
// dispatch order (see toBack), so the oldest warp that can issue is the
// first one.
type scheduler struct {
	slots []int32 // warp slots this scheduler owns
	// Per warp, the earliest cycle its own state lets it issue (never
	// while it waits for a load of unknown time or has nothing to issue),
	// split by whether its next instruction needs the LSU: alu holds it
	// for warps that do not (never for those that do), lsu for warps that
	// do. Keeping the classes apart lets one branch-free pass find the
	// earliest time of each.
	alu []int64
	lsu []int64
	// own is the smaller of alu and lsu, for the pass that needs no split.
	own []int64
	// minALU and minLSU are the smallest of alu and of lsu when minOK;
	// refresh keeps them while it can and clears minOK otherwise.
	minALU, minLSU int64
	minOK          bool
	last           int   // index into slots of the last issued warp
	free           int64 // next free issue slot, in units of 1/issuePerCycle cycle
	wakeAt         int64 // time of the pending evSchedule, or never
}

type blockCtx struct {
	warpsLeft int
}

// smState is one streaming multiprocessor.
type smState struct {
	id      int
	warps   []warp
	scheds  []scheduler
	blocks  []blockCtx
	freeBlk []int32

	l1     *cache.Cache
	l1mshr *cache.MSHR
	l1fill []int64 // per MSHR entry: data return time, or -1 while DRAM is pending

	lsuFree int64 // first cycle the load/store unit accepts a transaction
	// A memory instruction whose transactions could not all enter the
	// memory system (no MSHR entry or merge slot) waits here.
	stalled     bool
	stallWarp   int32
	stallRef    int32
	stallTxns   []coalesce.Txn
	stallNext   int
	retryQueued bool

	firstStart int64
	lastEnd    int64
	warpCycles int64
}

// slice is one L2 slice.
type slice struct {
	l2   *cache.Cache
	mshr *cache.MSHR
	free int64 // next cycle the slice can start an access
	// per MSHR entry:
	fill    []int64  // data ready at the slice, or -1 while DRAM reads are pending
	sectors []uint32 // sectors being fetched
	reads   []int32  // DRAM reads outstanding
	finish  []int64  // latest DRAM completion so far
	merged  []int32  // requests the entry holds, the first one included
	whead   []int32  // waiter list (indices into engine.waiters), -1 if empty
	wtail   []int32
	// accesses waiting for a free MSHR entry
	waitq []l2Wait
}

type l2Wait struct {
	addr    uint64
	size    uint32
	sectors uint32
	token   uint64
	ref     int32
}

type waiter struct {
	token uint64
	next  int32
}

// Request kinds carried through DRAM.
const (
	reqL2Fill = iota // fills an L2 MSHR entry
	reqDirect        // a load with no L2 in between: returns to a waiter token
	reqWrite         // a write-back: nobody waits
	reqStore         // a store with no L2 in between: acknowledged to a warp token
)

type memReq struct {
	kind  uint8
	slice int32
	entry int32
	token uint64
	r     dram.Request
}

// Waiter tokens: bit 63 set = an L1 MSHR entry (SM << 32 | entry), clear
// = a warp (SM << 32 | slot).
const tokenL1 = 1 << 63

func warpToken(sm, slot int) uint64 { return uint64(sm)<<32 | uint64(slot) }
func l1Token(sm int, e cache.MSHREntry) uint64 {
	return tokenL1 | uint64(sm)<<32 | uint64(e)
}

type engine struct {
	dev  *arch.Device
	src  traces.Source
	info *traces.Info
	co   *Coalescer
	res  *Result

	q   eventQueue
	now int64
	// inst receives the header of each instruction a warp fetches (see
	// next); its Addr is never written.
	inst traces.WarpInst

	sms    []smState
	slices []slice
	mem    *dram.Memory
	memAt  int64 // time of the pending evDRAM, or never

	// requests in flight to DRAM, by tag
	reqs     []memReq
	freeReqs []int32
	// requests refused by a full DRAM queue, per channel, in order
	overflow [][]int32

	waiters     []waiter
	freeWaiters []int32

	nextBlock   int
	blocksDone  int
	totalBlocks int
	activeBlks  int   // blocks per SM
	lastEvent   int64 // latest completion of anything

	// device constants in engine units
	ipc      int64
	ipcShift int // log2 of ipc when it is a power of two, else -1
	icnt     int64
	l1Lat    int64
	l2Lat    int64
	dramLat  int64
	l1Line   uint64
	l1Sector uint64 // the L1's SectorBytes
	// l1Unsectored: the L1's sectors are as large as its lines
	l1Unsectored bool
	l2Line       uint64
	sliceShift   uint64 // interleave
	// interleaveShift is log2 of the interleave when it is a power of
	// two, else -1.
	interleaveShift int
	channels        uint64
	perChannel      uint64 // slices per channel
	dependent       bool
	lrr             bool  // loose round robin, else greedy-then-oldest
	lookahead       int64 // how far a scheduler may run ahead of the event queue: the interconnect latency
	blockLaunch     int64

	progress func(done, total int64)
	steps    int

	inFlight int // DRAM requests sent and not completed
	// holdUntil is set by an L2 access whose slice queue was full: the
	// sending SM may not send another transaction before it.
	holdUntil        int64
	l2Queue          int64 // l2.queue_depth
	l2Merges         int32 // l2.mshr_merges
	dramReadSectors  int64 // sectors of all DRAM reads sent
	dramWriteSectors int64 // sectors of all DRAM writes sent
}

// Run simulates the launch src on dev and returns its counters. It is
// deterministic: the same inputs give the same Result. It checks its own
// accounting at the end and returns an error if anything does not add up.
func Run(ctx context.Context, dev *arch.Device, src traces.Source, opts Options) (*Result, error) {
	e, err := newEngine(dev, src, opts)
	if err != nil {
		return nil, err
	}
	if err := e.run(ctx); err != nil {
		return nil, err
	}
	e.finish()
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("simulator self-check failed (a bug; please report it with the command line): %w", err)
	}
	return e.res, nil
}

func newEngine(dev *arch.Device, src traces.Source, opts Options) (*engine, error) {
	l := src.Info()
	regs, smem := opts.Regs, opts.Smem
	if regs == 0 {
		regs = l.Regs
	}
	if smem == 0 {
		smem = l.Smem
	}
	occ, err := dev.Occupancy(l.Block, regs, smem)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	co, err := NewCoalescer(dev)
	if err != nil {
		return nil, err
	}
	mem, err := dram.NewMemory(dev)
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", dev.Name, err)
	}
	e := &engine{
		dev: dev, src: src, info: l, co: co, mem: mem, memAt: never,
		res: &Result{
			Device: dev.Name, Kernel: l.Kernel, Mapping: l.Mapping,
			Block: l.Block, Grid: l.Grid, Occupancy: occ,
			Refs: make([]RefStats, len(l.Refs)),
		},
		totalBlocks: l.Blocks(),
		activeBlks:  occ.ActiveBlocks,
		ipc:         int64(dev.Scheduler.IssuePerCycle),
		icnt:        int64(dev.Interconnect.Latency),
		l1Lat:       int64(dev.L1.HitLatency),
		l2Lat:       int64(dev.L2.HitLatency),
		dramLat:     int64(dev.DRAM.Latency),
		sliceShift:  uint64(dev.DRAM.Interleave),
		channels:    uint64(dev.DRAM.Channels),
		dependent:   l.Dependent,
		lrr:         dev.Scheduler.Policy == arch.PolicyLRR,
		lookahead:   int64(dev.Interconnect.Latency),
		blockLaunch: int64(dev.Scheduler.BlockLaunchLatency),
		l2Queue:     int64(dev.L2.QueueDepth),
		l2Merges:    int32(dev.L2.MSHRMerges),
		progress:    opts.Progress,
		overflow:    make([][]int32, dev.DRAM.Channels),
	}
	e.ipcShift = -1
	if e.ipc&(e.ipc-1) == 0 {
		e.ipcShift = bits.TrailingZeros64(uint64(e.ipc))
	}
	for i, r := range l.Refs {
		e.res.Refs[i].Ref = r.Text
		e.res.Refs[i].Op = r.Op.String()
	}
	if dev.L2.Present() {
		e.perChannel = uint64(dev.L2.Slices / dev.DRAM.Channels)
		e.interleaveShift = -1
		if il := e.sliceShift; il&(il-1) == 0 {
			e.interleaveShift = bits.TrailingZeros64(il)
		}
		e.l2Line = uint64(dev.L2.Line)
		g := cache.FromArch(dev.L2.Cache, dev.L2.SetsPerSlice())
		e.slices = make([]slice, dev.L2.Slices)
		for i := range e.slices {
			s := &e.slices[i]
			if s.l2, err = cache.New(g); err != nil {
				return nil, fmt.Errorf("device %s: l2: %w", dev.Name, err)
			}
			if s.mshr, err = cache.NewMSHR(dev.L2.MSHREntries, dev.L2.MSHRMerges); err != nil {
				return nil, fmt.Errorf("device %s: l2: %w", dev.Name, err)
			}
			n := dev.L2.MSHREntries
			s.fill, s.sectors, s.reads, s.finish = make([]int64, n), make([]uint32, n), make([]int32, n), make([]int64, n)
			s.whead, s.wtail = make([]int32, n), make([]int32, n)
			s.merged = make([]int32, n)
		}
	}
	e.sms = make([]smState, dev.SMs)
	for i := range e.sms {
		s := &e.sms[i]
		s.id = i
		s.warps = make([]warp, occ.ActiveBlocks*occ.WarpsPerBlock)
		for w := range s.warps {
			wp := &s.warps[w]
			wp.cur = src.NewWarp()
			wp.hcur, _ = wp.cur.(traces.HalvesWarp)
		}
		s.blocks = make([]blockCtx, occ.ActiveBlocks)
		for b := occ.ActiveBlocks - 1; b >= 0; b-- {
			s.freeBlk = append(s.freeBlk, int32(b))
		}
		s.scheds = make([]scheduler, dev.Scheduler.PerSM)
		per := (len(s.warps) + len(s.scheds) - 1) / len(s.scheds)
		for si := range s.scheds {
			sc := &s.scheds[si]
			sc.slots = make([]int32, 0, per)
			sc.alu, sc.lsu, sc.own = make([]int64, 0, per), make([]int64, 0, per), make([]int64, 0, per)
		}
		for w := range s.warps {
			si := w % len(s.scheds)
			sc := &s.scheds[si]
			s.warps[w].sched = int32(si)
			s.warps[w].local = int32(len(sc.slots))
			sc.slots = append(sc.slots, int32(w))
			sc.alu = append(sc.alu, never)
			sc.lsu = append(sc.lsu, never)
			sc.own = append(sc.own, never)
		}
		for si := range s.scheds {
			s.scheds[si].wakeAt = never
			s.scheds[si].last = -1
		}
		s.stallTxns = make([]coalesce.Txn, 0, coalesce.MaxTxns)
		s.firstStart = -1
		if dev.Coalescer.CacheGlobalLoads {
			e.l1Line = uint64(dev.L1.Line)
			if s.l1, err = cache.New(cache.FromArch(dev.L1, dev.L1.Sets())); err != nil {
				return nil, fmt.Errorf("device %s: l1: %w", dev.Name, err)
			}
			if s.l1mshr, err = cache.NewMSHR(dev.L1.MSHREntries, dev.L1.MSHRMerges); err != nil {
				return nil, fmt.Errorf("device %s: l1: %w", dev.Name, err)
			}
			s.l1fill = make([]int64, dev.L1.MSHREntries)
			g := s.l1.Geometry()
			e.l1Sector = uint64(g.SectorBytes)
			e.l1Unsectored = g.SectorBytes >= g.LineBytes
		}
	}
	return e, nil
}

func (e *engine) run(ctx context.Context) error {
	// Initial dispatch: blocks go round robin over the SMs until every SM
	// is full or the grid is exhausted (GPGPU-Sim's order).
	for round := 0; round < e.activeBlks; round++ {
		for i := range e.sms {
			if e.nextBlock < e.totalBlocks {
				e.launchBlock(&e.sms[i], e.blockLaunch)
			}
		}
	}
	for e.q.len() > 0 {
		ev := e.q.pop()
		e.now = ev.t
		switch ev.kind {
		case evSchedule:
			s := &e.sms[ev.a]
			sc := &s.scheds[ev.b]
			if sc.wakeAt != ev.t {
				continue // superseded by an earlier wake
			}
			sc.wakeAt = never
			e.schedule(s, int(ev.b))
		case evDRAMPush:
			e.pushDRAM(ev.a)
		case evDRAM:
			if e.memAt != ev.t {
				continue
			}
			e.memAt = never
			e.advanceDRAM()
		case evBlockDone:
			if e.nextBlock < e.totalBlocks {
				e.launchBlock(&e.sms[ev.a], ev.t+e.blockLaunch)
			}
		case evLSURetry:
			s := &e.sms[ev.a]
			s.retryQueued = false
			e.retryLSU(s)
		}
		e.steps++
		if e.steps&0xFFF == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if e.blocksDone != e.totalBlocks {
		return fmt.Errorf("simulator stalled with %d of %d blocks unfinished (a bug; please report it)", e.totalBlocks-e.blocksDone, e.totalBlocks)
	}
	return nil
}

// launchBlock makes the next block of the grid resident on s at time t.
func (e *engine) launchBlock(s *smState, t int64) {
	b := s.freeBlk[len(s.freeBlk)-1]
	s.freeBlk = s.freeBlk[:len(s.freeBlk)-1]
	id := e.nextBlock
	e.nextBlock++
	if s.firstStart < 0 {
		s.firstStart = t
	}
	wpb := e.info.WarpsPerBlock()
	s.blocks[b].warpsLeft = wpb
	for w := range wpb {
		slot := int(b)*wpb + w
		wp := &s.warps[slot]
		wp.block = b
		wp.cur.Reset(id, w)
		e.next(wp)
		wp.readyAt = t
		wp.pending = 0
		wp.loadsDone = t
		wp.stores = 0
		wp.storesDone = t
		wp.start = t
		wp.live = true
		e.toBack(s, wp)
		e.refresh(s, wp)
		if !wp.has {
			e.finishWarp(s, slot, t)
			continue
		}
		e.wake(s, int(wp.sched), t)
	}
}

// toBack keeps a greedy-then-oldest scheduler's arrays in dispatch order
// when warp w is dispatched: w, now the youngest, moves to the back, and
// the scheduler's last issued position follows its warp slot. Warps never
// dispatched stay in front, never able to issue.
func (e *engine) toBack(s *smState, w *warp) {
	if e.lrr {
		return
	}
	sc := &s.scheds[w.sched]
	k := int(w.local)
	n := len(sc.slots)
	slot, alu, lsu, own := sc.slots[k], sc.alu[k], sc.lsu[k], sc.own[k]
	copy(sc.slots[k:], sc.slots[k+1:])
	copy(sc.alu[k:], sc.alu[k+1:])
	copy(sc.lsu[k:], sc.lsu[k+1:])
	copy(sc.own[k:], sc.own[k+1:])
	sc.slots[n-1], sc.alu[n-1], sc.lsu[n-1], sc.own[n-1] = slot, alu, lsu, own
	for j := k; j < n; j++ {
		s.warps[sc.slots[j]].local = int32(j)
	}
	switch {
	case sc.last == k:
		sc.last = n - 1
	case sc.last > k:
		sc.last--
	}
}

// finishWarp retires a warp whose instructions have all issued and whose
// loads have all returned, at time t.
func (e *engine) finishWarp(s *smState, slot int, t int64) {
	w := &s.warps[slot]
	w.live = false
	s.warpCycles += t - w.start
	s.lastEnd = max(s.lastEnd, t)
	e.lastEvent = max(e.lastEvent, t)
	blk := &s.blocks[w.block]
	blk.warpsLeft--
	if blk.warpsLeft > 0 {
		return
	}
	e.blocksDone++
	s.freeBlk = append(s.freeBlk, w.block)
	if e.progress != nil && (e.blocksDone&0x3FF == 0 || e.blocksDone == e.totalBlocks) {
		e.progress(int64(e.blocksDone), int64(e.totalBlocks))
	}
	if e.nextBlock < e.totalBlocks {
		// The next block goes to the SM that finishes first in time, not
		// to the first one the engine gets to: a scheduler running ahead
		// must not take a block from an SM that finished before it.
		e.q.push(max(t, e.now), evBlockDone, int32(s.id), 0)
	}
}

// wake makes sure scheduler si of s runs no later than t (never: no
// wake-up needed).
func (e *engine) wake(s *smState, si int, t int64) {
	if t == never {
		return
	}
	sc := &s.scheds[si]
	if t < e.now {
		t = e.now
	}
	if t < sc.wakeAt {
		sc.wakeAt = t
		e.q.push(t, evSchedule, int32(s.id), int32(si))
	}
}

// refresh recomputes the issue state of warp w in its scheduler's arrays;
// it is called whenever the warp's instruction or loads change.
func (e *engine) refresh(s *smState, w *warp) {
	sc := &s.scheds[w.sched]
	k := w.local
	if !w.has {
		sc.set(int(k), never, never)
		return
	}
	t := w.readyAt
	op := w.op
	if op != traces.OpLoad || e.dependent {
		if w.pending > 0 {
			t = never
		} else {
			t = max(t, w.loadsDone)
		}
	}
	a, l := t, int64(never)
	if op == traces.OpLoad || op == traces.OpStore {
		a, l = never, t
	}
	sc.set(int(k), a, l)
}

// set gives warp k of sc the own times a and l, keeping the minima.
func (sc *scheduler) set(k int, a, l int64) {
	oa, ol := sc.alu[k], sc.lsu[k]
	sc.alu[k], sc.lsu[k], sc.own[k] = a, l, min(a, l)
	if !sc.minOK {
		return
	}
	if a <= sc.minALU {
		sc.minALU = a
	} else if oa == sc.minALU {
		sc.minOK = false
	}
	if l <= sc.minLSU {
		sc.minLSU = l
	} else if ol == sc.minLSU {
		sc.minOK = false
	}
}

// minima is the smallest own time of each class over the warps of sc.
func (sc *scheduler) minima() (a, l int64) {
	if !sc.minOK {
		sc.minALU, sc.minLSU = minima(sc.alu, sc.lsu)
		sc.minOK = true
	}
	return sc.minALU, sc.minLSU
}

// eligible is the earliest cycle warp k of sc can issue, or never.
func (e *engine) eligible(s *smState, sc *scheduler, k int) int64 {
	return earliest(sc.alu[k], sc.lsu[k], s)
}

// earliest is the earliest issue time of a warp, or of a set of warps,
// whose earliest own times are a without the LSU and l with it.
func earliest(a, l int64, s *smState) int64 {
	if s.stalled || l == never {
		return a
	}
	return min(a, max(l, s.lsuFree))
}

// scan is one branch-free pass over the warps of a loose-round-robin
// scheduler sc at cycle t. It picks the first warp from start on, in
// cyclic order, that can issue at t (those needing the LSU only when
// gate <= t); pick is -1 when none can. It returns the smallest own time
// of each class (a without the LSU, l with it).
func scan(sc *scheduler, t, gate int64, start int) (pick int, a, l int64) {
	alu, lsu := sc.alu, sc.lsu
	n := len(alu)
	lsu = lsu[:n]
	tl := t
	if gate > t {
		tl = -1
	}
	a, l = never, never
	best := uint64(math.MaxUint64)
	pick = -1
	// Own times are in [0, never] and t, tl in [-1, never), so the
	// differences below cannot overflow; their sign bit says "not yet".
	for k := range n {
		ak, lk := alu[k], lsu[k]
		a = min(a, ak)
		l = min(l, lk)
		late := uint64(t-ak) & uint64(tl-lk) >> 63
		d := k - start
		key := uint64(d+n&(d>>63)) | -late
		if key < best {
			best, pick = key, k
		}
	}
	if best == math.MaxUint64 {
		pick = -1
	}
	return pick, a, l
}

// scanOldest is scan for greedy-then-oldest, whose warps are in dispatch
// order: the pick, the oldest warp that can issue at t, is the first, and
// the pass stops there. Only when no warp can issue are a and l computed,
// over all warps, such that earliest(a, l, s) is the earliest issue: the
// smallest own time of each class (which sc then keeps) when the LSU is
// not free by t, else the smallest of both as a, with l never.
func scanOldest(sc *scheduler, t, gate int64) (pick int, a, l int64) {
	// A warp's next instruction needs the LSU or not, so one of its two
	// own times is never. With the LSU free by t a warp can go when the
	// smaller is due, and when none can, every time with the LSU is past
	// t and so past the LSU's: the earliest issue is the smallest own
	// time of either class, returned as a (l never). Most passes find a
	// warp, so the minima come from sc.minima when none does, a pass
	// only when the kept ones are stale.
	if gate <= t {
		for k, o := range sc.own {
			if o <= t {
				return k, never, never
			}
		}
		a, l = sc.minima()
		return -1, min(a, l), never
	}
	for k, ak := range sc.alu {
		if ak <= t {
			return k, never, never
		}
	}
	a, l = sc.minima()
	return -1, a, l
}

// others is the smallest of the own times in times other than that of
// warp pick, given that the smallest of all is m.
func others(times []int64, pick int, m int64) int64 {
	if times[pick] != m || m == never {
		return m
	}
	o := int64(never)
	for k, v := range times {
		if k != pick {
			o = min(o, v)
		}
	}
	return o
}

// schedule lets scheduler si of s issue as long as it has an eligible
// warp and no other event comes first.
func (e *engine) schedule(s *smState, si int) {
	sc := &s.scheds[si]
	lrr := e.lrr
	alu, lsu := sc.alu, sc.lsu
	// ahead is the greedy-then-oldest pick at the cycle this loop goes on
	// at, when the previous pass found it already (-1: not known).
	ahead := -1
	// slotT is the cycle of the scheduler's next free issue slot.
	slotT := e.cycleOf(sc.free)
	for {
		t := e.now
		known := ahead
		ahead = -1
		if slotT > t {
			e.wake(s, si, e.nextIssue(s, sc))
			return
		}
		gate := s.lsuFree // when a warp needing the LSU may go
		if s.stalled {
			gate = never
		}
		// The warp to issue, and when the others could go: the earliest
		// own time of those needing no LSU and of those needing it (the
		// pick may take the LSU).
		pick := -1
		scanned := true
		otherALU, otherLSU := int64(never), int64(never)
		if !lrr && sc.last >= 0 {
			if alu[sc.last] <= t || (lsu[sc.last] <= t && gate <= t) {
				// Greedy: the last warp while it can go on.
				pick, scanned = sc.last, false
			}
		}
		if scanned {
			var a, l int64
			switch {
			case lrr:
				pick, a, l = scan(sc, t, gate, sc.last+1)
			case known >= 0:
				pick = known
			default:
				pick, a, l = scanOldest(sc, t, gate)
			}
			if pick < 0 {
				if next := earliest(a, l, s); next != never {
					e.wake(s, si, max(next, e.cycleOf(sc.free)))
				}
				return
			}
			if lrr {
				otherALU = others(alu, pick, a)
				otherLSU = others(lsu, pick, l)
			}
		}
		sc.last = pick
		slot := int(sc.slots[pick])
		e.issue(s, sc, slot, t)
		slotNext := e.cycleOf(sc.free)
		nt := e.eligible(s, sc, pick)
		switch {
		case nt <= slotNext:
			nt = slotNext
		case scanned && lrr:
			if nt = min(nt, earliest(otherALU, otherLSU, s)); nt != never {
				nt = max(nt, slotNext)
			}
		case lrr || sc.minOK:
			nt = e.nextIssue(s, sc)
		default:
			// Greedy-then-oldest without the minima at hand: whether some
			// warp can go at slotNext is the oldest-first pass at slotNext,
			// which stops at the first such warp (the pick there, kept for
			// the next pass) and otherwise leaves the minima behind.
			gate := s.lsuFree
			if s.stalled {
				gate = never
			}
			p, a, l := scanOldest(sc, slotNext, gate)
			if p >= 0 {
				nt, ahead = slotNext, p
				break
			}
			if nt = earliest(a, l, s); nt != never {
				nt = max(nt, slotNext)
			}
		}
		if nt == never {
			return
		}
		// Continue in place while this scheduler is within the lookahead of
		// the earliest other event; otherwise leave a wake-up and yield.
		// Nothing another component does can reach this SM sooner than the
		// interconnect latency, so running ahead by less than that cannot
		// deliver data late; it only lets this SM claim an L2 slot a few
		// cycles before another SM whose request arrives at the same time
		// (docs/design.md measures the effect).
		if e.q.len() > 0 && e.q.peek()+e.lookahead <= nt {
			e.wake(s, si, nt)
			return
		}
		e.now, slotT = nt, slotNext
	}
}

// minima is the smallest of alu and the smallest of lsu, which is as long.
// It is small enough to be inlined where a pass needs it.
func minima(alu, lsu []int64) (a, l int64) {
	lsu = lsu[:len(alu)]
	a, l = never, never
	for k, v := range alu {
		a, l = min(a, v), min(l, lsu[k])
	}
	return a, l
}

// cycleOf is the cycle of issue slot u (in units of 1/issuePerCycle
// cycle, u >= 0), rounded up; a shift where the issue rate is a power of
// two, with the value of the division.
func (e *engine) cycleOf(u int64) int64 {
	if e.ipcShift >= 0 {
		return (u + e.ipc - 1) >> uint(e.ipcShift&63)
	}
	return (u + e.ipc - 1) / e.ipc
}

// nextIssue is the earliest cycle scheduler sc can issue again.
func (e *engine) nextIssue(s *smState, sc *scheduler) int64 {
	a, l := sc.minima()
	next := earliest(a, l, s)
	if next == never {
		return never
	}
	return max(next, e.cycleOf(sc.free))
}

// issue issues the next instruction of the warp in slot at time t.
func (e *engine) issue(s *smState, sc *scheduler, slot int, t int64) {
	w := &s.warps[slot]
	res := e.res
	units := max(sc.free, t*e.ipc)
	// Stall accounting: from the moment the warp's order allowed it to
	// the moment its loads were back is memory; the rest is issue.
	dep := w.readyAt
	if w.op != traces.OpLoad || e.dependent {
		dep = max(dep, w.loadsDone)
	}
	res.Stalls.Memory += max(0, dep-w.readyAt)
	res.Stalls.Issue += max(0, t-dep)

	switch w.op {
	case traces.OpCompute:
		n := int64(w.count)
		res.WarpInsts += n
		sc.free = units + n
		w.readyAt = e.cycleOf(sc.free)
	default:
		res.WarpInsts++
		res.MemInsts++
		sc.free = units + 1
		w.readyAt = t + 1
		txns := e.coalesce(w)
		res.Refs[w.ref].record(&w.mem, txns)
		if w.op == traces.OpStore {
			e.storeTxns(s, slot, txns, t)
		} else if !e.loadTxns(s, slot, int(w.ref), txns, t) {
			// Some transactions wait in the LSU; the warp may not use its
			// loads before they have all been sent.
			w.pending++
		}
	}
	e.next(w)
	e.refresh(s, w)
	if !w.has {
		e.tryFinish(s, slot)
	}
}

// coalesce is the transactions of the memory instruction of w, straight
// from the shape of its addresses where that decides them.
func (e *engine) coalesce(w *warp) []coalesce.Txn {
	if w.lazy {
		if txns, ok := e.co.CoalesceHalves(&w.mem, &w.halves); ok {
			return txns
		}
		w.hcur.Addresses(&w.mem.Addr)
	}
	return e.co.CoalesceWarp(&w.mem)
}

// tryFinish retires the warp in slot if it has issued everything and
// every load and store of it has completed.
func (e *engine) tryFinish(s *smState, slot int) {
	w := &s.warps[slot]
	if !w.has && w.pending == 0 && w.stores == 0 {
		e.finishWarp(s, slot, max(w.readyAt, w.loadsDone, w.storesDone))
	}
}

// ack delivers the acknowledgement of a store transaction at t.
func (e *engine) ack(s *smState, slot int, t int64) {
	w := &s.warps[slot]
	w.storesDone = max(w.storesDone, t)
	w.stores--
	e.tryFinish(s, slot)
}

// known records a load of warp w returning at t.
func (w *warp) known(t int64) { w.loadsDone = max(w.loadsDone, t) }

// resolve delivers a load whose time was unknown to the warp in slot.
func (e *engine) resolve(s *smState, slot int, t int64) {
	w := &s.warps[slot]
	w.loadsDone = max(w.loadsDone, t)
	w.pending--
	if w.pending > 0 {
		return
	}
	e.refresh(s, w)
	if !w.has {
		e.tryFinish(s, slot)
		return
	}
	e.wake(s, int(w.sched), max(w.readyAt, w.loadsDone))
}

// loadTxns sends a load's transactions into the memory system through the
// LSU, one per cycle from t. It returns false if it had to stop because no
// MSHR entry was free; the rest then waits in the LSU.
func (e *engine) loadTxns(s *smState, slot int, ref int, txns []coalesce.Txn, t int64) bool {
	for i := range txns {
		ti := max(t, s.lsuFree)
		if retry := e.loadTxn(s, slot, ref, &txns[i], ti); retry != 0 {
			s.stalled = true
			s.stallWarp = int32(slot)
			s.stallRef = int32(ref)
			s.stallTxns = append(s.stallTxns[:0], txns[i:]...)
			s.stallNext = 0
			s.lsuFree = ti
			e.res.L1.MSHRStalls++
			e.scheduleRetry(s, retry)
			return false
		}
		s.lsuFree = max(ti+1, e.hold())
	}
	return true
}

// hold returns, and clears, the cycle before which the SM that just sent
// a transaction may not send the next one because an L2 slice queue was
// full (0: no hold).
func (e *engine) hold() int64 {
	h := e.holdUntil
	e.holdUntil = 0
	return h
}

// enterSlice is when an access arriving at ta enters the queue of a slice
// that starts it at start: with more than l2.queue_depth accesses ahead the
// queue is full, the access waits in the interconnect, and the SM that sent
// it is held back as long.
func (e *engine) enterSlice(ta, start int64) {
	if enter := start - e.l2Queue; enter > ta {
		e.res.L2.QueueFullCycles += enter - ta
		e.holdUntil = max(e.holdUntil, enter-e.icnt+1)
	}
}

// retryLSU continues a load whose transactions waited for an MSHR entry.
func (e *engine) retryLSU(s *smState) {
	if !s.stalled {
		return
	}
	for s.stallNext < len(s.stallTxns) {
		ti := max(e.now, s.lsuFree)
		if retry := e.loadTxn(s, int(s.stallWarp), int(s.stallRef), &s.stallTxns[s.stallNext], ti); retry != 0 {
			s.lsuFree = ti
			e.scheduleRetry(s, retry)
			return
		}
		s.lsuFree = max(ti+1, e.hold())
		s.stallNext++
	}
	s.stalled = false
	e.resolve(s, int(s.stallWarp), s.lsuFree)
	for si := range s.scheds {
		e.wake(s, si, s.lsuFree)
	}
}

// scheduleRetry arranges for a stalled LSU to try again at cycle t, or,
// when t is never, when a DRAM fill delivers to this SM (deliver does it).
func (e *engine) scheduleRetry(s *smState, t int64) {
	if t != never && !s.retryQueued {
		s.retryQueued = true
		e.q.push(max(t, e.now), evLSURetry, int32(s.id), 0)
	}
}

// loadTxn sends one load transaction at cycle ti. It returns 0 when the
// transaction entered the memory system; otherwise the L1 had no MSHR
// entry or merge slot for it, and the result is the cycle one frees, or
// never when that waits on DRAM.
func (e *engine) loadTxn(s *smState, slot, ref int, tx *coalesce.Txn, ti int64) int64 {
	if s.l1 == nil {
		t, ok := e.l2Read(ti+e.icnt, tx.Addr, tx.Size, uint32(tx.Sectors), warpToken(s.id, slot), ref)
		w := &s.warps[slot]
		if ok {
			w.known(t + e.icnt)
		} else {
			w.pending++
		}
		return 0
	}
	res := &e.res.L1
	rs := &e.res.Refs[ref]
	w := &s.warps[slot]
	line := tx.Addr &^ (e.l1Line - 1)
	mask := sectorMask(s.l1, e.l1Unsectored, tx)
	if ent, ok := s.l1mshr.Lookup(line); ok {
		f := s.l1fill[ent]
		if f >= 0 && f <= ti {
			s.l1mshr.Release(ent)
		} else {
			if !s.l1mshr.Merge(ent, warpToken(s.id, slot)) {
				if f < 0 {
					return never
				}
				return f
			}
			res.Accesses++
			res.Misses++
			res.MSHRMerges++
			rs.L1Misses++
			if f >= 0 {
				w.known(f)
			} else {
				w.pending++
			}
			return 0
		}
	}
	if s.l1mshr.Full() {
		if first := reap(s.l1mshr, s.l1fill, ti); first != 0 {
			return first
		}
	}
	r := s.l1.Read(tx.Addr, mask)
	res.Accesses++
	if r.Status == cache.Hit {
		res.Hits++
		rs.L1Hits++
		w.known(ti + e.l1Lat)
		return 0
	}
	res.Misses++
	rs.L1Misses++
	res.Fills++
	if r.Evicted {
		res.Evictions++
	}
	ent, _ := s.l1mshr.Allocate(line, warpToken(s.id, slot))
	addr, size := span(line, r.Miss, e.l1Sector)
	t, ok := e.l2Read(ti+e.icnt, addr, size, 0, l1Token(s.id, ent), ref)
	if ok {
		s.l1fill[ent] = t + e.icnt
		w.known(t + e.icnt)
	} else {
		s.l1fill[ent] = -1
		w.pending++
	}
	return 0
}

// sectorMask is the sectors of c's line that transaction tx touches;
// unsectored is whether c's sectors are as large as its lines.
func sectorMask(c *cache.Cache, unsectored bool, tx *coalesce.Txn) uint32 {
	if unsectored {
		return 1
	}
	var m uint32
	base := tx.Addr &^ 127
	for sec := range 4 {
		if tx.Sectors&(1<<sec) == 0 {
			continue
		}
		a := base + uint64(sec)*32
		m |= c.SectorMask(a, 32)
	}
	return m
}

// storeTxns sends a store's transactions: the warp does not wait for
// them, but they take LSU cycles, on Fermi evict matching L1 lines, and
// must be acknowledged before the warp exits.
func (e *engine) storeTxns(s *smState, slot int, txns []coalesce.Txn, t int64) {
	w := &s.warps[slot]
	for i := range txns {
		tx := &txns[i]
		ti := max(t, s.lsuFree)
		if s.l1 != nil {
			if r, _, ok := s.l1.Write(tx.Addr, sectorMask(s.l1, e.l1Unsectored, tx)); ok && r.Evicted {
				e.res.L1.StoreEvictions++
			}
		}
		if at, ok := e.write(ti+e.icnt, tx.Addr, tx.Size, uint32(tx.Sectors), warpToken(s.id, slot)); ok {
			w.storesDone = max(w.storesDone, at+e.icnt)
		} else {
			w.stores++
		}
		s.lsuFree = max(ti+1, e.hold())
	}
}

// sliceOf maps an address to its L2 slice and to the slice-local address
// (the slice's own bits squeezed out, so its sets are all used). It
// divides once per step and shifts where the interleave is a power of
// two; the values are those of plain division.
func (e *engine) sliceOf(addr uint64) (int, uint64) {
	var chunk, off uint64
	if e.interleaveShift >= 0 {
		chunk, off = addr>>e.interleaveShift, addr&(e.sliceShift-1)
	} else {
		chunk = addr / e.sliceShift
		off = addr - chunk*e.sliceShift
	}
	q := chunk / e.channels
	ch := chunk - q*e.channels
	hi := q / e.perChannel
	sub := q - hi*e.perChannel
	return int(ch*e.perChannel + sub), hi*e.sliceShift + off
}

// globalAddr inverts sliceOf.
func (e *engine) globalAddr(sl int, local uint64) uint64 {
	ch := uint64(sl) / e.perChannel
	sub := uint64(sl) % e.perChannel
	q := (local/e.sliceShift)*e.perChannel + sub
	return (q*e.channels+ch)*e.sliceShift + local%e.sliceShift
}

// sectorsOf is the 32-byte sectors of [addr, addr+size) within its
// 128-byte block, or the given mask when it is set.
func sectorsOf(addr uint64, size uint32, given uint32) uint32 {
	if given != 0 {
		return given
	}
	first := (addr & 127) / 32
	n := (uint64(size) + 31) / 32
	return uint32((1<<n)-1) << first
}

// span is the byte range from the first to the last sector of mask in the
// line at lineAddr.
func span(lineAddr uint64, mask uint32, sector uint64) (uint64, uint32) {
	first := uint64(bits.TrailingZeros32(mask))
	last := uint64(31 - bits.LeadingZeros32(mask))
	return lineAddr + first*sector, uint32((last - first + 1) * sector)
}

// l2Read reads size bytes at addr arriving at the L2 at cycle ta for the
// waiter token. It returns the cycle the data is back at the slice and
// true, or false when that depends on DRAM: the waiter is then delivered
// later.
func (e *engine) l2Read(ta int64, addr uint64, size uint32, sectors uint32, token uint64, ref int) (int64, bool) {
	sec := sectorsOf(addr, size, sectors)
	n := int64(bits.OnesCount32(sec))
	rs := &e.res.Refs[ref]
	if e.slices == nil {
		// No L2 for global memory: straight to DRAM, which moves the whole
		// transaction.
		n = int64(size / 32)
		rs.DRAMReadSectors += n
		e.dramReadSectors += n
		e.sendDRAM(ta, memReq{kind: reqDirect, token: token, r: dram.Request{Addr: addr, Bytes: int(size)}})
		return 0, false
	}
	si, local := e.sliceOf(addr)
	sl := &e.slices[si]
	start := max(ta, sl.free)
	line := local &^ (e.l2Line - 1)
	ent, pending := sl.mshr.Lookup(line)
	if pending && sl.fill[ent] >= 0 && sl.fill[ent] <= start {
		sl.mshr.Release(ent)
		pending = false
	}
	// A miss to a line whose entry holds l2.mshr_merges requests already,
	// or a miss with every MSHR entry waiting on DRAM, waits at the slice
	// until a DRAM fill frees one; when an entry's data is already on its
	// way at a known cycle, the access starts then instead.
	wait := pending && sl.merged[ent] >= e.l2Merges && sl.fill[ent] < 0
	if !pending && sl.mshr.Full() {
		if valid, _ := sl.l2.Probe(local); sec&^valid != 0 {
			if first := reap(sl.mshr, sl.fill, start); first != 0 {
				if first == never {
					wait = true
				} else {
					start = first
					reap(sl.mshr, sl.fill, start)
				}
			}
		}
	}
	if wait {
		sl.waitq = append(sl.waitq, l2Wait{addr: addr, size: size, sectors: sectors, token: token, ref: int32(ref)})
		e.res.L2.MSHRWaits++
		return 0, false
	}
	e.enterSlice(ta, start)
	sl.free = start + 1
	if pending {
		sl.merged[ent]++
	}
	res := &e.res.L2
	res.ReadRequests++
	res.ReadSectors += n
	rs.L2ReadSectors += n
	if pending && sec&^sl.sectors[ent] == 0 {
		// The sectors are already on their way from DRAM.
		res.ReadHitSectors += n
		rs.L2HitSectors += n
		res.MSHRMerges++
		if f := sl.fill[ent]; f >= 0 {
			return max(start+e.l2Lat, f), true
		}
		e.addWaiter(sl, ent, token)
		return 0, false
	}
	r := sl.l2.Read(local, sec)
	hits := int64(bits.OnesCount32(r.Hit))
	res.ReadHitSectors += hits
	res.ReadMissSectors += n - hits
	rs.L2HitSectors += hits
	rs.L2MissSectors += n - hits
	if r.Evicted {
		res.Evictions++
		victim, dirty := sl.l2.Victim()
		e.writeBack(si, start, victim, dirty)
	}
	if r.Miss == 0 {
		if pending {
			// Hits on sectors already present in a line still filling.
			if f := sl.fill[ent]; f >= 0 {
				return max(start+e.l2Lat, f), true
			}
			e.addWaiter(sl, ent, token)
			return 0, false
		}
		return start + e.l2Lat, true
	}
	// A miss: one DRAM read for the missing sectors of the line, tracked by
	// an MSHR entry that gathers everyone waiting for the line.
	fetched := int64(bits.OnesCount32(r.Miss))
	rs.DRAMReadSectors += fetched
	e.dramReadSectors += fetched
	if !pending {
		ent, _ = sl.mshr.Allocate(line, 0)
		sl.merged[ent] = 1
		sl.sectors[ent] = 0
		sl.reads[ent] = 0
		sl.finish[ent] = 0
		sl.whead[ent], sl.wtail[ent] = -1, -1
	}
	sl.fill[ent] = -1
	sl.sectors[ent] |= r.Miss
	sl.reads[ent]++
	e.addWaiter(sl, ent, token)
	addr, bytes := e.lineRequest(si, line, r.Miss)
	e.sendDRAM(start+e.l2Lat, memReq{kind: reqL2Fill, slice: int32(si), entry: int32(ent),
		r: dram.Request{Addr: addr, Bytes: bytes}})
	return 0, false
}

// lineRequest is the DRAM request for the sectors in mask of an L2 line
// (slice-local address): as many bytes as sectors, starting at the first
// sector but kept within the 128-byte line.
func (e *engine) lineRequest(si int, localLine uint64, mask uint32) (uint64, int) {
	first := bits.TrailingZeros32(mask)
	cnt := bits.OnesCount32(mask)
	if first+cnt > 4 {
		first = 4 - cnt
	}
	return e.globalAddr(si, localLine+uint64(first)*32), cnt * 32
}

// reap frees the entries of an MSHR table whose data is back by t (fill
// holds each entry's return cycle, -1 while it waits on DRAM). It returns
// 0 if an entry is free now, else the first cycle a known fill frees one,
// or never when every entry waits on DRAM.
func reap(m *cache.MSHR, fill []int64, t int64) int64 {
	first := int64(never)
	for i, f := range fill {
		ent := cache.MSHREntry(i)
		if f < 0 || !m.InUse(ent) {
			continue
		}
		if f <= t {
			m.Release(ent)
		} else {
			first = min(first, f)
		}
	}
	if !m.Full() {
		return 0
	}
	return first
}

func (e *engine) addWaiter(sl *slice, ent cache.MSHREntry, token uint64) {
	var i int32
	if n := len(e.freeWaiters); n > 0 {
		i = e.freeWaiters[n-1]
		e.freeWaiters = e.freeWaiters[:n-1]
	} else {
		i = int32(len(e.waiters))
		e.waiters = append(e.waiters, waiter{})
	}
	e.waiters[i] = waiter{token: token, next: -1}
	if sl.wtail[ent] < 0 {
		sl.whead[ent] = i
	} else {
		e.waiters[sl.wtail[ent]].next = i
	}
	sl.wtail[ent] = i
}

// deliver hands data that reaches the SM at t to a waiter token.
func (e *engine) deliver(token uint64, t int64) {
	s := &e.sms[(token&^tokenL1)>>32]
	id := int(token & 0xFFFFFFFF)
	if token&tokenL1 == 0 {
		e.resolve(s, id, t)
		return
	}
	ent := cache.MSHREntry(id)
	s.l1fill[ent] = t
	for _, tok := range s.l1mshr.Requests(ent) {
		e.resolve(s, int(tok&0xFFFFFFFF), t)
	}
	if s.stalled && !s.retryQueued {
		s.retryQueued = true
		e.q.push(max(t, e.now), evLSURetry, int32(s.id), 0)
	}
}

// write sends a store transaction arriving at the L2 (or at DRAM) at ta.
// It returns when the write is done there and true, or false when that
// depends on DRAM: the acknowledgement then goes to token later.
func (e *engine) write(ta int64, addr uint64, size uint32, sectors uint32, token uint64) (int64, bool) {
	sec := sectorsOf(addr, size, sectors)
	if e.slices == nil {
		e.dramWriteSectors += int64(size / 32)
		e.sendDRAM(ta, memReq{kind: reqStore, token: token, r: dram.Request{Addr: addr, Bytes: int(size), Write: true}})
		return 0, false
	}
	si, local := e.sliceOf(addr)
	sl := &e.slices[si]
	start := max(ta, sl.free)
	e.enterSlice(ta, start)
	sl.free = start + 1
	res := &e.res.L2
	res.WriteRequests++
	res.WriteSectors += int64(bits.OnesCount32(sec))
	r, forward, _ := sl.l2.Write(local, sec)
	if r.Evicted {
		res.Evictions++
		victim, dirty := sl.l2.Victim()
		e.writeBack(si, start, victim, dirty)
	}
	if forward != 0 {
		e.writeBack(si, start, local&^(e.l2Line-1), forward)
	}
	return start + e.l2Lat, true
}

// writeBack sends the dirty sectors of an L2 line (slice-local address) to
// DRAM.
func (e *engine) writeBack(si int, t int64, localLine uint64, dirty uint32) {
	if dirty == 0 {
		return
	}
	addr, bytes := e.lineRequest(si, localLine, dirty)
	e.res.L2.WriteBackSectors += int64(bytes / 32)
	e.dramWriteSectors += int64(bytes / 32)
	e.sendDRAM(t+e.l2Lat, memReq{kind: reqWrite, r: dram.Request{Addr: addr, Bytes: bytes, Write: true}})
}

// sendDRAM puts a request on its way to its channel, arriving at t.
func (e *engine) sendDRAM(t int64, m memReq) {
	var tag int32
	if n := len(e.freeReqs); n > 0 {
		tag = e.freeReqs[n-1]
		e.freeReqs = e.freeReqs[:n-1]
	} else {
		tag = int32(len(e.reqs))
		e.reqs = append(e.reqs, memReq{})
	}
	m.r.Tag = int64(tag)
	e.reqs[tag] = m
	e.inFlight++
	e.q.push(max(t, e.now), evDRAMPush, tag, 0)
}

// pushDRAM hands a request to its channel now, or queues it behind the
// ones its full channel already refused.
func (e *engine) pushDRAM(tag int32) {
	r := e.reqs[tag].r
	ch := e.mem.Channel(r.Addr)
	if len(e.overflow[ch]) > 0 || !e.mem.Push(e.now, r) {
		e.overflow[ch] = append(e.overflow[ch], tag)
	}
	e.scheduleDRAM()
}

func (e *engine) scheduleDRAM() {
	if t := e.mem.NextEvent(); t < e.memAt {
		e.memAt = t
		e.q.push(max(t, e.now), evDRAM, 0, 0)
	}
}

// advanceDRAM lets the memory do what is due, then refills its queues.
func (e *engine) advanceDRAM() {
	e.mem.Advance(e.now, e.dramDone)
	for ch, q := range e.overflow {
		n := 0
		for n < len(q) && e.mem.Push(e.now, e.reqs[q[n]].r) {
			n++
		}
		e.overflow[ch] = append(q[:0], q[n:]...)
	}
	e.scheduleDRAM()
}

// dramDone is called by the memory for each completed request.
func (e *engine) dramDone(r dram.Request, finish int64) {
	tag := int32(r.Tag)
	m := e.reqs[tag]
	e.freeReqs = append(e.freeReqs, tag)
	e.inFlight--
	e.lastEvent = max(e.lastEvent, finish)
	switch m.kind {
	case reqDirect:
		e.deliver(m.token, finish+e.dramLat+e.icnt)
	case reqStore:
		e.ack(&e.sms[m.token>>32], int(m.token&0xFFFFFFFF), finish+e.dramLat+e.icnt)
	case reqL2Fill:
		sl := &e.slices[m.slice]
		ent := cache.MSHREntry(m.entry)
		sl.finish[ent] = max(sl.finish[ent], finish)
		sl.reads[ent]--
		if sl.reads[ent] > 0 {
			return
		}
		f := sl.finish[ent] + e.dramLat
		sl.fill[ent] = f
		for i := sl.whead[ent]; i >= 0; {
			w := e.waiters[i]
			e.deliver(w.token, f+e.icnt)
			e.freeWaiters = append(e.freeWaiters, i)
			i = w.next
		}
		sl.whead[ent], sl.wtail[ent] = -1, -1
		// Accesses that waited for an MSHR entry go on once it frees.
		q := sl.waitq
		sl.waitq = nil
		for _, w := range q {
			if t, ok := e.l2Read(f, w.addr, w.size, w.sectors, w.token, int(w.ref)); ok {
				e.deliver(w.token, t+e.icnt)
			}
		}
	}
}
