package traces

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gpumemsim/internal/truth"
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

// TestVectorMatchesLaneByLane: random programs over every kind of read
// (constants, thread and block indices, uniform and varying locals, a
// varying local that owes an addend, an index array's values) and every
// operator give, through vector, what a plain stack machine run on each
// lane alone gives, and report the first operation that goes wrong as it
// would: of the earliest step that goes wrong in an active lane, the
// first such lane. The reference reads no uniform value as such, so it
// checks the immediates, the in-place reads and the operators that a
// uniform condition or operand settle whole.
func TestVectorMatchesLaneByLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 4000 {
		ln := randomLanes(rng)
		var ops []xop
		randomProgram(rng, &ops, 4)
		p := &xprog{ops: slices.Clone(ops)} // finish folds its constants in place
		(&xcompiler{}).finish(p)
		mask := rng.Uint32()
		if round%3 == 0 {
			mask = fullMask
		}

		want, badOp, badLane := laneByLane(ln, ops, mask)
		ln.reserve(p.depth, 3, 1)
		var got [WarpSize]int64
		ln.vector(p, mask, &got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("round %d, %v, lane %d: %d; lane by lane %d", round, ops, i, got[i], want[i])
			}
		}
		switch {
		case badOp < 0 && ln.bad != "":
			t.Fatalf("round %d, %v: failed %q in lane %d; lane by lane nothing went wrong", round, ops, ln.bad, ln.badLane)
		case badOp >= 0 && (ln.bad == "" || ln.badLane != badLane):
			t.Fatalf("round %d, %v: failed %q in lane %d; lane by lane step %d went wrong in lane %d", round, ops, ln.bad, ln.badLane, badOp, badLane)
		}
	}
}

// randomLanes is a warp's lanes for random programs to read: thread
// indices x and y, a block index, a uniform local (slot 0) at an extreme
// of int64 or near 0, varying locals of small values (1) and of extremes
// still owing an addend (2), and an index array's values.
func randomLanes(rng *rand.Rand) *lanes {
	edges := []int64{math.MinInt64, -65, -2, -1, 0, 1, 2, 3, 31, 64, math.MaxInt64}
	ln := &lanes{vary: []bool{false, true, true}}
	ln.uregs = []int64{edges[rng.IntN(len(edges))], 0, 0}
	ln.bid = [3]int64{rng.Int64N(5), 2, 0}
	ln.owed = []int64{0, 0, rng.Int64N(3) - 1}
	ln.vregs = make([][WarpSize]int64, 3)
	ln.vals = make([][WarpSize]int64, 1)
	for i := range WarpSize {
		ln.tid[0][i], ln.tid[1][i] = int64(i%8), int64(i/8)
		ln.vregs[1][i] = rng.Int64N(9) - 4
		ln.vregs[2][i] = edges[rng.IntN(len(edges))]
		ln.vals[0][i] = rng.Int64N(70) - 3
	}
	return ln
}

// randomProgram appends the postfix code of a random expression of at
// most depth levels to ops.
func randomProgram(rng *rand.Rand, ops *[]xop, depth int) {
	if depth == 0 || rng.IntN(4) == 0 {
		reads := []xop{
			{kind: kernel.ExprConst, val: []int64{0, 1, 2, 5, -3, 64, math.MinInt64}[rng.IntN(7)]},
			{kind: kernel.ExprSpecial, arg: int32(kernel.ThreadIdxX)},
			{kind: kernel.ExprSpecial, arg: int32(kernel.ThreadIdxY)},
			{kind: kernel.ExprSpecial, arg: int32(kernel.BlockIdxX)},
			{kind: kernel.ExprScalar, arg: 0},
			{kind: kernel.ExprScalar, arg: 1},
			{kind: kernel.ExprScalar, arg: 2},
			{kind: kernel.ExprLoad, arg: 0},
		}
		*ops = append(*ops, reads[rng.IntN(len(reads))])
		return
	}
	switch r := rng.IntN(20); {
	case r < 3:
		randomProgram(rng, ops, depth-1)
		*ops = append(*ops, []xop{{kind: kernel.ExprNeg}, {kind: kernel.ExprNot}, {kind: kernel.ExprCall, arg: callAbs}}[r])
	case r < 5:
		for range 3 {
			randomProgram(rng, ops, depth-1)
		}
		*ops = append(*ops, xop{kind: kernel.ExprCond})
	default:
		binaries := []xop{
			{kind: kernel.ExprAdd}, {kind: kernel.ExprSub}, {kind: kernel.ExprMul},
			{kind: kernel.ExprDiv}, {kind: kernel.ExprMod}, {kind: kernel.ExprShl}, {kind: kernel.ExprShr},
			{kind: kernel.ExprLt}, {kind: kernel.ExprLe}, {kind: kernel.ExprGt}, {kind: kernel.ExprGe},
			{kind: kernel.ExprEq}, {kind: kernel.ExprNe}, {kind: kernel.ExprAnd}, {kind: kernel.ExprOr},
			{kind: kernel.ExprBitAnd}, {kind: kernel.ExprBitOr}, {kind: kernel.ExprBitXor},
			{kind: kernel.ExprCall, arg: callMin}, {kind: kernel.ExprCall, arg: callMax},
		}
		randomProgram(rng, ops, depth-1)
		randomProgram(rng, ops, depth-1)
		*ops = append(*ops, binaries[rng.IntN(len(binaries))])
	}
}

