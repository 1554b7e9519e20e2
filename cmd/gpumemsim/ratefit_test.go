package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
)

// The estimate's rates (rates.go) are fitted in two steps, each a test
// that runs only when asked:
//
//	go test ./cmd/gpumemsim -run TestRateRows -rate-rows F -timeout 2h
//	go test ./cmd/gpumemsim -run TestRateFit -rate-fit F[,F2...]
//
// The first times sim.Run of every shipped example (or -rate-kernels) on
// every device (or -rate-devices) and writes each run's class, user
// seconds and terms to F; splitting the devices over two processes
// writing two files uses both cores. The second fits each class's rates
// to the runs of F and prints them with the error they leave
// (scripts/fit-rates.sh does both; make fit-rates). The rows behind the
// rates in rates.go are testdata/rates-2026-12-02.tsv, with the probe's
// times (hostspeed.go); fitting them again gives those rates and prints
// the probe's median, probeReference:
//
//	go test ./cmd/gpumemsim -run TestRateFit -v -rate-fit testdata/rates-2026-12-02.tsv
var (
	rateRows    = flag.String("rate-rows", "", "run TestRateRows: time every example on every device and write each run's terms to this `file`")
	rateDevices = flag.String("rate-devices", "g80,gt200,fermi,kepler,maxwell,a100", "with -rate-rows, the devices (comma-separated)")
	rateKernels = flag.String("rate-kernels", "", "with -rate-rows, only these examples (comma-separated; the extra sizes in rateExtra come with their example)")
	rateMaxWork = flag.Float64("rate-max-work", 1e9, "with -rate-rows, leave out runs of more warp instructions")
	rateFit     = flag.String("rate-fit", "", "run TestRateFit: fit the estimate's rates to the runs in these `files` (comma-separated)")
	rateMin     = flag.Float64("rate-min", 0.1, "with -rate-fit, leave out runs of fewer user seconds")
)

// rateCase is one launch the rates are fitted to: an example at its own
// size, or at another.
type rateCase struct {
	kernel, mapping string
	params          map[string]int64
}

// name is the example, with the mapping and sizes not its own in
// brackets: matmul[i1=tx,i2=ty M=256,N=256,P=256].
func (c rateCase) name() string {
	var set []string
	for _, k := range slices.Sorted(maps.Keys(c.params)) {
		set = append(set, fmt.Sprintf("%s=%d", k, c.params[k]))
	}
	extra := strings.TrimSpace(c.mapping + " " + strings.Join(set, ","))
	if extra == "" {
		return c.kernel
	}
	return c.kernel + "[" + extra + "]"
}

// rateExtra are loop nests at sizes and mappings the examples' own leave
// out: J14's uncoalesced matmul, and streams of many waves.
var rateExtra = []rateCase{
	{"matmul", "i1=tx,i2=ty", map[string]int64{"M": 256, "N": 256, "P": 256}},
	{"transpose", "", map[string]int64{"N": 2048}},
	{"vecadd", "", map[string]int64{"N": 1 << 24}},
}

// rateRow is one timed run: its class, user seconds, the set-up the
// estimate adds, and its terms.
type rateRow struct {
	name, device string
	class        rateClass
	seconds      float64
	setup        float64
	x            terms
}

