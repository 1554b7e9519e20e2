package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// redraw is how often the bar is drawn from the counts.
const redraw = 100 * time.Millisecond

// progress tells, when stderr is a terminal and nowhere else, the
// estimated work before simulating and then the blocks simulated out of
// the total with their rate and the time left. The simulator reports
// every finished block from its event loop, from several goroutines in
// validate; its callbacks only store a count, and a ticker draws the bar
// from the sum.
type progress struct {
	bar   *progressbar.ProgressBar // nil when nothing is shown
	done  []atomic.Int64           // blocks finished, per launch
	stop  chan struct{}
	drawn chan struct{} // closed when the drawing has stopped
}

// newProgress prints the estimate and starts the bar of its blocks when
// stderr is a terminal; workers is the cores the launches share.
func newProgress(stderr io.Writer, what string, est workEstimate, workers int) *progress {
	p := &progress{done: make([]atomic.Int64, est.launches)}
	f, ok := terminal(stderr)
	if !ok || est.blocks < 1 {
		return p
	}
	fmt.Fprintln(f, est.line(workers))
	p.bar = progressbar.NewOptions64(est.blocks,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionThrottle(redraw),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("blocks"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	p.bar.StartWithoutRender() // the rate counts from now, not from the first block
	p.stop, p.drawn = make(chan struct{}), make(chan struct{})
	go p.draw()
	return p
}

// terminal is stderr as a file when it is a terminal.
func terminal(stderr io.Writer) (*os.File, bool) {
	f, ok := stderr.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// job is the sim.Options.Progress callback of launch i: nil, costing the
// simulator nothing, when no bar is shown.
func (p *progress) job(i int) func(done, total int64) {
	if p.bar == nil {
		return nil
	}
	return p.counter(i)
}

// counter stores the blocks launch i has finished.
func (p *progress) counter(i int) func(done, total int64) {
	return func(done, _ int64) { p.done[i].Store(done) }
}

// sum is the blocks finished over all launches.
func (p *progress) sum() int64 {
	var n int64
	for i := range p.done {
		n += p.done[i].Load()
	}
	return n
}

// draw sets the bar to the sum until stopped. The bar appears with the
// first finished block: before it, the bar has no rate to predict from.
func (p *progress) draw() {
	defer close(p.drawn)
	tick := time.NewTicker(redraw)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			if n := p.sum(); n > 0 {
				p.bar.Set64(n)
			}
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
