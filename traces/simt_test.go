package traces

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// elementCases are subscripts of every kind the fast address path tells
// apart: uniform, affine in the lane, not affine (squares, wrapping
// halves of a warp), two varying subscripts, a flat index into a 2-D
// array, varying locals, lane masks with holes whose inactive lanes
// hold subscripts outside the array, and a thread index or local plus or
// minus a constant, read in place (subPlan), and sums of them times
// constants or uniform values (linearOf).
var elementCases = []struct{ name, body string }{
	{"uniform", "C[blockIdx.y][blockIdx.x + 1] = A[3][P - 1];"},
	{"affine", "C[threadIdx.y][threadIdx.x] = A[threadIdx.y * 2][blockIdx.x];"},
	{"flat", "C[threadIdx.y * P + threadIdx.x] = B[blockIdx.x * 7 + threadIdx.x * 3];"},
	{"non-affine", "C[(threadIdx.x * threadIdx.x) % N][threadIdx.x / 3] = A[threadIdx.x % 5][(threadIdx.y * 7) % P];"},
	{"locals", "int i = threadIdx.x * 2 + threadIdx.y;\nint k = blockIdx.y;\nfor (k = 0; k < 3; k++)\n  C[i % N][(i + k) % P] = A[k][i % P] + B[i][threadIdx.x];"},
	{"holes", "if (threadIdx.x % 3 != 1)\n  C[threadIdx.y][threadIdx.x] = B[threadIdx.x][threadIdx.y];"},
	{"inactive-outside", "if (threadIdx.x > 0 && threadIdx.x < P)\n  C[threadIdx.x - 1][P - threadIdx.x] = A[0][threadIdx.x];"},
	{"tail", "if (threadIdx.x + threadIdx.y * blockDim.x < 70)\n  C[threadIdx.y][threadIdx.x] = A[N - 1 - threadIdx.y][threadIdx.x];"},
	{"uniform-addends", "int k = N - 40;\nfor (int j = 0; j < 3; j++) {\n  int i = threadIdx.x + j;\n  C[threadIdx.y + j][threadIdx.x] = A[j + threadIdx.y][i - j] + B[threadIdx.x + blockIdx.x][threadIdx.y + blockIdx.y] + A[i + k][threadIdx.y + j] + A[threadIdx.y + i][threadIdx.x] + B[threadIdx.x + threadIdx.y][threadIdx.y] + A[i + 2 + k - j][threadIdx.y + 1 + j + blockIdx.x] + A[abs(i - 40)][threadIdx.x];\n}\nint ty = threadIdx.y;\nfor (int m = -2; m < 1; m++)\n  B[ty - m][threadIdx.x] = 0;"},
	{"linear", "int k = N - 62;\nint tx = threadIdx.x, ty = threadIdx.y;\nfor (int j = 0; j < 3; j++) {\n  int i = tx + j;\n  C[ty * k + i - j][2 * tx - i + j] = A[ty * P + i - j] + B[k * (ty + j) - j][31 - (i - j)];\n  C[(j - i) * k + 2 * tx + ty][(5 - i) * k + 2 * i - 10 + ty] = B[i * -k + 2 * tx + 2 * j + 1][(2 * i + 1) * k - 4 * tx - 4 * j];\n  i += 1;\n  B[(i + 2 * j) * 2 - 6 * j - 2][-(-tx)] = A[ty * P + 4 + tx - tx + (i - j - 1) * k] + B[(i - j - 1) * k + ty - ty][(i - j - 1) * (k + 1) - 2 * tx];\n  C[0][0] = C[blockIdx.y * ty + i - j - 1][tx];\n  C[ty * j + tx][0] = A[ty * P + tx] + B[ty * k + 2 * ty - tx + 31][tx * k - tx];\n}"},
	{"offsets", "int i = threadIdx.x + 2;\nfor (int k = 3; k < 6; k++) {\n  i += 1;\n  C[i + 20][threadIdx.y + 1] = A[1 + threadIdx.y][k - 3] + B[i - 2][threadIdx.x];\n}"},
}

