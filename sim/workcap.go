package sim

import (
	"fmt"
	"strconv"

	"gpumemsim/traces"
)

// A launch is projected from its rate of DRAM sectors per warp
// instruction once 1/projectAfter of its warp instructions, and at least
// projectFrom, have issued, and stopped there when on course past
// projectMargin times the cap. The projection errs both ways: cold caches
// send more to DRAM early on, and a working set that outgrows them sends
// more later (docs/design.md, "Work and limits", measures it), so it
// stops early only what is well past the cap; the rest stops when its
// work passes the cap. A launch of fewer than projectFrom warp
// instructions ends within a second or so anyway, and the rate of its
// first wave or two can be off by three times (fermi and a100
// copy-rowmajor, a100 kmeans-peng).
const (
	projectAfter  = 64
	projectMargin = 2
)

var projectFrom int64 = 1 << 20 // a variable for the tests

// projectSpread is the most relative standard error of an estimated
// count of warp instructions (a per-thread kernel's, on sample blocks)
// that the projection scales by: the count stops adding sample blocks
// at 5% too (traces.Launch.CountSpread).
const projectSpread = 0.05

// workCap bounds the work a run simulates (Options.MaxWork): the warp
// instructions it issues and the 32-B DRAM sectors it reads and writes,
// the two things a run's time follows (docs/design.md, "Work and
// limits"). A launch's warp instructions are counted before it is
// simulated, and a command refuses too many at once; its DRAM traffic is
// known only as the caches meet the addresses, so it is watched as the
// run goes.
type workCap struct {
	limit float64 // Options.MaxWork; 0 for none
	// spent is the work of the launches before this one, in a sequence:
	// it carries over from launch to launch.
	spent float64
	// total is the launch's warp instructions, for the projection: exactly
	// counted, or estimated (then estimated is set) within
	// projectSpread; 0 where the count is a bound or a spread estimate,
	// or the run is sampled, which simulates only some of them.
	total     float64
	estimated bool
}

// launch sets the cap for a launch of src under opts.
func (c *workCap) launch(src traces.Source, opts Options) {
	c.limit, c.total, c.estimated = opts.MaxWork, 0, false
	if n, ok := src.(traces.Counted); ok && c.limit > 0 && !opts.Sample.On && projects(n) {
		c.total, c.estimated = n.WarpInstructions(), !n.ExactWork()
	}
}

// projects says whether the projection may scale by n's count of warp
// instructions: exact, or an estimate within projectSpread.
func projects(n traces.Counted) bool {
	return n.ExactWork() || n.CountSpread() <= projectSpread
}

// WorkError says a run stopped for more work than Options.MaxWork.
type WorkError struct {
	Cap float64
	// WarpInsts and DRAMSectors are the warp instructions the launch had
	// issued and the DRAM sectors it had sent for when it stopped; Before
	// is the work of the launches before it.
	WarpInsts, DRAMSectors int64
	Before                 float64
	// Projected, when not 0, is the work the run would come to at the
	// rate of DRAM sectors per warp instruction so far, out of Total
	// warp instructions (an estimate where Estimated is set): it stopped
	// early, at that projection.
	Projected, Total float64
	Estimated        bool
}

func (w *WorkError) Error() string {
	if w.Projected == 0 {
		return fmt.Sprintf("more work than the cap of %s: it stopped after %s warp instructions and %s DRAM sectors%s",
			sci(w.Cap), sci(float64(w.WarpInsts)), sci(float64(w.DRAMSectors)), w.before())
	}
	its := "its"
	if w.Estimated {
		its = "its estimated"
	}
	return fmt.Sprintf("about %s of work (warp instructions and DRAM sectors), more than twice the cap of %s: after %s of %s %s warp instructions (%.1f%%) it had sent for %s DRAM sectors%s, and it was stopped there",
		sci(w.Projected), sci(w.Cap), sci(float64(w.WarpInsts)), its, sci(w.Total), 100*float64(w.WarpInsts)/w.Total, sci(float64(w.DRAMSectors)), w.before())
}

func (w *WorkError) before() string {
	if w.Before == 0 {
		return ""
	}
	return ", after " + sci(w.Before) + " in the launches before"
}

// sci writes a count with three significant digits: 2.5e+14, 4.2e+09.
func sci(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// overWork is a WorkError when the launch running has done more work than
// the cap allows, or is on course to do far more.
func (e *engine) overWork() error {
	c := &e.budget
	insts, dram := e.res.WarpInsts, e.launchDRAM()
	if e.watchWork != nil {
		e.watchWork(insts, dram)
	}
	if c.spent+float64(insts)+float64(dram) > c.limit {
		return &WorkError{Cap: c.limit, WarpInsts: insts, DRAMSectors: dram, Before: c.spent}
	}
	if c.total == 0 || float64(insts)*projectAfter < c.total || insts < projectFrom {
		return nil
	}
	projected := c.spent + c.total + float64(dram)*c.total/float64(insts)
	if projected <= projectMargin*c.limit {
		return nil
	}
	return &WorkError{Cap: c.limit, WarpInsts: insts, DRAMSectors: dram, Before: c.spent, Projected: projected, Total: c.total, Estimated: c.estimated}
}

// launchDRAM is the 32-B DRAM sectors the launch running has sent for,
// read and written: what dram_read_transactions and
// dram_write_transactions count.
func (e *engine) launchDRAM() int64 {
	s, s0 := &e.port.sent, &e.mem0.sent
	return s.ReadSectors + s.WriteSectors - s0.ReadSectors - s0.WriteSectors
}
