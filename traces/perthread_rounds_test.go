package traces

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// TestSampleRounds: the rounds of a count's sample add up to the whole
// grid, each block once, and after round r the sample is
// SampleBlocks(nb, 15·2^r+1) while that is smaller than the grid: each
// round's sample is spread evenly and holds the last.
func TestSampleRounds(t *testing.T) {
	for _, nb := range []int{0, 1, 2, 15, 16, 17, 30, 31, 32, 61, 62, 100, 121, 122, 1000, 1024, 4097} {
		var got []int
		for r := 0; ; r++ {
			n, blocks := sampleRound(nb, r)
			if n == 0 {
				break
			}
			add := slices.Collect(blocks)
			if len(add) != n {
				t.Fatalf("nb=%d: round %d adds %d blocks; it says %d", nb, r, len(add), n)
			}
			got = append(got, add...)
			if m := (ptSampleBlocks-1)<<r + 1; m < nb {
				if want := SampleBlocks(nb, m); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
					t.Fatalf("nb=%d: the sample after round %d is %v; want SampleBlocks(%d, %d) = %v", nb, r, got, nb, m, want)
				}
			}
		}
		slices.Sort(got)
		for b := range nb {
			if b >= len(got) || got[b] != b {
				t.Fatalf("nb=%d: the rounds add %v; want every block once", nb, got)
			}
		}
		if len(got) != nb {
			t.Fatalf("nb=%d: the rounds add %d blocks", nb, len(got))
		}
	}
}

// tripKernel is a per-thread kernel of 100 blocks of one warp whose
// block b runs T[b] iterations of one store: block b issues 1 + T[b]
// memory instructions (T's broadcast load, then the stores). T is 1
// but where heavy says.
func tripKernel(t *testing.T, heavy map[int]int) *Launch {
	t.Helper()
	trips := make([]string, 100)
	for b := range trips {
		trips[b] = "1"
		if n, ok := heavy[b]; ok {
			trips[b] = fmt.Sprint(n)
		}
	}
	k, _ := loadFiles(t, map[string]string{
		"t.txt": strings.Join(trips, " "),
		"k.yaml": `name: trips
arrays:
  T: {type: i32, dims: [100], data: {file: t.txt}}
  V: {type: f32, dims: [32]}
source: |
  __global__ void trips(int *T, float *V) {
    int n = T[blockIdx.x];
    for (int i = 0; i < n; i++)
      V[threadIdx.x] = 0;
  }
block: [32]
grid: [100]
`})
	l, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCountRounds: the first 16 sample blocks of a 100-block grid are
// 0, 6, 13, ..., 92, 99 (floor(k·99/15)).
func TestCountRounds(t *testing.T) {
	thousands := map[int]int{3: 1000, 4: 1000, 5: 1000, 6: 1000}
	for _, tc := range []struct {
		name  string
		heavy map[int]int
		// more is ptMoreWork; firstRound: the first round's count.
		more  int64
		mem   float64
		exact bool
	}{
		// Every block alike: the first round's estimate has no spread and
		// is the count, 2 memory instructions a block, but not exact.
		{"uniform", nil, ptMoreWork, 200, false},
		// Blocks 3 to 6 run 1000 iterations; the first round meets only
		// block 6, and estimates (15·2 + 1001)·100/16 = 6443.75. Its
		// spread sends the count on to the whole grid: 100 + 96 + 4000.
		{"heavy", thousands, ptMoreWork, 4196, true},
		// The same, with room for the first round's count c and no more:
		// a second round, at the mean so far, would take it to 31c/16;
		// the count stops at the first round's estimate (and not for
		// passing twice its room, which it never reaches).
		{"affordable", thousands, firstRound, 6443.75, false},
		// Block 6 runs 1000 iterations and block 3, the second round's
		// first (floor(1·99/30)), 100,000. The first round counts between
		// 1,031 (memory instructions alone) and about 10^4 warp
		// instructions, so at its mean the second round keeps the count
		// within 5·10^4; block 3 takes it past twice that, and the count
		// stops there: 17 blocks, (15·2 + 1001 + 100001)·100/17.
		{"stopped", map[int]int{3: 100_000, 6: 1000}, 50_000, 101032.0 * 100 / 17, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(w int64) { ptMoreWork = w }(ptMoreWork)
			ptMoreWork = tc.more
			if tc.more == firstRound {
				ptMoreWork = 0
				ptMoreWork = int64(tripKernel(t, tc.heavy).WarpInstructions() * 16 / 100)
			}
			l := tripKernel(t, tc.heavy)
			if got := l.MemoryInstructions(); got != tc.mem {
				t.Errorf("memory instructions %v; want %v", got, tc.mem)
			}
			if l.ExactWork() != tc.exact {
				t.Errorf("exact %v; want %v", l.ExactWork(), tc.exact)
			}
		})
	}
}