// TestElementsMatchByLane streams each case, on blocks whose warps are
// full, wrap rows mid-warp and end part full, and after every memory
// instruction forms its addresses again one lane at a time
// (elementsByLane, the path every address took before the warp-wide
// one): the active lanes must agree, with and without a remap of the
// arrays.
func TestElementsMatchByLane(t *testing.T) {
	blocks := []arch.Dim3{{X: 32, Y: 2, Z: 1}, {X: 12, Y: 6, Z: 1}, {X: 24, Y: 3, Z: 1}}
	for _, tc := range elementCases {
		for _, block := range blocks {
			for _, remap := range []kernel.RemapKind{kernel.RemapNone, kernel.RemapRow2Col} {
				l := threadKernel(t, "[N, P]", tc.body, block, nil)
				for r := range l.pt.refs {
					l.pt.refs[r].remap = remapping{kind: remap, height: 64, width: 32}
					l.pt.refs[r].planAddresses(l.Block, l.pt.vary)
				}
				name := fmt.Sprintf("%s %s remap %d", tc.name, block, remap)
				if n := compareByLane(t, name, l); n == 0 {
					t.Errorf("%s: no memory instruction", name)
				}
			}
		}
	}
}

// compareByLane streams every warp of l and checks each memory
// instruction's active lanes against elementsByLane; it returns the
// instructions checked.
func compareByLane(t *testing.T, name string, l *Launch) int {
	t.Helper()
	n := 0
	c := l.NewWarp().(*ThreadCursor)
	for b := range l.Blocks() {
		for w := range l.WarpsPerBlock() {
			c.Reset(b, w)
			var in WarpInst
			for c.NextTo(&in, &in.Addr) {
				if in.Op != OpLoad && in.Op != OpStore {
					continue
				}
				// No case is outside its array: the warp-wide path must
				// not hand any to the lane-by-lane one.
				var got, want [WarpSize]uint64
				if !c.addresses(&got, &c.pt.refs[in.Ref]) {
					t.Fatalf("%s: block %d warp %d ref %d: the warp-wide path found a lane outside", name, b, w, in.Ref)
				}
				if !c.elementsByLane(&want, &c.pt.refs[in.Ref]) {
					t.Fatalf("%s: lane by lane, block %d warp %d: %v", name, b, w, l.Err())
				}
				for m := in.Active; m != 0; m &= m - 1 {
					i := bits.TrailingZeros32(m)
					if in.Addr[i] != want[i] || got[i] != want[i] {
						t.Fatalf("%s: block %d warp %d ref %d lane %d: address %d (warp-wide %d); lane by lane %d", name, b, w, in.Ref, i, in.Addr[i], got[i], want[i])
					}
				}
				n++
			}
		}
	}
	if err := l.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// TestElementsOutsideFirstLane: a warp with subscripts outside the array
// in several lanes and subscripts reports the first subscript with one,
// and in it the first active lane, however the warp-wide path found it.
// A is 64 × 32 (N × P); blocks are 32 × 1, lane i is thread (i,0,0).
func TestElementsOutsideFirstLane(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		// Both subscripts outside: the first one's lane 9, not the
		// second one's lane 5.
		{"A[threadIdx.x < 9 ? 0 : 64][threadIdx.x < 5 ? 0 : 40] = 0;",
			"thread (9,0,0) of block (0,0,0) has subscript 1 64, outside [0, 64) of A"},
		// A uniform second subscript outside, a varying first one from
		// lane 24 (24 + 40 = 64): the first subscript is reported.
		{"A[threadIdx.x + 40][P] = 0;",
			"thread (24,0,0) of block (0,0,0) has subscript 1 64, outside [0, 64) of A"},
		// Only the uniform one outside: the first active lane.
		{"if (threadIdx.x > 3) A[0][P + 1] = 0;",
			"thread (4,0,0) of block (0,0,0) has subscript 2 33, outside [0, 32) of A"},
		// A flat index, odd lanes only: lane 0 (-7) is inactive, lane
		// 1's -6 is the first.
		{"if (threadIdx.x % 2 == 1) B[(int)threadIdx.x - 7] = 0;",
			"thread (1,0,0) of block (0,0,0) has index -6, outside [0, 2048) of B"},
		// threadIdx.x is unsigned: 1 - 7 wraps to 2^32 - 6.
		{"if (threadIdx.x % 2 == 1) B[threadIdx.x - 7] = 0;",
			"thread (1,0,0) of block (0,0,0) has index 4294967290, outside [0, 2048) of B"},
		// Outside only in the second subscript's high lanes: 31 - 32 + 3.
		{"A[threadIdx.x][threadIdx.x + 3] = 0;",
			"thread (29,0,0) of block (0,0,0) has subscript 2 32, outside [0, 32) of A"},
		// A uniform local in place of the constant, outside in the last
		// lane alone: 31 + 1.
		{"for (int j = 1; j < 2; j++)\n  A[threadIdx.x][threadIdx.x + j] = 0;",
			"thread (31,0,0) of block (0,0,0) has subscript 2 32, outside [0, 32) of A"},
		// A uniform local added to the first subscript: 31 + 33.
		{"for (int j = 33; j < 34; j++)\n  A[j + threadIdx.x][0] = 0;",
			"thread (31,0,0) of block (0,0,0) has subscript 1 64, outside [0, 64) of A"},
		// Two uniform addends, only the second subscript outside: each
		// subscript's own lanes decide.
		{"for (int m = 3; m < 4; m++)\n  A[threadIdx.y + m][threadIdx.x + m] = 0;",
			"thread (29,0,0) of block (0,0,0) has subscript 2 32, outside [0, 32) of A"},
		// Constants and uniform locals together: 31 + 20 - 2 + 16 - 1.
		{"int k = 16;\nfor (int j = 1; j < 2; j++)\n  A[threadIdx.x + 20 - 2 + k - j][0] = 0;",
			"thread (31,0,0) of block (0,0,0) has subscript 1 64, outside [0, 64) of A"},
		// One subtracted, below 0 in the first lane alone: 0 - 1.
		{"int t = threadIdx.x;\nfor (int j = 1; j < 2; j++)\n  A[0][t - j] = 0;",
			"thread (0,0,0) of block (0,0,0) has subscript 2 -1, outside [0, 32) of A"},
		// Linear in the lanes: 2·tx + tx, outside from lane 22 (66).
		{"int tx = threadIdx.x;\nA[tx * 2 + tx][1] = 0;",
			"thread (22,0,0) of block (0,0,0) has subscript 1 66, outside [0, 64) of A"},
		// A uniform coefficient (k = 3) on a local that owes 2:
		// (tx + 2 - 2)·3 - 2·tx + 9 = tx + 9, outside from lane 23 (32).
		{"int k = N - 61;\nint tx = threadIdx.x;\nint i = tx;\ni += 2;\nA[1][(i - 2) * k - 2 * tx + 9] = 0;",
			"thread (23,0,0) of block (0,0,0) has subscript 2 32, outside [0, 32) of A"},
		// A lane read negated: 5 - tx, below 0 from lane 6 (-1).
		{"int tx = threadIdx.x;\nfor (int j = 5; j < 6; j++)\n  A[j - tx][0] = 0;",
			"thread (6,0,0) of block (0,0,0) has subscript 1 -1, outside [0, 64) of A"},
		// A varying local less a uniform one, outside from lane 1 on.
		{"int i = threadIdx.x * 40;\nfor (int j = 5; j < 6; j++)\n  A[i - j][0] = 0;",
			"thread (0,0,0) of block (0,0,0) has subscript 1 -5, outside [0, 64) of A"},
	} {
		l := threadKernel(t, "[N, P]", tc.body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		for range l.Stream() {
		}
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Err() = %v\nwant ...%s...", tc.body, err, tc.want)
		}
	}
}

