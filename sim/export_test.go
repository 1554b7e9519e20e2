package sim

import (
	"context"
	"math"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// RunAhead is Run with the schedulers' lookahead set to lookahead cycles
// (0: every event in strict time order), for the tests of sim_test.
func RunAhead(dev *arch.Device, l traces.Source, lookahead int64) (*Result, error) {
	e, err := newDevice(dev)
	if err != nil {
		return nil, err
	}
	e.clk.ahead = lookahead
	if err := e.runLaunch(context.Background(), dev, l, Options{}); err != nil {
		return nil, err
	}
	return e.res, nil
}

// RunRetrying is Run with the L2 slices' waiting accesses retried at every
// fill, all of them when tryAll is set; untried is how many retries the
// slices left out.
func RunRetrying(dev *arch.Device, l traces.Source, tryAll bool) (r *Result, untried int64, err error) {
	e, err := newDevice(dev)
	if err != nil {
		return nil, 0, err
	}
	if e.l2 != nil {
		e.l2.tryAll = tryAll
	}
	if err := e.runLaunch(context.Background(), dev, l, Options{}); err != nil {
		return nil, 0, err
	}
	if e.l2 != nil {
		untried = e.l2.untried
	}
	return e.res, untried, nil
}

// WorthCounting is worthCounting, for the tests of sim_test.
var WorthCounting = worthCounting

// Streamed is streamed, for the tests of sim_test.
var Streamed = streamed

// CountByClasses counts every block of l on dev twice: through the block
// classes, as Count does, and block by block (CountEveryBlock); classes
// is the classes met.
func CountByClasses(dev *arch.Device, l *traces.Launch) (classed, plain *Counts, classes int, err error) {
	k, err := newCounter(dev, l)
	if err != nil {
		return nil, nil, 0, err
	}
	classed = &Counts{Refs: make([]RefCounts, len(l.Refs))}
	if err := k.blocks(context.Background(), classed, 0, int64(l.Blocks()), nil); err != nil {
		return nil, nil, 0, err
	}
	plain, err = CountEveryBlock(dev, l)
	return classed, plain, len(k.classes.counts), err
}

// CountEveryBlock counts the blocks of l on dev one by one through the
// cursor, as Count does those not counted through a class.
func CountEveryBlock(dev *arch.Device, l *traces.Launch) (*Counts, error) {
	k, err := newCounter(dev, l)
	if err != nil {
		return nil, err
	}
	c := &Counts{Refs: make([]RefCounts, len(l.Refs))}
	for b := range l.Blocks() {
		k.block(c, b)
	}
	return c, nil
}

// CheckTotals is the self-check's identities that need only the Result,
// as an error; Reconcile fits r to them as an extrapolated run is fitted
// (the stores' touched sectors not known). For the tests of sim_test.
func CheckTotals(dev *arch.Device, r *Result) error { return r.checkExtrapolated(dev) }

func Reconcile(dev *arch.Device, r *Result) { reconcile(dev, r, -1) }

// ProjectFrom sets the warp instructions past which a launch's work is
// projected (workcap.go) and returns a function that restores it.
func ProjectFrom(n int64) (restore func()) {
	old := projectFrom
	projectFrom = n
	return func() { projectFrom = old }
}

// RunWatchingWork is Run of an unsampled launch under no cap, with watch
// told its warp instructions and DRAM sectors at every look at the cap
// (workcap.go), and once more at the end.
func RunWatchingWork(dev *arch.Device, src traces.Source, watch func(insts, dram int64)) (*Result, error) {
	e, err := newDevice(dev)
	if err != nil {
		return nil, err
	}
	e.watchWork = watch
	if err := e.runLaunch(context.Background(), dev, src, Options{MaxWork: math.Inf(1)}); err != nil {
		return nil, err
	}
	watch(e.res.WarpInsts, e.launchDRAM())
	return e.res, nil
}

// Projects says whether the cap projects a launch by n's count of warp
// instructions (workcap.go).
func Projects(n traces.Counted) bool { return projects(n) }
