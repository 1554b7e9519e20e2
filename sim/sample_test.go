package sim_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// A sampled run skips whole middle waves and lands within the issue's
// goals of the full run (cycles 2%, counts 1%); the instruction counts,
// known in closed form, are exact; and it is deterministic.
func TestSampleAgainstFull(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a large grid twice")
	}
	// vecadd N=2^22: 32768 blocks of 128 threads; fermi holds
	// min(8 blocks, 1536/128 threads) = 8 per SM on 15 SMs, waves of 120
	// blocks: 273 waves.
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 22})
	full, err := sim.Run(context.Background(), dev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := sim.Options{Sample: sim.SampleOptions{On: true}}
	got, err := sim.Run(context.Background(), dev, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Sampling
	if s == nil || s.WaveBlocks != 120 || s.SkippedBlocks%120 != 0 || s.SkippedBlocks < 32768/2 {
		t.Fatalf("sampling %s: want waves of 120 blocks and over half of 32768 skipped in whole waves", describe(s))
	}
	// No fewer than the least a sampled run simulates: six waves (the
	// warm-up, four, the one in flight), 720 blocks, then 267 whole
	// waves of the 32,048 left skipped, their 8 blocks simulated: 728.
	if least, err := sim.SampledAtLeast(dev, l, 0, sim.SampleOptions{On: true}); err != nil || least != 728 || s.SimulatedBlocks < least {
		t.Errorf("SampledAtLeast %d (%v), want 728, at most the %d blocks simulated", least, err, s.SimulatedBlocks)
	}
	if got.WarpInsts != full.WarpInsts || got.MemInsts != full.MemInsts || got.Loads.Requests != full.Loads.Requests {
		t.Errorf("instruction counts %d/%d/%d, want the full run's %d/%d/%d exactly",
			got.WarpInsts, got.MemInsts, got.Loads.Requests, full.WarpInsts, full.MemInsts, full.Loads.Requests)
	}
	within := func(name string, g, w int64, tol float64) {
		if e := math.Abs(float64(g-w)) / float64(w); e > tol {
			t.Errorf("%s: sampled %d, full %d: off by %.2f%%, over %.0f%%", name, g, w, 100*e, 100*tol)
		}
	}
	within("cycles", got.Cycles, full.Cycles, 0.02)
	within("DRAM reads", got.DRAM.Reads, full.DRAM.Reads, 0.01)
	within("DRAM writes", got.DRAM.Writes, full.DRAM.Writes, 0.01)
	within("L2 read sectors", got.L2.ReadSectors, full.L2.ReadSectors, 0.01)
	// Counted, not extrapolated: each warp loads 128 aligned bytes, one
	// L1 line, and stores them as one 128-B segment, which the
	// 128→64→32 reduction keeps whole (hardware.md §2.3).
	if got.Loads.Transactions != 2*131072 || got.Stores.Transactions != 131072 {
		t.Errorf("load and store transactions %d and %d, want %d and %d exactly",
			got.Loads.Transactions, got.Stores.Transactions, 2*131072, 131072)
	}

	again, err := sim.Run(context.Background(), dev, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("two sampled runs of the same launch differ")
	}
}

// The counts the addresses decide are counted over the skipped blocks of
// a loop nest, not extrapolated: every reference's requests and
// transactions are the full run's, and their metrics carry no interval.
// Copy on GT200 is also checked by hand: 2^20 four-byte words, 32768
// warps, each half-warp one 64-B segment for its load and one for its
// store (hardware.md §2.2). A per-thread kernel, whose interpreter costs
// about what simulating does, is not counted: its shared passes are
// extrapolated, with intervals.
func TestSampleCountsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates each grid twice")
	}
	for _, c := range []struct {
		device, kernel, mapping, block string
		params                         map[string]int64
		counted                        bool
	}{
		{"gt200", "copy", "", "", map[string]int64{"N": 1 << 20}, true},
		{"fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 2048, "N": 1024, "P": 16}, true},
		{"kepler", "stencil-shared", "", "", nil, false},
	} {
		dev, l := bind(t, c.device, c.kernel, c.mapping, c.block, c.params)
		full := run(t, dev, l, sim.Options{})
		got := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
		s := got.Sampling
		if s == nil || s.SkippedBlocks == 0 || s.Counted != c.counted {
			t.Fatalf("%s on %s: sampling %s; want blocks skipped, counted %v", c.kernel, c.device, describe(s), c.counted)
		}
		ms, err := sim.Metrics(dev, got, sim.StyleNvprof)
		if err != nil {
			t.Fatal(err)
		}
		intervals := 0
		for _, m := range ms {
			if m.CI95 != nil && (strings.HasPrefix(m.Name, "gld_") || strings.HasPrefix(m.Name, "gst_") || strings.HasPrefix(m.Name, "shared_")) {
				intervals++
			}
		}
		if !c.counted {
			if intervals == 0 {
				t.Errorf("%s on %s: extrapolated transactions have no interval", c.kernel, c.device)
			}
			continue
		}
		if intervals > 0 {
			t.Errorf("%s on %s: %d transaction metrics have an interval; they were counted", c.kernel, c.device, intervals)
		}
		for i := range full.Refs {
			if got.Refs[i].RefCounts != full.Refs[i].RefCounts {
				t.Errorf("%s on %s, %s: sampled %+v, full %+v", c.kernel, c.device, full.Refs[i].Ref, got.Refs[i].RefCounts, full.Refs[i].RefCounts)
			}
		}
		if got.Loads != full.Loads || got.Stores != full.Stores || got.MemInsts != full.MemInsts {
			t.Errorf("%s on %s: sampled totals differ from the full run's", c.kernel, c.device)
		}
		if c.kernel == "copy" && (got.Loads.Txn64 != 65536 || got.Stores.Txn64 != 65536 || got.Loads.Transactions != 65536) {
			t.Errorf("copy on gt200: %d and %d 64-B transactions, %d in all for loads; want 65536 each",
				got.Loads.Txn64, got.Stores.Txn64, got.Loads.Transactions)
		}
		checkDRAMCounted(t, c.device, c.kernel, got, full, ms)
	}
}