// TestElementsFirstReason: two subscripts whose operators go wrong in
// active lanes report the first subscript's reason, as lane-by-lane
// evaluation in subscript order met it, though the warp-wide path
// evaluates the uniform second subscript first. The store is the warp's
// last step: the reason is reported at the memory instruction that met
// it, not left for a later step to find (there is none).
func TestElementsFirstReason(t *testing.T) {
	l := threadKernel(t, "[N, P]", "A[threadIdx.x << (N + 6)][blockIdx.x / (N - 64)] = 0;", arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	for range l.Stream() {
	}
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "shift by 70") {
		t.Errorf("Err() = %v; want the shift by 70 of the first subscript", err)
	}
}

// TestElementsAllocs: forming addresses allocates nothing.
func TestElementsAllocs(t *testing.T) {
	l := threadKernel(t, "[N, P]", elementCases[4].body, arch.Dim3{X: 24, Y: 3, Z: 1}, nil)
	c := l.NewWarp().(*ThreadCursor)
	var in WarpInst
	c.Reset(0, 0)
	for c.NextTo(&in, &in.Addr) {
	}
	if n := testing.AllocsPerRun(20, func() {
		c.Reset(1, 2)
		for c.NextTo(&in, &in.Addr) {
		}
	}); n != 0 {
		t.Errorf("a warp allocates %v times; want 0", n)
	}
}

