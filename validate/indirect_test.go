package validate

import (
	"testing"

	"gpumemsim/arch"
)

// gatherKernel reads V twice through COL = i (strided, stride 1: the
// identity), in blocks of block threads over N = 4096.
func gatherKernel(block string) string {
	return `name: g
params: {N: 4096}
arrays:
  COL: {type: i32, dims: [N], data: {gen: strided, stride: 1}}
  V: {type: f32, dims: [N]}
  R: {type: f32, dims: [N]}
source: |
  __global__ void g(const int *COL, const float *V, float *R) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    R[i] = V[COL[i]] + V[COL[i]];
  }
block: [` + block + `]
grid: ["N / blockDim.x"]
`
}

// TestPengIndirect: Peng's assumption for V[COL[i]], by hand. COL is
// the identity, so the warp's lanes actually read 32 consecutive floats
// (one 128-B segment), but the stride is unknown at compile time: Peng's
// conservative rule makes every lane its own transaction, 32 per warp;
// 4096 threads are 128 warps, one execution each: 128·32 = 4096
// requests per access. The second V[COL[i]] reads what the first did
// (index difference 0 in fact) yet hits in neither cache: no reuse is
// assumed, so both go to DRAM at W̃ = 100 on the M2050: 409600 each.
// With blocks of 8 only 8 lanes are active: 8 transactions per warp,
// 512 warps, 4096 requests again.
func TestPengIndirect(t *testing.T) {
	for _, tc := range []struct {
		block     string
		txn       int
		warps     int64
		blockSize int
	}{{"128", 32, 128, 128}, {"8", 8, 512, 8}} {
		r, err := PengEstimate(jangLoad(t, "fermi-m2050"), jangBind(t, gatherKernel(tc.block), "", arch.Dim3{}, nil))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range r.Accesses {
			if a.Array != "V" {
				if a.Indirect {
					t.Errorf("block %s: %s is affine, not indirect", tc.block, a.Text)
				}
				continue
			}
			n++
			if !a.Indirect || a.Stride != 0 || a.Transactions != tc.txn || a.Warps != tc.warps || a.Requests != 4096 ||
				a.L1Hits != 0 || a.L2Hits != 0 || a.IndexKnown || a.Cost != 409600 {
				t.Errorf("block %s: %s: indirect %v stride %d txn %d warps %d requests %d hits %d/%d known %v cost %g; want true 0 %d %d 4096 0/0 false 409600",
					tc.block, a.Text, a.Indirect, a.Stride, a.Transactions, a.Warps, a.Requests, a.L1Hits, a.L2Hits, a.IndexKnown, a.Cost, tc.txn, tc.warps)
			}
		}
		if n != 2 {
			t.Errorf("block %s: %d accesses of V; want 2", tc.block, n)
		}
	}
}

// TestJangIndirect: V[COL[i]] has a Z in the tx column's contiguous
// (only) row and a Z offset: true random, uncoalesced, and Algorithm 1
// sends the read-only V to texture, where it costs nothing (J10 Table 1
// §); COL[i] and R[i] are true linear in global.
func TestJangIndirect(t *testing.T) {
	m := jangModel(t, gatherKernel("128"), "", arch.Dim3{}, nil)
	want := map[string]struct {
		class, space string
		z            bool
	}{"COL[i]": {JangTrueLinear, JangGlobal, false}, "V[COL[i]]": {JangTrueRandom, JangTexture, true}, "R[i]": {JangTrueLinear, JangGlobal, false}}
	for _, r := range m.Refs {
		w := want[r.Text]
		z := r.Z != nil && r.Z[0][0] && r.OZ[0]
		if r.Class != w.class || r.Space != w.space || z != w.z || r.Cost != 0 || (r.Class == JangTrueRandom) == r.Coalesced {
			t.Errorf("%s: class %s space %s Z %v cost %d coalesced %v; want %s %s %v 0", r.Text, r.Class, r.Space, r.Z, r.Cost, r.Coalesced, w.class, w.space, w.z)
		}
	}
	// In a read-write array the random reference stays in global and
	// costs the work group's W threads.
	rw := jangModel(t, `name: s
params: {N: 4096}
arrays:
  COL: {type: i32, dims: [N], data: {gen: strided, stride: 1}}
  V: {type: f32, dims: [N]}
source: |
  __global__ void s(const int *COL, float *V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    V[COL[i]] += 1;
  }
block: [128]
grid: ["N / blockDim.x"]
`, "", arch.Dim3{}, nil)
	for _, r := range rw.Refs {
		if r.Array == "V" && (r.Class != JangTrueRandom || r.Space != JangGlobal || r.Cost != 128) {
			t.Errorf("read-write %s %s: class %s space %s cost %d; want true random, global, 128", r.Text, r.Op, r.Class, r.Space, r.Cost)
		}
	}
}

