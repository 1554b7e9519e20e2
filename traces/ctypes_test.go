package traces

import (
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// TestCTypes runs statements whose values C's integer types decide, each
// worked out by hand from C11 6.3 (the conversions) and the types CUDA
// gives threadIdx and blockDim (unsigned int): the stores' lanes and
// elements, in block (0,0,0) of 32 threads. A is a flat f32[2048].
func TestCTypes(t *testing.T) {
	all := uint32(0xffffffff)
	lane := func(l int) int64 { return int64(l) }
	konst := func(v int64) func(int) int64 { return func(int) int64 { return v } }
	for _, tc := range []struct {
		body  string
		mask  uint32
		elems []func(lane int) int64 // of each store, in order
	}{
		// threadIdx.x - 5 wraps below 0: only lanes 5 to 14 are under 10.
		{"if (threadIdx.x - 5 < 10) A[threadIdx.x] = 1;", 0x7fe0, []func(int) int64{lane}},
		// -1 becomes 4294967295 against an unsigned blockDim.x.
		{"int z = -1;\nif (z < blockDim.x) A[threadIdx.x] = 1;", 0, nil},
		// 0u - 1 is 4294967295; >> 28 leaves 15.
		{"unsigned int u = 0;\nu = u - 1;\nA[u >> 28] = 1;", all, []func(int) int64{konst(15)}},
		{"unsigned int k = 2;\nk -= 3;\nA[k >> 28] = 1;", all, []func(int) int64{konst(15)}},
		// k = 3, 2, 1, 0, then 4294967295, which ends the loop.
		{"for (unsigned int k = 3; k < 10; k -= 1) A[k] = 1;", all,
			[]func(int) int64{konst(3), konst(2), konst(1), konst(0)}},
		// A bool is 0 or 1; an unsigned char wraps at 256; a char at 128.
		{"bool b = threadIdx.x;\nA[b] = 1;", all, []func(int) int64{func(l int) int64 { return min(int64(l), 1) }}},
		{"unsigned char c = threadIdx.x + 250;\nif (threadIdx.x >= 6) A[c] = 1;", 0xffffffc0,
			[]func(int) int64{func(l int) int64 { return int64(l) - 6 }}},
		{"A[(unsigned char)(threadIdx.x + 250)] = 1;", all,
			[]func(int) int64{func(l int) int64 { return int64(l+250) % 256 }}},
		{"char c = 200;\nA[c + 128] = 1;", all, []func(int) int64{konst(200 - 256 + 128)}},
		{"unsigned short h = 70000;\nA[h / 4] = 1;", all, []func(int) int64{konst((70000 - 65536) / 4)}},
		// 1 << 31 is INT_MIN (C++14 5.8/2: the unsigned result's bits).
		{"int big = 1 << 31;\nif (big < 0) A[threadIdx.x] = 1;", all, []func(int) int64{lane}},
		// -1 == 4294967295u holds; 0xffffffff is unsigned, + 1 wraps to 0.
		{"if (-1 == 4294967295u) A[threadIdx.x] = 1;", all, []func(int) int64{lane}},
		{"if (0xffffffff + 1 == 0) A[threadIdx.x] = 1;", all, []func(int) int64{lane}},
		// (t - 32) / 2u: (2^32 - 32 + t) / 2 = 2^31 - 16 + t/2, and 2^31
		// is a multiple of 2048.
		{"A[(threadIdx.x - 32) / 2u % 2048] = 1;", all,
			[]func(int) int64{func(l int) int64 { return 2048 - 16 + int64(l)/2 }}},
		// min(int, unsigned) compares unsigned: lane 0's -1 is the largest.
		{"int i = threadIdx.x;\nA[min(i - 1, 100u)] = 1;", all,
			[]func(int) int64{func(l int) int64 { return map[bool]int64{true: 100, false: int64(l) - 1}[l == 0] }}},
		// An int plus an unsigned int is unsigned, then an int again.
		{"int i = threadIdx.x;\ni += blockDim.x;\nA[i] = 1;", all, []func(int) int64{func(l int) int64 { return int64(l) + 32 }}},
		// unsigned long past 2^63: its comparisons, /, % and >>
		// unsigned. 2^64 - 1 = 3·2^62 + (2^62 - 1); 2^64 ≡ 2 (mod 7).
		{"unsigned long big = 0;\nbig = big - 1;\nif (big > 5) A[big >> 62] = 1;", all, []func(int) int64{konst(3)}},
		{"size_t big = 0;\nbig -= 1;\nA[big / 4611686018427387904ul] = 1;\nA[big % 7] = 1;", all,
			[]func(int) int64{konst(3), konst(1)}},
		{"unsigned long long big = 0;\nbig -= 1;\nA[min(big, 9ull)] = 1;", all, []func(int) int64{konst(9)}},
		// A long shifts by up to 63.
		{"long one = 1;\nA[(one << 40) >> 40] = 1;", all, []func(int) int64{konst(1)}},
	} {
		l := threadKernel(t, "[2048]", tc.body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		insts := memInsts(l, 0, 0)
		if err := l.Err(); err != nil {
			t.Errorf("%s: %v", tc.body, err)
			continue
		}
		if len(insts) != len(tc.elems) {
			t.Errorf("%s: %d stores; want %d", tc.body, len(insts), len(tc.elems))
			continue
		}
		base := l.Arrays[0].Base // A, the first array
		for i, in := range insts {
			if in.Active != tc.mask {
				t.Errorf("%s: store %d in lanes %#x; want %#x", tc.body, i, in.Active, tc.mask)
			}
			for lane := range WarpSize {
				if want := base + uint64(tc.elems[i](lane))*4; tc.mask>>lane&1 == 1 && in.Addr[lane] != want {
					t.Errorf("%s: store %d, lane %d at %#x; want %#x", tc.body, i, lane, in.Addr[lane], want)
					break
				}
			}
		}
	}
}

// TestCTypesShiftWidth: C bounds a shift's count by the width of its
// left operand's promoted type: 32 for an int, 64 for a long.
func TestCTypesShiftWidth(t *testing.T) {
	for _, tc := range []struct{ body, bad string }{
		{"int s = 32;\nA[1 << s] = 1;", "shift by 32"},
		{"int s = 32;\nunsigned int u = 1;\nu <<= s;\nA[u] = 1;", "shift by 32"},
		{"int s = 64;\nA[1l << s] = 1;", "shift by 64"},
	} {
		l := threadKernel(t, "[2048]", tc.body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		memInsts(l, 0, 0)
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), tc.bad) {
			t.Errorf("%s: Err() = %v; want %s", tc.body, err, tc.bad)
		}
	}
}

// TestCTypesNoConversions: the shipped per-thread kernels keep their
// integers within their types, and the ranges the compiler finds show
// it, the reductions' unsigned strides (s *= 2, s >>= 1) among them:
// their programs hold no conversion, so C's types cost them nothing.
func TestCTypesNoConversions(t *testing.T) {
	checked := 0
	for _, name := range kernel.Examples() {
		k, err := kernel.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if k.Program == nil || k.Program.Form != kernel.PerThread {
			continue
		}
		ls, err := BindSequence(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := 0
		for _, l := range ls {
			if l.pt != nil {
				got += conversions(l.pt)
			}
		}
		if got != 0 {
			t.Errorf("%s: %d conversions; want none", name, got)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("%d per-thread examples checked; want the 20 or more shipped", checked)
	}
}

// conversions counts the steps of C's types in a compiled kernel's
// programs: conversions, sign flips and unsigned operators.
func conversions(pt *threadProg) int {
	n := 0
	count := func(x *xprog) {
		if x != nil {
			n += x.typed
		}
	}
	for _, c := range pt.code {
		count(c.x)
		if c.trip != nil {
			count(c.trip.bound)
			count(c.trip.step)
		}
	}
	for _, r := range pt.refs {
		for _, s := range r.subs {
			count(s)
		}
	}
	return n
}

// TestConversionsCounted checks conversions, which TestCTypesNoConversions
// trusts: it counts each step C's types add.
func TestConversionsCounted(t *testing.T) {
	for body, want := range map[string]int{
		"A[threadIdx.x] = 1;":                                     0,
		"A[threadIdx.x - 5] = 1;":                                 1, // wraps
		"int z = -1;\nif (z < blockDim.x) A[0] = 1;":              1, // z unsigned
		"bool b = threadIdx.x;\nA[b] = 1;":                        1,
		"unsigned long u = 0;\nu -= 1;\nif (u > 5) A[u % 7] = 1;": 3, // two flips, a remainder
	} {
		l := threadKernel(t, "[2048]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
		if got := conversions(l.pt); got != want {
			t.Errorf("%s: %d conversions; want %d", body, got, want)
		}
	}
}

// TestLocalRanges: a local assigned once has its value's range; a
// loop's counter the values its test lets it reach; one assigned by
// another compound assignment, or a value that may leave its type, has
// its type's.
func TestLocalRanges(t *testing.T) {
	l := threadKernel(t, "[2048]", strings.Join([]string{
		"unsigned int tid = threadIdx.x;",                                 // [0, 31]
		"int row = blockIdx.y * 16 + threadIdx.x;",                        // grid [2, 2]: [0, 16 + 31]
		"int k = 0;\nk += 1;",                                             // compound, not a counter: int's
		"unsigned char c = tid + 250;",                                    // wraps: unsigned char's
		"int m = tid < 4 ? -3 : 7;\nm = 2;",                               // [-3, 7]
		"for (unsigned int s = 1; s < blockDim.x; s *= 2) A[s] = 1;",      // 1 up to 31·2
		"for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) A[h] = 1;", // 16 down to 0
		"for (int j = 0; j < N; j++) A[j] = 1;",                           // 0 up to 64
		"for (int d = 10; d >= 3; d -= 2) A[d] = 1;",                      // 10, 8, …, 2: within [1, 10]
		"for (int q = 10; q > blockDim.x - 30; q -= 4) A[q] = 1;",         // unsigned test, a step may pass 0: int's
		"A[tid + row + k + c + m] = 1;",
	}, "\n"), arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	p := l.Kernel.Program
	xc := &xcompiler{env: map[string]int64{"N": 64, "P": 32}, dims: l.dimConsts(l.grid), vary: make([]bool, len(p.Locals)), prog: p}
	xc.localRanges()
	want := []string{"unsigned int [0, 31]", "int [0, 47]", "int [-2147483648, 2147483647]", "unsigned char [0, 255]", "int [-3, 7]",
		"unsigned int [1, 62]", "unsigned int [0, 16]", "int [0, 64]", "int [1, 10]", "int [-2147483648, 2147483647]"}
	for i, w := range want {
		v := xc.locals[i]
		if got := fmt.Sprintf("%s [%d, %d]", v.t, v.r.lo, v.r.hi); got != w {
			t.Errorf("local %s: %s; want %s", p.Locals[i].Name, got, w)
		}
	}
}

// TestCTypesDefines: a #define is of its value's C type where the
// kernel uses it, as the same text written inline is.
func TestCTypesDefines(t *testing.T) {
	for _, tc := range []struct {
		define, body string
		elem         uint64
	}{
		{"#define MM (0u - 1)", "A[MM >> 28] = 1;", 15},
		{"#define H 0xFFFFFFFF", "A[(H + 1) == 0 ? 1 : 2] = 1;", 1},
		{"#define BIG (1 << 31)", "A[BIG < 0 ? 1 : 2] = 1;", 1},
		{"#define OCT 010", "A[OCT] = 1;", 8},
	} {
		src := "name: k\nparams: {N: 64}\narrays:\n  A: {type: f32, dims: [N]}\nsource: |\n  " + tc.define +
			"\n  __global__ void k(float *A)\n  {\n    " + tc.body + "\n  }\nblock: [32]\ngrid: [1]\n"
		k, err := kernel.Parse("inline.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.define, err)
		}
		l, err := BindGrid(k, nil, arch.Dim3{}, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		insts := memInsts(l, 0, 0)
		if err := l.Err(); err != nil || len(insts) != 1 {
			t.Errorf("%s; %s: %d stores, %v; want one", tc.define, tc.body, len(insts), err)
			continue
		}
		if want := l.Arrays[0].Base + tc.elem*4; insts[0].Addr[0] != want {
			t.Errorf("%s; %s: at %#x; want A[%d] at %#x", tc.define, tc.body, insts[0].Addr[0], tc.elem, want)
		}
	}
}