// TestAssignLanesByHand runs assignments of every kind assign updates
// in place (=, +=, -=, *= of uniform and varying values) under a full
// warp and under both sides of a divergent branch, and uniform += and
// -= of a full warp, which the local owes until it is read (lanes.owed),
// read by a subscript as it stands, by an expression and by a loop that
// lanes leave one by one. Each store's active lanes and elements must be
// those worked out here by hand from threadIdx.x = t.
func TestAssignLanesByHand(t *testing.T) {
	body := `
int x = 7;
x *= threadIdx.x;
x -= 4 * threadIdx.x;
if (threadIdx.x % 3 == 1) {
  x -= threadIdx.x;
  x *= 2;
  x *= threadIdx.x % 2 + 1;
} else {
  x = 2;
  x += 3 * threadIdx.x + 2;
  x -= 1;
  x += 3;
  x = x * 1 + blockIdx.x;
}
x += threadIdx.x;
x -= 2 * threadIdx.x;
x *= 2;
x += 3;
x -= 1;
C[x] = 0;
x = x + 2 * blockIdx.x + threadIdx.x;
C[x] = 0;
x += 5;
for (int k = 0; k < 3; k++) {
  x += 1;
  C[x] = 0;
}
int j = threadIdx.x;
j -= 3;
j += 5;
while (j < 40) {
  A[j] = 0;
  j += 8;
}`
	type store struct {
		array  string
		active uint32
		elem   [WarpSize]int64
	}
	var want []store
	var x, j [WarpSize]int64
	all := func(array string, v *[WarpSize]int64, active uint32) {
		want = append(want, store{array, active, *v})
	}
	for t := range int64(WarpSize) { // blockIdx.x is 0 in block 0
		v := 3 * t
		if t%3 == 1 {
			v = (v - t) * 2 * (t%2 + 1)
		} else {
			v = 3*t + 6
		}
		x[t] = (v+t-2*t)*2 + 3 - 1
	}
	all("C", &x, fullMask)
	for t := range x {
		x[t] += int64(t)
	}
	all("C", &x, fullMask)
	for t := range x {
		x[t] += 5
	}
	for range 3 {
		for t := range x {
			x[t]++
		}
		all("C", &x, fullMask)
	}
	for t := range j {
		j[t] = int64(t) + 2
	}
	for {
		var active uint32
		for t, v := range j {
			if v < 40 {
				active |= 1 << t
			}
		}
		if active == 0 {
			break
		}
		all("A", &j, active)
		for t := range j {
			if active&(1<<t) != 0 {
				j[t] += 8
			}
		}
	}
	l := threadKernel(t, "[N * 8]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	base := map[string]uint64{}
	for _, a := range l.Arrays {
		base[a.Name] = a.Base
	}
	checkStores := func(t *testing.T, insts []WarpInst) {
		t.Helper()
		if len(insts) != len(want) {
			t.Fatalf("got %d stores, want %d", len(insts), len(want))
		}
		for k, in := range insts {

			w := want[k]
			if in.Active != w.active {
				t.Errorf("store %d: active lanes %#x, want %#x", k, in.Active, w.active)
				continue
			}
			for lane := range WarpSize {
				if w.active&(1<<lane) == 0 {
					continue
				}
				if got := int64(in.Addr[lane]-base[w.array]) / 4; got != w.elem[lane] {
					t.Errorf("store %d, lane %d: element %d of %s, want %d", k, lane, got, w.array, w.elem[lane])
				}
			}
		}
	}
	// The same cursor twice: a Reset leaves nothing of the last run behind.
	c := l.NewWarp()
	for range 2 {
		c.Reset(0, 0)
		var insts []WarpInst
		var in WarpInst
		for c.NextTo(&in, &in.Addr) {
			if in.Op == OpStore {
				insts = append(insts, in)
			}
		}
		checkStores(t, insts)
	}
}

// TestLinearAssignByHand: assignments whose values are linear in lanes
// read in place (assign's plan) under a full warp and one side of a
// branch, reading a local that owes an addend, a uniform coefficient and
// the assigned local itself, once or twice after other terms and three
// times. Each store's elements are worked out here by hand from
// threadIdx.x = t; k = N - 61 = 3.
func TestLinearAssignByHand(t *testing.T) {
	body := `int k = N - 61;
int tx = threadIdx.x;
int y = tx;
y += 4;
int z = (y - 4) * k - 2 * tx + 1;
C[z] = 0;
if (tx % 2 == 0)
  z = z * 2 + y - tx;
C[z] = 0;
z = k * z - y;
C[z] = 0;
z += 2 * tx - k;
C[z] = 0;
z = y + tx + z + z;
C[z] = 0;
z = z + z - z - tx + 3;
C[z] = 0;`
	elem := [6]func(t int) int{
		func(t int) int { return t + 1 }, // 3t - 2t + 1
		func(t int) int { // even lanes 2(t + 1) + (t + 4) - t
			if t%2 == 0 {
				return 2*t + 6
			}
			return t + 1
		},
		func(t int) int { // 3z - (t + 4)
			if t%2 == 0 {
				return 5*t + 14
			}
			return 2*t - 1
		},
		func(t int) int { // z + 2t - 3, a full warp's +=
			if t%2 == 0 {
				return 7*t + 11
			}
			return 4*t - 4
		},
		func(t int) int { // (t + 4) + t + 2z, z read after y and tx
			if t%2 == 0 {
				return 16*t + 26
			}
			return 10*t - 4
		},
		func(t int) int { // z - t + 3, z read three times
			if t%2 == 0 {
				return 15*t + 29
			}
			return 9*t - 1
		},
	}
	l := threadKernel(t, "[N * 8]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	// Every varying = has a plan but the last, whose third read of z
	// would come after z's lanes are written (selfFirst).
	unplanned := 0
	for _, pr := range l.pt.code {
		if pr.kind == tAssign && pr.op == kernel.ExprConst && pr.x != nil && pr.x.varying && pr.plan == nil {
			unplanned++
		}
	}
	if unplanned != 1 {
		t.Errorf("%d varying assignments without a plan; want 1", unplanned)
	}
	c := l.NewWarp().(*ThreadCursor)
	c.Reset(0, 0)
	n := 0
	var in WarpInst
	for c.NextTo(&in, &in.Addr) {
		if in.Op != OpStore {
			continue
		}
		for lane := range WarpSize {
			if got, want := int(in.Addr[lane]-c.pt.refs[in.Ref].base)/4, elem[n](lane); got != want {
				t.Errorf("store %d, lane %d: element %d, want %d", n, lane, got, want)
			}
		}
		n++
	}
	if n != len(elem) || l.Err() != nil {
		t.Errorf("%d stores (err %v), want %d", n, l.Err(), len(elem))
	}
}

// TestUniformPairsByHand evaluates uniform programs of two reads and an
// operator (lanes.scalar's pair path) on every read kind: blockIdx, a
// constant, a uniform local, and a call. Each block's store must go to
// the row worked out here by hand, and a division by zero in block 0
// must be reported.
func TestUniformPairsByHand(t *testing.T) {
	body := `
int b = blockIdx.x * 3;
int c = b - blockIdx.x;
int d = c / 2;
int e = min(d, 1);
C[b + c + d + e][threadIdx.x] = 0;`
	l := threadKernel(t, "[N, P]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	var base uint64
	for _, a := range l.Arrays {
		if a.Name == "C" {
			base = a.Base
		}
	}
	for blk := range 4 { // a 2x2 grid: blockIdx.x = blk % 2
		bx := int64(blk % 2)
		row := 3*bx + 2*bx + bx + min(bx, 1)
		insts := memInsts(l, blk, 0)
		if len(insts) != 1 {
			t.Fatalf("block %d: %d memory instructions, want 1", blk, len(insts))
		}
		for lane := range WarpSize {
			if got, want := insts[0].Addr[lane], base+uint64(row*32+int64(lane))*4; got != want {
				t.Errorf("block %d lane %d: address %#x, want %#x (row %d)", blk, lane, got, want, row)
			}
		}
	}
	l = threadKernel(t, "[N, P]", "int z = 7 / blockIdx.x;\nC[z][threadIdx.x] = 0;", arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	memInsts(l, 0, 0)
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "division by zero in every active thread of warp 0 of block (0,0,0)") {
		t.Errorf("Err() = %v; want the division by zero of block 0", err)
	}
}

// TestBadOperatorPlaced: an operator that goes wrong in an active lane
// is reported at the source of the step that met it (the error had no
// place), naming the thread (it named the warp): the assignment (at the
// local it assigns), the if, the loop and the reference. The body starts
// on line 10 of threadKernel's file, at column 5; z is 0 in every
// thread, threadIdx.x - 3 in thread 3 only; a uniform program goes wrong
// in every active thread of the warp.
func TestBadOperatorPlaced(t *testing.T) {
	const zero = "int z = threadIdx.x - threadIdx.x;\n"
	for _, tc := range []struct{ body, want string }{
		{zero + "int q = 7 / z;\nC[q][threadIdx.x] = 0;", "inline.yaml:11:9: division by zero in thread (0,0,0) of block (0,0,0)"},
		{zero + "if (threadIdx.x / z > 3)\n  C[0][threadIdx.x] = 0;", "inline.yaml:11:5: division by zero in thread (0,0,0) of block (0,0,0)"},
		{zero + "for (int k = 0; k < 4 / z; k++)\n  C[k][threadIdx.x] = 0;", "inline.yaml:11:5: division by zero in thread (0,0,0) of block (0,0,0)"},
		{zero + "A[0][0] = 0;\nC[threadIdx.x % z][0] = 0;", "inline.yaml:12:5: division by zero in thread (0,0,0) of block (0,0,0)"},
		{zero + "C[0][threadIdx.x >> (z + 64)] = 0;", "inline.yaml:11:5: shift by 64 in thread (0,0,0) of block (0,0,0)"},
		{"int q = 10 / (threadIdx.x - 3);\nC[0][0] = q;", "inline.yaml:10:9: division by zero in thread (3,0,0) of block (0,0,0)"},
		{"int u = blockIdx.x - blockIdx.x;\nint q = 7 / u;\nC[q][0] = 0;", "inline.yaml:11:9: division by zero in every active thread of warp 0 of block (0,0,0)"},
	} {
		l := threadKernel(t, "[N, P]", tc.body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		for range l.Stream() {
		}
		if err := l.Err(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\nErr() = %v\nwant %s...", tc.body, err, tc.want)
		}
	}
}

// TestSubPlanReadsInPlace: which subscripts addresses reads in place, a
// thread index or varying local and what it adds, worked out by hand;
// the others are evaluated on the lane stack. A subscript planned as
// evaluated gives the same addresses, so TestElementsMatchByLane cannot
// tell; this can.
func TestSubPlanReadsInPlace(t *testing.T) {
	body := `int k = N - 40;
for (int j = 0; j < 3; j++) {
  int i = threadIdx.x + j;
  C[1 + threadIdx.x][i - 2] = A[k + i][threadIdx.y + 3 - j + k] + B[i + 2 + k - j][abs(i - 40)];
  C[threadIdx.x * 2][i + i] = A[j - threadIdx.x][i + j * 2];
  B[(i + j) * k + threadIdx.x][k - (i - j)] = A[(2 * i + 1) * k][k * (j - i)];
}`
	type want struct {
		reads uint8
		reg   int32
		off   int64
		unis  []uniTerm
		lin   []linTerm
	}
	const k, j, i = 0, 1, 2 // the locals' slots, in order of declaration
	uni := func(slot int32, sign int64) uniTerm {
		return uniTerm{read: xop{kind: kernel.ExprScalar, arg: slot}, sign: sign}
	}
	lin := func(reads uint8, reg int32, k int64) linTerm {
		return linTerm{reads: reads, reg: reg, k: k, coef: one}
	}
	withCoef := func(t linTerm, slot int32, unis []uniTerm) linTerm {
		t.coef, t.unis = xop{kind: kernel.ExprScalar, arg: slot}, unis
		return t
	}
	linear := func(off int64, unis []uniTerm, terms ...linTerm) want {
		return want{readsLinear, 0, off, unis, terms}
	}
	evaluated := want{}
	wants := map[string][]want{
		"C[1+threadIdx.x][i-2]":     {{readsTid, 0, 1, nil, nil}, {readsVreg, i, -2, nil, nil}},
		"A[k+i][threadIdx.y+3-j+k]": {{readsVreg, i, 0, []uniTerm{uni(k, 1)}, nil}, {readsTid, 1, 3, []uniTerm{uni(j, -1), uni(k, 1)}, nil}},
		"B[i+2+k-j][abs(i-40)]":     {{readsVreg, i, 2, []uniTerm{uni(k, 1), uni(j, -1)}, nil}, evaluated},
		"C[threadIdx.x*2][i+i]":     {linear(0, nil, lin(readsTid, 0, 2)), linear(0, nil, lin(readsVreg, i, 1), lin(readsVreg, i, 1))},
		// j - threadIdx.x is unsigned, a step of C's types.
		"A[j-threadIdx.x][i+j*2]": {evaluated, {readsVreg, i, 0, []uniTerm{uni(j, 2)}, nil}},
		// 2·i + 1 times a uniform value is not a lane read plus an
		// addend, times a coefficient.
		"A[(2*i+1)*k][k*(j-i)]": {evaluated, linear(0, nil, withCoef(lin(readsVreg, i, -1), k, []uniTerm{uni(j, -1)}))},
		"B[(i+j)*k+threadIdx.x][k-(i-j)]": {linear(0, nil, withCoef(lin(readsVreg, i, 1), k, []uniTerm{uni(j, 1)}), lin(readsTid, 0, 1)),
			linear(0, []uniTerm{uni(k, 1), uni(j, 1)}, lin(readsVreg, i, -1))},
	}
	l := threadKernel(t, "[N, P]", body, arch.Dim3{X: 32, Y: 2, Z: 1}, nil)
	for _, pr := range l.pt.refs {
		w, ok := wants[pr.text]
		if !ok {
			t.Fatalf("no expectation for %s", pr.text)
		}
		for d, x := range pr.subs {
			var got ptSub
			for _, s := range pr.plan {
				if s.x == x {
					got = s
				}
			}
			if got.reads != w[d].reads || got.reads != 0 && (got.reg != w[d].reg || got.off != w[d].off || !slices.Equal(got.unis, w[d].unis) || !sameTerms(got.lin, w[d].lin)) {
				t.Errorf("%s, subscript %d: reads %d of %d, adds %d and %v, terms %+v; want reads %d of %d, adds %d and %v, terms %+v",
					pr.text, d+1, got.reads, got.reg, got.off, got.unis, got.lin, w[d].reads, w[d].reg, w[d].off, w[d].unis, w[d].lin)
			}
		}
	}
}

// sameTerms says two linear subscripts' lane reads are the same.
func sameTerms(a, b []linTerm) bool {
	return slices.EqualFunc(a, b, func(x, y linTerm) bool {
		return x.reads == y.reads && x.reg == y.reg && x.off == y.off && x.k == y.k && x.coef == y.coef && slices.Equal(x.unis, y.unis)
	})
}
