package traces

import (
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
)

// barrierKernel is a block per row of a banded matrix whose threads
// loop over the row's nonzeros, bounded by ROW[bound], with a barrier
// in the loop.
func barrierKernel(bound string) string {
	return `name: rows
params: {R: 64}
matrix: {gen: banded, rows: R, width: 3, params: {rows: M, nnz: NNZ}}
arrays:
  ROW: {type: i32, dims: ["M + 1"], data: {matrix: rowptr}}
  COL: {type: i32, dims: [NNZ], data: {matrix: col}}
  V: {type: f32, dims: [M]}
source: |
  __global__ void k(const int *ROW, const int *COL, float *V)
  {
    __shared__ float s[32];
    for (int j = ROW[` + bound + `]; j < ROW[` + bound + ` + 1]; j++) {
      s[threadIdx.x] = V[COL[j]];
      __syncthreads();
    }
  }
block: [32]
grid: [32]
`
}

// TestBarrierInLoopOverIndexData: a loop bounded by index data read at
// one address for the whole block (ROW[blockIdx.x]) runs alike in every
// thread, so a barrier in it is reached by all; bounded by
// ROW[threadIdx.x], the lanes' trip counts differ and the barrier is
// refused.
func TestBarrierInLoopOverIndexData(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ bound, err string }{
		{"blockIdx.x", ""},
		{"threadIdx.x", "__syncthreads() under divergent control flow: the condition at 12:5 differs"},
	} {
		k, err := kernel.Parse("k.yaml", []byte(barrierKernel(tc.bound)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(k, nil, arch.Dim3{}, nil, dev)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ROW[%s]: %v; want the barrier accepted", tc.bound, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ROW[%s]: %v; want %q", tc.bound, err, tc.err)
		}
	}
}
