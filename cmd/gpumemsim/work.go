package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
)

// defaultMaxWork is the most warp instructions a command simulates unless
// -max-work says more: about four minutes of the full hierarchy (Fermi,
// matmul: 9 million warp instructions per second on one core of this
// project's machine) and twenty of the DRAM-bound path (GT200: 1.7
// million). The cap refuses at once, from the launch's closed-form
// estimate, the runs that would take hours: a typo in -set, a nest of
// deep loops, a validate sweep over large sizes.
const defaultMaxWork = 2e9

// workFlag is -max-work, the cap on the estimated warp instructions.
func workFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("max-work", defaultMaxWork, "the most warp `instructions` to simulate, as the launch's closed-form estimate counts them (e.g. 1e10); larger runs are refused at once")
}

// checkCap checks the value of -max-work.
func checkCap(cap float64) error {
	if !(cap > 0) {
		return fmt.Errorf("-max-work: want a positive number of warp instructions, e.g. 1e10; got %v", cap)
	}
	return nil
}

// checkWork refuses work (estimated warp instructions) above the cap,
// naming what it is for and the ways forward.
func checkWork(what string, work, cap float64) error {
	if work <= cap {
		return nil
	}
	return fmt.Errorf("%s: about %s warp instructions to simulate, more than the cap of %s (-max-work), which keeps a run within minutes; use smaller sizes (-set), or raise the cap with -max-work %s",
		what, sci(work), sci(cap), sci(math.Ceil(work/cap)*cap))
}

// sci writes a count with three significant digits: 2.5e+14, 4.2e+09.
func sci(v float64) string {
	if math.IsInf(v, 1) {
		return "more than 1e308"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
