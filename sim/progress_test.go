package sim_test

import (
	"context"
	"strings"
	"testing"

	"gpumemsim/configs"

	"gpumemsim/sim"
	"gpumemsim/traces"
)

// reports runs l with a progress callback and returns what it was told.
func reports(t *testing.T, run func(sim.Options) *sim.Result) ([]sim.Progress, *sim.Result) {
	t.Helper()
	var got []sim.Progress
	r := run(sim.Options{Progress: func(p sim.Progress) { got = append(got, p) }})
	if len(got) == 0 {
		t.Fatal("no progress reported")
	}
	for i := 1; i < len(got); i++ {
		if got[i].Blocks < got[i-1].Blocks || got[i].WarpInsts < got[i-1].WarpInsts {
			t.Fatalf("progress went back: %+v after %+v", got[i], got[i-1])
		}
	}
	return got, r
}

// One block of 16×16 threads runs matmul's k loop 4,096 times: 8 warps,
// each issuing per iteration two loads and the compute between them, so
// the run's warp instructions, its work, come in long before the block
// ends. Progress moves with them, and ends at the launch's closed-form
// count of warp instructions and its one block.
func TestProgressWithinABlock(t *testing.T) {
	dev, l := bind(t, "fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 16, "N": 16, "P": 4096})
	got, _ := reports(t, func(o sim.Options) *sim.Result {
		r, err := sim.Run(context.Background(), dev, l, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
	want := int64(l.WarpInstructions())
	if got[0].Blocks != 0 || got[0].WarpInsts <= 0 || got[0].WarpInsts >= want {
		t.Errorf("first report %+v; want some of the %d warp instructions before the block ends", got[0], want)
	}
	if last := got[len(got)-1]; last.Blocks != 1 || last.WarpInsts != want {
		t.Errorf("last report %+v; want the one block and all %d warp instructions", last, want)
	}
}

// A sampled run's progress counts the skipped blocks in: it ends at every
// block of the grid, and at its warp instructions to within the error of
// taking each skipped block's as the average of those done before.
func TestProgressSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a large grid")
	}
	// vecadd N=2^22: 32,768 blocks, every block the same work.
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 22})
	got, r := reports(t, func(o sim.Options) *sim.Result {
		o.Sample.On = true
		r, err := sim.Run(context.Background(), dev, l, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
	if r.Sampling == nil || r.Sampling.SkippedBlocks == 0 {
		t.Fatal("nothing skipped")
	}
	want := int64(l.WarpInstructions())
	last := got[len(got)-1]
	if last.Blocks != 32768 || last.WarpInsts < want*99/100 || last.WarpInsts > want*101/100 {
		t.Errorf("last report %+v; want all 32768 blocks and %d warp instructions to 1%%", last, want)
	}
}

// A sequence reports one progress for all its launches: the second's
// blocks and warp instructions after all of the first's.
func TestProgressSequence(t *testing.T) {
	dev, a := bind(t, "fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 32, "N": 32, "P": 64})
	b := bindOn(t, dev, "vecadd", "", "", map[string]int64{"N": 4096})
	got, _ := reports(t, func(o sim.Options) *sim.Result {
		seq, err := sim.RunSequence(context.Background(), dev, []traces.Source{a, b}, o)
		if err != nil {
			t.Fatal(err)
		}
		return seq.Total
	})
	blocks := int64(a.Info().Blocks() + b.Info().Blocks())
	insts := int64(a.WarpInstructions() + b.WarpInstructions())
	if last := got[len(got)-1]; last.Blocks != blocks || last.WarpInsts != insts {
		t.Errorf("last report %+v; want %d blocks and %d warp instructions, both launches'", last, blocks, insts)
	}
}

// earlyAccess is 512 blocks of 256 threads, each storing 64 times, where
// thread 0 of block 0 first stores to A[N], outside A.
const earlyAccess = `name: early
params: {N: 131072}
arrays:
  A: {type: f32, dims: [N]}
source: |
  __global__ void k(float *A, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) A[N] = 1;
    for (int j = 0; j < 64; j++)
      A[(i + j * 4099) % N] = 2;
  }
block: [256]
grid: [N / blockDim.x]
`

// earlyAccessError is what the store to A[N] is reported as.
const earlyAccessError = "A[N]: thread (0,0,0) of block (0,0,0) has index 131072"

// An access outside its array in block 0's first warp (earlyAccess) ends
// the run at the engine's next look at its context, a few thousand events
// in, not after the rest of the grid. Blocks end in the run's progress one
// at a time, so a run that went on would report most of the 512; the
// first wave of fermi's 15 SMs holds at most 90 of them (six blocks of
// 256 threads an SM). Counting (trace -totals) ends at its first look at
// its context after block 0, 64 blocks on (countCheck), before it reports
// them: a count that went on would report 448 done.
func TestErrorEnds(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what  string
		below int64 // the most blocks done it may report
		run   func(l *traces.Launch, done func(int64)) error
	}{
		{"Run", 90, func(l *traces.Launch, done func(int64)) error {
			_, err := sim.Run(context.Background(), dev, l, sim.Options{Progress: func(p sim.Progress) { done(p.Blocks) }})
			return err
		}},
		{"Count", 64, func(l *traces.Launch, done func(int64)) error {
			_, err := sim.Count(context.Background(), dev, l, func(d, _ int64) { done(d) })
			return err
		}},
	} {
		most := int64(0)
		err := tc.run(bindSource(t, dev, earlyAccess), func(n int64) { most = max(most, n) })
		if err == nil || !strings.Contains(err.Error(), earlyAccessError) {
			t.Fatalf("%s: %v; want the store to A[N] outside A", tc.what, err)
		}
		if most >= tc.below {
			t.Errorf("%s went on to %d of 512 blocks after block 0's access outside A; want fewer than %d", tc.what, most, tc.below)
		}
	}
}