// TestRateRows times every case on every device and writes its row
// (above).
func TestRateRows(t *testing.T) {
	if *rateRows == "" {
		t.Skip("needs -rate-rows")
	}
	var cases []rateCase
	only := strings.Split(*rateKernels, ",")
	for _, k := range kernel.Examples() {
		if *rateKernels == "" || slices.Contains(only, k) {
			cases = append(cases, rateCase{kernel: k})
			for _, e := range rateExtra {
				if e.kernel == k {
					cases = append(cases, e)
				}
			}
		}
	}
	f, err := os.Create(*rateRows)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	// The probe of the host's speed (hostspeed.go), before the rows and
	// after them: its median over the files is probeReference.
	probe := func() {
		s, err := probeSeconds()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "%s\t%v\n", probeLine, s)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		t.Logf("probe: %.4f s", s)
	}
	probe()
	for _, d := range strings.Split(*rateDevices, ",") {
		dev, err := configs.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if r, ok := timeCase(t, dev, d, c); ok {
				fmt.Fprintln(w, r.tsv())
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	probe()
}

// probeLine begins a line of a rows file that holds a time of the probe,
// not a run.
const probeLine = "#probe"

// timeCase times sim.Run of c on dev and counts its terms; ok is false
// for a case left out (a sequence, a launch of neither class, one over
// -rate-max-work), which it logs.
func timeCase(t *testing.T, dev *arch.Device, device string, c rateCase) (rateRow, bool) {
	k, err := kernel.Load(c.kernel)
	if err != nil {
		t.Fatal(err)
	}
	name := c.name()
	if len(k.Launches) > 0 {
		t.Logf("%s: a sequence, left out", name)
		return rateRow{}, false
	}
	var m kernel.Mapping
	if c.mapping != "" {
		if m, err = kernel.ParseMapping(c.mapping); err != nil {
			t.Fatal(err)
		}
	}
	l, err := bindLaunch(k, m, arch.Dim3{}, c.params, dev)
	if err != nil {
		t.Logf("%s on %s: %v, left out", name, device, err)
		return rateRow{}, false
	}
	if work, _ := workOf(context.Background(), l, *rateMaxWork, nil); work > *rateMaxWork {
		t.Logf("%s on %s: %s warp instructions, left out", name, device, sci(work))
		return rateRow{}, false
	}
	class, x, ok := termsOf(dev, l)
	if !ok {
		t.Logf("%s on %s: neither class, left out", name, device)
		return rateRow{}, false
	}
	runtime.GC()
	before := userSeconds()
	if _, err := sim.Run(context.Background(), dev, l, sim.Options{}); err != nil {
		t.Fatalf("%s on %s: %v", name, device, err)
	}
	r := rateRow{name: name, device: device, class: class, seconds: userSeconds() - before,
		setup: launchSeconds(dev, int64(l.Blocks())), x: x}
	t.Logf("%s on %s: %.3f s, estimated %.3f s", name, device, r.seconds, r.estimate(rates[class]))
	return r, true
}

// userSeconds is the user CPU time of the process so far: the simulation
// and its garbage collection, as the whole process's user seconds count.
func userSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano()).Seconds()
}

// kernel is the example r ran, whatever its size.
func (r rateRow) kernel() string {
	name, _, _ := strings.Cut(r.name, "[")
	return name
}

// estimate is the time the estimate gives r's run at rates.
func (r rateRow) estimate(rates terms) float64 {
	return r.setup + rates.price(r.x)
}

// tsv writes r as a line of tab-separated fields; parseRateRow reads it.
func (r rateRow) tsv() string {
	f := []string{r.name, r.device, strconv.Itoa(int(r.class)), fmt.Sprint(r.seconds), fmt.Sprint(r.setup)}
	for _, v := range r.x {
		f = append(f, fmt.Sprint(v))
	}
	return strings.Join(f, "\t")
}

// parseRateRow reads a line tsv wrote.
func parseRateRow(line string) (rateRow, error) {
	f := strings.Split(line, "\t")
	if len(f) != 5+len(terms{}) {
		return rateRow{}, fmt.Errorf("%d fields, want %d", len(f), 5+len(terms{}))
	}
	r := rateRow{name: f[0], device: f[1]}
	c, err := strconv.Atoi(f[2])
	if err != nil || c < 0 || c >= int(rateClasses) {
		return rateRow{}, fmt.Errorf("class %q", f[2])
	}
	r.class = rateClass(c)
	nums := []*float64{&r.seconds, &r.setup}
	for i := range r.x {
		nums = append(nums, &r.x[i])
	}
	for i, p := range nums {
		if *p, err = strconv.ParseFloat(f[3+i], 64); err != nil {
			return rateRow{}, err
		}
	}
	return r, nil
}

// TestRateFit fits each class's rates to the rows of -rate-fit and
// prints them with the error they leave (above).
func TestRateFit(t *testing.T) {
	if *rateFit == "" {
		t.Skip("needs -rate-fit")
	}
	var rows [rateClasses][]rateRow
	var probes []float64
	for _, path := range strings.Split(*rateFit, ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if v, ok := strings.CutPrefix(line, probeLine+"\t"); ok {
				s, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s:%d: %v", path, i+1, err)
				}
				probes = append(probes, s)
				continue
			}
			r, err := parseRateRow(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
			if r.seconds >= *rateMin {
				rows[r.class] = append(rows[r.class], r)
			}
		}
	}
	if len(probes) > 0 {
		slices.Sort(probes)
		t.Logf("probe: %d times, %.4f to %.4f s, median %.4f s (probeReference now %g)",
			len(probes), probes[0], probes[len(probes)-1], lowerMedian(probes), probeReference)
	}
	for c := range rateClasses {
		if len(rows[c]) == 0 {
			continue
		}
		fitted := fitRates(rows[c], len(termNames[c]))
		t.Logf("%s: %d runs of at least %g s", className[c], len(rows[c]), *rateMin)
		for i, name := range termNames[c] {
			t.Logf("  %-44s %.3g s (now %.3g)", name, fitted[i], rates[c][i])
		}
		t.Logf("  actual/estimated, fitted: %s", ratioSummary(rows[c], func(r rateRow) terms { return fitted }))
		t.Logf("  actual/estimated, now:    %s", ratioSummary(rows[c], func(rateRow) terms { return rates[c] }))
		// Each kernel estimated by rates fitted without it, at any size:
		// the estimate's error on a kernel it has not seen, one fit a
		// kernel. A class of one kernel has none to fit without it.
		without := map[string]terms{}
		for _, r := range rows[c] {
			without[r.kernel()] = terms{}
		}
		if len(without) < 2 {
			t.Logf("  each kernel left out of its fit: one kernel, none")
		} else {
			for k := range without {
				var others []rateRow
				for _, o := range rows[c] {
					if o.kernel() != k {
						others = append(others, o)
					}
				}
				without[k] = fitRates(others, len(termNames[c]))
			}
			t.Logf("  actual/estimated, each kernel left out of its fit: %s", ratioSummary(rows[c], func(r rateRow) terms {
				return without[r.kernel()]
			}))
		}
		for _, r := range rows[c] {
			t.Logf("    %-40s %-8s %8.3f s, estimated %8.3f s", r.name, r.device, r.seconds, r.estimate(fitted))
		}
	}
}

