package traces

import (
	"math"
	"math/rand/v2"
	"testing"

	"gpumemsim/kernel"
)

// TestBinaryLanesMatchBinary: every operator binaryLanes runs in a loop
// of its own gives, lane by lane, what binary gives, on values at the
// ends of int64, around 0 and drawn at random.
func TestBinaryLanesMatchBinary(t *testing.T) {
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -2, -1, 0, 1, 2, math.MaxInt64 - 1, math.MaxInt64}
	rng := rand.New(rand.NewPCG(5, 6))
	ops := []kernel.ExprKind{kernel.ExprAdd, kernel.ExprSub, kernel.ExprMul, kernel.ExprLt, kernel.ExprLe, kernel.ExprGt, kernel.ExprGe, kernel.ExprEq, kernel.ExprNe, kernel.ExprAnd, kernel.ExprOr}
	for _, op := range ops {
		for round := range 20 {
			var a, b [WarpSize]int64
			for i := range a {
				if round%2 == 0 {
					a[i], b[i] = edges[rng.IntN(len(edges))], edges[rng.IntN(len(edges))]
				} else {
					a[i], b[i] = rng.Int64N(7)-3, rng.Int64N(7)-3
				}
			}
			var ln lanes
			got := a
			ln.binaryLanes(xop{kind: op}, &got, &b, 1<<32-1)
			for i := range a {
				if want, _ := binary(xop{kind: op}, a[i], b[i]); got[i] != want {
					t.Fatalf("operator %d lane %d: %d, %d gives %d; binary gives %d", op, i, a[i], b[i], got[i], want)
				}
			}
		}
	}
}

// TestScalarOneOperand: a program that only reads a constant or a
// uniform local has the value the stack machine gives it plus 0.
func TestScalarOneOperand(t *testing.T) {
	ln := lanes{uregs: []int64{0, -7, math.MaxInt64}, sst: make([]int64, 2)}
	for _, o := range []xop{
		{kind: kernel.ExprConst, val: math.MinInt64},
		{kind: kernel.ExprConst, val: 42},
		{kind: kernel.ExprScalar, arg: 1},
		{kind: kernel.ExprScalar, arg: 2},
	} {
		plus0 := &xprog{ops: []xop{o, {kind: kernel.ExprConst}, {kind: kernel.ExprAdd}}}
		if got, want := ln.scalar(&xprog{ops: []xop{o}}), ln.scalar(plus0); got != want {
			t.Errorf("%+v: %d; through the stack %d", o, got, want)
		}
	}
}
