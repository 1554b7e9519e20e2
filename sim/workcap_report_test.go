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
	projectionReport   = flag.Bool("projection-report", false, "run TestProjectionReport: the cap's projection of each loop-nest example's work against the work it did, on every device (two minutes on two cores)")
	projectionMaxInsts = flag.Float64("projection-max-insts", 3e7, "with -projection-report, only the runs of at most this many warp instructions")
)

// projection is one run's projected work against the work it did.
type projection struct {
	name               string
	work               int64   // warp instructions and DRAM sectors done
	at64, atRule       float64 // projected over done: at 1/64, and where the cap projects (0: never)
	insts64, instsRule int64   // the warp instructions issued then
}

// TestProjectionReport measures the cap's projection (workcap.go) on
// every loop-nest example at its own size on every device: the work
// projected at the first look past 1/64 of a launch's warp instructions,
// and at the first past both 1/64 and 2^20 (where the cap projects),
// over the work the run did. It fails where the cap's projection is more
// than twice the work done: a run within the cap that the cap would stop
// early. Run with: go test ./sim -run TestProjectionReport
// -projection-report -v -timeout 2h.
func TestProjectionReport(t *testing.T) {
	if !*projectionReport {
		t.Skip("a report of two minutes; run with -projection-report")
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
					t.Skip("per-thread, a sequence, inexact, or past -projection-max-insts")
				}
				if p.atRule > 2 {
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
	if k.Program.Form == kernel.PerThread || len(k.Launches) > 0 {
		return p, false
	}
	d, l := bind(t, dev, name, "", "", nil)
	total := l.WarpInstructions()
	if !l.ExactWork() || total > *projectionMaxInsts {
		return p, false
	}
	var looks [][2]int64
	if _, err := sim.RunWatchingWork(d, l, func(insts, dram int64) { looks = append(looks, [2]int64{insts, dram}) }); err != nil {
		t.Fatal(err)
	}
	end := looks[len(looks)-1]
	p = projection{name: dev + " " + name, work: end[0] + end[1]}
	for _, lk := range looks[:len(looks)-1] {
		insts, dram := float64(lk[0]), float64(lk[1])
		if insts*64 < total {
			continue
		}
		r := (total + dram*total/insts) / float64(p.work)
		if p.at64 == 0 {
			p.at64, p.insts64 = r, lk[0]
		}
		if lk[0] >= 1<<20 {
			p.atRule, p.instsRule = r, lk[0]
			break
		}
	}
	return p, true
}

// projectionTable lists the runs by device and kernel and sums them up.
func projectionTable(rows []projection) string {
	slices.SortFunc(rows, func(a, b projection) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %12s %10s %10s\n", "run", "work", "at 1/64", "the cap's")
	lo64, hi64, loRule, hiRule := 1e9, 0.0, 1e9, 0.0
	projected := 0
	for _, p := range rows {
		rule := "-"
		if p.atRule > 0 {
			rule = fmt.Sprintf("%.2f", p.atRule)
			loRule, hiRule = min(loRule, p.atRule), max(hiRule, p.atRule)
			projected++
		}
		at64 := "-"
		if p.at64 > 0 {
			at64 = fmt.Sprintf("%.2f", p.at64)
			lo64, hi64 = min(lo64, p.at64), max(hi64, p.at64)
		}
		fmt.Fprintf(&b, "%-28s %12d %10s %10s\n", p.name, p.work, at64, rule)
	}
	fmt.Fprintf(&b, "%d runs; projected over done at 1/64: %.2f to %.2f; where the cap projects (%d runs): %.2f to %.2f\n",
		len(rows), lo64, hi64, projected, loRule, hiRule)
	return b.String()
}