// TestJangRowsByData: A[COL[ty]][tx] picks each row of the work group by
// data, but reads it contiguously along tx: the Z sits in the ty column
// only, and the class is the tx column's, true linear (global, cost 0);
// A[ty][COL[tx]] has its Z in the tx column's contiguous row: true random.
func TestJangRowsByData(t *testing.T) {
	m := jangModel(t, `name: r
params: {N: 64}
arrays:
  COL: {type: i32, dims: [N], data: {gen: permutation, seed: 1}}
  A: {type: f32, dims: [N, N]}
  R: {type: f32, dims: [N, N]}
source: |
  __global__ void r(const int *COL, const float *A, float *R) {
    int x = threadIdx.x;
    int y = threadIdx.y;
    R[y][x] = A[COL[y]][x] + A[y][COL[x]];
  }
block: [32, 2]
grid: [1, 1]
`, "", arch.Dim3{}, nil)
	want := map[string]string{"A[COL[y]][x]": JangTrueLinear, "A[y][COL[x]]": JangTrueRandom}
	for _, r := range m.Refs {
		if w, ok := want[r.Text]; ok && (r.Class != w || r.Z == nil) {
			t.Errorf("%s: class %s, Z %v; want %s with a Z", r.Text, r.Class, r.Z, w)
		}
	}
}

// TestPengIndirectBase: a subscript whose data decide only a base keeps
// its stride. Block b reads V[FIRST[b] + tx] with FIRST[b] = 128·b (a
// strided generator), as lavaMD reads a neighbour box's particles at the
// box's first one: every lane of a warp has the same base, so the
// stride along tx is 4 bytes and warp 0 of block 0 reads floats 0..31,
// one 128-byte segment: 1 transaction a warp, where V[COL[i]] (the data
// choose each lane's element) takes 32. A loop from data that varies
// along tx is dynamic too: Y[j] for j from ROW[i], i from threadIdx.x.
// Both accesses are indirect: no reuse through them.
func TestPengIndirectBase(t *testing.T) {
	l := jangBind(t, `name: base
params: {N: 4096}
arrays:
  FIRST: {type: i32, dims: [32], data: {gen: strided, stride: 128, mod: N}}
  ROW: {type: i32, dims: [N + 1], data: {gen: strided, stride: 1, mod: N + 1}}
  V: {type: f32, dims: [N]}
  Y: {type: f32, dims: [N]}
  R: {type: f32, dims: [N]}
source: |
  __global__ void base(const int *FIRST, const int *ROW, const float *V, const float *Y, float *R) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = V[FIRST[blockIdx.x] + threadIdx.x];
    for (int j = ROW[i]; j < ROW[i + 1]; j++)
      s += Y[j];
    R[i] = s;
  }
block: [128]
grid: [32]
`, "", arch.Dim3{}, nil)
	r, err := PengEstimate(jangLoad(t, "fermi-m2050"), l)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		dynamic bool
		stride  int64
		txn     int
	}{"V[FIRST[blockIdx.x]+threadIdx.x]": {false, 4, 1}, "Y[j]": {true, 0, 32}}
	for _, a := range r.Accesses {
		w, ok := want[a.Text]
		if !ok {
			continue
		}
		delete(want, a.Text)
		if !a.Indirect || a.DynamicStride != w.dynamic || a.Stride != w.stride || a.Transactions != w.txn || a.L1Hits != 0 || a.L2Hits != 0 {
			t.Errorf("%s: indirect %v dynamic %v stride %d txn %d hits %d/%d; want true %v %d %d 0/0",
				a.Text, a.Indirect, a.DynamicStride, a.Stride, a.Transactions, a.L1Hits, a.L2Hits, w.dynamic, w.stride, w.txn)
		}
	}
	for text := range want {
		t.Errorf("no access %s", text)
	}
}
