package sim

import (
	"context"
	"fmt"
	"math"
)

const never = math.MaxInt64

// clock is the simulated time and what is due, shared by every unit.
type clock struct {
	now int64
	q   eventQueue
	// last is the latest completion of anything: a warp's exit or a DRAM
	// access.
	last int64
	// ahead is how far a warp scheduler may run ahead of the earliest
	// pending event: the interconnect latency, since nothing another unit
	// does reaches an SM sooner (docs/design.md measures the effect).
	ahead int64
}

// grid hands the blocks of the launch to the SMs in order and counts
// those finished.
type grid struct {
	next, done, total int
	// uncounted are the skipped blocks, done but not yet counted
	// (samplecount.go): the progress reported leaves them out.
	uncounted int
	progress  func(Progress)
	// res is the run's counters, whose warp instructions issued are its
	// work done; credit is the work of skipped blocks counted in so far.
	res    *Result
	credit int64
	// sampler, when sampling, watches each whole wave finished.
	sampler *sampler
	// wave is the blocks resident at once over the device; boundary,
	// when sampling or reporting waves, is called as each whole wave
	// finishes.
	wave     int64
	boundary func(t int64)
}

func (g *grid) more() bool { return g.next < g.total }

// report tells the progress callback how far the run has got.
func (g *grid) report() {
	g.progress(Progress{Blocks: int64(g.done - g.uncounted), WarpInsts: g.res.WarpInsts + g.credit})
}

// take is the next block of the grid.
func (g *grid) take() int {
	id := g.next
	g.next++
	return id
}

// finished counts a block that finished on SM sm at t: while blocks are
// left, that SM takes the next one, in the order SMs finish in time (an
// event), not in the order the engine gets to them, since a scheduler
// running ahead must not take a block from an SM that finished before it.
func (g *grid) finished(clk *clock, sm int, t int64) {
	g.done++
	if g.boundary != nil && int64(g.done)%g.wave == 0 {
		g.boundary(t)
	}
	if g.progress != nil { // every block: a grid of a few hundred long blocks needs each for a smooth bar
		g.report()
	}
	if g.more() {
		clk.q.push(max(t, clk.now), evBlockDone, int32(sm), 0)
	}
}

// engine is the event loop: it pops what is due and hands it to the unit
// it concerns. The units do the modelling (sm.go, scheduler.go, lsu.go,
// level.go, l2.go, port.go).
type engine struct {
	clk  clock
	grid grid
	sms  cores
	co   *Coalescer
	// shapes is the launch's memo of shapes (sm.shapes).
	shapes shapeMemo
	l2     *l2 // nil on devices without an L2
	port   *port
	// below is what the SMs send to: the L2, or direct (DRAM) where
	// there is none or it caches textures only; texBelow is where
	// texture-cache misses go (the L2 wherever there is one); held is the
	// L2's hold cell, or one nobody sets (see sm.held).
	below, texBelow memSide
	direct          *dramOnly
	held            *int64
	res             *Result
	failing         failing // the launch running, where it may meet errors
	// budget is the launch's cap on work (workcap.go).
	budget workCap
	// watchWork, when not nil, is told the launch's warp instructions
	// and DRAM sectors at every look at the cap: for the test that
	// measures the projection.
	watchWork func(insts, dram int64)
	// start is the cycle the launch started: 0, or the end of the
	// launch before it in a sequence; mem0 is what the memory had
	// counted by then.
	start       int64
	mem0        memCounts
	activeBlks  int   // resident blocks per SM
	blockLaunch int64 // scheduler.block_launch_latency
	steps       int
	// Set by finish: the SMs' resident warp-cycles and active cycles,
	// and the SMs that never had a block.
	warpCycles, activeCycles int64
	idleSMs                  int64
}

func (e *engine) run(ctx context.Context) error {
	// Initial dispatch: blocks go round robin over the SMs until every SM
	// is full or the grid is exhausted (GPGPU-Sim's order).
	for range e.activeBlks {
		for i := range e.sms {
			if e.grid.more() {
				e.sms[i].launchBlock(e.grid.take(), e.start+e.blockLaunch)
			}
		}
	}
	clk := &e.clk
	for clk.q.len() > 0 {
		ev := clk.q.pop()
		clk.now = ev.t
		switch ev.kind() {
		case evSchedule:
			s := &e.sms[ev.a]
			sc := &s.scheds[ev.b]
			if sc.wakeAt != ev.t {
				continue // superseded by an earlier wake
			}
			sc.wakeAt = never
			s.schedule(int(ev.b))
		case evDRAMPush:
			e.port.push(ev.a)
		case evDRAM:
			if e.port.at != ev.t {
				continue
			}
			e.port.at = never
			e.port.advance()
		case evBlockDone:
			if e.grid.more() {
				e.sms[ev.a].launchBlock(e.grid.take(), ev.t+e.blockLaunch)
			}
		case evLSURetry:
			s := &e.sms[ev.a]
			s.lsu.retryQueued = false
			s.retryLSU()
		}
		e.steps++
		if e.steps&0xFFF == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if e.failing != nil {
				if err := e.failing.Err(); err != nil {
					return err
				}
			}
			if e.budget.limit > 0 {
				if err := e.overWork(); err != nil {
					return err
				}
			}
			if e.grid.progress != nil {
				e.grid.report()
			}
		}
	}
	if e.grid.done != e.grid.total {
		return fmt.Errorf("simulator stalled with %d of %d blocks unfinished (a bug; please report it)", e.grid.total-e.grid.done, e.grid.total)
	}
	return nil
}
