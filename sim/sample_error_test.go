package sim_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

var (
	samplingReport  = flag.Bool("sampling-report", false, "run TestSamplingError: sampled against full simulation on every example and golden case on every device, and print the error distribution (an hour and more)")
	samplingDevices = flag.String("sampling-devices", "", "with -sampling-report, only these devices (comma-separated), to split the report over processes")
	samplingMinWork = flag.Float64("sampling-min-work", 0, "with -sampling-report, only the cases of more warp instructions than this")
	samplingMaxWork = flag.Float64("sampling-max-work", 1e8, "with -sampling-report, only the cases of at most this many warp instructions (each runs twice, in full and sampled, on one core)")
	samplingWarmup  = flag.Int("sampling-warmup", 0, "with -sampling-report, the sampler's warm-up in waves (SampleOptions.Warmup; 0 for its default)")
)

// samplingScaled are the examples at sizes of many waves, where sampling
// has middle waves to skip.
var samplingScaled = []goldenCase{
	{"vecadd", "", "", map[string]int64{"N": 1 << 22}, nil},
	{"copy", "", "", map[string]int64{"N": 1 << 22}, nil},
	{"stride", "", "", map[string]int64{"N": 1 << 20, "S": 3, "O": 1}, nil},
	{"transpose", "", "", map[string]int64{"N": 1024}, nil},
	{"matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 1024, "N": 1024, "P": 16}, nil},
	{"matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 512, "N": 512, "P": 16}, nil},
	{"matvec", "", "", map[string]int64{"N": 1 << 16}, nil},
	{"copy-colmajor", "", "", map[string]int64{"rows": 2048, "cols": 256}, nil},
	// On g80 the first 16 waves of this grid take the same time to 0.7%
	// (about 1,675 cycles a block); then the waves turn irregular and
	// settle 24% faster (1,275) to the end. A window that sees only the
	// first phase cannot know of the second: kept to show what the
	// interval does not cover.
	{"matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 1024, "N": 512, "P": 32}, []string{"g80"}},
}

// samplingError is one case's sampled result against its full one.
type samplingError struct {
	name       string
	skipped    float64 // fraction of blocks
	cycles, ci float64 // relative error and relative 95% half-width
	count      float64 // worst relative error of the main counts
	countName  string
	// occupancy is the relative error of achieved occupancy, a ratio
	// reported beside the goals: it drifts across a grid where cycles and
	// counts keep their rates.
	occupancy float64
	// rowHits is the error of DRAM's row hit rate, in points of
	// percent, likewise beside the goals: not among the counters the
	// sampler waits for, it can drift across a grid (g80's tiled
	// matmuls at their own size).
	rowHits float64
	// counted says the skipped blocks' transactions were counted;
	// countedExact that every reference's coalescer counts then equal
	// the full run's, and on a device without an L2 for global memory the
	// DRAM requests, bytes and sectors too.
	counted, countedExact bool
	order                 int // place in the report
}

// TestSamplingError measures sampled simulation against full simulation
// on every golden case and every example (at its own size and at a size of
// many waves) on every device, and prints the distribution of the errors.
// It fails when a case misses the goals (cycles within 2%, counts within
// 1%) other than as samplingKnownMisses allows. The cases run as parallel
// subtests (one per core, -parallel sets how many); the table lists them
// in the order of the devices and cases, not of their finishing. Run
// with: go test ./sim -run TestSamplingError -sampling-report -v -timeout
// 3h; the cases of more than 1e8 warp instructions, which that leaves
// out, with -sampling-min-work 1e8 -sampling-max-work 1e10 (hours:
// docs/design.md, "Measured error").
func TestSamplingError(t *testing.T) {
	if !*samplingReport {
		t.Skip("needs -sampling-report")
	}
	cases := samplingCases(t)
	for name := range samplingKnownMisses {
		if !samplingCaseExists(name, cases) {
			t.Errorf("samplingKnownMisses lists %q, which is no case of the report", name)
		}
	}
	var mu sync.Mutex
	var errs []samplingError
	t.Run("cases", func(t *testing.T) {
		order := 0
		for _, dev := range samplingDeviceList() {
			if *samplingDevices != "" && !slices.Contains(strings.Split(*samplingDevices, ","), dev) {
				continue
			}
			for _, c := range cases {
				if !c.runsOn(dev) {
					continue
				}
				order++
				order := order
				t.Run(dev+"/"+caseName(dev, c), func(t *testing.T) {
					t.Parallel()
					d, l := bind(t, dev, c.kernel, c.mapping, c.block, c.params)
					if w := l.WarpInstructions(); w > *samplingMaxWork || w <= *samplingMinWork {
						t.Skipf("%.3g warp instructions, outside the report's (%.0g, %.0g]: left out", w, *samplingMinWork, *samplingMaxWork)
					}
					e := measureSampling(t, d, l, dev, c)
					e.order = order
					t.Logf("%s: skipped %.1f%%, cycles off %.3f%% (CI %.3f%%), worst count off %.3f%% (%s)",
						e.name, 100*e.skipped, 100*e.cycles, 100*e.ci, 100*e.count, e.countName)
					if e.counted && !e.countedExact {
						t.Errorf("%s: transactions counted, but they, or the counts they fix, differ from the full run's", e.name)
					}
					if msg := e.missVerdict(); msg != "" {
						t.Error(msg)
					}
					mu.Lock()
					errs = append(errs, e)
					mu.Unlock()
				})
			}
		}
	})
	slices.SortFunc(errs, func(a, b samplingError) int { return a.order - b.order })
	t.Log("\n" + samplingTable(errs))
}

// The report's goals: a sampled run's cycles within 2% of the full run's,
// its main counts within 1%.
const (
	samplingCyclesGoal = 0.02
	samplingCountGoal  = 0.01
)

// knownMiss is a case that misses a goal for a reason docs/design.md
// ("Measured error") gives and no window of waves could see: the goal it
// misses ("cycles", or the name of the count) and the most it may miss
// by, its error at the last report rounded up to the next tenth of a
// point.
type knownMiss struct {
	goal   string
	bound  float64 // relative error
	reason string
}

// samplingKnownMisses are the report's known misses, by case name. A case
// listed here may miss its goal up to its bound; any other miss fails the
// report, and so does a listed case that misses by more, misses another
// goal, or meets every goal (then its entry is out of date). The report of
// 2026-12-01 at ba925ff found these six, as did d36676c's.
var samplingKnownMisses = map[string]knownMiss{
	"g80 matmul.i1=ty,i2=tx.16x16.M=1024,N=512,P=32": {"cycles", 0.179, "a phase that ends: the waves after the window run 24% faster"},
	"kepler stride.N=1048576,O=1,S=3":                {"cycles", 0.030, "DRAM's state drifts after the window, by its bank groups"},
	"gt200 copy":                                     {"cycles", 0.026, "DRAM's state drifts after the window, by its read/write turnarounds"},
	"a100 vecadd":                                    {"cycles", 0.024, "DRAM's state drifts after the window"},
	"fermi convolution-global":                       {"L2 read hit sectors", 0.013, "the skipped blocks' L2 hits follow the window's hit rate, which the later blocks do not keep"},
	"fermi-m2050 stencil-shared":                     {"L1 hits", 0.012, "the skipped blocks' L1 hits follow the window's hit rate, which the later blocks do not keep"},
}

// samplingCaseExists says whether name is the report's name of one of
// cases on a device it runs them on.
func samplingCaseExists(name string, cases []goldenCase) bool {
	for _, dev := range samplingDeviceList() {
		for _, c := range cases {
			if c.runsOn(dev) && dev+" "+caseName(dev, c) == name {
				return true
			}
		}
	}
	return false
}

// missVerdict says what is wrong with e against the goals and the known
// misses, or "" when nothing is.
func (e samplingError) missVerdict() string {
	k, known := samplingKnownMisses[e.name]
	cyclesOK, countOK := e.cycles <= samplingCyclesGoal, e.count <= samplingCountGoal
	ok := cyclesOK && countOK
	switch {
	case ok && known:
		return fmt.Sprintf("%s: listed as a known miss of %s, but now meets every goal (cycles off %.3f%%, %s off %.3f%%): take it off samplingKnownMisses", e.name, k.goal, 100*e.cycles, e.countName, 100*e.count)
	case ok:
		return ""
	case !known:
		return fmt.Sprintf("%s: cycles off %.3f%%, %s off %.3f%%", e.name, 100*e.cycles, e.countName, 100*e.count)
	}
	missed, by := "cycles", e.cycles
	if cyclesOK {
		missed, by = e.countName, e.count
	}
	if !cyclesOK && !countOK || missed != k.goal || by > k.bound {
		return fmt.Sprintf("%s: cycles off %.3f%%, %s off %.3f%%; known to miss only %s by at most %.1f%% (%s)", e.name, 100*e.cycles, e.countName, 100*e.count, k.goal, 100*k.bound, k.reason)
	}
	return ""
}

// A known miss passes only within its goal and bound, and a listed case
// that meets every goal fails, as missVerdict's rules say; a case not
// listed passes only within the goals. The errors are set by hand around
// the g80 phase case's bound of 17.9% of cycles.
func TestMissVerdict(t *testing.T) {
	const phase = "g80 matmul.i1=ty,i2=tx.16x16.M=1024,N=512,P=32"
	if k := samplingKnownMisses[phase]; k.goal != "cycles" || k.bound != 0.179 {
		t.Fatalf("%s is listed as %+v; this test expects cycles up to 0.179", phase, k)
	}
	for _, c := range []struct {
		name          string
		cycles, count float64
		countName     string
		fails         bool
	}{
		{"fermi copy", 0.019, 0.009, "DRAM writes", false},
		{"fermi copy", 0.021, 0.009, "DRAM writes", true},
		{"fermi copy", 0.019, 0.011, "DRAM writes", true},
		{phase, 0.179, 0, "DRAM reads", false},
		{phase, 0.180, 0, "DRAM reads", true},
		{phase, 0.019, 0, "DRAM reads", true},     // meets every goal: out of date
		{phase, 0.019, 0.011, "DRAM reads", true}, // misses another goal
		{phase, 0.100, 0.011, "DRAM reads", true}, // misses both
	} {
		e := samplingError{name: c.name, cycles: c.cycles, count: c.count, countName: c.countName}
		if msg := e.missVerdict(); (msg != "") != c.fails {
			t.Errorf("%s, cycles %.3f, %s %.3f: verdict %q, want a failure: %v", c.name, c.cycles, c.countName, c.count, msg, c.fails)
		}
	}
}

// samplingDeviceList is every shipped device: the golden cases' six first,
// in their order, then the others (a100, fermi-m2050), so that the report
// measures sampling wherever a user can run it.
func samplingDeviceList() []string {
	devs := slices.Clone(goldenDevices)
	for _, n := range configs.Names() {
		if !slices.Contains(devs, n) {
			devs = append(devs, n)
		}
	}
	return devs
}

// caseName is c's name in the report: its golden file's, without the
// device directory and the extension.
func caseName(dev string, c goldenCase) string {
	return strings.TrimSuffix(strings.TrimPrefix(goldenFile(dev, c), "testdata/golden/"+dev+"/"), ".json")
}

func samplingCases(t *testing.T) []goldenCase {
	cases := append([]goldenCase(nil), goldenKernels...)
	for _, name := range kernel.Examples() {
		if k, err := kernel.Load(name); err != nil || len(k.Launches) > 0 {
			continue // sampling is of one launch; a sequence is simulated whole
		}
		cases = append(cases, goldenCase{kernel: name})
	}
	return append(cases, samplingScaled...)
}

func measureSampling(t *testing.T, d *arch.Device, l *traces.Launch, dev string, c goldenCase) samplingError {
	full, err := sim.Run(context.Background(), d, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sim.Run(context.Background(), d, l, sim.Options{Sample: sim.SampleOptions{On: true, Warmup: *samplingWarmup}})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(g, w float64) float64 {
		if w == 0 {
			return math.Abs(g)
		}
		return math.Abs(g-w) / w
	}
	s := got.Sampling
	e := samplingError{name: dev + " " + caseName(dev, c),
		skipped: float64(s.SkippedBlocks) / float64(s.SimulatedBlocks+s.SkippedBlocks),
		cycles:  rel(float64(got.Cycles), float64(full.Cycles)), ci: s.CyclesCI95 / float64(got.Cycles),
		occupancy: rel(got.AchievedOccupancy, full.AchievedOccupancy),
		rowHits:   math.Abs(rowHitRate(got) - rowHitRate(full))}
	counts := map[string][2]int64{
		"L1 hits": {got.L1.Hits, full.L1.Hits}, "L1 misses": {got.L1.Misses, full.L1.Misses},
		"L2 read sectors": {got.L2.ReadSectors, full.L2.ReadSectors}, "L2 read hit sectors": {got.L2.ReadHitSectors, full.L2.ReadHitSectors},
		"L2 write sectors": {got.L2.WriteSectors, full.L2.WriteSectors}, "DRAM reads": {got.DRAM.Reads, full.DRAM.Reads},
		"DRAM writes": {got.DRAM.Writes, full.DRAM.Writes}, "load transactions": {got.Loads.Transactions, full.Loads.Transactions},
		"store transactions": {got.Stores.Transactions, full.Stores.Transactions}, "warp instructions": {got.WarpInsts, full.WarpInsts},
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if r := rel(float64(counts[n][0]), float64(counts[n][1])); r > e.count || e.countName == "" {
			e.count, e.countName = r, n
		}
	}
	e.counted, e.countedExact = s.Counted, true
	for i := range full.Refs {
		e.countedExact = e.countedExact && got.Refs[i].RefCounts == full.Refs[i].RefCounts
	}
	if s.Counted {
		e.countedExact = e.countedExact && firstLevelExact(d, got, full)
	}
	if s.Counted && direct(d, full) {
		g, f := got.DRAM, full.DRAM
		e.countedExact = e.countedExact && g.Reads == f.Reads && g.Writes == f.Writes && g.ReadBytes == f.ReadBytes &&
			g.WriteBytes == f.WriteBytes && g.ReadSectors == f.ReadSectors && g.WriteSectors == f.WriteSectors
	}
	return e
}

// rowHitRate is the percentage of r's DRAM requests that found their
// row open, as sim_dram_row_hit_rate.
func rowHitRate(r *sim.Result) float64 {
	if n := r.DRAM.RowHits + r.DRAM.RowMisses; n > 0 {
		return 100 * float64(r.DRAM.RowHits) / float64(n)
	}
	return 0
}

// firstLevelExact says whether the counters that a counted sampled run
// fits to its counted transactions equal the full run's: the L1 lookups,
// the constant- and texture-cache accesses, the L2's write requests and
// sectors, its read requests where no L1 caches global loads and no
// read-only cache fills through it, and the L2 read sectors of a
// reference whose transactions there are all 32 bytes.
func firstLevelExact(d *arch.Device, got, full *sim.Result) bool {
	ok := got.L1.Accesses == full.L1.Accesses && got.Constant.Cache.Accesses == full.Constant.Cache.Accesses &&
		got.Texture.Cache.Accesses == full.Texture.Cache.Accesses
	if !d.L2.CachesGlobal() {
		return ok
	}
	ok = ok && got.L2.WriteRequests == full.L2.WriteRequests && got.L2.WriteSectors == full.L2.WriteSectors
	if d.Coalescer.CacheGlobalLoads {
		return ok
	}
	if full.Constant.Requests == 0 && full.Texture.Requests == 0 {
		ok = ok && got.L2.ReadRequests == full.L2.ReadRequests
	}
	for i, r := range full.Refs {
		if r.Space == "" && r.Op != traces.OpStore.String() && r.Txn32 == r.Transactions {
			ok = ok && got.Refs[i].L2ReadSectors == r.L2ReadSectors
		}
	}
	return ok
}

// direct says whether each of r's transactions is one DRAM request: its
// device has no L2 for global memory and it reads no constant or
// texture memory, whose caches stand between.
func direct(d *arch.Device, r *sim.Result) bool {
	if d.L2.Present() && !d.L2.TextureOnly {
		return false
	}
	for _, ref := range r.Refs {
		if ref.Space != "" && ref.Space != "shared" {
			return false
		}
	}
	return true
}

// samplingTable prints the distribution over the cases that skipped
// something, the worst cases named, and each such case.
func samplingTable(errs []samplingError) string {
	var b strings.Builder
	var sampled []samplingError
	for _, e := range errs {
		if e.skipped > 0 {
			sampled = append(sampled, e)
		}
	}
	fmt.Fprintf(&b, "%d cases, %d sampled (skipped whole waves); the rest ran every block and match exactly\n", len(errs), len(sampled))
	if len(sampled) == 0 {
		return b.String()
	}
	q := func(xs []float64, p float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[int(math.Ceil(p*float64(len(s))))-1]
	}
	var cyc, cnt, occ, rows, skip []float64
	covered, counted := 0, 0
	for _, e := range sampled {
		if e.counted {
			counted++
		}
		cyc, cnt, skip = append(cyc, e.cycles), append(cnt, e.count), append(skip, e.skipped)
		occ, rows = append(occ, e.occupancy), append(rows, e.rowHits)
		if e.cycles <= e.ci {
			covered++
		}
	}
	fmt.Fprintf(&b, "%-28s %8s %8s %8s %8s\n", "error (|sampled-full|/full)", "median", "p90", "max", "goal")
	fmt.Fprintf(&b, "%-28s %7.3f%% %7.3f%% %7.3f%% %8s\n", "cycles", 100*q(cyc, 0.5), 100*q(cyc, 0.9), 100*q(cyc, 1), "2%")
	fmt.Fprintf(&b, "%-28s %7.3f%% %7.3f%% %7.3f%% %8s\n", "worst main count per case", 100*q(cnt, 0.5), 100*q(cnt, 0.9), 100*q(cnt, 1), "1%")
	fmt.Fprintf(&b, "%-28s %7.3f%% %7.3f%% %7.3f%% %8s\n", "achieved occupancy", 100*q(occ, 0.5), 100*q(occ, 0.9), 100*q(occ, 1), "")
	fmt.Fprintf(&b, "%-28s %7.2fpt %6.2fpt %6.2fpt %8s\n", "DRAM row hit rate", q(rows, 0.5), q(rows, 0.9), q(rows, 1), "")
	fmt.Fprintf(&b, "%-28s %7.1f%% %7.1f%% %7.1f%%\n", "blocks skipped", 100*q(skip, 0.5), 100*q(skip, 0.9), 100*q(skip, 1))
	fmt.Fprintf(&b, "cycles error within the reported 95%% interval in %d of %d cases\n", covered, len(sampled))
	fmt.Fprintf(&b, "skipped blocks' transactions counted (every reference's counts exact, the L1 lookups, L2 requests and write sectors and cache accesses they make, and DRAM's requests where no cache stands between) in %d of %d cases\n", counted, len(sampled))
	for _, e := range sampled {
		how := "extrapolated"
		if e.counted {
			how = "counted"
		}
		fmt.Fprintf(&b, "  %-62s skipped %5.1f%%  cycles %6.3f%% (CI %5.3f%%)  worst count %6.3f%% (%s)  occupancy %6.3f%%  row hits %5.2fpt  transactions %s\n",
			e.name, 100*e.skipped, 100*e.cycles, 100*e.ci, 100*e.count, e.countName, 100*e.occupancy, e.rowHits, how)
	}
	return b.String()
}
