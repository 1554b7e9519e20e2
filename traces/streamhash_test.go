package traces

import (
	"encoding/binary"
	"hash/fnv"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// streamCase is one launch of the differential stream test.
type streamCase struct {
	name   string
	kernel string // a shipped example's name, or a kernel file's text
	m      string // mapping; "" keeps the kernel's
	block  arch.Dim3
	params map[string]int64
	// insts and hash were recorded from the cursor before its rewrite for
	// speed (the stream's contract is that they never change).
	insts int64
	hash  uint64
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
		{"matmul", "matmul", "", arch.Dim3{}, mm, 600, 0xdde21529da164fb5},
		{"matmul alpha", "matmul", "i1=tx,i2=ty", b(8, 4, 1), mm, 540, 0x7fd3c7d724f01ce5},
		{"matmul i2 only", "matmul", "i2=tx", b(32, 1, 1), mm, 600, 0x3aa9ef526c405e35},
		{"matmul i3 mapped", "matmul", "i3=tx,i1=ty", b(13, 5, 1), mm, 1152, 0x149070b636b1f125},
		{"matmul-naive", "matmul-naive", "", b(16, 2, 1), mm, 900, 0x9ba2e53ca38c2cfd},
		{"matmul-naive 3d", "matmul-naive", "i1=tz,i2=tx,i3=ty", b(4, 3, 2), mm, 900, 0xf015caca725dc571},
		{"matvec", "matvec", "", arch.Dim3{}, map[string]int64{"N": 70}, 1050, 0x3108321848a1688d},
		{"matvec i2", "matvec", "i2=tx", b(16, 1, 1), map[string]int64{"N": 70}, 1750, 0x229eb2142626d9b5},
		{"vecadd", "vecadd", "", b(48, 1, 1), map[string]int64{"N": 1000}, 168, 0xb6f4937c228f652d},
		{"copy", "copy", "", arch.Dim3{}, map[string]int64{"N": 777}, 75, 0xfd95b2b57f21dcf1},
		{"copy-rowmajor", "copy-rowmajor", "", b(64, 1, 1), map[string]int64{"rows": 100, "cols": 3}, 36, 0x65eb65b031e4da02},
		{"copy-colmajor", "copy-colmajor", "", b(40, 1, 1), map[string]int64{"rows": 100, "cols": 5}, 75, 0xf74d246bdf48a909},
		{"copy-colmajor i", "copy-colmajor", "i=tx", b(32, 1, 1), map[string]int64{"rows": 10, "cols": 50}, 60, 0x471413a96f0bf461},
		{"stride", "stride", "", arch.Dim3{}, map[string]int64{"N": 300, "S": 3, "O": 1}, 20, 0x28d34126bec3fdc3},
		{"transpose", "transpose", "", arch.Dim3{}, map[string]int64{"N": 20}, 60, 0x26624428f910894d},
		{"transpose swapped", "transpose", "i1=tx,i2=ty", b(8, 8, 1), map[string]int64{"N": 20}, 45, 0x4284811dde8661a8},
		{"transpose i1", "transpose", "i1=ty", b(1, 32, 1), map[string]int64{"N": 20}, 60, 0x9a28e712356ebf7d},
		{"latency-probe", "latency-probe", "", arch.Dim3{}, map[string]int64{"F": 1024, "S": 96, "R": 3}, 66, 0xc81454accc6ea11f},
		{"latency-probe i", "latency-probe", "i=tx", b(32, 1, 1), map[string]int64{"F": 1024, "S": 16, "R": 2}, 8, 0x2b3b97e6646b07a5},
		{"divnest", divNest, "", arch.Dim3{}, nil, 3748, 0xd08613d2454165cb},
		{"divnest 2d", divNest, "i=ty", b(2, 16, 1), map[string]int64{"N": 21}, 1476, 0x7c63fce520df638a},
		{"mixed", mixed, "", arch.Dim3{}, nil, 273, 0x1b7dbf88197371f4},
		{"mixed odd block", mixed, "", b(5, 1, 1), nil, 819, 0x4d3a31764407f3b8},
		{"mixed j", mixed, "j=tx", b(32, 1, 1), nil, 2739, 0xc1eb936dc5ea8415},
		{"cube", cube, "", arch.Dim3{}, nil, 384, 0x759f22a8eaccb295},
		{"cube xk", cube, "x=ty,k=tx", b(4, 3, 1), nil, 720, 0xa6514bd39743d7d0},
		// Blocks too large for the launch's lane table (maxLaneTab).
		{"vecadd huge block", "vecadd", "", b(70000, 1, 1), map[string]int64{"N": 1000}, 128, 0x99dfd49c6bee67ed},
		{"matmul huge block", "matmul", "", b(256, 300, 1), mm, 600, 0x2137cdf164e853e5},
		{"divnest huge block", divNest, "", b(20000, 1, 1), nil, 3748, 0xc791272170814bcb},
	}
}

// hashStream hashes every instruction of every warp of l, through one
// reused cursor: all fields, with the addresses of memory instructions
// (the addresses of an OpCompute are unspecified).
func hashStream(l *Launch, c *WarpCursor) (n int64, h uint64) {
	f := fnv.New64a()
	var buf [8 * (8 + WarpSize)]byte
	var w WarpInst
	for b := range l.Blocks() {
		for wi := range l.WarpsPerBlock() {
			c.Reset(l, b, wi)
			for c.Next(&w) {
				n++
				p := buf[:0]
				for _, v := range []uint64{uint64(w.Block), uint64(w.Warp), uint64(w.Ref), uint64(w.Op), uint64(w.Width), uint64(w.Active), uint64(w.Count)} {
					p = binary.LittleEndian.AppendUint64(p, v)
				}
				if w.Op != OpCompute {
					for _, a := range w.Addr {
						p = binary.LittleEndian.AppendUint64(p, a)
					}
				}
				f.Write(p)
			}
		}
	}
	return n, f.Sum64()
}

func bindCase(t *testing.T, tc streamCase) *Launch {
	t.Helper()
	var k *Kernel
	var err error
	if len(tc.kernel) > 40 {
		k, err = ParseKernel(tc.name+".yaml", []byte(tc.kernel))
	} else {
		k, err = LoadKernel(tc.kernel)
	}
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	var m Mapping
	if tc.m != "" {
		if m, err = ParseMapping(tc.m); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
	}
	l, err := Bind(k, m, tc.block, tc.params, nil)
	if err != nil {
		t.Fatalf("%s: %v", tc.name, err)
	}
	return l
}

// TestStreamHashes pins the whole instruction stream of every shipped
// example and a few kernels with divergent and nested loops, under
// several mappings and blocks.
func TestStreamHashes(t *testing.T) {
	var c WarpCursor // reused across launches of different shapes
	for _, tc := range streamCases() {
		l := bindCase(t, tc)
		if huge := strings.Contains(tc.name, "huge"); huge != (l.laneTab == nil) {
			t.Fatalf("%s: lane table %v; want it only for blocks that fit", tc.name, l.laneTab != nil)
		}
		n, h := hashStream(l, &c)
		if n != tc.insts || h != tc.hash {
			t.Errorf("%s: %d instructions, hash %#016x; want %d, %#016x", tc.name, n, h, tc.insts, tc.hash)
		}
	}
}
