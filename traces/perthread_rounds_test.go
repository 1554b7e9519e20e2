package traces

import (
	"fmt"
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
	t.Run("uniform", func(t *testing.T) {
		// Every block alike: the first round's estimate has no spread and
		// is the count, 2 memory instructions a block, but not exact.
		l := tripKernel(t, nil)
		if got := l.MemoryInstructions(); got != 200 {
			t.Errorf("memory instructions %v; want 200", got)
		}
		if l.ExactWork() {
			t.Error("a count of 16 of 100 blocks is exact; want an estimate")
		}
	})
	t.Run("heavy", func(t *testing.T) {
		// Blocks 3 to 6 run 1000 iterations; the first round meets only
		// block 6, and estimates (15·2 + 1001)·100/16 = 6443.75. Its
		// spread sends the count on to the whole grid: 100 + 96 + 4000.
		l := tripKernel(t, map[int]int{3: 1000, 4: 1000, 5: 1000, 6: 1000})
		if got := l.MemoryInstructions(); got != 4196 {
			t.Errorf("memory instructions %v; want 4196, the whole grid's", got)
		}
		if !l.ExactWork() {
			t.Error("a count of every block is an estimate; want exact")
		}
	})
	t.Run("affordable", func(t *testing.T) {
		// The same, with room for the first round's count c and no more:
		// a second round, at the mean so far, would take it to 31c/16;
		// the count stops at the first round's estimate (and not for
		// passing twice its room, which it never reaches).
		defer func(w int64) { ptMoreWork = w }(ptMoreWork)
		heavy := map[int]int{3: 1000, 4: 1000, 5: 1000, 6: 1000}
		ptMoreWork = 0
		first := tripKernel(t, heavy).WarpInstructions() * 16 / 100
		ptMoreWork = int64(first)
		l := tripKernel(t, heavy)
		if got := l.MemoryInstructions(); got != 6443.75 {
			t.Errorf("memory instructions %v; want 6443.75, the first round's estimate", got)
		}
		if l.ExactWork() {
			t.Error("exact; want an estimate")
		}
	})
	t.Run("stopped", func(t *testing.T) {
		// Block 6 runs 1000 iterations and block 3, the second round's
		// first (floor(1·99/30)), 100,000. The first round counts between
		// 1,031 (memory instructions alone) and about 10^4 warp
		// instructions, so at its mean the second round keeps the count
		// within 5·10^4; block 3 takes it past twice that, and the count
		// stops there: 17 blocks, (15·2 + 1001 + 100001)·100/17.
		defer func(w int64) { ptMoreWork = w }(ptMoreWork)
		ptMoreWork = 50_000
		l := tripKernel(t, map[int]int{3: 100_000, 6: 1000})
		if got, want := l.MemoryInstructions(), 101032.0*100/17; got != want {
			t.Errorf("memory instructions %v; want %v, 17 blocks' estimate", got, want)
		}
		if l.ExactWork() {
			t.Error("exact; want an estimate")
		}
	})
}
