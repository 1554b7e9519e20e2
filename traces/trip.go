package traces

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gpumemsim/kernel"
)

// Trip counts. A loop whose trip count the index data set (for (j =
// ROW[i]; j < ROW[i+1]; j++)) may run for ever or for longer than any
// simulation should; counting its work would take as long. A canonical
// loop — its condition compares a local v with a bound, v changes only by
// a constant step in the increment, nothing in the loop changes what the
// bound reads, and no return leaves it early — runs exactly a computable
// number of iterations in each lane. The cursor computes them when the
// warp enters the loop, so a loop that never ends, whose trip count
// overflows 64 bits, or that would take the warp past its cap is an error
// at once, and the work count stops at once when the iterations alone
// pass its budget.

// tripLoop is what the cursor needs of a canonical loop: v cmp bound,
// stepping v by step, with at least emitted warp instructions (and
// weighted ones, compute counts summed) per iteration.
type tripLoop struct {
	v                 int32
	cmp               kernel.ExprKind
	bound, step       *xprog
	emitted, weighted int64
	pos               kernel.Pos
	// forever marks a loop whose condition (bound) reads nothing the loop
	// changes and that no return leaves (while (1), while (N > 0)): a
	// lane that enters it never leaves.
	forever bool
}

// mirrored is cmp with its operands swapped (b cmp a as a cmp' b).
var mirrored = map[kernel.ExprKind]kernel.ExprKind{kernel.ExprLt: kernel.ExprGt, kernel.ExprLe: kernel.ExprGe,
	kernel.ExprGt: kernel.ExprLt, kernel.ExprGe: kernel.ExprLe, kernel.ExprNe: kernel.ExprNe}

// tripOf recognises a canonical loop, or one that never ends once
// entered; nil otherwise.
func (pc *ptCompiler) tripOf(n *kernel.While) *tripLoop {
	if t := pc.foreverOf(n); t != nil {
		return t
	}
	c := n.Cond
	if _, ok := mirrored[c.Kind]; !ok || n.Unroll || len(n.Post) != 1 {
		return nil
	}
	v, bound, cmp := c.Args[0], c.Args[1], c.Kind
	if v.Kind != kernel.ExprScalar {
		v, bound, cmp = c.Args[1], c.Args[0], mirrored[c.Kind]
	}
	post, ok := n.Post[0].(*kernel.Stmt)
	if v.Kind != kernel.ExprScalar || !ok || post.Local == nil || post.Local.Index != v.Index || post.Assign != "+=" && post.Assign != "-=" {
		return nil
	}
	// Nothing in the loop may change what the bound or the step read, v
	// may change only in the increment, and no lane may leave early.
	changed, early := loopAssigns(n.Body)
	other := changed[v.Index]
	changed[v.Index] = true
	reads := func(e *kernel.Expr) bool { return mentionsLocal(e, func(u int) bool { return changed[u] }) }
	if other || early || reads(bound) || reads(post.Value) || firstLoad(post.Value) {
		return nil
	}
	t := &tripLoop{v: int32(v.Index), cmp: cmp, pos: kernel.Pos{Line: n.Line, Col: n.Col}}
	var err error
	if t.bound, err = pc.expr(bound); err != nil {
		return nil
	}
	if t.step, err = pc.expr(post.Value); err != nil || t.step.varying || !pc.untyped(c, t.bound, post, t.step) {
		return nil
	}
	if post.Assign == "-=" {
		t.step.ops = append(slices.Clip(t.step.ops), xop{kind: kernel.ExprNeg})
	}
	t.emitted, t.weighted = iterationWork(n)
	return t
}

// untyped says C's types change nothing in a canonical loop's test cond
// and its increment post, which tripCount computes in 64 bits: they
// compile to their bound's and step's programs (bound, step) and the
// operator alone, without a conversion (a signed int counter against a
// bound that is not unsigned, say).
func (pc *ptCompiler) untyped(cond *kernel.Expr, bound *xprog, post *kernel.Stmt, step *xprog) bool {
	k, _ := kernel.CompoundOp(post.Assign)
	c, err1 := pc.xc.compile(cond)
	whole, err2 := pc.xc.compileAs(compoundExpr(post, k), pc.xc.local(post.Local.Index).t)
	return err1 == nil && err2 == nil && inPlace(c, bound, cond.Kind) && inPlace(whole, step, k)
}