// checkDRAMCounted checks what a counted sampled run got says of the
// requests sent to DRAM. On gt200, which has no L2 for global memory,
// each transaction is one DRAM request of its size, so copy's 2^20
// words are 65,536 reads and 65,536 writes of 64 B (4 MiB, 131,072
// sectors, each way), exact and without an interval, as in the full
// run; on a device with an L2 they stay extrapolated, with one.
func checkDRAMCounted(t *testing.T, device, kernel string, got, full *sim.Result, ms []sim.Metric) {
	t.Helper()
	intervals := 0
	for _, m := range ms {
		if m.CI95 != nil && (m.Name == "dram_read_transactions" || m.Name == "dram_write_transactions") {
			intervals++
		}
	}
	if device != "gt200" {
		if intervals != 2 {
			t.Errorf("%s on %s: %d of the DRAM transaction metrics have an interval; behind an L2 both are extrapolated", kernel, device, intervals)
		}
		return
	}
	if intervals > 0 {
		t.Errorf("%s on %s: %d DRAM transaction metrics have an interval; each transaction is one request, counted", kernel, device, intervals)
	}
	d, f := got.DRAM, full.DRAM
	want := [6]int64{65536, 65536, 4 << 20, 4 << 20, 131072, 131072}
	gotSent := [6]int64{d.Reads, d.Writes, d.ReadBytes, d.WriteBytes, d.ReadSectors, d.WriteSectors}
	fullSent := [6]int64{f.Reads, f.Writes, f.ReadBytes, f.WriteBytes, f.ReadSectors, f.WriteSectors}
	if gotSent != want || fullSent != want {
		t.Errorf("%s on %s: DRAM reads, writes, their bytes and sectors %v sampled, %v in full; want %v", kernel, device, gotSent, fullSent, want)
	}
	for i := range got.Refs {
		if got.Refs[i].DRAMReadSectors != full.Refs[i].DRAMReadSectors {
			t.Errorf("%s on %s, %s: %d DRAM read sectors sampled, %d in full", kernel, device, got.Refs[i].Ref, got.Refs[i].DRAMReadSectors, full.Refs[i].DRAMReadSectors)
		}
	}
}

