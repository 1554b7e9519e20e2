package traces

import (
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

func TestTripCount(t *testing.T) {
	for _, tc := range []struct {
		v, bound, step int64
		cmp            kernel.ExprKind
		n              int64
		why            string
	}{
		{0, 5, 1, kernel.ExprLt, 5, ""},  // 0 1 2 3 4
		{0, 5, 2, kernel.ExprLt, 3, ""},  // 0 2 4
		{0, 4, 2, kernel.ExprLe, 3, ""},  // 0 2 4
		{5, 0, -2, kernel.ExprGt, 3, ""}, // 5 3 1
		{4, 0, -2, kernel.ExprGe, 3, ""}, // 4 2 0
		{0, 6, 2, kernel.ExprNe, 3, ""},  // 0 2 4
		{7, 5, 1, kernel.ExprLt, 0, ""},  // never holds
		{3, 3, 0, kernel.ExprLe, 0, "for ever"},
		{0, 5, -1, kernel.ExprLt, 0, "for ever"},
		{0, 7, 2, kernel.ExprNe, 0, "for ever"},
		{math.MinInt64, math.MaxInt64, 1, kernel.ExprLt, 0, "overflows"},
		{0, math.MaxInt64, 1, kernel.ExprLe, 0, "overflows"},
		{0, math.MaxInt64, 1 << 62, kernel.ExprLt, 0, "overflows"}, // 0, 2^62, then 2^63 wraps
	} {
		n, why := tripCount(tc.v, tc.bound, tc.step, tc.cmp)
		if n != tc.n || !strings.Contains(why, tc.why) || (why == "") != (tc.why == "") {
			t.Errorf("tripCount(%d, %d, step %d, %v) = %d, %q; want %d, %q", tc.v, tc.bound, tc.step, tc.cmp, n, why, tc.n, tc.why)
		}
	}
}

// TestTripErrors: a canonical loop whose bound the index data set is
// checked as the warp enters it: it never ends, it overflows, or it takes
// the warp past its cap; and the work count stops at once past its
// budget. COL holds 1000 in every element: 1000 iterations a lane, each
// issuing the read of COL[i] in the test and the store to V[0], so at
// least 2000 warp instructions (and more than 2000 compute counts); the
// warp has issued 3 when it enters the loop (the two declarations'
// computes and the first test's read), so 97 of a cap of 100 are left.
func TestTripErrors(t *testing.T) {
	const thousands = "1000 1000 1000 1000 1000 1000 1000 1000"
	for _, tc := range []struct{ typ, cols, body, want string }{
		{"i32", "3 3 3 3 3 3 3 3", "for (int j = 0; j != COL[i]; j += 2) V[0] = 0;", "k.yaml:8:5: the loop in thread (0,0,0) of block (0,0,0) runs for ever: the variable never equals its bound (from 0 by 2 against 3); hint:"},
		{"i64", "9223372036854775807 0 0 0 0 0 0 0", "for (long j = 0; j <= COL[i]; j++) V[0] = 0;", "k.yaml:8:5: the loop in thread (0,0,0) of block (0,0,0) runs a trip count that overflows 64 bits"},
		// Lanes 1 and 2 start and end as lane 0 does; lane 3 is the
		// first that never ends.
		{"i32", "4 4 4 3 3 3 3 3", "for (int j = 0; j != COL[i]; j += 2) V[0] = 0;", "k.yaml:8:5: the loop in thread (3,0,0) of block (0,0,0) runs for ever: the variable never equals its bound (from 0 by 2 against 3); hint:"},
		// Lane 1 starts as lane 0 does, against another bound.
		{"i32", "3 0 3 3 3 3 3 3", "for (int j = 1; j != COL[i]; j += 2) V[0] = 0;", "k.yaml:8:5: the loop in thread (1,0,0) of block (0,0,0) runs for ever: the variable never equals its bound (from 1 by 2 against 0); hint:"},
		// A uniform counter and bound, lanes 0 to 2 gone: the first
		// active lane is named.
		{"i32", "0 0 0 0 0 0 0 0", "if (i < 3) return;\n    for (int j = 0; j != 3; j += 2) V[0] = 0;", "k.yaml:9:5: the loop in thread (3,0,0) of block (0,0,0) runs for ever: the variable never equals its bound (from 0 by 2 against 3); hint:"},
		// A uniform loop past the warp's cap, checked once on entry,
		// after the two declarations (i, j) of the 100 allowed.
		{"i32", "0 0 0 0 0 0 0 0", "for (int j = 0; j < 1000; j++) V[0] = 0;", "k.yaml:8:5: the loop in warp 0 of block (0,0,0) runs 1000 iterations in a lane, at least 1000 warp instructions, more than the 98 this warp may still issue; hint:"},
		// One bound, lanes 4 to 7 starting at 1.
		{"i32", "0 0 0 0 0 0 0 0", "for (int j = i / 4; j != 2; j += 2) V[0] = 0;", "k.yaml:8:5: the loop in thread (4,0,0) of block (0,0,0) runs for ever: the variable never equals its bound (from 1 by 2 against 2); hint:"},
		// The most iterations are lane 0's, not the last lane's.
		{"i32", "1000 1 1 1 1 1 1 1", "for (int j = 0; j < COL[i]; j++) V[0] = 0;", "k.yaml:8:5: the loop in warp 0 of block (0,0,0) runs 1000 iterations in a lane, at least 2000 warp instructions, more than the 97 this warp may still issue; hint:"},
		{"i32", thousands, "for (int j = 0; j < COL[i]; j++) V[0] = 0;", "k.yaml:8:5: the loop in warp 0 of block (0,0,0) runs 1000 iterations in a lane, at least 2000 warp instructions, more than the 97 this warp may still issue; hint:"},
	} {
		l, err := indexKernel(t, tc.typ, "", tc.cols, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		l.LimitWork(100)
		if w := l.WarpInstructions(); w <= 100 && l.Err() == nil {
			t.Errorf("%s: WarpInstructions() = %v within a budget of 100", tc.body, w)
		}
		for range l.Stream() {
		}
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Err() = %v\nwant ...%s", tc.body, err, tc.want)
		}
	}
	// Without a limit the same loop runs: 1000 iterations of its test's
	// read and its store, plus the read of the last test, which fails.
	l, err := indexKernel(t, "i32", "", thousands, "for (int j = 0; j < COL[i]; j++) V[0] = 0;")
	if err != nil {
		t.Fatal(err)
	}
	mem := 0
	for w := range l.Stream() {
		if w.Op == OpLoad || w.Op == OpStore {
			mem++
		}
	}
	if err := l.Err(); err != nil || mem != 2001 {
		t.Errorf("the loop issues %d memory instructions (err %v); want 2001", mem, err)
	}
}

// TestLoopForever: a loop whose condition reads no array and nothing
// the loop assigns, and that no return leaves, never ends in a lane that
// enters it; the warp entering it is an error at once, naming the first
// such lane, where counting it ran to the work cap (2e9 instructions,
// half a minute). A loop that changes what its condition reads, or that
// no lane enters, runs.
func TestLoopForever(t *testing.T) {
	const msg = "runs for ever: its condition reads nothing the loop changes; hint:"
	for _, tc := range []struct{ body, want string }{
		{"while (1) V[i] = 0;", "k.yaml:8:5: the loop in thread (0,0,0) of block (0,0,0) " + msg},
		{"int n = 3; while (n > i) V[0] = 0;", "k.yaml:8:16: the loop in thread (0,0,0) of block (0,0,0) " + msg},
		{"while (i > 5) V[i] = 0;", "k.yaml:8:5: the loop in thread (6,0,0) of block (0,0,0) " + msg},
		{"int n = 0; while (n < 3) n = n + 1;", ""},
		{"while (i > 100) V[i] = 0;", ""},
	} {
		l, err := indexKernel(t, "i32", "", "0 0 0 0 0 0 0 0", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		l.LimitWork(2e9)
		l.WarpInstructions()
		for range l.Stream() {
		}
		err = l.Err()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Err() = %v\nwant ...%s", tc.body, err, tc.want)
		}
	}
}

// TestCountChecksAddresses: the work count checks the addresses of a
// warp's first ptChecked instructions, so a store outside its array (V
// has 8 elements; V[i + 8] misses in every lane) that comes before a long
// loop ends the count at once, with the error, where the loop alone
// (its step, 1 + (i & 0), is not a canonical one's: no closed form) would
// be counted to the budget. Past those instructions the count skips the
// addresses of references whose values the kernel does not read: 5,000
// stores inside V first (5,000 instructions and more), and the same
// store outside V is counted like one inside (5,001 stores, the same
// instructions), for the simulation to report.
func TestCountChecksAddresses(t *testing.T) {
	early, err := indexKernel(t, "i32", "", "0 0 0 0 0 0 0 0", "V[i + 8] = 0; for (int j = 0; j < 1000000000; j = j + 1 + (i & 0)) V[i] = 0;")
	if err != nil {
		t.Fatal(err)
	}
	early.LimitWork(1e9)
	if w := early.threadWork(); w.insts != 2 || w.mem != 0 || w.exact {
		t.Errorf("V[i + 8] first: %v warp instructions, %v memory ones counted (exact %v); want 2 and 0, inexact: the count ended at the store, after the two compute instructions trace shows before it", w.insts, w.mem, w.exact)
	}
	if err := early.Err(); err == nil || !strings.Contains(err.Error(), "V[i+8]: thread (0,0,0) of block (0,0,0) has index 8, outside [0, 8) of V") {
		t.Errorf("V[i + 8] first: Err() = %v; want the store outside V", err)
	}

	loop := "for (int j = 0; j < 5000; j++) V[i] = 0; "
	late, err := indexKernel(t, "i32", "", "0 0 0 0 0 0 0 0", loop+"V[i + 8] = 0;")
	if err != nil {
		t.Fatal(err)
	}
	inside, err := indexKernel(t, "i32", "", "0 0 0 0 0 0 0 0", loop+"V[i] = 0;")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := late.WarpInstructions(), inside.WarpInstructions(); got != want || want <= ptChecked {
		t.Errorf("V[i + 8] last: %v warp instructions counted; want %v, as for V[i], more than %d", got, want, ptChecked)
	}
	if w := late.threadWork(); w.mem != 5001 || !w.exact || late.Err() != nil {
		t.Errorf("V[i + 8] last: %v memory instructions counted (exact %v, error %v); want 5,001 stores, exact, no error", w.mem, w.exact, late.Err())
	}
	for range late.Stream() {
	}
	if err := late.Err(); err == nil || !strings.Contains(err.Error(), "V[i+8]") {
		t.Errorf("V[i + 8] last: the stream's error is %v; want the subscript outside V", err)
	}
}

// TestTripStepOnlyWhenIterating: C runs a for loop's increment only after
// an iteration, so a step that divides by zero fails only a loop that
// iterates, at the increment; the trip check evaluated the step when the
// warp entered the loop and failed every such loop, placed at the for.
// z is uniform, so the loop is canonical and checked on entry. The body
// is on line 8 of indexKernel's file, from column 5; in "int z =
// blockIdx.x - blockIdx.x; for (int j = 0; j < 1; j += 8 / z)" the
// increment's j is at column 61.
func TestTripStepOnlyWhenIterating(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"int z = blockIdx.x - blockIdx.x; for (int j = 0; j < z; j += 8 / z) V[i] = 0;", ""},
		{"int z = blockIdx.x - blockIdx.x; for (int j = 0; j < 1; j += 8 / z) V[i] = 0;", "k.yaml:8:61: division by zero"},
	} {
		l, err := indexKernel(t, "i32", "", "0 0 0 0 0 0 0 0", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		for range l.Stream() {
		}
		err = l.Err()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Err() = %v; want %q", tc.body, err, tc.want)
		}
	}
}

