package traces

import (
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// walkIterations calls visit for every execution of every statement of
// l, with the loop values in effect: the loops' own semantics, run one
// iteration at a time, independent of range.go's elimination.
func walkIterations(l *Launch, visit func(s *kernel.Stmt, vals []int64)) {
	vals := make([]int64, len(l.Loops))
	var walk func(nodes []kernel.Node)
	walk = func(nodes []kernel.Node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				visit(n, vals)
			case *kernel.Loop:
				bl := &l.Loops[n.Index]
				if bl.Mapped {
					for g := range bl.Extent {
						vals[n.Index] = bl.Lower.Const + g*bl.Step
						walk(n.Body)
					}
					continue
				}
				for v := bl.Lower.Eval(vals); v < bl.Upper.Eval(vals); v += bl.Step {
					vals[n.Index] = v
					walk(n.Body)
				}
			}
		}
	}
	walk(l.Kernel.Program.Body)
}

// TestSubscriptRanges compares the range of every subscript of every
// stream case, as Bind's check computes it, with the least and greatest
// value the subscript takes over all iterations: equal for rectangular
// nests, containing them otherwise.
func TestSubscriptRanges(t *testing.T) {
	for _, tc := range streamCases() {
		l := bindCase(t, tc)
		rect := true
		for _, bl := range l.Loops {
			rect = rect && bl.Lower.isConst() && bl.Upper.isConst()
		}
		forms := make([][]Linear, len(l.Refs))
		for r := range l.Refs {
			var err error
			if forms[r], err = l.IndexForms(r); err != nil {
				t.Fatal(err)
			}
		}
		type span struct {
			lo, hi int64
			seen   bool
		}
		seen := make([][]span, len(l.Refs))
		for r := range seen {
			seen[r] = make([]span, len(forms[r]))
		}
		walkIterations(l, func(s *kernel.Stmt, vals []int64) {
			refs := s.Loads
			if s.Store != nil {
				refs = append(refs[:len(refs):len(refs)], s.Store)
			}
			for _, mr := range refs {
				for d, f := range forms[mr.ID] {
					v, sp := f.Eval(vals), &seen[mr.ID][d]
					if !sp.seen {
						*sp = span{v, v, true}
					}
					sp.lo, sp.hi = min(sp.lo, v), max(sp.hi, v)
				}
			}
		})
		for r := range l.Refs {
			for d, f := range forms[r] {
				sp := seen[r][d]
				if !sp.seen {
					continue // in a loop that never runs
				}
				lo, ok := l.extreme(f, false)
				hi, ok2 := l.extreme(f, true)
				switch {
				case !ok || !ok2:
					t.Errorf("%s: %s subscript %d: no range", tc.name, l.Refs[r].Text, d)
				case rect && (lo != sp.lo || hi != sp.hi):
					t.Errorf("%s: %s subscript %d: range [%d, %d]; the iterations take [%d, %d]", tc.name, l.Refs[r].Text, d, lo, hi, sp.lo, sp.hi)
				case lo > sp.lo || hi < sp.hi:
					t.Errorf("%s: %s subscript %d: range [%d, %d] misses values the iterations take, [%d, %d]", tc.name, l.Refs[r].Text, d, lo, hi, sp.lo, sp.hi)
				}
			}
		}
	}
}

// TestSubscriptBounds checks subscripts at the edges of their
// dimensions, the ranges worked out by hand.
func TestSubscriptBounds(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // "" when in range
	}{
		{"last element", "for (i = 0; i < N; i++)\n  A[N - 1 - i] = A[i];", ""},
		{"one past", "for (i = 0; i < N; i++)\n  A[i + 1] = 1;", "A[i+1]: subscript i + 1 ranges over [1, 64], outside dimension 1 of A, [0, N = 64)"},
		{"one before", "for (i = 0; i < N; i++)\n  A[i - 1] = 1;", "A[i-1]: subscript i - 1 ranges over [-1, 62]"},
		// i = 3, 8, ..., 63 < N + 4: the last value is 63, not N + 3.
		{"step", "for (i = 3; i < N + 4; i += 5)\n  A[i] = 1;", ""},
		{"step past", "for (i = 3; i < N + 5; i += 5)\n  A[i] = 1;", "subscript i ranges over [3, 68]"},
		// j runs from i to N - 1; j - i from 0 (j = i) to 63 (i = 0).
		{"triangular", "for (i = 0; i < N; i++)\n  for (j = i; j < N; j++)\n    A[j - i] += A[j];", ""},
		{"triangular past", "for (i = 0; i < N; i++)\n  for (j = i; j <= N; j++)\n    A[j - i] = 1;", "subscript j - i ranges over [0, 64]"},
		// The j loop runs only for i < 32, so A[i + 32] stays inside A;
		// but the range lets i reach 63: for bounds that depend on outer
		// loops the range is sound, not exact, and may refuse a kernel
		// that is in fact in range.
		{"sound, not exact", "for (i = 0; i < N; i++)\n  for (j = 2 * i; j < N; j++)\n    A[i + 32] = 1;", "subscript i + 32 ranges over [32, 95]"},
		// The loop over k never runs, so its reference touches nothing.
		{"empty loop", "for (i = 0; i < N; i++)\n  for (k = N; k < 3; k++)\n    A[k + N] = 1;", ""},
	} {
		k := mustParse(t, "N: 64", "A=N", tc.src, "mapping: {i: tx}\n")
		_, err := Bind(k, nil, arch.Dim3{}, nil, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Bind: %v; want it in range", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Bind error = %v; want %q", tc.name, err, tc.want)
		}
	}
}

// TestLoopRanges: loop bounds beyond ±2^60 are refused (a cursor adds
// the step to the variable and compares), also when only an outer loop's
// values take the bound there; 2^60 itself is allowed.
func TestLoopRanges(t *testing.T) {
	src := "for (i = 0; i < N; i++)\n  for (j = 0; j < M * i; j++)\n    A[i] = 1;"
	k := mustParse(t, "N: 4, M: 1", "A=N", src, "mapping: {i: tx}\n")
	for _, tc := range []struct {
		m    int64
		want string
	}{
		{1 << 58, ""}, // M·i at most 3·2^58 < 2^60
		{1 << 59, "loop j: its bounds range from 0 to 1729382256910270464, beyond ±2^60"},
		{math.MaxInt64 / 2, "do not fit in 64 bits"},
	} {
		_, err := Bind(k, nil, arch.Dim3{}, map[string]int64{"M": tc.m}, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("M=%d: Bind: %v; want it bound", tc.m, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("M=%d: Bind error = %v; want %q", tc.m, err, tc.want)
		}
	}
}