// laneByLane runs ops on each lane alone with a stack of numbers: the
// values, and the step and lane of the first operation that went wrong
// (of the earliest step that did in an active lane, the first lane), or
// -1.
func laneByLane(ln *lanes, ops []xop, mask uint32) (vals [WarpSize]int64, badOp, badLane int) {
	badOp, badLane = -1, -1
	for i := range WarpSize {
		var st []int64
		for j, o := range ops {
			n := len(st)
			switch o.kind {
			case kernel.ExprConst:
				st = append(st, o.val)
			case kernel.ExprSpecial:
				if o.arg <= int32(kernel.ThreadIdxZ) {
					st = append(st, ln.tid[o.arg][i])
				} else {
					st = append(st, ln.bid[o.arg-int32(kernel.BlockIdxX)])
				}
			case kernel.ExprScalar:
				if ln.vary[o.arg] {
					st = append(st, ln.vregs[o.arg][i]+ln.owed[o.arg])
				} else {
					st = append(st, ln.uregs[o.arg])
				}
			case kernel.ExprLoad:
				st = append(st, ln.vals[o.arg][i])
			case kernel.ExprNeg:
				st[n-1] = -st[n-1]
			case kernel.ExprNot:
				st[n-1] = truth.Int(st[n-1] == 0)
			case kernel.ExprCond:
				if st[n-3] == 0 {
					st[n-3] = st[n-1]
				} else {
					st[n-3] = st[n-2]
				}
				st = st[:n-2]
			default:
				if o.kind == kernel.ExprCall && o.arg == callAbs {
					st[n-1] = abs64(st[n-1])
					continue
				}
				v, why := binary(o, st[n-2], st[n-1])
				if why != "" && mask&(1<<i) != 0 && (badOp < 0 || j < badOp) {
					badOp, badLane = j, i
				}
				st[n-2] = v
				st = st[:n-1]
			}
		}
		vals[i] = st[0]
	}
	return vals, badOp, badLane
}

// TestComparedMatchesLaneByLane: a branch's condition that compares
// lanes read in place with a uniform value, either way round, is taken
// as a mask without the lane stack (laneCmp); each of the six
// comparisons of every lane read against every uniform read must give
// the lanes the plain stack machine finds true, on lanes with the
// extremes of int64 and with a varying local still owing an addend.
// Programs that are not such a comparison (two lane reads, two uniform
// reads, an operator that does not compare) must not be taken as one.
func TestComparedMatchesLaneByLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	laneReads := []xop{
		{kind: kernel.ExprSpecial, arg: int32(kernel.ThreadIdxX)},
		{kind: kernel.ExprSpecial, arg: int32(kernel.ThreadIdxY)},
		{kind: kernel.ExprScalar, arg: 1},
		{kind: kernel.ExprScalar, arg: 2},
		{kind: kernel.ExprLoad, arg: 0},
	}
	uniReads := []xop{
		{kind: kernel.ExprConst, val: 3},
		{kind: kernel.ExprConst, val: math.MinInt64},
		{kind: kernel.ExprSpecial, arg: int32(kernel.BlockIdxX)},
		{kind: kernel.ExprScalar, arg: 0},
	}
	kinds := []kernel.ExprKind{kernel.ExprLt, kernel.ExprLe, kernel.ExprGt, kernel.ExprGe, kernel.ExprEq, kernel.ExprNe}
	reads := append(slices.Clone(laneReads), uniReads...)
	taken := 0
	for round := range 3000 {
		ln := randomLanes(rng)
		a, b := reads[rng.IntN(len(reads))], reads[rng.IntN(len(reads))]
		k := kinds[rng.IntN(len(kinds))]
		if round%10 == 0 {
			k = kernel.ExprSub
		}
		ops := []xop{a, b, {kind: k}}
		p := &xprog{ops: ops}
		(&xcompiler{vary: ln.vary}).finish(p)
		isLane := func(o xop) bool { return slices.Contains(laneReads, o) }
		want := k != kernel.ExprSub && isLane(a) != isLane(b)
		if (p.cmp.kind != 0) != want {
			t.Fatalf("round %d, %v: taken as a comparison of lanes with a uniform value: %v; want %v", round, ops, p.cmp.kind != 0, want)
		}
		if !want {
			continue
		}
		taken++
		values, _, _ := laneByLane(ln, ops, fullMask)
		var wantMask uint32
		for i, v := range values {
			if v != 0 {
				wantMask |= 1 << i
			}
		}
		if got := ln.compared(&p.cmp); got != wantMask {
			t.Fatalf("round %d, %v: lanes %#08x; lane by lane %#08x", round, ops, got, wantMask)
		}
	}
	if taken < 1000 {
		t.Fatalf("only %d of 3000 programs compared lanes with a uniform value", taken)
	}
}