// TestCountSpread: the relative standard error of a count. Blocks all
// alike show none; a grid counted whole is exact; the first round of the
// heavy grid above alone (one block of h warp instructions, 15 of l) has
// a sample variance of (h-l)²/16 and a mean of (h+15l)/16, so with the
// finite population correction of 16 of 100 blocks its relative
// standard error is √0.84·(h-l)/(h+15l). h and l are those of grids of
// blocks all alike, whose estimate is their count.
func TestCountSpread(t *testing.T) {
	if got := tripKernel(t, nil).CountSpread(); got != 0 {
		t.Errorf("blocks all alike: spread %v; want 0", got)
	}
	thousands := map[int]int{3: 1000, 4: 1000, 5: 1000, 6: 1000}
	if got := tripKernel(t, thousands).CountSpread(); got != 0 {
		t.Errorf("counted whole: spread %v; want 0", got)
	}
	all := map[int]int{}
	for b := range 100 {
		all[b] = 1000
	}
	h, l := tripKernel(t, all).WarpInstructions()/100, tripKernel(t, nil).WarpInstructions()/100
	defer func(w int64) { ptMoreWork = w }(ptMoreWork)
	ptMoreWork = 0
	want := math.Sqrt(0.84) * (h - l) / (h + 15*l)
	if got := tripKernel(t, thousands).CountSpread(); math.Abs(got-want) > 1e-12*want {
		t.Errorf("the first round alone: spread %v; want %v (h = %v, l = %v)", got, want, h, l)
	}
}

// firstRound stands for the first round's count as ptMoreWork.
const firstRound = -1

// TestSetWorkCount: a launch given the count of one bound from the same
// inputs does not count again (it is never told how far a count has
// got, where counting the 1.2 M or more warp instructions of block 6's
// 300,000 iterations tells it at 2^20) and has the same work: 100 loads
// of T, 99 blocks' one store and block 6's 300,000, all counted.
func TestSetWorkCount(t *testing.T) {
	heavy := map[int]int{6: 300_000}
	told := func(l *Launch) (n int64) {
		l.WatchWork(nil, func(c int64) { n = c })
		l.WarpInstructions()
		return n
	}
	first := tripKernel(t, heavy)
	if told(first) == 0 {
		t.Fatal("counting never told how far it had got; the test cannot tell a count from none")
	}
	again := tripKernel(t, heavy)
	again.SetWorkCount(first.WorkCount())
	if n := told(again); n != 0 {
		t.Errorf("given a count, the launch counted again (to %d)", n)
	}
	if got := again.MemoryInstructions(); got != 300_199 {
		t.Errorf("memory instructions %v; want 300199", got)
	}
	if !again.ExactWork() || again.WarpInstructions() != first.WarpInstructions() ||
		!slices.Equal(again.RefInstructions(), first.RefInstructions()) {
		t.Errorf("given the count: %v warp instructions, %v per reference, exact %v; the first launch's: %v, %v, %v",
			again.WarpInstructions(), again.RefInstructions(), again.ExactWork(),
			first.WarpInstructions(), first.RefInstructions(), first.ExactWork())
	}
	var none WorkCount
	own := tripKernel(t, heavy)
	own.SetWorkCount(none)
	if told(own) == 0 {
		t.Error("given no count, the launch did not count its own")
	}
}
