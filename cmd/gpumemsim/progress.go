package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync/atomic"
	"time"

	"gpumemsim/sim"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// redraw is how often the bar is drawn from the counts.
const redraw = 100 * time.Millisecond

// progress tells, when stderr is a terminal and nowhere else, the
// estimated work before simulating and then how far the simulation has
// got: the blocks finished out of the total, and a bar of the warp
// instructions simulated out of the estimate, with the time left. The bar
// follows the instructions because the blocks come in waves: a grid of one
// wave finishes its blocks at its end, and a rate of blocks says nothing
// until then. The simulator reports from its event loop, from several
// goroutines in validate; its callbacks only store counts, and a ticker
// draws the bar from their sums.
type progress struct {
	bar  *progressbar.ProgressBar // nil when nothing is shown
	what string
	// blocks is the grid's total; unit is how many of the estimated warp
	// instructions are one step of the bar.
	blocks int64
	unit   float64
	done   []launchDone // per launch
	stop   chan struct{}
	drawn  chan struct{} // closed when the drawing has stopped
}

// launchDone is how far one launch has got.
type launchDone struct {
	blocks, insts atomic.Int64
}

// barSteps is the bar's length in steps: fine enough for its rate.
const barSteps = 10000

// newProgress prints the estimate, its times at this host's speed
// (onThisHost), and starts the bar when stderr is a terminal; workers is
// the cores the launches share.
func newProgress(stderr io.Writer, what string, est workEstimate, workers int) *progress {
	p := &progress{what: what, blocks: est.blocks, done: make([]launchDone, est.launches)}
	f, ok := terminal(stderr)
	if !ok || est.blocks < 1 {
		return p
	}
	fmt.Fprintln(f, est.onThisHost().line(workers))
	insts := max(1, est.warpInsts)
	p.unit = max(1, insts/barSteps)
	p.bar = progressbar.NewOptions64(int64(math.Ceil(insts/p.unit)),
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(p.describe(0)),
		progressbar.OptionThrottle(redraw),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	p.bar.StartWithoutRender() // the rate counts from now, not from the first report
	p.stop, p.drawn = make(chan struct{}), make(chan struct{})
	go p.draw()
	return p
}

// describe is the text before the bar: the blocks finished.
func (p *progress) describe(blocks int64) string {
	return fmt.Sprintf("%s %d/%d blocks", p.what, blocks, p.blocks)
}

// shown says the estimate and the bar are shown: stderr is a terminal.
func shown(stderr io.Writer) bool {
	_, ok := terminal(stderr)
	return ok
}

// terminal is stderr as a file when it is a terminal.
func terminal(stderr io.Writer) (*os.File, bool) {
	f, ok := stderr.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// job is the sim.Options.Progress callback of launch i: nil, costing the
// simulator nothing, when no bar is shown.
func (p *progress) job(i int) func(sim.Progress) {
	if p.bar == nil {
		return nil
	}
	return p.counter(i)
}

// counter stores how far launch i has got.
func (p *progress) counter(i int) func(sim.Progress) {
	return func(q sim.Progress) {
		p.done[i].blocks.Store(q.Blocks)
		p.done[i].insts.Store(q.WarpInsts)
	}
}

// sum is the blocks finished and the warp instructions simulated over all
// launches.
func (p *progress) sum() (blocks, insts int64) {
	for i := range p.done {
		blocks += p.done[i].blocks.Load()
		insts += p.done[i].insts.Load()
	}
	return blocks, insts
}

// draw sets the bar to the sums until stopped, short of its end, which
// finish reaches: an estimate of per-thread work may be low. The bar
// appears with the first report: before it, it has no rate to predict
// from.
func (p *progress) draw() {
	defer close(p.drawn)
	tick := time.NewTicker(redraw)
	defer tick.Stop()
	shown := int64(-1)
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			blocks, insts := p.sum()
			if insts == 0 {
				continue
			}
			if blocks != shown {
				p.bar.Describe(p.describe(blocks))
				shown = blocks
			}
			p.bar.Set64(min(int64(float64(insts)/p.unit), p.bar.GetMax64()-1))
		}
	}
}

// finish stops and clears the bar; later calls do nothing.
func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	close(p.stop)
	<-p.drawn
	p.bar.Finish()
	p.bar = nil
}

// countLine shows on a terminal how far counting a per-thread launch's
// work has got, once the count has taken a second: a count runs up to
// its budget before anything is simulated, minutes where a kernel's
// loops are long and their bodies short (a loop of one store and its
// step counts 4 to 13 M warp instructions a second: 2e9 in 2.5 to 9
// minutes), and the estimate and the bar need its result.
type countLine struct {
	w            io.Writer
	what         string
	budget       float64
	start, drawn time.Time
	shown        bool
}

// newCountLine is the line for counting kernel what's work up to budget
// warp instructions, on stderr when it is a terminal; nil elsewhere.
func newCountLine(stderr io.Writer, what string, budget float64) *countLine {
	f, ok := terminal(stderr)
	if !ok {
		return nil
	}
	return &countLine{w: f, what: what, budget: budget, start: time.Now()}
}

// report is traces.Launch.WatchWork's callback: nil, costing the count
// nothing, when nothing is shown.
func (c *countLine) report() func(int64) {
	if c == nil {
		return nil
	}
	return c.counted
}

// counted draws the line, from a second into the count and at most every
// redraw.
func (c *countLine) counted(n int64) {
	now := time.Now()
	if now.Sub(c.start) < time.Second || now.Sub(c.drawn) < redraw {
		return
	}
	c.drawn, c.shown = now, true
	fmt.Fprintf(c.w, "\rcounting the work of %s: %s warp instructions so far; the count stops at %s (-max-work)\x1b[K", c.what, sci(float64(n)), sci(c.budget))
}

// end clears the line, if it was drawn.
func (c *countLine) end() {
	if c != nil && c.shown {
		fmt.Fprint(c.w, "\r\x1b[K")
	}
}
