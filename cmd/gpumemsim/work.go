package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"gpumemsim/arch"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// defaultMaxWork is the most work a command simulates unless -max-work
// says more: warp instructions, and the 32-B DRAM sectors they read and
// write (dram_read_transactions and dram_write_transactions). 2e9
// warp instructions are about four minutes of the full hierarchy (Fermi,
// matmul: 9 million warp instructions per second on one core of this
// project's machine) and twenty of the DRAM-bound path (GT200: 1.7
// million); 2e9 DRAM sectors at 0.35 to 0.7 µs each, 12 to 25 minutes.
// The cap refuses at once, from the launch's closed-form estimate, the
// runs whose warp instructions alone would take hours: a typo in -set, a
// nest of deep loops, a validate sweep over large sizes. The DRAM
// traffic, which no closed form gives where caches stand between, is
// watched as the run goes (sim.Options.MaxWork).
const defaultMaxWork = 2e9

// workFlag is -max-work, the cap on work.
func workFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("max-work", defaultMaxWork, "the most `work` to simulate, in warp instructions plus 32-B DRAM sectors read and written (e.g. 1e10): more warp instructions than this, counted before the run, are refused at once; a run whose DRAM traffic takes it past, or on course past, is stopped")
}

// checkCap checks the value of -max-work.
func checkCap(cap float64) error {
	if !(cap > 0) {
		return fmt.Errorf("-max-work: want a positive amount of work (warp instructions and DRAM sectors), e.g. 1e10; got %v", cap)
	}
	return nil
}

// overWork names what (a launch; "" for nothing, where the caller names
// it) and the ways forward where err is a simulation stopped by its cap
// on work (-max-work), and returns any other err as it is; sampling says
// -sample is one of them (one launch, not sampled already).
func overWork(what string, err error, sampling bool) error {
	var we *sim.WorkError
	if !errors.As(err, &we) {
		return err
	}
	how := "use smaller sizes (-set), or raise it"
	if sampling {
		how = "use -sample, smaller sizes (-set), or raise it"
	}
	if we.Projected > 0 {
		how += " with -max-work " + raisedCap(we.Projected, we.Cap)
	}
	if what != "" {
		what += ": "
	}
	return fmt.Errorf("%s%w; the cap is -max-work, which keeps a run within minutes: %s", what, err, how)
}

// workOf is the warp instructions of l. A per-thread kernel's are
// counted on sample blocks, which stop past cap or when ctx is done, and
// its warps may not issue more than cap while it is simulated
// (traces.Launch.LimitWork). A count that takes a second or more is
// shown on stderr when it is a terminal (countLine); nil shows nothing.
// err is what counting met (an access outside its array), which the
// simulation would meet too: for the caller to report, naming the launch
// where there are several, before the cap (checkWork).
func workOf(ctx context.Context, l *traces.Launch, cap float64, stderr io.Writer) (work float64, err error) {
	l.LimitWork(cap)
	line := newCountLine(stderr, l.Kernel.Name, min(cap, traces.CountBudget))
	l.WatchWork(ctx.Done(), line.report())
	defer line.end()
	return l.WarpInstructions(), l.Err()
}

// checkWork refuses work (estimated warp instructions) above the cap,
// naming what it is for and the ways forward; or says why ctx is done,
// which stops counting too.
func checkWork(ctx context.Context, what string, work, cap float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if work <= cap {
		return nil
	}
	return fmt.Errorf("%s: about %s warp instructions to simulate, more than the cap of %s (-max-work), which keeps a run within minutes; use smaller sizes (-set), or raise the cap with -max-work %s",
		what, sci(work), sci(cap), raisedCap(work, cap))
}

// raisedCap is the cap to suggest for work: the least multiple of cap
// that holds it.
func raisedCap(work, cap float64) string {
	return sci(math.Ceil(work/cap) * cap)
}

