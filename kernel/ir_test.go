package kernel

import (
	"math"
	"testing"
)

// TestLogic: C's comparison, logical and bitwise operators on 64-bit
// integers, each worked by hand; any other operator is not Logic's.
func TestLogic(t *testing.T) {
	const lo, hi = math.MinInt64, math.MaxInt64
	for _, tc := range []struct {
		k    ExprKind
		a, b int64
		want int64
	}{
		{ExprLt, lo, hi, 1}, {ExprLt, 3, 3, 0}, {ExprLt, -1, -2, 0},
		{ExprLe, 3, 3, 1}, {ExprLe, 4, 3, 0},
		{ExprGt, -1, -2, 1}, {ExprGt, hi, hi, 0},
		{ExprGe, lo, lo, 1}, {ExprGe, -5, 5, 0},
		{ExprEq, -7, -7, 1}, {ExprEq, 0, lo, 0},
		{ExprNe, 0, lo, 1}, {ExprNe, 9, 9, 0},
		// && and || take any nonzero value as true and give 1.
		{ExprAnd, 2, -3, 1}, {ExprAnd, lo, 0, 0}, {ExprAnd, 0, 0, 0},
		{ExprOr, 0, -9, 1}, {ExprOr, 0, 0, 0},
		// 6 = 0b110, 3 = 0b011; -1 has every bit.
		{ExprBitAnd, 6, 3, 2}, {ExprBitOr, 6, 3, 7}, {ExprBitXor, 6, 3, 5},
		{ExprBitAnd, -1, lo, lo}, {ExprBitXor, -1, hi, lo},
	} {
		if got, ok := tc.k.Logic(tc.a, tc.b); !ok || got != tc.want {
			t.Errorf("%d %s %d = %d, %v; want %d", tc.a, binOps[tc.k], tc.b, got, ok, tc.want)
		}
	}
	for _, k := range []ExprKind{ExprAdd, ExprSub, ExprMul, ExprDiv, ExprMod, ExprShl, ExprShr, ExprNot, ExprNeg, ExprCond, ExprCall} {
		if v, ok := k.Logic(6, 3); ok {
			t.Errorf("operator %d: Logic gives %d; want no value", k, v)
		}
	}
}