// A grid of a few waves leaves nothing to skip: the sampled run is the
// full run, and says so.
func TestSampleSmallGridIsExact(t *testing.T) {
	dev, l := bind(t, "fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 128, "N": 128, "P": 64})
	full, err := sim.Run(context.Background(), dev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sim.Run(context.Background(), dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Sampling == nil || got.Sampling.SkippedBlocks != 0 || got.Sampling.SimulatedBlocks != 64 {
		t.Fatalf("sampling %s: want all 64 blocks simulated", describe(got.Sampling))
	}
	got.Sampling = nil
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(full)
	if string(a) != string(b) {
		t.Error("a sampled run that skipped nothing differs from the full run")
	}
	ms, err := sim.Metrics(dev, got, sim.StyleNvprof)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.CI95 != nil {
			t.Errorf("%s has a confidence interval in a run that extrapolated nothing", m.Name)
		}
	}
}

// Each reference's counts are extrapolated per its own instructions, so
// that in a grid of alike blocks they come out exact. Ryoo's prefetching
// matmul at W=512 on g80, by hand: 32×32 blocks of 8 warps; per warp one
// load of A and of B before the loop, 31 in it (the last step loads
// nothing), 32 deposits in each shared tile, 16×32 reads of each, and one
// store of C.
// Every global access is a half-warp's 16 consecutive floats, 64-byte
// aligned: one 64-B transaction each on CC 1.0 (hardware.md §2.2), two a
// warp. Before, the references' counts were extrapolated per memory or
// per store instruction, shared deposits included: the loads before the
// loop came out 2.0% high, C's store 1.2% low, with the bytes DRAM wrote.
func TestSampleRefsPerOwnInstructions(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 192 blocks of a long kernel")
	}
	dev, l := bind(t, "g80", "matmul-ryoo-d", "", "", map[string]int64{"W": 512})
	got := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	if s := got.Sampling; s == nil || s.SkippedBlocks == 0 || s.Counted {
		t.Fatalf("sampling %s: want blocks skipped and extrapolated", describe(s))
	}
	const warps = 32 * 32 * 8
	want := map[string]int64{"A[indexA]": warps + warps*31, "B[indexB]": warps + warps*31,
		"As[ty][tx]": warps * 32, "Bs[ty][tx]": warps * 32, "As[ty][i]": warps * 16 * 32, "Bs[i][tx]": warps * 16 * 32,
		"C[indexC]": warps}
	reqs := map[string]int64{}
	for _, r := range got.Refs {
		reqs[r.Ref] += r.Requests
		if r.Space == "" && r.Transactions != 2*r.Requests {
			t.Errorf("%s (%s): %d transactions for %d requests, want two a warp", r.Ref, r.Op, r.Transactions, r.Requests)
		}
	}
	for ref, n := range want {
		if reqs[ref] != n {
			t.Errorf("%s: %d warp instructions, want %d", ref, reqs[ref], n)
		}
	}
	if got.Stores.Transactions != 2*warps || got.DRAM.WriteBytes != 64*2*warps {
		t.Errorf("%d store transactions and %d bytes written to DRAM, want %d and %d", got.Stores.Transactions, got.DRAM.WriteBytes, 2*warps, 64*2*warps)
	}
	// g80's L2 holds texture only: each global transaction is one DRAM
	// request, and each request completes and either hits its row or
	// activates one. Rated on their own, DRAM's writes came out 16,186.
	d := got.DRAM
	if reads, writes := int64(2*64*warps), int64(2*warps); d.Reads != reads || d.Writes != writes || d.Completed != reads+writes {
		t.Errorf("DRAM: %d reads, %d writes, %d completed; want %d, %d and their sum", d.Reads, d.Writes, d.Completed, reads, writes)
	}
	if d.RowHits+d.RowMisses != d.Completed || d.Activates != d.RowMisses || d.Precharges != d.RowConflicts {
		t.Errorf("DRAM: %d row hits + %d misses for %d requests; %d activates, %d precharges for %d conflicts",
			d.RowHits, d.RowMisses, d.Completed, d.Activates, d.Precharges, d.RowConflicts)
	}
}

// Where the skipped blocks are not counted, the L2's write sectors are
// the simulated part's plus the skipped store transactions' at the share
// of sectors the simulated part touched, not a rate per store
// instruction with the stores to shared memory among them (which followed
// where the window cut the blocks: 16,381). Harris's reduce1 on kepler
// (N = 2^22, blocks of 256), by hand: each of the 2^14 blocks stores one
// 4-byte sum, one sector.
func TestSampleStoreSectorsPerTransaction(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 11,392 blocks")
	}
	dev, l := bind(t, "kepler", "reduce-interleaved", "", "", nil)
	got := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	if s := got.Sampling; s == nil || s.SkippedBlocks == 0 || s.Counted {
		t.Fatalf("sampling %s: want blocks skipped and extrapolated", describe(s))
	}
	if got.L2.WriteRequests != 1<<14 || got.L2.WriteSectors != 1<<14 {
		t.Errorf("L2: %d write requests of %d sectors, want 2^14 of one sector each", got.L2.WriteRequests, got.L2.WriteSectors)
	}
}