// fitRates fits n rates to rows, least squares of the relative error of
// the estimate (set-up included) with every rate non-negative.
func fitRates(rows []rateRow, n int) terms {
	a := make([][]float64, len(rows))
	b := make([]float64, len(rows))
	for i, r := range rows {
		a[i] = make([]float64, n)
		for j := range n {
			a[i][j] = r.x[j] / r.seconds
		}
		b[i] = 1 - r.setup/r.seconds
	}
	var out terms
	copy(out[:], nnls(a, b))
	// Least squares of the relative error weighs an estimate 10 times
	// too high as 9 and one 10 times too low as 0.9, so the fit
	// leans low: a common factor then centres it, the median of
	// actual over estimated 1 (the set-up, not scaled, moves it a
	// little: a second pass settles it). The median, not a mean: the
	// runs whose cache misses no term sees are off by ten times and
	// more, and would pull every other estimate up.
	ratios := make([]float64, len(rows))
	for range 2 {
		for i, r := range rows {
			ratios[i] = r.seconds / r.estimate(out)
		}
		slices.Sort(ratios)
		g := lowerMedian(ratios)
		for j := range out {
			out[j] *= g
		}
	}
	return out
}

// lowerMedian is the median of sorted, the lower of the middle two of an
// even count: one of the values, as the fit's scaling and the medians it
// prints (probeReference among them) take it.
func lowerMedian(sorted []float64) float64 { return sorted[(len(sorted)-1)/2] }

// ratioSummary is the distribution of actual over estimated seconds of
// rows, each estimated at the rates ratesFor gives it.
func ratioSummary(rows []rateRow, ratesFor func(rateRow) terms) string {
	ratios := make([]float64, len(rows))
	within := 0
	for i, r := range rows {
		ratios[i] = r.seconds / r.estimate(ratesFor(r))
		if ratios[i] >= 0.5 && ratios[i] <= 2 {
			within++
		}
	}
	slices.Sort(ratios)
	return fmt.Sprintf("%.2f to %.2f, median %.2f, %d of %d within 2×",
		ratios[0], ratios[len(ratios)-1], lowerMedian(ratios), within, len(ratios))
}

// A row survives its file, and a case's name says what is not its own.
func TestRateRowRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		c    rateCase
		want string
	}{
		{rateCase{kernel: "vecadd"}, "vecadd"},
		{rateCase{kernel: "vecadd", params: map[string]int64{"N": 1 << 24}}, "vecadd[N=16777216]"},
		{rateCase{"matmul", "i1=tx,i2=ty", map[string]int64{"P": 4, "M": 2, "N": 3}}, "matmul[i1=tx,i2=ty M=2,N=3,P=4]"},
		{rateCase{kernel: "matmul", mapping: "i1=tx,i2=ty"}, "matmul[i1=tx,i2=ty]"},
	} {
		if got := tc.c.name(); got != tc.want {
			t.Errorf("name of %+v = %q; want %q", tc.c, got, tc.want)
		}
	}
	r := rateRow{name: "matmul[i1=tx,i2=ty M=256]", device: "gt200", class: threadDRAM, seconds: 1.25, setup: 0.35e-3,
		x: terms{1e8, 3.5e9, 0.1, 0, 1.0 / 3}}
	got, err := parseRateRow(r.tsv())
	if err != nil || got != r {
		t.Errorf("parseRateRow(%q) = %+v, %v; want %+v", r.tsv(), got, err, r)
	}
	if _, err := parseRateRow("a\tb\t9\t1\t1\t1\t1\t1\t1\t1"); err == nil {
		t.Error("class 9 accepted")
	}
}