// TestWatchWork: counting a launch's work stops once its channel is
// closed, and the count then puts the launch past any cap; left open, the
// same count is exact, and tells how far it has got each time it passes a
// multiple of lookEvery (2^20): ten warps of the loop (600,000
// iterations, two warp instructions each) and 4 more, 12,000,004, pass
// eleven, each told past it by less than one step of the count (a compute
// instruction counts the statements it stands for: a few).
func TestWatchWork(t *testing.T) {
	body := "for (int k = 0; k < 600000; k++) A[0][threadIdx.x] = 1;"
	open := threadKernel(t, "[N, P]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	var told []int64
	open.WatchWork(make(chan struct{}), func(n int64) { told = append(told, n) })
	n := open.WarpInstructions()
	if n != 12000004 {
		t.Fatalf("counted with the channel open: %g warp instructions; want 12,000,004", n)
	}
	if len(told) != 11 {
		t.Errorf("counting told %v; want 11 counts", told)
	}
	for i, c := range told {
		if k := int64(i+1) << 20; c < k || c >= k+16 {
			t.Errorf("count %d told %d; want %d or a few more", i+1, c, k)
		}
	}
	closed := threadKernel(t, "[N, P]", body, arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	done := make(chan struct{})
	close(done)
	closed.WatchWork(done, nil)
	if got := closed.WarpInstructions(); got <= 1<<31 {
		t.Errorf("counted with the channel closed: %g warp instructions; want past the budget, 2^31", got)
	}
}
