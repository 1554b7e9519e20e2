package sim

import (
	"fmt"
	"math/bits"
)

// scheduler is one warp scheduler of an SM. The issue state of its warps
// is kept in small parallel arrays so that picking a warp scans a few
// cache lines, not whole warp contexts. Under loose round robin the arrays
// are in slot order, which its rotation follows; under greedy-then-oldest
// they are in dispatch order (byAge, see toBack), so the oldest warp that
// can issue is the first one.
type scheduler struct {
	policy policy
	byAge  bool
	// ipc is the warp instructions issued per cycle; ipcShift its log2
	// when it is a power of two, else -1.
	ipc      int64
	ipcShift int

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
	// set keeps them while it can and clears minOK otherwise.
	minALU, minLSU int64
	minOK          bool
	last           int   // index into slots of the last issued warp
	free           int64 // next free issue slot, in units of 1/ipc cycle
	wakeAt         int64 // time of the pending evSchedule, or never
}

// newScheduler builds a scheduler of policy p for up to warps warps; a
// greedy-then-oldest one keeps its warps by age.
func newScheduler(p policy, ipc int64, warps int) scheduler {
	if warps > 64 {
		// lrr.pick marks the warps in a 64-bit set; arch caps
		// sm.max_warps at 64.
		panic(fmt.Sprintf("sim: a scheduler of %d warps, more than 64", warps))
	}
	_, byAge := p.(*gto)
	sc := scheduler{policy: p, byAge: byAge, ipc: ipc, ipcShift: -1, last: -1, wakeAt: never,
		slots: make([]int32, 0, warps), alu: make([]int64, 0, warps), lsu: make([]int64, 0, warps), own: make([]int64, 0, warps)}
	if ipc&(ipc-1) == 0 {
		sc.ipcShift = bits.TrailingZeros64(uint64(ipc))
	}
	return sc
}

// add gives warp slot to sc; it returns the warp's index in sc's arrays.
func (sc *scheduler) add(slot int) int32 {
	sc.slots = append(sc.slots, int32(slot))
	sc.alu = append(sc.alu, never)
	sc.lsu = append(sc.lsu, never)
	sc.own = append(sc.own, never)
	return int32(len(sc.slots) - 1)
}

// toBack keeps sc's arrays in dispatch order when the warp at index k is
// dispatched: it, now the youngest, moves to the back, and the last
// issued position follows its warp. Warps never dispatched stay in front,
// never able to issue.
func (sc *scheduler) toBack(warps []warp, k int) {
	n := len(sc.slots)
	slot, alu, lsu, own := sc.slots[k], sc.alu[k], sc.lsu[k], sc.own[k]
	copy(sc.slots[k:], sc.slots[k+1:])
	copy(sc.alu[k:], sc.alu[k+1:])
	copy(sc.lsu[k:], sc.lsu[k+1:])
	copy(sc.own[k:], sc.own[k+1:])
	sc.slots[n-1], sc.alu[n-1], sc.lsu[n-1], sc.own[n-1] = slot, alu, lsu, own
	for j := k; j < n; j++ {
		warps[sc.slots[j]].local = int32(j)
	}
	switch {
	case sc.last == k:
		sc.last = n - 1
	case sc.last > k:
		sc.last--
	}
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

// cycleOf is the cycle of issue slot u (in units of 1/ipc cycle, u >= 0),
// rounded up; a shift where the issue rate is a power of two, with the
// value of the division.
func (sc *scheduler) cycleOf(u int64) int64 {
	if sc.ipcShift >= 0 {
		return (u + sc.ipc - 1) >> uint(sc.ipcShift&63)
	}
	return (u + sc.ipc - 1) / sc.ipc
}

// gate is the cycle from which a warp whose instruction needs the LSU may
// issue: when the LSU is free, and never while it holds a stalled
// instruction.
func (s *sm) gate() int64 {
	if s.lsu.stalled {
		return never
	}
	return s.lsu.free
}

// earliest is the earliest issue time of a warp, or of a set of warps,
// whose earliest own times are a without the LSU and l with it.
func (s *sm) earliest(a, l int64) int64 {
	if s.lsu.stalled || l == never {
		return a
	}
	return min(a, max(l, s.lsu.free))
}

// nextIssue is the earliest cycle scheduler sc can issue again.
func (s *sm) nextIssue(sc *scheduler) int64 {
	next := s.earliest(sc.minima())
	if next == never {
		return never
	}
	return max(next, sc.cycleOf(sc.free))
}

// schedule lets scheduler si issue as long as one of its warps can and no
// other event comes first.
func (s *sm) schedule(si int) {
	sc := &s.scheds[si]
	clk := s.clk
	// slotT is the cycle of the scheduler's next free issue slot; found is
	// the pick at the cycle the loop goes on at when the previous pass
	// found it already (-1: not known).
	slotT := sc.cycleOf(sc.free)
	found := -1
	for {
		t := clk.now
		if slotT > t {
			s.wake(si, s.nextIssue(sc))
			return
		}
		pick := found
		if pick < 0 {
			pick = sc.policy.pick(sc, t, s.gate())
		}
		if pick < 0 {
			s.wake(si, s.nextIssue(sc))
			return
		}
		sc.last = pick
		s.issue(sc, int(sc.slots[pick]), t)
		// The next issue: the earliest cycle any warp can go, no earlier
		// than the next free slot. When the warp just issued can go by
		// then, that is the slot; otherwise the minima say it. When they
		// are stale, the policy's look at the slot, where it costs less
		// than they do, says whether a warp goes then (kept for the next
		// pass) before they are computed.
		slotNext := sc.cycleOf(sc.free)
		nt := s.earliest(sc.alu[pick], sc.lsu[pick])
		found = -1
		switch {
		case nt <= slotNext:
			nt = slotNext
		case !sc.minOK:
			if found = sc.policy.ahead(sc, slotNext, s.gate()); found >= 0 {
				nt = slotNext
				break
			}
			fallthrough
		default:
			nt = s.nextIssue(sc)
		}
		if nt == never {
			return
		}
		// Continue in place while this scheduler is within the lookahead of
		// the earliest other event; otherwise leave a wake-up and yield.
		if clk.q.len() > 0 && clk.q.peek()+clk.ahead <= nt {
			s.wake(si, nt)
			return
		}
		clk.now, slotT = nt, slotNext
	}
}