// foreverOf recognises a loop whose condition stays as it is: it reads
// no array and no local the loop assigns, and no return leaves the loop.
func (pc *ptCompiler) foreverOf(n *kernel.While) *tripLoop {
	if len(n.Loads) > 0 || firstLoad(n.Cond) {
		return nil
	}
	changed, early := loopAssigns(append(slices.Clip(n.Body), n.Post...))
	if early || mentionsLocal(n.Cond, func(u int) bool { return changed[u] }) {
		return nil
	}
	cond, err := pc.expr(n.Cond)
	if err != nil {
		return nil
	}
	return &tripLoop{bound: cond, forever: true, pos: kernel.Pos{Line: n.Line, Col: n.Col}}
}

// loopAssigns is what the nodes of a loop do that its trip analysis
// must know: the locals they assign, and whether a return leaves them.
func loopAssigns(nodes []kernel.Node) (assigned map[int]bool, returns bool) {
	assigned = map[int]bool{}
	walkNodes(nodes, func(m kernel.Node) {
		switch m := m.(type) {
		case *kernel.Stmt:
			if m.Local != nil {
				assigned[m.Local.Index] = true
			}
		case *kernel.Return:
			returns = true
		}
	})
	return assigned, returns
}

// firstLoad says e reads an array.
func firstLoad(e *kernel.Expr) bool {
	found := false
	walkExpr(e, func(x *kernel.Expr) { found = found || x.Kind == kernel.ExprLoad })
	return found
}

// iterationWork bounds from below the instructions of one iteration of
// n: the test and its reads, and the statements of the body and the
// increment that every iteration runs (not those under an if or in an
// inner loop). Each emits at least one instruction.
func iterationWork(n *kernel.While) (emitted, weighted int64) {
	weighted = int64(n.Compute) + int64(len(n.Loads))
	emitted = int64(len(n.Loads))
	for _, m := range append(slices.Clip(n.Body), n.Post...) {
		if s, ok := m.(*kernel.Stmt); ok {
			mem := int64(len(everyLaneReads(s)))
			if s.Store != nil {
				mem++
			}
			emitted += mem
			weighted += mem + int64(s.Compute)
		}
	}
	return max(emitted, 1), max(weighted, 1)
}

// trips checks a canonical loop as the warp enters it: every active
// lane's trip count, and the instructions they take against the warp's
// cap, or, while the work is counted, against its budget.
func (c *ThreadCursor) trips(t *tripLoop) {
	ln := &c.ln
	if t.forever {
		c.value(t.bound, &c.sub)
		for m := c.mask; m != 0; m &= m - 1 {
			if i := bits.TrailingZeros32(m); c.sub[i] != 0 {
				c.failHere(c.tripError(t, i, "for ever: its condition reads nothing the loop changes",
					"a loop must change what its condition reads, or return"))
				return
			}
		}
		return
	}
	// A uniform counter against a uniform bound runs as many iterations
	// in every lane: counted once, for the first active lane.
	uniform := !ln.vary[t.v] && !t.bound.varying
	var bound int64
	if uniform {
		bound = ln.scalar(t.bound)
	} else {
		c.value(t.bound, &c.sub)
	}
	bad := ln.bad
	step := ln.scalar(t.step)
	if ln.bad != bad {
		// C runs the increment only after an iteration: let its own
		// step report the failure where it is, if the loop ever gets there.
		ln.bad = bad
		return
	}
	var most int64
	var ok bool
	switch {
	case !uniform:
		most, ok = c.laneTrips(t, step)
	case c.mask != 0:
		most, ok = c.tripsOf(t, bits.TrailingZeros32(c.mask), ln.uregs[t.v], bound, step)
	}
	if !ok || most == 0 {
		return
	}
	if c.counting {
		if w, ok := mul64(most, t.weighted); !ok || w > c.cap-c.spent {
			c.overBudget()
		}
		return
	}
	if e, ok := mul64(most, t.emitted); !ok || e > c.cap-c.insts {
		c.failHere(c.tripError(t, -1, fmt.Sprintf("%d iterations in a lane, at least %d warp instructions, more than the %d this warp may still issue", most, saturate(most, t.emitted), c.cap-c.insts),
			"the trip count comes from the data its bounds read: check them, or raise -max-work"))
	}
}

