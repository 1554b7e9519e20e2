package traces

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// seqKernel is a per-thread kernel file (params N, D, P) whose launches
// are given; its launches key is on line 13.
func seqKernel(t *testing.T, launches string) *kernel.Kernel {
	t.Helper()
	src := `name: seq
params: {N: 256, D: 0, P: 1}
arrays:
  A: {type: f32, dims: [N]}
source: |
  __global__ void seq(float *A, int N, int D, int P)
  {
    int i = (blockIdx.x + D) * blockDim.x + threadIdx.x;
    if (P == 1 && i < N) A[i] = 0;
  }
block: [64]
grid: [N / 64 - D]
launches:` + launches
	k, err := kernel.Parse("seq.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return k
}

// describe writes each launch of a sequence: its grid and what its entry
// set.
func describe(ls []*Launch) string {
	var s []string
	for _, l := range ls {
		s = append(s, fmt.Sprintf("%s %s", l.Grid(), setText(l.Set)))
	}
	return strings.Join(s, "; ")
}

func TestBindSequence(t *testing.T) {
	k := seqKernel(t, `
  - for: {var: d, from: 0, to: N / 64 - 1}
    grid: ["min(d + 1, N / 64 - d)"]
    set: {D: d}
  - for: {var: k, from: N / 64 - 2, to: 0, step: -2}
    set: {D: k, P: k % 2 + 1}
  - for: {var: z, from: 1, to: 0}
  - set: {D: blockDim.x / 32}
  - {}
`)
	for _, tc := range []struct {
		params map[string]int64
		block  arch.Dim3
		want   string
	}{
		// N = 256: four blocks of 64; the first loop's grids are
		// min(d+1, 4-d) = 1, 2, 2, 1; the second's k = 2, 0 with the file's
		// grid 4 - k; the third loop runs no launch; then D = 64/32 = 2 and
		// the file's own launch (D = 0: 4 blocks).
		{nil, arch.Dim3{}, "1x1x1 D=0; 2x1x1 D=1; 2x1x1 D=2; 1x1x1 D=3; 2x1x1 D=2 P=1; 4x1x1 D=0 P=1; 2x1x1 D=2; 4x1x1 the file's params"},
		// N = 128 with blocks of 64: two blocks; the second loop's k runs
		// from 0 to 0: one launch. blockDim.x = 64 sets D = 2 ... with
		// N / 64 - D = 0 blocks, refused below; here blocks of 32.
		{map[string]int64{"N": 128}, arch.Dim3{X: 32, Y: 1, Z: 1}, "1x1x1 D=0; 1x1x1 D=1; 2x1x1 D=0 P=1; 1x1x1 D=1; 2x1x1 the file's params"},
	} {
		ls, err := BindSequence(k, nil, tc.block, tc.params, nil)
		if err != nil {
			t.Fatalf("BindSequence(%v, %v): %v", tc.params, tc.block, err)
		}
		if got := describe(ls); got != tc.want {
			t.Errorf("BindSequence(%v, %v):\n%s\nwant\n%s", tc.params, tc.block, got, tc.want)
		}
		for _, l := range ls {
			if d := l.Params[1]; l.Set != nil && l.Set[0].Value != d.Value {
				t.Errorf("launch with %v binds D = %d", l.Set, d.Value)
			}
		}
	}
}

// A file without launches is the one launch Bind gives; Bind refuses a
// file with launches.
func TestBindSequenceOne(t *testing.T) {
	k, err := kernel.Load("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := BindSequence(k, nil, arch.Dim3{}, map[string]int64{"N": 4096}, nil)
	if err != nil || len(ls) != 1 || ls[0].Blocks() != 4096/128 {
		t.Fatalf("BindSequence(vecadd) = %d launches, %v; want one of 32 blocks", len(ls), err)
	}
	seq := seqKernel(t, "\n  - {}\n")
	if _, err := Bind(seq, nil, arch.Dim3{}, nil, nil); !errors.Is(err, ErrSequence) {
		t.Errorf("Bind of a sequence: %v; want ErrSequence", err)
	}
}

// TestBindSequenceErrors: what the params make of the launches is
// checked before anything is bound, at the entry or value at fault.
func TestBindSequenceErrors(t *testing.T) {
	for _, tc := range []struct {
		launches string
		params   map[string]int64
		want     string
	}{
		{"\n  - for: {var: d, from: 0, to: 5000}\n", nil,
			fmt.Sprintf("seq.yaml:14:5: the launches make more than %d launches with these params; hint: ", kernel.MaxLaunches)},
		// The limit is on the sequence: the second entry passes it.
		{"\n  - for: {var: d, from: 0, to: 4000}\n  - for: {var: e, from: 0, to: 100}\n", nil, "seq.yaml:15:5: the launches make more than"},
		// Bounds whose distance overflows 64 bits; a step down as far.
		{"\n  - for: {var: d, from: -N, to: N}\n", map[string]int64{"N": math.MaxInt64}, "seq.yaml:14:5: the launches make more than"},
		{"\n  - for: {var: d, from: 1, to: N / (D - D)}\n", nil, "seq.yaml:14:34: N / (D - D) has no value with these params (a division by zero)"},
		{"\n  - for: {var: d, from: 3, to: 1}\n", nil, "seq.yaml:14:3: the launches make no launch with these params; hint: "},
		{"\n  - for: {var: d, from: 0, to: 1}\n    set: {D: d}\n", map[string]int64{"D": 1}, "seq.yaml:15:14: param D is set per launch here"},
		{"\n  - {}\n", map[string]int64{"Q": 1}, "seq: unknown param Q (the params are N, D, P)"},
		{"\n  - for: {var: d, from: 3, to: 4}\n    set: {D: d}\n", nil, "seq.yaml:12:15: launch 2 of 2 (D=4): grid: N / 64 - D gives 0 blocks"},
		{"\n  - for: {var: d, from: 1, to: 2}\n    grid: [2 - d]\n", nil, "seq.yaml:15:14: launch 2, d=2: grid: 2 - d gives 0 blocks"},
		{"\n  - for: {var: d, from: 1, to: 2}\n    set: {D: N / (d - 2)}\n", nil, "seq.yaml:15:16: launch 2, d=2: N / (d - 2) has no value here (a division by zero)"},
	} {
		k := seqKernel(t, tc.launches)
		_, err := BindSequence(k, nil, arch.Dim3{}, tc.params, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("launches:%s\nBindSequence: %v\nwant %s...", tc.launches, err, tc.want)
		} else if strings.Contains(tc.want, ".yaml:") && !strings.Contains(err.Error(), "; hint: ") {
			t.Errorf("BindSequence: %v; want a hint", err)
		}
	}
}

func TestTrips(t *testing.T) {
	over := int64(kernel.MaxLaunches + 1)
	for _, tc := range []struct{ from, to, step, want int64 }{
		{0, 10, 3, 4}, {10, 0, -3, 4}, {0, 0, 1, 1}, {5, 5, -1, 1}, {1, 0, 1, 0}, {0, 1, -1, 0},
		{1, 4096, 1, 4096}, {1, 4097, 1, over}, {0, 1 << 40, 1 << 20, over},
		{1, -1, math.MinInt64, 1}, {math.MinInt64, math.MaxInt64, 1, over}, {math.MaxInt64, math.MinInt64, -1, over},
		{math.MinInt64, math.MaxInt64, math.MaxInt64, 3},
	} {
		if got := trips(tc.from, tc.to, tc.step); got != tc.want {
			t.Errorf("trips(%d, %d, %d) = %d; want %d", tc.from, tc.to, tc.step, got, tc.want)
		}
	}
}

// Rodinia's nw launches grid i for i = 1 .. N/16, then N/16-1 .. 1:
// 2·N/16 − 1 launches, each with its own i and phase.
func TestNWLaunches(t *testing.T) {
	k, err := kernel.Load("nw-shared")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{16, 32, 2048} {
		ls, err := BindSequence(k, nil, arch.Dim3{}, map[string]int64{"N": n}, nil)
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		bw := int(n / 16)
		if len(ls) != 2*bw-1 {
			t.Fatalf("N=%d: %d launches; want 2·%d−1", n, len(ls), bw)
		}
		for j, l := range ls {
			i, phase := j+1, 1
			if j >= bw {
				i, phase = 2*bw-1-j, 2
			}
			want := fmt.Sprintf("%dx1x1 i=%d phase=%d", i, i, phase)
			if got := fmt.Sprintf("%s %s", l.Grid(), setText(l.Set)); got != want {
				t.Errorf("N=%d launch %d: %s; want %s", n, j+1, got, want)
			}
		}
	}
}
