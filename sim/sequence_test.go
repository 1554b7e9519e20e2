package sim_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// reuseKernel is a sequence of two launches of 32 blocks of 256 threads
// over N = 8192 floats (32 KiB, which fits in every L2): with W = 1 a
// thread stores B[i], with W = 0 it loads B[i]; each warp's access is one
// aligned 128-byte line. launches lists the two launches' W.
func reuseKernel(t *testing.T, launches string) *kernel.Kernel {
	t.Helper()
	src := `name: reuse
params: {N: 8192, W: 0}
arrays:
  B: {type: f32, dims: [N]}
source: |
  __global__ void reuse(float *B, int N, int W)
  {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (W == 1)
      B[i] = 1.0f;
    else {
      float x = B[i];
    }
  }
block: [256]
grid: [N / 256]
launches:` + launches
	k, err := kernel.Parse("reuse.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func runSequence(t *testing.T, dev *arch.Device, k *kernel.Kernel, params map[string]int64) *sim.Sequence {
	t.Helper()
	ls, err := traces.BindSequence(k, nil, arch.Dim3{}, params, dev)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := sim.RunSequence(context.Background(), dev, sources(ls), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// sources are the launches ls as RunSequence takes them.
func sources(ls []*traces.Launch) []traces.Source {
	srcs := make([]traces.Source, len(ls))
	for i, l := range ls {
		srcs[i] = l
	}
	return srcs
}

// bindExample binds the launches of the shipped example name on device
// with params.
func bindExample(t testing.TB, device, name string, params map[string]int64) (*arch.Device, []*traces.Launch) {
	t.Helper()
	dev, err := configs.Load(device)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := traces.BindSequence(k, nil, arch.Dim3{}, params, dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, ls
}

// counts are the counters the sequence tests derive by hand.
type counts struct {
	L1Misses, L1Hits, L2Read, L2Hit, L2Miss, L2Write, Dirty, DRAMRead, DRAMWrite int64
}

func countsOf(r *sim.Result) counts {
	return counts{r.L1.Misses, r.L1.Hits, r.L2.ReadSectors, r.L2.ReadHitSectors, r.L2.ReadMissSectors,
		r.L2.WriteSectors, r.L2.DirtySectorsAtEnd, r.DRAM.ReadSectors, r.DRAM.WriteSectors}
}

// TestSequenceReuse: the second of two launches that load the same 32
// KiB finds it all in L2, but starts with empty L1s. Fermi: 8192 floats
// are 256 warp loads of one 128-byte line each, every line once per
// launch: 256 L1 misses per launch (none hits: no warp touches another's
// line, and the L1s start empty), 1024 sectors read at L2, all misses in
// the first launch (read from DRAM) and all hits in the second.
func TestSequenceReuse(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	seq := runSequence(t, dev, reuseKernel(t, "\n  - for: {var: r, from: 1, to: 2}\n"), nil)
	want := []counts{
		{L1Misses: 256, L2Read: 1024, L2Miss: 1024, DRAMRead: 1024},
		{L1Misses: 256, L2Read: 1024, L2Hit: 1024},
	}
	checkSequence(t, dev, seq, want)
	if c1, c2 := seq.Launches[0].Cycles, seq.Launches[1].Cycles; c2 >= c1 {
		t.Errorf("the launch that hits in L2 took %d cycles, the one that read DRAM %d; want fewer", c2, c1)
	}
	// The first launch is Run's, bit for bit.
	ls, err := traces.BindSequence(reuseKernel(t, "\n  - for: {var: r, from: 1, to: 2}\n"), nil, arch.Dim3{}, nil, dev)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := sim.Run(context.Background(), dev, ls[0], sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(alone, seq.Launches[0]) {
		t.Errorf("launch 1 of the sequence differs from Run of it alone:\n%+v\n%+v", seq.Launches[0], alone)
	}
}

// TestSequenceDirty: what one launch stores stays in L2, dirty, for the
// next. Fermi stores 256 lines (1024 sectors) to L2, which keeps them
// (write-validate, no write-back: nothing is evicted from 768 KiB); the
// second launch loads them: 1024 L2 hits, nothing read from DRAM, and
// the 1024 sectors are still dirty at the end.
func TestSequenceDirty(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	seq := runSequence(t, dev, reuseKernel(t, "\n  - set: {W: 1}\n  - set: {W: 0}\n"), nil)
	want := []counts{
		{L2Write: 1024, Dirty: 1024},
		{L1Misses: 256, L2Read: 1024, L2Hit: 1024, Dirty: 1024},
	}
	checkSequence(t, dev, seq, want)
}

// TestSequenceNoL2: on GT200 (no L2) each launch reads its 32 KiB from
// DRAM: 512 half-warp transactions of 64 bytes, 1024 sectors, each time.
func TestSequenceNoL2(t *testing.T) {
	dev, err := configs.Load("gt200")
	if err != nil {
		t.Fatal(err)
	}
	seq := runSequence(t, dev, reuseKernel(t, "\n  - for: {var: r, from: 1, to: 2}\n"), nil)
	want := []counts{{DRAMRead: 1024}, {DRAMRead: 1024}}
	checkSequence(t, dev, seq, want)
	for i, r := range seq.Launches {
		if r.Loads.Transactions != 512 {
			t.Errorf("launch %d: %d load transactions; want 512", i+1, r.Loads.Transactions)
		}
	}
}

// checkSequence compares each launch's counts with want and the total's
// with their sum (dirty sectors: the last launch's), and checks that
// cycles and instructions add up.
func checkSequence(t *testing.T, dev *arch.Device, seq *sim.Sequence, want []counts) {
	t.Helper()
	if len(seq.Launches) != len(want) {
		t.Fatalf("%d launches; want %d", len(seq.Launches), len(want))
	}
	var sum counts
	var cycles, insts int64
	for i, r := range seq.Launches {
		if got := countsOf(r); got != want[i] {
			t.Errorf("%s launch %d: %+v; want %+v", dev.Name, i+1, got, want[i])
		}
		w := want[i]
		sum = counts{sum.L1Misses + w.L1Misses, sum.L1Hits + w.L1Hits, sum.L2Read + w.L2Read, sum.L2Hit + w.L2Hit,
			sum.L2Miss + w.L2Miss, sum.L2Write + w.L2Write, w.Dirty, sum.DRAMRead + w.DRAMRead, sum.DRAMWrite + w.DRAMWrite}
		cycles += r.Cycles
		insts += r.WarpInsts
		if r.Grid.Threads() != 32 || r.Cycles <= 0 {
			t.Errorf("launch %d: grid %v, %d cycles", i+1, r.Grid, r.Cycles)
		}
	}
	tot := seq.Total
	if got := countsOf(tot); got != sum {
		t.Errorf("%s total: %+v; want %+v", dev.Name, got, sum)
	}
	if tot.Cycles != cycles || tot.WarpInsts != insts {
		t.Errorf("total: %d cycles, %d warp instructions; the launches add up to %d and %d", tot.Cycles, tot.WarpInsts, cycles, insts)
	}
	if tot.Grid != (arch.Dim3{}) || tot.Block != seq.Launches[0].Block {
		t.Errorf("total: grid %v, block %v; want none and the launches' %v", tot.Grid, tot.Block, seq.Launches[0].Block)
	}
}

// A sequence is deterministic, and a sequence of one launch is Run.
func TestSequenceDeterministic(t *testing.T) {
	dev, err := configs.Load("kepler")
	if err != nil {
		t.Fatal(err)
	}
	k := reuseKernel(t, "\n  - set: {W: 1}\n  - for: {var: r, from: 1, to: 3}\n")
	a, b := runSequence(t, dev, k, nil), runSequence(t, dev, k, nil)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs of one sequence differ")
	}
	one := runSequence(t, dev, reuseKernel(t, "\n  - set: {W: 1}\n"), nil)
	if len(one.Launches) != 1 || one.Total != one.Launches[0] || !reflect.DeepEqual(one.Total, a.Launches[0]) {
		t.Errorf("a sequence of one launch: %d launches, total %p of %p; or it differs from the longer sequence's first", len(one.Launches), one.Total, one.Launches[0])
	}
}

func TestSequenceRefusals(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 4096})
	ctx := context.Background()
	if _, err := sim.RunSequence(ctx, dev, nil, sim.Options{}); err == nil {
		t.Error("RunSequence of no launch succeeded")
	}
	if _, err := sim.RunSequence(ctx, dev, []traces.Source{l, l}, sim.Options{Sample: sim.SampleOptions{On: true}}); err == nil || !strings.Contains(err.Error(), "-sample") {
		t.Errorf("a sampled sequence: %v; want a refusal naming -sample", err)
	}
}

// A sequence of two kernels (as a Dymaxion remap kernel runs before the
// kernel it feeds): the total's references are each run of one kernel's,
// summed over the run, in order.
func TestSequenceOfTwoKernels(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 4096})
	m := bindOn(t, dev, "matmul", "", "", map[string]int64{"M": 32, "N": 32, "P": 32})
	seq, err := sim.RunSequence(context.Background(), dev, []traces.Source{l, l, m}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := seq.Launches[0].Refs, seq.Launches[2].Refs
	if got, want := len(seq.Total.Refs), len(a)+len(b); got != want {
		t.Fatalf("total: %d references; want vecadd's %d and matmul's %d", got, len(a), len(b))
	}
	for i, r := range seq.Total.Refs {
		one, n := a, int64(2)
		if i >= len(a) {
			one, n = b, 1
			i -= len(a)
		}
		if r.Ref != one[i].Ref || r.Requests != n*one[i].Requests || r.Transactions != n*one[i].Transactions {
			t.Errorf("total reference %s: %d requests, %d transactions; want %d times %s's %d and %d", r.Ref, r.Requests, r.Transactions, n, one[i].Ref, one[i].Requests, one[i].Transactions)
		}
	}
}

// TestNWTransactions: Needleman-Wunsch at N = 64 (7 launches of 1, 2, 3,
// 4, 3, 2, 1 tiles) on Fermi, each launch's global requests and 128-byte
// transactions counted by hand from the kernel's indices. Both arrays
// start on a multiple of 128 bytes (256-byte aligned), so 32 ints share a
// line from element 0; cols = N + 1. A tile at (bx, by) starts at element
// B = cols·16·by + 16·bx; per tile:
//   - the north-west corner: one lane, 1 request, 1 transaction;
//   - the ref rows, ty = 0..15: 16 consecutive ints from B + cols + 1 +
//     cols·ty, 1 transaction or 2 where they cross a line; the tile's
//     stores at the end touch the same elements;
//   - the west column: 16 ints cols > 32 apart, 16 transactions;
//   - the north row: 16 consecutive ints from B + 1.
//
// Loads: 19 requests, stores 16. Launch by launch that is 35, 98, 105,
// 196, 105, 98 and 35 load transactions and 17, 60, 51, 120, 51, 60 and
// 17 store transactions.
func TestNWTransactions(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load("nw-shared")
	if err != nil {
		t.Fatal(err)
	}
	const n, bw, cols = 64, 4, 65
	seq := runSequence(t, dev, k, map[string]int64{"N": n})
	lines := func(first int) int64 { return int64((first+15)/32 - first/32 + 1) } // 16 ints from first
	var loads, stores int64
	for j, r := range seq.Launches {
		// needle.cu's tiles: launch j < bw is i = j+1 of the first loop,
		// tiles (bx, i-1-bx); later ones i = 2·bw−1−j of the second,
		// tiles (bx+bw−i, bw−1−bx).
		i, tiles := j+1, [][2]int{}
		for bx := range i {
			tiles = append(tiles, [2]int{bx, i - 1 - bx})
		}
		if j >= bw {
			i, tiles = 2*bw-1-j, nil
			for bx := range i {
				tiles = append(tiles, [2]int{bx + bw - i, bw - 1 - bx})
			}
		}
		var ld, st int64
		for _, tile := range tiles {
			b := cols*16*tile[1] + 16*tile[0]
			var rows int64
			for ty := range 16 {
				rows += lines(b + cols + 1 + cols*ty)
			}
			ld += 1 + rows + 16 + lines(b+1)
			st += rows
		}
		nt := int64(len(tiles))
		if got, want := [4]int64{r.Loads.Requests, r.Loads.Transactions, r.Stores.Requests, r.Stores.Transactions}, [4]int64{19 * nt, ld, 16 * nt, st}; got != want {
			t.Errorf("launch %d (%d tiles): load requests, transactions, store requests, transactions %v; want %v", j+1, nt, got, want)
		}
		if hand := [2][7]int64{{35, 98, 105, 196, 105, 98, 35}, {17, 60, 51, 120, 51, 60, 17}}; ld != hand[0][j] || st != hand[1][j] {
			t.Fatalf("launch %d: the count from the indices is %d and %d; by hand %d and %d", j+1, ld, st, hand[0][j], hand[1][j])
		}
		loads, stores = loads+ld, stores+st
	}
	if tot := seq.Total; tot.Loads.Transactions != loads || tot.Stores.Transactions != stores {
		t.Errorf("total: %d load and %d store transactions; want %d and %d", tot.Loads.Transactions, tot.Stores.Transactions, loads, stores)
	}
}
