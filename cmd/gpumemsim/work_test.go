package main

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// The estimate of a launch is its closed-form work, derived here by hand
// from the kernel's loops, at the rate of its class of device.
func TestEstimateOf(t *testing.T) {
	// matmul at 64³, i1=ty, i2=tx, 16x16 blocks: 4x4 = 16 blocks of 8
	// warps, 128 warps. Each warp runs `float acc = 0` (1 register move);
	// 64 trips of i3, each 3 loop control and `acc += A[i1][i3] *
	// B[i3][i2]` (2 loads, 2 address computations, the *, the +=: 6); and
	// `C[i1][i2] = acc` (a store and its address: 2). That is 1 + 64·9 + 2
	// = 579 warp instructions, 64·2 + 1 = 129 of them memory ones.
	//
	// The time counts global transactions too. On gt200 (CC 1.3) a
	// half-warp reads one address of A (i1 = ty), one 32-B transaction,
	// and 16 consecutive aligned floats of B and of C, one 64-B
	// transaction each: per warp 64·2 + 64·2 + 2 = 258. On fermi (CC 2.0,
	// 128-B lines) a warp's two rows read two addresses of A, two lines,
	// and the same 64 aligned bytes of B, one line: 64·3 loads; its store
	// of C two 64-B rows, 2. On kepler (CC 3.0, loads not cached in L1:
	// 32-B segments) A's two addresses are two segments and B's 64 bytes
	// two: 64·4 loads; C's two rows four segments. The whole grid, 128
	// warps, is resident at once on each, which prices every memory
	// instruction the more. Each launch adds its set-up, a constant and
	// a time per SM given a block.
	const warps = 16 * 8
	l2, dram := rates[nestL2], rates[nestDRAM]
	for _, tc := range []struct {
		device  string
		seconds float64
		sms     float64 // given a block of the 16: fermi has 15, kepler 13, gt200 30
	}{
		{"fermi", 129*warps*(l2[nestMem]+l2[nestCrowd]*warps/1000) + 192*warps*l2[nestLoad] + 2*warps*l2[nestStore], 15},
		{"kepler", 129*warps*(l2[nestMem]+l2[nestCrowd]*warps/1000) + 256*warps*l2[nestLoad] + 4*warps*l2[nestStore], 13},
		{"gt200", 129*warps*(dram[nestMem]+dram[nestCrowd]*warps/1000) + 256*warps*dram[nestLoad] + 2*warps*dram[nestStore], 16}, // no L2
	} {
		dev, l := bindMatmul(t, tc.device, "", arch.Dim3{}, 64)
		tc.seconds += launchSetupSeconds + launchSetupSecondsPerSM*tc.sms
		work, err := workOf(context.Background(), l, defaultMaxWork, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := estimateOf(dev, l, work, true)
		want := workEstimate{warpInsts: 579 * warps, memInsts: 129 * warps, blocks: 16, launches: 1,
			seconds: tc.seconds, longest: tc.seconds, leastSeconds: tc.seconds, leastLongest: tc.seconds}
		// The terms are summed in another order than above: equal to
		// the last bits.
		if s := got.seconds; math.Abs(s-tc.seconds) <= 1e-12*tc.seconds && got.longest == s && got.leastSeconds == s && got.leastLongest == s {
			got.seconds, got.longest, got.leastSeconds, got.leastLongest = tc.seconds, tc.seconds, tc.seconds, tc.seconds
		}
		if got != want {
			t.Errorf("estimateOf(%s, matmul 64³) = %+v; want %+v", tc.device, got, want)
		}
		// Untimed (nothing shown): the same work, no time.
		want.seconds, want.longest, want.leastSeconds, want.leastLongest = 0, 0, 0, 0
		if got := estimateOf(dev, l, work, false); got != want {
			t.Errorf("estimateOf(%s, matmul 64³, untimed) = %+v; want %+v", tc.device, got, want)
		}
	}
}

// A per-thread kernel's estimate counts the transactions of a sample of
// its blocks, derived here by hand. transpose-shared (32×8 threads, 8
// warps a block): each warp loads four rows of 32 floats of idata, stores
// each into a row of tile, reads four columns of tile and stores four
// rows of odata; 8 shared-memory instructions. A row of 128 aligned bytes
// is one 128-B line on fermi, two 64-B transactions (one a half-warp) on
// gt200 and four 32-B segments on kepler. At N=64 the grid's 4 blocks are
// all counted; at N=1024, 16 of its 1024, scaled by 64. The grid is
// resident at once at N=64 (32 warps), and at N=1024 every SM holds 6
// blocks on fermi (1536 threads), 8 on kepler (2048 threads) and 4 on
// gt200 (1024 threads), 48, 64 and 32 warps, on 15, 13 and 30 SMs. The
// warp instructions are the launch's own (traces' tests count them); the
// launch's set-up is added as in TestEstimateOf.
func TestEstimateOfPerThread(t *testing.T) {
	for _, tc := range []struct {
		device        string
		n             int64
		perRow        float64 // transactions of a 128-B row
		residentWarps float64
		rates         terms
	}{
		{"fermi", 64, 1, 32, rates[threadL2]},
		{"fermi", 1024, 1, 15 * 48, rates[threadL2]},
		{"kepler", 1024, 4, 13 * 64, rates[threadL2]},
		{"gt200", 64, 2, 32, rates[threadDRAM]},
		{"gt200", 1024, 2, 30 * 32, rates[threadDRAM]},
	} {
		dev, l := bindExample(t, tc.device, "transpose-shared", "", arch.Dim3{}, map[string]int64{"N": tc.n})
		warps := float64(tc.n*tc.n) / 1024 * 8 // 32×32 tiles
		rows := 4 * warps                      // of each of the four kinds
		r := tc.rates
		want := l.WarpInstructions()*(r[threadInst]+r[threadCrowd]*tc.residentWarps/1000) +
			rows*tc.perRow*(r[threadLoad]+r[threadStore]) + 2*rows*r[threadOther] +
			launchSetupSeconds + launchSetupSecondsPerSM*min(warps/8, float64(dev.SMs))
		got := estimateOf(dev, l, l.WarpInstructions(), true)
		if math.Abs(got.seconds-want) > 1e-9*want || got.memInsts != 4*rows {
			t.Errorf("%s, N=%d: %v s, %v memory instructions; want %v s, %v", tc.device, tc.n, got.seconds, got.memInsts, want, 4*rows)
		}
	}
}

func TestEstimateAdd(t *testing.T) {
	a := workEstimate{warpInsts: 10, memInsts: 4, blocks: 2, launches: 1, seconds: 3, longest: 3, leastSeconds: 3, leastLongest: 3}
	b := workEstimate{warpInsts: 20, memInsts: 6, blocks: 5, launches: 2, seconds: 7, longest: 5, leastSeconds: 2, leastLongest: 1.5, sampled: true}
	want := workEstimate{warpInsts: 30, memInsts: 10, blocks: 7, launches: 3, seconds: 10, longest: 5, leastSeconds: 5, leastLongest: 3, sampled: true}
	if got := (workEstimate{}).add(a).add(b); got != want {
		t.Errorf("add = %+v; want %+v", got, want)
	}
}

func TestEstimateWall(t *testing.T) {
	for _, tc := range []struct {
		seconds, longest  float64
		launches, workers int
		want              float64
	}{
		{0, 0, 0, 2, 0},
		{4, 4, 1, 1, 4},
		{4, 4, 1, 8, 4},  // one launch uses one core
		{12, 3, 6, 2, 6}, // shared out evenly
		{12, 9, 6, 2, 9}, // but no sooner than the longest
		{12, 3, 6, 0, 0}, // no cores: no estimate rather than +Inf
	} {
		w := workEstimate{seconds: tc.seconds, longest: tc.longest, launches: tc.launches}
		if got := w.wall(tc.workers); got != tc.want {
			t.Errorf("wall(seconds %v, longest %v, %d launches, %d workers) = %v; want %v",
				tc.seconds, tc.longest, tc.launches, tc.workers, got, tc.want)
		}
	}
}

func TestEstimateLine(t *testing.T) {
	// matmul 256³ on fermi: 256 blocks; per warp 1 + 256·9 + 2 = 2307
	// instructions, 513 memory ones; 2048 warps.
	one := workEstimate{warpInsts: 2307 * 2048, memInsts: 513 * 2048, blocks: 256, launches: 1}
	one.seconds = one.memInsts / memInstsPerSecondL2
	one.longest = one.seconds
	for _, tc := range []struct {
		w       workEstimate
		workers int
		want    string
	}{
		{one, 1, "work: 4.72 M warp instructions (1.05 M memory), 256 blocks; estimated 525 ms"},
		{one, 2, "work: 4.72 M warp instructions (1.05 M memory), 256 blocks; estimated 525 ms"},
		{workEstimate{warpInsts: 999, memInsts: 0, blocks: 1, launches: 1, seconds: 0.0004, longest: 0.0004}, 1,
			"work: 999 warp instructions (0 memory), 1 block; estimated 0.4 ms"},
		{workEstimate{warpInsts: 2e9, memInsts: 9.995e8, blocks: 65536, launches: 12, seconds: 3000, longest: 400}, 2,
			"work: 2 G warp instructions (1 G memory), 65536 blocks in 12 simulations; estimated 25 min on 2 cores"},
		{workEstimate{warpInsts: 1.5e12, memInsts: 5e11, blocks: 1 << 20, launches: 3, seconds: 7.2e5, longest: 7.2e5}, 4,
			"work: 1.5 T warp instructions (500 G memory), 1048576 blocks in 3 simulations; estimated 200 h on 3 cores"},
		{workEstimate{warpInsts: 16.8e6, memInsts: 8.39e6, blocks: 1024, launches: 1, seconds: 59.6, longest: 59.6}, 1,
			"work: 16.8 M warp instructions (8.39 M memory), 1024 blocks; estimated 60 s"},
		{workEstimate{warpInsts: 1e6, memInsts: 1e5, blocks: 8, launches: 1, seconds: 3.14, longest: 3.14}, 1,
			"work: 1 M warp instructions (100 k memory), 8 blocks; estimated 3.1 s"},
		// Sampled: from the fewest blocks the sampler simulates to all.
		{workEstimate{warpInsts: 3.02e8, memInsts: 6.71e7, blocks: 4096, launches: 1, seconds: 134, longest: 134,
			leastSeconds: 24.1, leastLongest: 24.1, sampled: true}, 1,
			"work: 302 M warp instructions (67.1 M memory), 4096 blocks; estimated 24 s to 2.2 min, sampled"},
		{workEstimate{warpInsts: 6e8, memInsts: 1.3e8, blocks: 8192, launches: 2, seconds: 160, longest: 134,
			leastSeconds: 29, leastLongest: 24, sampled: true}, 2,
			"work: 600 M warp instructions (130 M memory), 8192 blocks in 2 simulations; estimated 24 s to 2.2 min on 2 cores, sampled"},
		// A grid the sampler simulates whole: one time.
		{workEstimate{warpInsts: 1e6, memInsts: 1e5, blocks: 8, launches: 1, seconds: 3.14, longest: 3.14,
			leastSeconds: 3.14, leastLongest: 3.14, sampled: true}, 1,
			"work: 1 M warp instructions (100 k memory), 8 blocks; estimated 3.1 s"},
	} {
		if got := tc.w.line(tc.workers); got != tc.want {
			t.Errorf("line(%+v, %d workers) =\n%s; want\n%s", tc.w, tc.workers, got, tc.want)
		}
	}
}

// TestSampledOf: a sampled run's least time is its full estimate's share
// of the fewest blocks the sampler simulates. J14's Fig. 1, the α mapping
// on gt200: 4096 blocks in waves of 120, at least 736 simulated (six
// waves, then 28 of the 3,376 left skipped); unsampled, the full time.
func TestSampledOf(t *testing.T) {
	dev, l := bindMatmul(t, "gt200", "i1=tx,i2=ty", arch.Dim3{X: 16, Y: 16, Z: 1}, 1024)
	work := l.WarpInstructions()
	full := estimateOf(dev, l, work, true)
	got := sampledOf(dev, l, work, sim.SampleOptions{On: true}, 0, true)
	if want := full.seconds * 736 / 4096; !got.sampled || math.Abs(got.leastSeconds-want) > 1e-9*want || got.leastLongest != got.leastSeconds || got.seconds != full.seconds {
		t.Errorf("sampled: least %v s (longest %v), full %v s; want least %v s of full %v s", got.leastSeconds, got.leastLongest, got.seconds, want, full.seconds)
	}
	if w := sampledOf(dev, l, work, sim.SampleOptions{}, 0, true); w.sampled || w.leastSeconds != full.seconds {
		t.Errorf("unsampled: least %v s, sampled %v; want the full %v s", w.leastSeconds, w.sampled, full.seconds)
	}
}

// bindMatmul binds the shipped matmul at M=N=P=n on device, under mapping
// (the kernel's own when empty) and block (the kernel's own when zero).
func bindMatmul(t *testing.T, device, mapping string, block arch.Dim3, n int64) (*arch.Device, *traces.Launch) {
	t.Helper()
	return bindExample(t, device, "matmul", mapping, block, map[string]int64{"M": n, "N": n, "P": n})
}

// bindExample binds the shipped example name with params on device, under
// mapping (the kernel's own when empty) and block (the kernel's own when
// zero).
func bindExample(t *testing.T, device, name, mapping string, block arch.Dim3, params map[string]int64) (*arch.Device, *traces.Launch) {
	t.Helper()
	dev, err := configs.Load(device)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var m kernel.Mapping
	if mapping != "" {
		if m, err = kernel.ParseMapping(mapping); err != nil {
			t.Fatal(err)
		}
	}
	l, err := bindLaunch(k, m, block, params, dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, l
}

// TestInterruptedCount: a command interrupted (its context done) while
// it counts a per-thread kernel's work stops with the context's error,
// not with a refusal past -max-work after counting to the cap (which it
// would reach here: matmul-tiled's work is past 1e6).
func TestInterruptedCount(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cmd := range []string{"run", "trace"} {
		var stdout, stderr strings.Builder
		err := run(ctx, []string{cmd, "-device", "fermi", "-kernel", "matmul-tiled", "-max-work", "1e6"}, &stdout, &stderr)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s, interrupted: %v; want %v", cmd, err, context.Canceled)
		}
	}
}
