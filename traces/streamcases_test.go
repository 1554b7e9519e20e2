package traces

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// streamCase is one launch of the stream golden test.
type streamCase struct {
	name   string
	kernel string // a shipped example's name, or a kernel file's text
	m      string // mapping; "" keeps the kernel's
	block  arch.Dim3
	params map[string]int64
}

// Kernels with what the shipped examples lack: divergent loops (nested,
// and a uniform loop inside a divergent one), several statements per
// loop, steps and lower bounds, loops that run no iteration, a z axis.
const (
	divNest = `name: divnest
params: {N: 37, M: 5}
arrays:
  A: {type: f32, dims: [N, N]}
  x: {type: f64, dims: [N]}
  y: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++)
    for (j = i; j < N; j += 2) {
      x[i] += A[j][i];
      for (k = 0; k <= j; k++)
        y[k] = A[i][k] + A[k][j] * 2;
      for (q = 0; q < M; q++)
        x[i] -= y[q];
    }
mapping: {i: tx}
block: [32]
`
	mixed = `name: mixed
params: {N: 23, M: 17, E: 3}
arrays:
  A: {type: f32, dims: [N, M]}
  B: {type: f64, dims: [M, N], layout: col-major}
  x: {type: f32, dims: [N]}
source: |
  for (i = 1; i < N; i += 2) {
    float s = 0;
    for (j = 3; j < M; j += 3) {
      float t = A[i][j];
      B[j][i] = t * 2 + A[i][j-1];
      s += t;
    }
    for (k = M; k < E; k++)
      x[k] = 1;
    for (r = 0; r < E; r++)
      for (c = r; c < M; c++)
        x[i] -= A[i][c] - B[c][r];
    x[i] = s;
  }
mapping: {i: tx}
block: [32]
`
	cube = `name: cube
params: {X: 7, Y: 6, Z: 5, K: 4}
arrays:
  A: {type: f32, dims: [Z, Y, X]}
  B: {type: u8, dims: [X, Y, Z]}
  w: {type: f64, dims: [K, Z]}
source: |
  for (z = 0; z < Z; z++)
    for (y = 0; y < Y; y++)
      for (x = 0; x < X; x++)
        for (k = 0; k < K; k++) {
          B[x][y][z] += A[z][y][x] * w[k][z];
          A[z][y][x] = w[k][z];
        }
mapping: {x: tx, y: ty, z: tz}
block: [4, 4, 2]
`
)

func streamCases() []streamCase {
	mm := map[string]int64{"M": 20, "N": 24, "P": 9}
	b := func(x, y, z int) arch.Dim3 { return arch.Dim3{X: x, Y: y, Z: z} }
	return []streamCase{
		{"matmul", "matmul", "", arch.Dim3{}, mm},
		{"matmul alpha", "matmul", "i1=tx,i2=ty", b(8, 4, 1), mm},
		{"matmul i2 only", "matmul", "i2=tx", b(32, 1, 1), mm},
		{"matmul i3 mapped", "matmul", "i3=tx,i1=ty", b(13, 5, 1), mm},
		{"matmul-naive", "matmul-naive", "", b(16, 2, 1), mm},
		{"matmul-naive 3d", "matmul-naive", "i1=tz,i2=tx,i3=ty", b(4, 3, 2), mm},
		{"matvec", "matvec", "", arch.Dim3{}, map[string]int64{"N": 70}},
		{"matvec i2", "matvec", "i2=tx", b(16, 1, 1), map[string]int64{"N": 70}},
		{"vecadd", "vecadd", "", b(48, 1, 1), map[string]int64{"N": 1000}},
		{"copy", "copy", "", arch.Dim3{}, map[string]int64{"N": 777}},
		{"copy-rowmajor", "copy-rowmajor", "", b(64, 1, 1), map[string]int64{"rows": 100, "cols": 3}},
		{"copy-colmajor", "copy-colmajor", "", b(40, 1, 1), map[string]int64{"rows": 100, "cols": 5}},
		{"copy-colmajor i", "copy-colmajor", "i=tx", b(32, 1, 1), map[string]int64{"rows": 10, "cols": 50}},
		{"stride", "stride", "", arch.Dim3{}, map[string]int64{"N": 300, "S": 3, "O": 1}},
		{"transpose", "transpose", "", arch.Dim3{}, map[string]int64{"N": 20}},
		{"transpose swapped", "transpose", "i1=tx,i2=ty", b(8, 8, 1), map[string]int64{"N": 20}},
		{"transpose i1", "transpose", "i1=ty", b(1, 32, 1), map[string]int64{"N": 20}},
		{"latency-probe", "latency-probe", "", arch.Dim3{}, map[string]int64{"F": 1024, "S": 96, "R": 3}},
		{"latency-probe i", "latency-probe", "i=tx", b(32, 1, 1), map[string]int64{"F": 1024, "S": 16, "R": 2}},
		{"divnest", divNest, "", arch.Dim3{}, nil},
		{"divnest 2d", divNest, "i=ty", b(2, 16, 1), map[string]int64{"N": 21}},
		{"mixed", mixed, "", arch.Dim3{}, nil},
		{"mixed odd block", mixed, "", b(5, 1, 1), nil},
		{"mixed j", mixed, "j=tx", b(32, 1, 1), nil},
		{"cube", cube, "", arch.Dim3{}, nil},
		{"cube xk", cube, "x=ty,k=tx", b(4, 3, 1), nil},
		// Blocks too large for the launch's lane table (maxLaneTab).
		{"vecadd huge block", "vecadd", "", b(70000, 1, 1), map[string]int64{"N": 1000}},
		{"matmul huge block", "matmul", "", b(256, 300, 1), mm},
		{"divnest huge block", divNest, "", b(20000, 1, 1), nil},
	}
}

func bindCase(t *testing.T, tc streamCase) *Launch {
	t.Helper()
	var k *kernel.Kernel
	var err error
	if len(tc.kernel) > 40 {
		k, err = kernel.Parse(tc.name+".yaml", []byte(tc.kernel))
	} else {
		k, err = kernel.Load(tc.kernel)
	}
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	var m kernel.Mapping
	if tc.m != "" {
		if m, err = kernel.ParseMapping(tc.m); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
	}
	l, err := Bind(k, m, tc.block, tc.params, nil)
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	return l
}