func describe(s *sim.Sampling) string {
	if s == nil {
		return "none"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// worthCounting's bounds by hand, on the blocks a count streams: a loop
// nest is counted when it streams at most 2 blocks per simulated one, or
// at any ratio while those hold at most 5e7 memory instructions; past
// both it is extrapolated. A triangular loop makes every block irregular,
// so every skipped block is streamed. Ryoo's 4096² matmul on g80 (64,256
// of 65,536 blocks skipped, 65,536 memory instructions each) streams two,
// one of each class. A per-thread kernel is never counted.
func TestWorthCounting(t *testing.T) {
	tri := bindSource(t, nil, "name: tri\nparams: {N: 9600}\narrays:\n  x: {type: f32, dims: [N]}\n  A: {type: f32, dims: [N, N]}\n"+
		"source: |\n  for (i = 0; i < N; i++)\n    for (j = 0; j <= i; j++)\n      x[i] += A[i][j];\nmapping: {i: tx}\nblock: [32]\n")
	_, ryoo := bind(t, "g80", "matmul", "", "", map[string]int64{"M": 4096, "N": 4096, "P": 4096})
	_, perThread := bind(t, "kepler", "stencil-shared", "", "", nil)
	for _, c := range []struct {
		l                    *traces.Launch
		from, skipped, total int64
		perBlock             float64
		want                 bool
	}{
		{tri, 100, 200, 300, 1e6, true}, // 2 per simulated block
		{tri, 99, 201, 300, 1e6, false}, // over 2, 2e8 instructions
		{tri, 99, 201, 300, 2e5, true},  // over 2, but 4e7 instructions
		{ryoo, 1280, 64256, 65536, 65536, true},
		{perThread, 0, 10, 1000, 100, false},
	} {
		if got := sim.WorthCounting(c.l, c.from, c.skipped, c.total, c.perBlock); got != c.want {
			t.Errorf("WorthCounting(%s, %d of %d blocks from %d, %g each) = %v, want %v", c.l.Kernel.Name, c.skipped, c.total, c.from, c.perBlock, got, c.want)
		}
	}
}

// The blocks a count streams, by hand. Ryoo's matmul: block (bx, by) of
// 16×16 threads starts A[i1][i3] at by·16·4096·4 bytes (0 modulo 128),
// B[i3][i2] at bx·16·4 = 64·bx and C[i1][i2] at 64·bx modulo 128: two
// classes, and 4096 = 256·16 leaves no block at the edge. At 1000³ the
// grid is 63×63 and its last row and column (125 blocks) reach past the
// extents; A's offset is by·64,000 (0 modulo 128), B's and C's again 0
// or 64: 125 + 2 blocks streamed of 3,969. A triangular loop streams
// every block.
func TestStreamed(t *testing.T) {
	_, ryoo := bind(t, "g80", "matmul", "", "", map[string]int64{"M": 4096, "N": 4096, "P": 4096})
	_, edges := bind(t, "gt200", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 1000, "N": 1000, "P": 1000})
	tri := bindSource(t, nil, "name: tri\nparams: {N: 9600}\narrays:\n  x: {type: f32, dims: [N]}\n  A: {type: f32, dims: [N, N]}\n"+
		"source: |\n  for (i = 0; i < N; i++)\n    for (j = 0; j <= i; j++)\n      x[i] += A[i][j];\nmapping: {i: tx}\nblock: [32]\n")
	for _, c := range []struct {
		l        *traces.Launch
		from, to int64
		want     int64
	}{
		{ryoo, 1280, 65536, 2},
		{edges, 0, 3969, 127},
		{tri, 0, 300, 300},
	} {
		if got := sim.Streamed(c.l, c.from, c.to); got != c.want {
			t.Errorf("%s, blocks %d to %d: %d streamed, want %d", c.l.Kernel.Name, c.from, c.to, got, c.want)
		}
	}
}

// TestCountWork: Count's work, by hand from TestStreamed's blocks, at an
// assumed 1,000 warp instructions a block and BlockWalk = 2 per block
// walked. Ryoo's grid walks 65,536 blocks and streams 2: 133,072. The
// triangular nest's 300 blocks all stream, 1,002 each: 300,600. Past a
// bound of 5,000 it stops at the fifth block (5,010); where the walk
// alone passes the bound (Ryoo's 131,072 against 1e5) it walks nothing.
func TestCountWork(t *testing.T) {
	_, ryoo := bind(t, "g80", "matmul", "", "", map[string]int64{"M": 4096, "N": 4096, "P": 4096})
	tri := bindSource(t, nil, "name: tri\nparams: {N: 9600}\narrays:\n  x: {type: f32, dims: [N]}\n  A: {type: f32, dims: [N, N]}\n"+
		"source: |\n  for (i = 0; i < N; i++)\n    for (j = 0; j <= i; j++)\n      x[i] += A[i][j];\nmapping: {i: tx}\nblock: [32]\n")
	for _, c := range []struct {
		l     *traces.Launch
		bound float64
		want  float64
	}{
		{ryoo, 1e12, 133072},
		{tri, 1e12, 300600},
		{tri, 5000, 5010},
		{ryoo, 1e5, 131072},
	} {
		if got := sim.CountWork(c.l, 1000, c.bound); got != c.want {
			t.Errorf("CountWork(%s, 1000 a block, bound %g) = %g, want %g", c.l.Kernel.Name, c.bound, got, c.want)
		}
	}
}

// bindSource binds a kernel given as the text of a kernel file, on dev
// (nil: checked against no device).
func bindSource(t *testing.T, dev *arch.Device, src string) *traces.Launch {
	t.Helper()
	k, err := kernel.Parse("inline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSampledAtLeast: the fewest blocks a sampled run simulates, by hand:
// six waves (the warm-up, the four of the shortest window, the one in
// flight; with a warm-up of w waves, w + 5), then whole waves skipped, the
// rest simulated.
func TestSampledAtLeast(t *testing.T) {
	for _, c := range []struct {
		device, kernel, mapping, block string
		params                         map[string]int64
		warmup                         int
		want                           int64
	}{
		// 4096 blocks of 256 threads; fermi holds 1536/256 = 6 per SM on
		// 15 SMs, waves of 90: 540, then 39 waves of the 3,556 left
		// skipped and 46 simulated: 586.
		{"fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 1024, "N": 1024, "P": 1024}, 0, 586},
		// J14's Fig. 1 on gt200: 1024/256 = 4 per SM on 30 SMs, waves of
		// 120: 720, then 28 waves of the 3,376 left skipped: 736.
		{"gt200", "matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 1024, "N": 1024, "P": 1024}, 0, 736},
		// The same after a warm-up of 10 waves: 15 waves (1,800), then 19
		// waves of the 2,296 left skipped (2,280), 16 simulated: 1,816.
		{"gt200", "matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 1024, "N": 1024, "P": 1024}, 10, 1816},
		// 512 blocks of 128 threads, fewer than six waves of 120: all.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 16}, 0, 512},
		// 1,024 blocks: after six waves (720) two whole waves of the 304
		// left could go, 240 blocks, 23% of the grid, under the 30% a skip
		// must leave out (SampleMinSkip): all.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 17}, 0, 1024},
		// 2,048 blocks: 11 waves of the 1,328 left, 1,320 blocks (64%),
		// skipped; 720 + 8 simulated.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 18}, 0, 728},
		// A warm-up of 0 or less is the default's one wave.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 18}, -3, 728},
		// After a warm-up of 4: nine waves (1,080), 8 of the 968 left
		// skipped (960, 47%): 1,088.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 18}, 4, 1088},
		// After a warm-up of 8: 13 waves (1,560), and the 4 whole waves of
		// the 488 left are 23% of the grid: all.
		{"fermi", "vecadd", "", "", map[string]int64{"N": 1 << 18}, 8, 2048},
	} {
		dev, l := bind(t, c.device, c.kernel, c.mapping, c.block, c.params)
		if got, err := sim.SampledAtLeast(dev, l, 0, sim.SampleOptions{On: true, Warmup: c.warmup}); err != nil || got != c.want {
			t.Errorf("%s %s %v warm-up %d: SampledAtLeast %d (%v), want %d", c.device, c.kernel, c.params, c.warmup, got, err, c.want)
		}
	}
}

// TestSampleWarmupRowHits: DRAM's row hit rate on g80's matmul-ryoo-d
// settles only as the SMs fall out of step, with the time since the
// launch began: the full run's waves find 88% of their rows open in wave
// 2, 81% in wave 5 and 64% to 70% from wave 16 on. A window right after
// the default warm-up of one wave carries the early rate over the skip,
// more than 10 points high; after a warm-up of 12 waves the window sees
// the rate settled, and the run lands within a point of the full run's.
// The warm-up is the sampler's: at least 12 waves, and the fewest blocks
// then simulated, 17 waves of 32 (SampledAtLeast).
func TestSampleWarmupRowHits(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 1,024 blocks of a tiled matmul")
	}
	dev, l := bind(t, "g80", "matmul-ryoo-d", "", "", map[string]int64{"W": 512})
	rate := func(r *sim.Result) float64 {
		return 100 * float64(r.DRAM.RowHits) / float64(r.DRAM.RowHits+r.DRAM.RowMisses)
	}
	full := run(t, dev, l, sim.Options{})
	short := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	long := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true, Warmup: 12}})
	if s := long.Sampling; s == nil || s.WarmupWaves < 12 || s.SkippedBlocks == 0 || s.SimulatedBlocks < 17*32 {
		t.Fatalf("warm-up 12: sampling %s: want a warm-up of at least 12 waves, a skip, and at least 544 blocks simulated", describe(long.Sampling))
	}
	if d := rate(short) - rate(full); d < 10 {
		t.Errorf("default warm-up: row hit rate %.2f%%, full %.2f%%: want the early waves' rate, over 10 points high", rate(short), rate(full))
	}
	if d := math.Abs(rate(long) - rate(full)); d > 1 {
		t.Errorf("warm-up 12: row hit rate %.2f%%, full %.2f%%: %.2f points off, want at most 1", rate(long), rate(full), d)
	}
}

// A warm-up of 0 or less is the default's: the same run, byte for byte
// (vecadd 2^20 on fermi skips, after a warm-up that waits for a cache to
// fill).
func TestSampleWarmupDefault(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 20})
	def := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
	neg := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true, Warmup: -3}})
	a, _ := json.Marshal(def)
	b, _ := json.Marshal(neg)
	if def.Sampling == nil || def.Sampling.SkippedBlocks == 0 {
		t.Fatalf("default: %s, want a skip", describe(def.Sampling))
	}
	if string(a) != string(b) {
		t.Errorf("warm-up -3: %s, want the default's %s", describe(neg.Sampling), describe(def.Sampling))
	}
}

// A sampled run that skips nothing says why: fermi vecadd 2^18 (2,048
// blocks, waves of 120) has room for a window after the default warm-up
// (SampledAtLeast: 728), which it judged and found not yet steady while a
// skip could still leave out 30%; after a warm-up of 8 waves the 4 whole
// waves left after the window are 23% of the grid, so no window was ever
// judged.
func TestSampleNoWindow(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 18})
	for _, c := range []struct {
		warmup   int
		noWindow bool
	}{{0, false}, {8, true}} {
		r := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true, Warmup: c.warmup}})
		s := r.Sampling
		if s == nil || s.SkippedBlocks != 0 || s.NoWindow != c.noWindow || s.WarmupWaves < max(c.warmup, 1) {
			t.Errorf("warm-up %d: %s, want nothing skipped, no_window %v and a warm-up of at least %d", c.warmup, describe(s), c.noWindow, max(c.warmup, 1))
		}
	}
}
