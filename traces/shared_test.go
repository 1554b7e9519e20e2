package traces

import (
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
)

// TestSharedFollowsBlock: __shared__ arrays sized by blockDim are
// allocated per launch. Tiles H×SL and SL×W of floats, SL = min(H, W),
// each array starting at a multiple of 128 bytes; sizes by hand.
func TestSharedFollowsBlock(t *testing.T) {
	src := `name: tiles
params: {N: 64}
arrays:
  A: {type: f32, dims: [N]}
source: |
  __global__ void tiles(float *A) {
    __shared__ float As[blockDim.y][min(blockDim.x, blockDim.y)];
    __shared__ float Bs[min(blockDim.x, blockDim.y)][blockDim.x];
    if (threadIdx.x < min(blockDim.x, blockDim.y))
      As[threadIdx.y][threadIdx.x] = A[threadIdx.x];
  }
block: [16, 16]
grid: [1]
`
	k, err := kernel.Parse("tiles.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		block          arch.Dim3
		bsBase, shared int64
	}{
		{arch.Dim3{X: 16, Y: 16, Z: 1}, 1024, 2048}, // 16·16·4 = 1024 each
		{arch.Dim3{X: 32, Y: 8, Z: 1}, 256, 1280},   // As 8·8·4 = 256, Bs 8·32·4 = 1024
		{arch.Dim3{X: 16, Y: 2, Z: 1}, 128, 256},    // As 2·2·4 = 16 → Bs at 128, 2·16·4 = 128
	} {
		l, err := Bind(k, nil, c.block, nil, nil)
		if err != nil {
			t.Fatalf("block %s: %v", c.block, err)
		}
		if int64(l.Shared[1].Base) != c.bsBase || int64(l.SharedArrays) != c.shared {
			t.Errorf("block %s: Bs at %d, %d bytes of shared arrays; want %d, %d", c.block, l.Shared[1].Base, l.SharedArrays, c.bsBase, c.shared)
		}
	}
}

// TestRequires: the kernel file's conditions refuse a block its tiles do
// not fit, at the condition that fails.
func TestRequires(t *testing.T) {
	k, err := kernel.Load("matmul-tiled")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		block arch.Dim3
		want  string // "" fits
	}{
		{arch.Dim3{X: 16, Y: 2, Z: 1}, ""},
		{arch.Dim3{X: 256, Y: 2, Z: 1}, ""},
		{arch.Dim3{X: 24, Y: 16, Z: 1}, "it requires N % blockDim.x == 0"}, // 1024 % 24 = 16
		{arch.Dim3{X: 16, Y: 48, Z: 1}, "it requires M % blockDim.y == 0"}, // 1024 % 48 = 16
	} {
		_, err := Bind(k, nil, c.block, nil, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("block %s: %v; want it to fit", c.block, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "examples/matmul-tiled.yaml:")):
			t.Errorf("block %s: %v; want examples/matmul-tiled.yaml:L:C: ... %s", c.block, err, c.want)
		}
	}
	// M = 48 and N = 96 fit 32x24; SL = min(32, 24) = 24 does not divide P = 100.
	if _, err := Bind(k, nil, arch.Dim3{X: 32, Y: 24, Z: 1}, map[string]int64{"M": 48, "N": 96, "P": 100}, nil); err == nil || !strings.Contains(err.Error(), "it requires P % min(blockDim.x, blockDim.y) == 0") {
		t.Errorf("P=100, block 32x24: %v; want it requires P %% min(blockDim.x, blockDim.y) == 0", err)
	}
}

// TestSharedTooLarge: __shared__ arrays past the device's per-block limit
// are refused at the array that crosses it: 64 rows of 128 floats are
// 32 KiB, G80 allows 16 KiB; B alone (1 KiB at 0) fits.
func TestSharedTooLarge(t *testing.T) {
	src := `name: big
params: {N: 64}
arrays:
  A: {type: f32, dims: [N]}
source: |
  __global__ void big(float *A) {
    __shared__ float B[256];
    __shared__ float S[blockDim.x][128];
    S[threadIdx.x][0] = A[threadIdx.x] + B[0];
  }
block: [64]
grid: [1]
`
	k, err := kernel.Parse("big.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := configs.Load("g80")
	if err != nil {
		t.Fatal(err)
	}
	want := "big.yaml:8:22: 33KiB of shared memory per block (__shared__ arrays up to S); g80 allows at most 16KiB"
	if _, err := Bind(k, nil, arch.Dim3{}, nil, dev); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Bind = %v; want %s...", err, want)
	}
}
