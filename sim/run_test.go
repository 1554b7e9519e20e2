package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// long reports whether the slow, full-size checks were asked for.
func long() bool { return os.Getenv("GPUMEMSIM_LONG") == "1" }

// deviceFrom loads a device config written in src (a base with its
// changes, as a user's file is), stored as name.yaml in a temporary
// directory.
func deviceFrom(t testing.TB, name, src string) *arch.Device {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := configs.Load(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return dev
}

// bind loads a device and binds a shipped kernel on it; empty mapping and
// block take the kernel's.
func bind(t testing.TB, device, name, mapping, block string, params map[string]int64) (*arch.Device, *traces.Launch) {
	t.Helper()
	dev, err := configs.Load(device)
	if err != nil {
		t.Fatal(err)
	}
	return dev, bindOn(t, dev, name, mapping, block, params)
}

// bindOn binds a shipped kernel on dev.
func bindOn(t testing.TB, dev *arch.Device, name, mapping, block string, params map[string]int64) *traces.Launch {
	t.Helper()
	return bindSpaces(t, dev, name, nil, mapping, block, params)
}

// bindSpaces binds a shipped kernel on dev with the arrays named in
// spaces moved to their spaces, as -spaces does.
func bindSpaces(t testing.TB, dev *arch.Device, name string, spaces map[string]kernel.Space, mapping, block string, params map[string]int64) *traces.Launch {
	t.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetSpaces(spaces); err != nil {
		t.Fatal(err)
	}
	return bindKernel(t, dev, k, mapping, block, params)
}

// bindLayout binds a shipped kernel on dev with its struct arrays laid
// out as layout, as -layout does.
func bindLayout(t testing.TB, dev *arch.Device, name, layout, block string, params map[string]int64) *traces.Launch {
	t.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SelectLayout(layout); err != nil {
		t.Fatal(err)
	}
	return bindKernel(t, dev, k, "", block, params)
}

// bindKernel binds k on dev with a mapping and block as the flags write
// them ("" for the file's).
func bindKernel(t testing.TB, dev *arch.Device, k *kernel.Kernel, mapping, block string, params map[string]int64) *traces.Launch {
	t.Helper()
	var err error
	var m kernel.Mapping
	if mapping != "" {
		if m, err = kernel.ParseMapping(mapping); err != nil {
			t.Fatal(err)
		}
	}
	var blk arch.Dim3
	if block != "" {
		if blk, err = arch.ParseDim3(block); err != nil {
			t.Fatal(err)
		}
	}
	l, err := traces.Bind(k, m, blk, params, dev)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func run(t testing.TB, dev *arch.Device, l *traces.Launch, opts sim.Options) *sim.Result {
	t.Helper()
	r, err := sim.Run(context.Background(), dev, l, opts)
	if err != nil {
		t.Fatalf("Run(%s, %s %s %v): %v", dev.Name, l.Kernel.Name, l.Mapping, l.Block, err)
	}
	return r
}

// Two runs of the same inputs give byte-identical JSON, whatever the
// progress callback does.
func TestDeterministic(t *testing.T) {
	for _, device := range []string{"gt200", "fermi", "kepler", "maxwell"} {
		dev, l := bind(t, device, "matmul", "i1=tx,i2=ty", "16x8", map[string]int64{"M": 96, "N": 80, "P": 48})
		var out [2][]byte
		for i := range out {
			calls := 0
			r := run(t, dev, l, sim.Options{Progress: func(sim.Progress) { calls++ }})
			ms, err := sim.Metrics(dev, r, sim.StyleNvprof)
			if err != nil {
				t.Fatal(err)
			}
			if out[i], err = json.Marshal(struct {
				R *sim.Result
				M []sim.Metric
			}{r, ms}); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Errorf("%s: two runs differ", device)
		}
	}
}

func TestCancel(t *testing.T) {
	dev, l := bind(t, "fermi", "matmul", "", "", map[string]int64{"M": 512, "N": 512, "P": 512})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.Run(ctx, dev, l, sim.Options{}); err != context.Canceled {
		t.Errorf("Run with a cancelled context: error %v; want context.Canceled", err)
	}
}

// The coalescer-level counts of a timed run equal those of sim.Count, on
// every golden case and device: the run's SMs coalesce each instruction,
// while Count coalesces a shape of addresses once and adds its counts for
// every instruction of that shape (sim/countmemo.go).
func TestRunMatchesCount(t *testing.T) {
	goldenRuns(t, func(device string, gc goldenCase, dev *arch.Device, l *traces.Launch, r *sim.Result) {
		c, err := sim.Count(context.Background(), dev, l, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Refs {
			if r.Refs[i].RefCounts != c.Refs[i] {
				t.Errorf("%s %s %s ref %s: Run counted %+v; Count %+v", device, gc.kernel, gc.mapping, r.Refs[i].Ref, r.Refs[i].RefCounts, c.Refs[i])
			}
		}
	})
}

// impliedLatency is the unloaded round trip the config implies for a
// global load served by level ("l1", "l2" or "dram"), in core cycles; for
// DRAM it is the range from a row hit to a row conflict. A texture-only
// L2 (G80, GT200) is not on a global load's way.
func impliedLatency(d *arch.Device, level string) (lo, hi float64) {
	icnt, l2 := float64(d.Interconnect.Latency), 0.0
	if d.L2.CachesGlobal() {
		l2 = float64(d.L2.HitLatency)
	}
	switch level {
	case "l1":
		v := float64(d.L1.HitLatency)
		return v, v
	case "l2":
		v := 2*icnt + l2
		return v, v
	}
	tm := d.DRAM.Timing
	ratio := float64(d.Clocks.Core) / float64(d.Clocks.DRAM)
	burst := float64(d.DRAM.BurstLength) / float64(d.Clocks.DRAMDataRate)
	base := 2*icnt + l2 + float64(d.DRAM.Latency)
	return base + (float64(tm.CL)+burst)*ratio, base + (float64(tm.RP+tm.RCD+tm.CL)+burst)*ratio
}

// probe returns the cycles per dependent load of the latency probe at a
// footprint of f bytes, with the warm-up pass removed, and the issue
// cycles each iteration spends on non-memory instructions.
func probe(t *testing.T, device string, f int64) (perLoad, overhead float64) {
	t.Helper()
	var cycles [2]int64
	var loads [2]int64
	var dev *arch.Device
	var l *traces.Launch
	for i, r := range []int64{1, 3} {
		dev, l = bind(t, device, "latency-probe", "", "", map[string]int64{"F": f, "R": r})
		res := run(t, dev, l, sim.Options{})
		cycles[i], loads[i] = res.Cycles, res.Loads.Requests
	}
	return float64(cycles[1]-cycles[0]) / float64(loads[1]-loads[0]), issueOverhead(dev, l)
}

// issueOverhead is the issue cycles each iteration of the latency probe l
// spends on non-memory instructions: each iteration is a load, then the
// compute its value feeds, which issues at issue_per_cycle instructions
// per cycle before the next load may go.
func issueOverhead(dev *arch.Device, l *traces.Launch) float64 {
	var in traces.WarpInst
	cur := l.Warp(0, 0)
	var compute int32
	for n := 0; cur.Next(&in) && n < 8; n++ {
		if in.Op == traces.OpCompute {
			compute = in.Count
		}
	}
	return math.Ceil(float64(compute) / float64(dev.Scheduler.IssuePerCycle))
}

// The latency probe sweeps footprints around each configured capacity:
// below a level's capacity the time per load is that level's latency,
// above it the next level's, each within 10% of what the config implies.
func TestLatencyProbe(t *testing.T) {
	for _, device := range []string{"g80", "gt200", "fermi", "fermi-l1-48k", "kepler", "maxwell"} {
		dev, err := configs.Load(device)
		if err != nil {
			t.Fatal(err)
		}
		type point struct {
			footprint int64
			level     string
		}
		var sweep []point
		dram := []point{{4096, "dram"}}
		switch {
		case dev.L2.CachesGlobal() && dev.Coalescer.CacheGlobalLoads:
			l1, l2 := int64(dev.L1.Size), int64(dev.L2.Size)
			sweep = []point{{l1 / 2, "l1"}, {l1 * 3 / 4, "l1"}, {l1 * 3 / 2, "l2"}, {l2 / 2, "l2"}, {l2 * 3 / 4, "l2"}, {l2 * 2, "dram"}}
		case dev.L2.CachesGlobal():
			l2 := int64(dev.L2.Size)
			sweep = []point{{4096, "l2"}, {l2 / 2, "l2"}, {l2 * 3 / 4, "l2"}, {l2 * 2, "dram"}}
		default:
			sweep = dram
		}
		for _, p := range sweep {
			perLoad, overhead := probe(t, device, p.footprint)
			got := perLoad - overhead
			lo, hi := impliedLatency(dev, p.level)
			if got < 0.9*lo || got > 1.1*hi {
				t.Errorf("%s: footprint %v: %.1f cycles per load (%.1f after %g issue cycles); want the %s latency %.1f..%.1f ± 10%%",
					device, arch.Bytes(p.footprint), perLoad, got, overhead, p.level, lo, hi)
			} else {
				t.Logf("%s: footprint %v: %.1f cycles per load, %s latency %.1f (config %.1f..%.1f)",
					device, arch.Bytes(p.footprint), perLoad, p.level, got, lo, hi)
			}
		}
	}
}

// A large streaming copy reaches 60% to 95% of the peak DRAM bandwidth.
func TestBandwidthProbe(t *testing.T) {
	n := int64(1 << 21)
	if long() {
		n = 1 << 24
	}
	for _, device := range []string{"g80", "gt200", "fermi", "fermi-m2050", "kepler", "maxwell"} {
		dev, l := bind(t, device, "copy", "", "", map[string]int64{"N": n})
		r := run(t, dev, l, sim.Options{})
		frac := r.DRAMBandwidth / dev.PeakDRAMBandwidth()
		if frac < 0.60 || frac > 0.95 {
			t.Errorf("%s: copy of %d words reaches %.1f GB/s = %.1f%% of the peak %.1f GB/s; want 60%%..95%%",
				device, n, r.DRAMBandwidth/1e9, 100*frac, dev.PeakDRAMBandwidth()/1e9)
		} else {
			t.Logf("%s: %.1f GB/s = %.1f%% of peak", device, r.DRAMBandwidth/1e9, 100*frac)
		}
	}
}

// J14's headline on the GTX 285: mapping α (i1→tx, i2→ty) of the serial
// matmul is an order of magnitude slower than β (i1→ty, i2→tx). The paper
// measures M=N=P=1024; the default run uses 256 (GPUMEMSIM_LONG=1: 1024).
func TestJ14Headline(t *testing.T) {
	n := int64(256)
	if long() {
		n = 1024
	}
	p := map[string]int64{"M": n, "N": n, "P": n}
	dev, alpha := bind(t, "gt200", "matmul", "i1=tx,i2=ty", "16x16", p)
	_, beta := bind(t, "gt200", "matmul", "i1=ty,i2=tx", "16x16", p)
	ra, rb := run(t, dev, alpha, sim.Options{}), run(t, dev, beta, sim.Options{})
	ratio := float64(ra.Cycles) / float64(rb.Cycles)
	if ratio < 8 {
		t.Errorf("gt200 matmul %d: α takes %d cycles, β %d: %.1f times; want at least 8", n, ra.Cycles, rb.Cycles, ratio)
	}
	t.Logf("gt200 matmul %d: α %d cycles, β %d cycles, ratio %.1f", n, ra.Cycles, rb.Cycles, ratio)
}

// J14 Table 2 on the GTX 285: vector add with 3 registers, blocks of 512
// down to 16 threads, measured 3.39, 3.38, 3.39, 3.60, 5.89, 11.61 ms at
// N = 2^25. The default run uses N = 2^22 (GPUMEMSIM_LONG=1: 2^25); the
// ratios are what the occupancy and issue-slot effects set, and the time of
// the 128-thread blocks is scaled to 2^25 for the absolute check.
func TestJ14Table2(t *testing.T) {
	n := int64(1 << 22)
	if long() {
		n = 1 << 25
	}
	times := map[int]float64{}
	for _, b := range []int{512, 256, 128, 64, 32, 16} {
		dev, l := bind(t, "gt200", "vecadd", "", strconv.Itoa(b), map[string]int64{"N": n})
		r := run(t, dev, l, sim.Options{Regs: 3})
		times[b] = r.TimeMS
	}
	t128 := times[128]
	lo, hi := min(times[512], times[256], times[128]), max(times[512], times[256], times[128])
	if hi/lo > 1.05 {
		t.Errorf("blocks of 512, 256, 128: %.4f, %.4f, %.4f ms differ by %.1f%%; want within 5%%", times[512], times[256], times[128], 100*(hi/lo-1))
	}
	for _, c := range []struct {
		b      int
		lo, hi float64
		paper  float64
	}{{64, 1.0, 1.2, 1.06}, {32, 1.4, 2.2, 1.74}, {16, 2.5, 4.5, 3.42}} {
		r := times[c.b] / t128
		if r < c.lo || r > c.hi {
			t.Errorf("t(%d)/t(128) = %.2f; want %.1f..%.1f (J14 measured %.2f)", c.b, r, c.lo, c.hi, c.paper)
		} else {
			t.Logf("t(%d)/t(128) = %.2f (J14 measured %.2f)", c.b, r, c.paper)
		}
	}
	full := t128 * float64(int64(1<<25)/n)
	if full < 3.39/1.5 || full > 3.39*1.5 {
		t.Errorf("blocks of 128 at 2^25 elements: %.3f ms; want within a factor of 1.5 of J14's 3.39 ms", full)
	}
	t.Logf("times (ms) at N=%d: %v; 128-thread blocks at 2^25: %.3f ms (J14: 3.39)", n, times, full)
}