// sci writes a count with three significant digits: 2.5e+14, 4.2e+09.
func sci(v float64) string {
	if math.IsInf(v, 1) {
		return "more than 1e308"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// workEstimate is the closed-form work of one or more launches and the
// time to simulate it at the measured rates.
type workEstimate struct {
	warpInsts, memInsts float64 // summed over the launches
	blocks              int64
	launches            int
	seconds             float64 // to simulate them all on one core
	longest             float64 // seconds of the longest launch
	// The same for the fewest blocks sampled runs simulate
	// (sim.SampledAtLeast), or every block of a launch run whole;
	// sampled says a launch is sampled.
	leastSeconds, leastLongest float64
	sampled                    bool
}

// estimateOf is the work of one launch on dev, whose warp instructions
// workOf counted, and when timed the time to simulate it: only what is
// shown (on a terminal) needs the time, whose per-thread sample costs up
// to a tenth of a second. The time is at the rates as fitted; onThisHost
// gives this host's.
func estimateOf(dev *arch.Device, l *traces.Launch, work float64, timed bool) workEstimate {
	w := workEstimate{warpInsts: work, memInsts: l.MemoryInstructions(), blocks: int64(l.Blocks()), launches: 1}
	if timed {
		s := launchSeconds(dev, w.blocks) + simSeconds(dev, l, w.memInsts)
		w.seconds, w.longest, w.leastSeconds, w.leastLongest = s, s, s, s
	}
	return w
}

// sampledOf is the estimate of launch l on dev, sampled when sample is
// on: its time then runs from that of the fewest blocks the sampler
// simulates (warm-up, shortest window, the wave in flight, the grid's
// partial last wave) up to that of every block, since the sampler goes on
// while the rates are not steady. regs is -regs, 0 for the kernel's own;
// work and timed as for estimateOf.
func sampledOf(dev *arch.Device, l *traces.Launch, work float64, sample sim.SampleOptions, regs int, timed bool) workEstimate {
	w := estimateOf(dev, l, work, timed)
	if !timed || !sample.On || w.blocks < 1 {
		return w
	}
	least, err := sim.SampledAtLeast(dev, l, regs, sample)
	if err != nil {
		return w // the simulation says what is wrong with the launch
	}
	f := float64(least) / float64(w.blocks)
	w.leastSeconds, w.leastLongest, w.sampled = w.seconds*f, w.longest*f, true
	return w
}

// scaled is w with its times scaled by f: the rates' seconds made this
// host's by hostScale.
func (w workEstimate) scaled(f float64) workEstimate {
	w.seconds, w.longest, w.leastSeconds, w.leastLongest = f*w.seconds, f*w.longest, f*w.leastSeconds, f*w.leastLongest
	return w
}

// add is the work of w's launches and o's.
func (w workEstimate) add(o workEstimate) workEstimate {
	return workEstimate{warpInsts: w.warpInsts + o.warpInsts, memInsts: w.memInsts + o.memInsts,
		blocks: w.blocks + o.blocks, launches: w.launches + o.launches,
		seconds: w.seconds + o.seconds, longest: max(w.longest, o.longest),
		leastSeconds: w.leastSeconds + o.leastSeconds, leastLongest: max(w.leastLongest, o.leastLongest),
		sampled: w.sampled || o.sampled}
}

// wall is the estimated wall-clock time on workers cores that take the
// launches whole: the work shared out evenly, and never less than the
// longest launch.
func (w workEstimate) wall(workers int) float64 {
	return wallOf(w.seconds, w.longest, w.launches, workers)
}

// wallOf is wall for seconds of work whose longest launch takes longest.
func wallOf(seconds, longest float64, launches, workers int) float64 {
	cores := min(workers, launches)
	if cores < 1 {
		return 0
	}
	return max(seconds/float64(cores), longest)
}

// line is the estimate as printed before simulating on workers cores:
//
//	work: 4.72 M warp instructions (1.05 M memory), 256 blocks; estimated 525 ms
//
// and of sampled runs, where the sampler may skip blocks:
//
//	work: 302 M warp instructions (67.1 M memory), 4096 blocks; estimated 24 s to 2.2 min, sampled
func (w workEstimate) line(workers int) string {
	s := fmt.Sprintf("work: %s warp instructions (%s memory), %d block", count(w.warpInsts), count(w.memInsts), w.blocks)
	if w.blocks != 1 {
		s += "s"
	}
	if w.launches > 1 {
		s += fmt.Sprintf(" in %d simulations", w.launches)
	}
	most := duration(w.wall(workers))
	least := duration(wallOf(w.leastSeconds, w.leastLongest, w.launches, workers))
	ranged := w.sampled && least != most
	if ranged {
		most = least + " to " + most
	}
	s += "; estimated " + most
	if cores := min(workers, w.launches); cores > 1 {
		s += fmt.Sprintf(" on %d cores", cores)
	}
	if ranged {
		s += ", sampled"
	}
	return s
}

// count writes a count with three significant digits and a metric
// prefix: 512, 16.8 k, 8.39 M, 2 G.
func count(v float64) string {
	prefix := ""
	for _, p := range []string{" k", " M", " G", " T"} {
		if v < 999.5 {
			break
		}
		v, prefix = v/1000, p
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + prefix
}

// duration writes seconds with two significant digits in a unit that
// keeps them readable: 40 ms, 3.1 s, 45 s, 2.5 min, 12 h.
func duration(s float64) string {
	switch {
	case s < 1:
		return digits2(s*1000) + " ms"
	case s < 60:
		return digits2(s) + " s"
	case s < 3600:
		return digits2(s/60) + " min"
	}
	return digits2(s/3600) + " h"
}

// digits2 writes v with two significant digits, or as a whole number from
// 10 up.
func digits2(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
