package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// constProbe is one warp of 32 lanes reading the constant array c loads
// times, lane l at element l / S, so that a warp reads 32/S distinct
// addresses: 1, 2, 16 and 32 for S = 32, 16, 2 and 1. Each read is a
// statement of its own, whose count is 1 instruction by the kernel
// package's rule (1 for the reference; its subscript costs nothing more),
// which waits for its load; the second read issues when the first one's
// count has issued, so it finds the cache filled by the first.
func constProbe(t *testing.T, loads int) *kernel.Kernel {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: const-probe\nparams: {S: 1}\narrays:\n  c: {type: f32, dims: [64]}\nsource: |\n  __global__ void probe(const float *c) {\n")
	for i := range loads {
		fmt.Fprintf(&b, "    float v%d = c[threadIdx.x / S];\n", i)
	}
	b.WriteString("  }\nblock: [32]\ngrid: [1]\n")
	k, err := kernel.Parse("const-probe.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	k.Arrays[0].Space = kernel.SpaceConstant
	return k
}

// probeCount is the instructions each read's statement issues after it.
const probeCount = 1

// constCase is a number of distinct addresses per warp and what the
// rule of sim/constmem makes of it.
type constCase struct {
	s, distinct int64
	// passes1x and passes are a warp's passes on CC 1.x (each half-warp
	// has max(1, 16/S) addresses) and from CC 2.0 on (32/S).
	passes1x, passes int64
	// lines are the 64-byte lines the addresses lie in (16 floats a
	// line), first the index of the pass that first reads the last one.
	lines, first int64
}

var constCases = []constCase{
	{s: 32, distinct: 1, passes1x: 2, passes: 1, lines: 1, first: 0},
	{s: 16, distinct: 2, passes1x: 2, passes: 2, lines: 1, first: 0},
	{s: 2, distinct: 16, passes1x: 16, passes: 16, lines: 1, first: 0},
	{s: 1, distinct: 32, passes1x: 32, passes: 32, lines: 2, first: 16},
}

func (c constCase) passesOn(dev *arch.Device) int64 {
	if dev.Coalescer.Rule.Legacy() {
		return c.passes1x
	}
	return c.passes
}

func bindProbe(t *testing.T, dev *arch.Device, loads int, s int64) *traces.Launch {
	t.Helper()
	l, err := traces.Bind(constProbe(t, loads), nil, arch.Dim3{}, map[string]int64{"S": s}, dev)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func runProbe(t *testing.T, dev *arch.Device, loads int, s int64) *sim.Result {
	t.Helper()
	res, err := sim.Run(context.Background(), dev, bindProbe(t, dev, loads, s), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// computeCycles is the cycles a scheduler takes to issue n instructions.
func computeCycles(dev *arch.Device, n int64) int64 {
	ipc := int64(dev.Scheduler.IssuePerCycle)
	return (n + ipc - 1) / ipc
}

// TestConstantWarm: the second read of the probe finds every line in the
// constant cache. Its passes go one a cycle from its issue, and its data
// is there the hit latency h after the last pass begins; the statement's
// count then issues. Two reads take n - 1 + h + count cycles longer than
// one, n being the passes of a read, and the second read's n passes all
// hit.
func TestConstantWarm(t *testing.T) {
	for _, name := range []string{"g80", "gt200", "fermi", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range constCases {
			n := c.passesOn(dev)
			one, two := runProbe(t, dev, 1, c.s), runProbe(t, dev, 2, c.s)
			want := n - 1 + int64(dev.Constant.HitLatency) + computeCycles(dev, probeCount)
			if d := two.Cycles - one.Cycles; d != want {
				t.Errorf("%s, %d addresses: the second read takes %d cycles; want %d passes - 1 + hit %d + %d",
					name, c.distinct, d, n, dev.Constant.HitLatency, computeCycles(dev, probeCount))
			}
			cs := two.Constant
			if cs.Requests != 2 || cs.Passes != 2*n || cs.Cache.Hits != n || cs.Cache.Misses != n || cs.Cache.Fills != c.lines {
				t.Errorf("%s, %d addresses: %d requests, %d passes, %d hits, %d misses, %d fills; want 2, %d, %d, %d, %d",
					name, c.distinct, cs.Requests, cs.Passes, cs.Cache.Hits, cs.Cache.Misses, cs.Cache.Fills, 2*n, n, n, c.lines)
			}
			if r := two.Refs[1]; r.Space != "constant" || r.ConstHits != n || r.ConstMisses != 0 || r.Transactions != n {
				t.Errorf("%s, %d addresses: second reference %+v; want space constant, %d passes, all hits", name, c.distinct, r, n)
			}
			if two.Loads.Requests != 0 || two.MemInsts != 2 {
				t.Errorf("%s: %d global load requests, %d memory instructions; want 0 and 2", name, two.Loads.Requests, two.MemInsts)
			}
		}
	}
}

// TestConstantMissL2: on Fermi and later a constant-cache miss reads its
// 64-byte line through the L2. The second launch of a sequence finds its
// constant cache empty (SMs are built afresh) and the L2 holding the
// lines the first launch read: each line's first pass misses at cycle
// T0 + p (T0 the block launch latency, p the pass's index) and its data
// is back at T0 + p + 2 icnt + L2 hit; the other passes of the line
// merge into that miss. So one read takes T0 + first + 2 icnt + L2 hit
// + count cycles, first being the pass that reads the last line.
func TestConstantMissL2(t *testing.T) {
	for _, name := range []string{"fermi", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range constCases {
			l := bindProbe(t, dev, 1, c.s)
			seq, err := sim.RunSequence(context.Background(), dev, []traces.Source{l, l}, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cold, warmL2 := seq.Launches[0], seq.Launches[1]
			rt := 2*int64(dev.Interconnect.Latency) + int64(dev.L2.HitLatency)
			want := int64(dev.Scheduler.BlockLaunchLatency) + c.first + rt + computeCycles(dev, probeCount)
			if warmL2.Cycles != want {
				t.Errorf("%s, %d addresses: a read missing to the L2 takes %d cycles; want T0 %d + pass %d + round trip %d + %d",
					name, c.distinct, warmL2.Cycles, dev.Scheduler.BlockLaunchLatency, c.first, rt, computeCycles(dev, probeCount))
			}
			n := c.passesOn(dev)
			for i, r := range []*sim.Result{cold, warmL2} {
				cs := r.Constant
				if cs.Passes != n || cs.Cache.Hits != 0 || cs.Cache.Misses != n || cs.Cache.Fills != c.lines || cs.Cache.MSHRMerges != n-c.lines || cs.Cache.FillSectors != 2*c.lines {
					t.Errorf("%s, %d addresses, launch %d: %+v; want %d passes, all missed, %d fills of 2 sectors, %d merged", name, c.distinct, i+1, cs, n, c.lines, n-c.lines)
				}
				// Each fill is one L2 read of 2 sectors: all miss in the
				// first launch and go on to DRAM, all hit in the second.
				hits, dramSectors := int64(0), 2*c.lines
				if i == 1 {
					hits, dramSectors = 2*c.lines, 0
				}
				if r.L2.ReadRequests != c.lines || r.L2.ReadSectors != 2*c.lines || r.L2.ReadHitSectors != hits || r.DRAM.ReadSectors != dramSectors {
					t.Errorf("%s, %d addresses, launch %d: L2 %d reads of %d sectors, %d hit; DRAM %d sectors; want %d, %d, %d, %d",
						name, c.distinct, i+1, r.L2.ReadRequests, r.L2.ReadSectors, r.L2.ReadHitSectors, r.DRAM.ReadSectors, c.lines, 2*c.lines, hits, dramSectors)
				}
			}
		}
	}
}

// TestConstantMissDRAM: on G80 and GT200 a constant-cache miss reads its
// line from DRAM (their L2 holds textures only). A cold read takes T0 +
// first + the DRAM round trip + count cycles, where the round trip is 2
// icnt + dram.latency + the DRAM's own time, converted from DRAM clocks:
// at least tCL and the 64-byte line's bursts (an open row), at most
// tRP + tRCD + tCL and the bursts (a row miss), give or take a cycle of
// rounding.
func TestConstantMissDRAM(t *testing.T) {
	for _, name := range []string{"g80", "gt200"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		m := dev.DRAM
		bursts := 64 / (int64(m.BusWidthBits) / 8 * int64(m.BurstLength)) // bursts of a 64-byte line
		burst := bursts * int64(m.BurstLength) / int64(dev.Clocks.DRAMDataRate)
		toCore := func(dramCycles int64) float64 {
			return float64(dramCycles) * float64(dev.Clocks.Core) / float64(dev.Clocks.DRAM)
		}
		fixed := float64(2*dev.Interconnect.Latency + m.Latency)
		lo := fixed + toCore(int64(m.Timing.CL)+burst) - 1
		hi := fixed + toCore(int64(m.Timing.RP+m.Timing.RCD+m.Timing.CL)+burst) + 1
		for _, c := range constCases {
			res := runProbe(t, dev, 1, c.s)
			rt := float64(res.Cycles - int64(dev.Scheduler.BlockLaunchLatency) - c.first - computeCycles(dev, probeCount))
			if rt < lo || rt > hi {
				t.Errorf("%s, %d addresses: the miss's round trip is %.0f cycles; want %.1f to %.1f", name, c.distinct, rt, lo, hi)
			}
			n := c.passesOn(dev)
			cs := res.Constant
			if cs.Passes != n || cs.Cache.Misses != n || cs.Cache.Fills != c.lines || res.DRAM.ReadSectors != 2*c.lines || res.DRAM.Reads != c.lines {
				t.Errorf("%s, %d addresses: %d passes, %d misses, %d fills, DRAM %d reads of %d sectors; want %d, %d, %d, %d, %d",
					name, c.distinct, cs.Passes, cs.Cache.Misses, cs.Cache.Fills, res.DRAM.Reads, res.DRAM.ReadSectors, n, n, c.lines, c.lines, 2*c.lines)
			}
		}
	}
}

// TestConstantMSHRFull: a warp reading 32 addresses 64 bytes apart misses
// 32 lines; gt200's constant cache has 2 MSHR entries (GPGPU-Sim's
// A:2:32), so the load/store unit stops after every second miss until a
// fill returns: 16 DRAM round trips one after the other, each at least
// the open-row time of TestConstantMissDRAM.
func TestConstantMSHRFull(t *testing.T) {
	src := "name: spread\narrays:\n  c: {type: f32, dims: [512]}\nsource: |\n  __global__ void spread(const float *c) {\n    float v = c[threadIdx.x * 16];\n  }\nblock: [32]\ngrid: [1]\n"
	k, err := kernel.Parse("spread.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k.Arrays[0].Space = kernel.SpaceConstant
	dev, res := runKernel(t, "gt200", k)
	cs := res.Constant
	if cs.Passes != 32 || cs.Cache.Misses != 32 || cs.Cache.Fills != 32 || cs.Cache.MSHRStalls == 0 || res.L1.MSHRStalls != 0 || res.DRAM.ReadSectors != 64 {
		t.Errorf("%+v, L1 MSHR stalls %d, DRAM %d sectors; want 32 passes, misses and fills, constant MSHR stalls, no L1 ones, 64 sectors", cs, res.L1.MSHRStalls, res.DRAM.ReadSectors)
	}
	floor := 16 * (2*int64(dev.Interconnect.Latency) + int64(dev.DRAM.Latency))
	if res.Cycles < floor {
		t.Errorf("%d cycles; want at least 16 round trips of %d", res.Cycles, floor/16)
	}
}

// TestConstantCount: the coalescer-only counts (Count) give a constant
// reference the simulator's requests and passes.
func TestConstantCount(t *testing.T) {
	for _, name := range []string{"gt200", "fermi"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range constCases {
			l := bindProbe(t, dev, 2, c.s)
			cnt, err := sim.Count(context.Background(), dev, l, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := c.passesOn(dev)
			if cnt.Constant.Requests != 2 || cnt.Constant.Passes != 2*n || cnt.Refs[0].Transactions != n || cnt.Loads.Requests != 0 {
				t.Errorf("%s, %d addresses: Count %+v, global loads %d; want 2 requests of %d passes, none global", name, c.distinct, cnt.Constant, cnt.Loads.Requests, n)
			}
		}
	}
}

// TestConstantHalves: a 16×2 block's warp reading constant memory at an
// index that is uniform, or a thread index the simulator takes as Halves
// (the cursor leaves the lanes unwritten): c[5] is one address, one pass
// from CC 2.0 on and one per half-warp on CC 1.x; c[threadIdx.y] one
// address per half-warp, two passes under either rule; c[threadIdx.x]
// the same 16 words in both half-warps, 16 passes from CC 2.0 on and 32
// on CC 1.x, counted by the run and by Count alike.
func TestConstantHalves(t *testing.T) {
	for _, name := range []string{"gt200", "fermi", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		legacy := dev.Coalescer.Rule.Legacy()
		for _, c := range []struct {
			index          string
			passes1x, pass int64
		}{{"5", 2, 1}, {"threadIdx.y", 2, 2}, {"threadIdx.x", 32, 16}} {
			l := bindSource(t, dev, "name: const-halves\narrays:\n  c: {type: f32, dims: [64], space: constant}\nsource: |\n  __global__ void k(const float *c) {\n    float v = c["+c.index+"];\n  }\nblock: [16, 2]\ngrid: [1]\n")
			want := c.pass
			if legacy {
				want = c.passes1x
			}
			res := run(t, dev, l, sim.Options{})
			cnt, err := sim.Count(context.Background(), dev, l, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Constant.Requests != 1 || res.Constant.Passes != want || cnt.Constant.Passes != want {
				t.Errorf("%s, c[%s]: run %+v, Count %d passes; want 1 request of %d passes", name, c.index, res.Constant, cnt.Constant.Passes, want)
			}
		}
	}
}

// TestConstantMetrics: the sim_const_* metrics name the counts, and
// appear only for a kernel that reads constant memory.
func TestConstantMetrics(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	res := runProbe(t, dev, 2, 1) // 32 addresses: 32 misses, then 32 hits
	ms, err := sim.Metrics(dev, res, sim.StyleNvprof)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"sim_const_requests": 2, "sim_const_passes": 64, "sim_const_passes_per_request": 32,
		"sim_const_hits": 32, "sim_const_misses": 32, "sim_const_hit_rate": 50, "sim_const_fill_sectors": 4}
	wantMetrics(t, ms, want)
	k := constProbe(t, 1)
	k.Arrays[0].Space = kernel.SpaceGlobal
	_, g := runKernel(t, "fermi", k)
	ms, err = sim.Metrics(dev, g, sim.StyleNvprof)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if strings.HasPrefix(m.Name, "sim_const_") {
			t.Errorf("%s shown for a kernel without constant references", m.Name)
		}
	}
}

// wantMetrics checks that ms has each metric of want with its value.
func wantMetrics(t *testing.T, ms []sim.Metric, want map[string]float64) {
	t.Helper()
	for _, m := range ms {
		if w, ok := want[m.Name]; ok {
			if m.Value != w {
				t.Errorf("%s = %v; want %v", m.Name, m.Value, w)
			}
			delete(want, m.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("metrics missing: %v", want)
	}
}

// TestMRIQInterchange runs the shipped MRI-Q kernels at NX = 4096 voxels
// and NK = 256 k-space samples. Both read ck five times per (voxel,
// sample) pair, NX·NK·5/32 = 163840 warp requests. mri-q's lanes are
// voxels: every lane of a warp reads one sample, 1 pass per request (2
// on CC 1.x); mri-q-k-outer's lanes are samples 16 bytes apart: 32
// passes per request (16 + 16 on CC 1.x). ck is 4 KiB, 64 lines of 64
// bytes, within the 8 KiB constant cache, so every SM that runs a block
// fills each line once and never evicts it: mri-q's 16 blocks of 256
// threads run on 16 SMs of gt200's 30 and all 15 of fermi's, mri-q-k-outer's
// one block on one SM. That SM's load/store unit sends every pass of
// mri-q-k-outer one per cycle, so the run takes at least as many cycles
// as there are passes.
func TestMRIQInterchange(t *testing.T) {
	const requests = 4096 * 256 * 5 / 32
	for _, tc := range []struct {
		device, kernel string
		passes, fills  int64
	}{
		{"gt200", "mri-q", 2 * requests, 16 * 64},
		{"gt200", "mri-q-k-outer", 32 * requests, 64},
		{"fermi", "mri-q", requests, 15 * 64},
		{"fermi", "mri-q-k-outer", 32 * requests, 64},
	} {
		k, err := kernel.Load(tc.kernel)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := configs.Load(tc.device)
		if err != nil {
			t.Fatal(err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"NX": 4096, "NK": 256}, dev)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), dev, l, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Constant
		if c.Requests != requests || c.Passes != tc.passes || c.Cache.Fills != tc.fills || c.Cache.Evictions != 0 {
			t.Errorf("%s on %s: %d requests, %d passes, %d fills, %d evictions; want %d, %d, %d, 0",
				tc.kernel, tc.device, c.Requests, c.Passes, c.Cache.Fills, c.Cache.Evictions, requests, tc.passes, tc.fills)
		}
		if tc.kernel == "mri-q-k-outer" && res.Cycles < c.Passes {
			t.Errorf("%s on %s: %d cycles for %d passes on one SM", tc.kernel, tc.device, res.Cycles, c.Passes)
		}
	}
}
