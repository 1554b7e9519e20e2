package sim_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"gpumemsim/kernel"
	"gpumemsim/sim"
)

var (
	projectionReport   = flag.Bool("projection-report", false, "run TestProjectionReport: the cap's projection of each example's work against the work it did, on every device (five minutes on two cores)")
	projectionMaxInsts = flag.Float64("projection-max-insts", 3e7, "with -projection-report, only the runs of at most this many warp instructions")
)

// projection is one run's projected work against the work it did.
type projection struct {
	name         string
	work         int64   // warp instructions and DRAM sectors done
	at64, atRule float64 // projected over done: at 1/64, and where the cap projects (0: never)
	instsRule    int64   // the warp instructions issued where the cap projects
	total        float64 // the launch's warp instructions as counted
	insts        int64   // and as issued
	// kind is how total was counted: "exact", "estimate" (a per-thread
	// kernel's on sample blocks, within the spread the cap projects
	// from) or "spread" (beyond it: the report shows what projecting
	// would give).
	kind string
}

// TestProjectionReport measures the cap's projection (workcap.go) on
// every example of one launch at its own size on every device: the work
// projected at the first look past 1/64 of a launch's warp instructions,
// and at the first past both 1/64 and 2^20 (where the cap projects),
// over the work the run did. It fails where the cap's projection is more
// than twice the work done: a run within the cap that the cap would stop
// early. Per-thread kernels whose count is an estimate are listed apart,
// and those whose estimate the cap does not project (its spread) apart
// again. Run with: go test ./sim -run
// TestProjectionReport -projection-report -v -timeout 1h.
func TestProjectionReport(t *testing.T) {
	if !*projectionReport {
		t.Skip("a report of five minutes; run with -projection-report")
	}
	var mu sync.Mutex
	var rows []projection
	devs := samplingDeviceList()
	for _, name := range kernel.Examples() {
		for _, dev := range devs {
			t.Run(dev+"/"+name, func(t *testing.T) {
				t.Parallel()
				p, ok := measureProjection(t, dev, name)
				if !ok {
					t.Skip("a sequence, a bound, or past -projection-max-insts")
				}
				if p.atRule > 2 && p.kind != "spread" {
					t.Errorf("%s: projected %.2f times the work it did, from %d warp instructions", p.name, p.atRule, p.instsRule)
				}
				mu.Lock()
				rows = append(rows, p)
				mu.Unlock()
			})
		}
	}
	t.Cleanup(func() { t.Log("\n" + projectionTable(rows)) })
}

// measureProjection runs example name on dev, watching its work; ok is
// false where the cap would not project it.
func measureProjection(t *testing.T, dev, name string) (p projection, ok bool) {
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Launches) > 0 {
		return p, false
	}
	d, l := bind(t, dev, name, "", "", nil)
	total := l.WarpInstructions()
	if (!l.ExactWork() && k.Program.Form != kernel.PerThread) || total > *projectionMaxInsts {
		return p, false
	}

	var looks [][2]int64
	if _, err := sim.RunWatchingWork(d, l, func(insts, dram int64) { looks = append(looks, [2]int64{insts, dram}) }); err != nil {
		t.Fatal(err)
	}
	end := looks[len(looks)-1]
	p = projection{name: dev + " " + name, work: end[0] + end[1], total: total, insts: end[0], kind: "exact"}
	switch {
	case !sim.Projects(l):
		p.kind = "spread"
	case !l.ExactWork():
		p.kind = "estimate"
	}
	for _, lk := range looks[:len(looks)-1] {
		insts, dram := float64(lk[0]), float64(lk[1])
		if insts*64 < total {
			continue
		}
		r := (total + dram*total/insts) / float64(p.work)
		if p.at64 == 0 {
			p.at64 = r
		}
		if lk[0] >= 1<<20 {
			p.atRule, p.instsRule = r, lk[0]
			break
		}
	}
	return p, true
}

// projectionTable lists the runs by device and kernel, the exactly
// counted first, and sums each kind up.
func projectionTable(rows []projection) string {
	kinds := []string{"exact", "estimate", "spread"}
	slices.SortFunc(rows, func(a, b projection) int {
		if a.kind != b.kind {
			return slices.Index(kinds, a.kind) - slices.Index(kinds, b.kind)
		}
		return strings.Compare(a.name, b.name)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %10s %12s %10s %10s %8s\n", "run", "count", "work", "at 1/64", "the cap's", "counted")
	for _, p := range rows {
		fmt.Fprintf(&b, "%-36s %10s %12d %10s %10s %8.3f\n", p.name, p.kind, p.work, ratio(p.at64), ratio(p.atRule), p.total/float64(p.insts))
	}
	for _, kind := range kinds {
		var at64, atRule []float64
		for _, p := range rows {
			if p.kind == kind {
				at64, atRule = appendRatio(at64, p.at64), appendRatio(atRule, p.atRule)
			}
		}
		fmt.Fprintf(&b, "%s: projected over done at 1/64 (%d runs): %s; past 1/64 and 2^20 (%d runs): %s\n",
			kind, len(at64), span(at64), len(atRule), span(atRule))
	}
	return b.String()
}

// ratio writes r, or "-" for 0 (never projected).
func ratio(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func appendRatio(rs []float64, r float64) []float64 {
	if r == 0 {
		return rs
	}
	return append(rs, r)
}

// span is the least and greatest of rs.
func span(rs []float64) string {
	if len(rs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%.2f to %.2f", slices.Min(rs), slices.Max(rs))
}