// laneTrips is the most iterations of t in an active lane, its bound in
// c.sub; false where a lane has no trip count (the cursor failed). Lanes
// that start where the lane before them did, against the same bound, run
// as many: each distinct pair is counted once, in lane order.
func (c *ThreadCursor) laneTrips(t *tripLoop, step int64) (most int64, ok bool) {
	ln := &c.ln
	var lastV, lastB int64
	for m, fresh := c.mask, true; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		v := ln.uregs[t.v]
		if ln.vary[t.v] {
			v = ln.vregs[t.v][i] + ln.owed[t.v]
		}
		if !fresh && v == lastV && c.sub[i] == lastB {
			continue
		}
		fresh, lastV, lastB = false, v, c.sub[i]
		n, ok := c.tripsOf(t, i, v, c.sub[i], step)
		if !ok {
			return 0, false
		}
		most = max(most, n)
	}
	return most, true
}

// tripsOf is the trip count of t in lane i, from v by step against
// bound; false where there is none, the cursor failed with the reason.
func (c *ThreadCursor) tripsOf(t *tripLoop, i int, v, bound, step int64) (int64, bool) {
	n, why := tripCount(v, bound, step, t.cmp)
	if why != "" {
		c.failHere(c.tripError(t, i, fmt.Sprintf("%s (from %d by %d against %d)", why, v, step, bound),
			"a loop must reach its bound: check the data its bound reads, or the step"))
		return 0, false
	}
	return n, true
}

func saturate(a, b int64) int64 {
	if p, ok := mul64(a, b); ok {
		return p
	}
	return math.MaxInt64
}

// tripError describes the loop t entered by lane i (-1: the warp).
func (c *ThreadCursor) tripError(t *tripLoop, i int, what, hint string) error {
	who := fmt.Sprintf("warp %d of block (%d,%d,%d)", c.warp, c.ln.bid[0], c.ln.bid[1], c.ln.bid[2])
	if i >= 0 {
		who = fmt.Sprintf("thread (%d,%d,%d) of block (%d,%d,%d)", c.ln.tid[0][i], c.ln.tid[1][i], c.ln.tid[2][i], c.ln.bid[0], c.ln.bid[1], c.ln.bid[2])
	}
	return at(t.pos, fmt.Errorf("the loop in %s runs %s; hint: %s", who, what, hint))
}

// tripCount is how many times v cmp bound holds as v steps by step: the
// count, or why there is none (the loop never ends, or the count
// overflows).
func tripCount(v, bound, step int64, cmp kernel.ExprKind) (int64, string) {
	holds, _ := binary(xop{kind: cmp}, v, bound)
	if holds == 0 {
		return 0, ""
	}
	const overflow = "a trip count that overflows 64 bits"
	d, ok := sub64(bound, v)
	switch {
	case !ok || cmp == kernel.ExprLe && d == math.MaxInt64 || cmp == kernel.ExprGe && d == math.MinInt64:
		return 0, overflow
	case cmp == kernel.ExprNe:
		if step == 0 || d%step != 0 || d/step < 0 {
			return 0, "for ever: the variable never equals its bound"
		}
		return d / step, ""
	case cmp == kernel.ExprLe:
		d++
	case cmp == kernel.ExprGe:
		d--
	}
	// d is now the distance to cover, of the sign the step must have.
	if step == 0 || (d > 0) != (step > 0) {
		return 0, "for ever: the variable does not move towards its bound"
	}
	n := d / step
	if d%step != 0 {
		n++
	}
	// The variable's value after the last iteration must not wrap.
	if moved, ok := mul64(n, step); !ok {
		return 0, overflow
	} else if _, ok := add64(v, moved); !ok {
		return 0, overflow
	}
	return n, ""
}
