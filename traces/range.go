package traces

import (
	"fmt"
	"slices"

	"gpumemsim/kernel"
)

// The ranges of loop bounds and subscripts over a launch's iterations
// come from eliminating loop variables innermost first (Banerjee's
// bounds): for the least value of a form, a variable with a positive
// coefficient becomes its loop's lower bound and one with a negative
// coefficient its loop's last value, and the other way round for the
// greatest. A loop's bounds depend only on enclosing loops, which come
// earlier in Launch.Loops, so replacing variables from the last loop to
// the first ends with a constant. The result is exact when the loops
// involved have constant bounds and run (each variable then takes its
// values independently of the others); otherwise it is a range that holds
// every value the form takes, which may be wider.

// extreme is the least value of f over the launch's iterations, or the
// greatest when top; ok is false when a value on the way does not fit in
// 64 bits.
func (l *Launch) extreme(f Linear, top bool) (v int64, ok bool) {
	f = Linear{Const: f.Const, Coef: slices.Clone(f.Coef)}
	for v := len(f.Coef) - 1; v >= 0; v-- {
		c := f.Coef[v]
		if c == 0 {
			continue
		}
		f.Coef[v] = 0
		g, ok := l.Loops[v].Lower, true
		if (c > 0) == top {
			if g, ok = l.last(v); !ok {
				return 0, false
			}
		}
		if f, ok = combineForm(f, g, c); !ok {
			return 0, false
		}
	}
	return f.Const, true
}

// last is the last value of loop v as a form of the enclosing loops:
// exact for a mapped loop or one with constant bounds, and the upper
// bound less one otherwise (with a step over 1 the last value may be
// lower).
func (l *Launch) last(v int) (Linear, bool) {
	bl := &l.Loops[v]
	lo, up := bl.Lower.Const, bl.Upper.Const
	f := Linear{Coef: make([]int64, len(bl.Upper.Coef))}
	switch {
	case bl.Mapped:
		f.Const = lo + (bl.Extent-1)*bl.Step // within ±2^61: boundLoop checked
	case bl.Lower.isConst() && bl.Upper.isConst() && up > lo:
		span, ok := sub64(up, lo)
		if !ok {
			return f, false
		}
		f.Const = lo + (span-1)/bl.Step*bl.Step // less than up
	default:
		copy(f.Coef, bl.Upper.Coef)
		var ok bool
		if f.Const, ok = sub64(up, 1); !ok {
			return f, false
		}
	}
	return f, true
}

// combineForm is a + s·b with checked arithmetic.
func combineForm(a, b Linear, s int64) (Linear, bool) {
	var ok bool
	for i := -1; i < len(a.Coef); i++ {
		x, y := &a.Const, b.Const
		if i >= 0 {
			x, y = &a.Coef[i], b.Coef[i]
		}
		if y, ok = mul64(s, y); ok {
			*x, ok = add64(*x, y)
		}
		if !ok {
			return a, false
		}
	}
	return a, true
}

// checkLoopRange finds, for the loop l.Loops[lp.Index] just bound, the
// range of its bounds: it records whether the loop may run and its most
// iterations per entry (the work estimate's), and refuses bounds that do
// not stay within ±2^60 where the loop is reached.
func (l *Launch) checkLoopRange(lp *kernel.Loop) error {
	bl := &l.Loops[lp.Index]
	reached := lp.Parent == nil || l.runs[lp.Parent.Index]
	lo, ok := l.extreme(bl.Lower, false)
	up, ok2 := l.extreme(bl.Upper, true)
	if reached && (!ok || !ok2 || lo < -maxBound || up > maxBound) {
		span := "do not fit in 64 bits"
		if ok && ok2 {
			span = fmt.Sprintf("range from %d to %d", lo, up)
		}
		return at(kernel.Pos{Line: lp.Line, Col: lp.Col}, fmt.Errorf("loop %s: its bounds %s, beyond ±2^60; hint: loop bounds must stay within ±2^60; check the params", lp.Var, span))
	}
	runs := reached && lo < up
	trips := int64(0)
	if runs {
		trips = (up-lo-1)/bl.Step + 1
	}
	l.runs = append(l.runs, runs)
	l.trips = append(l.trips, trips)
	if runs && !bl.Mapped && (!bl.Lower.isConst() || !bl.Upper.isConst()) {
		l.varTrips = true
	}
	return nil
}

// checkSubscript checks that subscript d of reference r, the form f,
// stays inside dimension d of its array a wherever the reference runs.
func (l *Launch) checkSubscript(r *kernel.MemRef, d int, f Linear, a *BoundArray, inner int) error {
	if inner >= 0 && !l.runs[inner] {
		return nil // a reference in a loop that never runs touches nothing
	}
	pos := kernel.Pos{Line: r.Line, Col: r.Col}
	ix, dim := r.Index[d], r.Array.Dims[d]
	lo, ok := l.extreme(f, false)
	hi, ok2 := l.extreme(f, true)
	if !ok || !ok2 {
		return at(pos, fmt.Errorf("%s: subscript %s does not fit in 64 bits over the loops' ranges; hint: check the params", r.Text, ix))
	}
	if lo < 0 || hi >= a.Dims[d] {
		ext := fmt.Sprint(a.Dims[d])
		if dim.Kind != kernel.ExprConst {
			ext = fmt.Sprintf("%s = %d", dim, a.Dims[d])
		}
		return at(pos, fmt.Errorf("%s: subscript %s ranges over [%d, %d], outside dimension %d of %s, [0, %s); hint: keep every subscript inside its dimension: check the loop bounds, the subscript and the params",
			r.Text, ix, lo, hi, d+1, a.Name, ext))
	}
	return nil
}

// innermost maps each reference of the program to the index of the
// innermost loop around it, -1 for none.
func innermost(p *kernel.Program) map[*kernel.MemRef]int {
	in := map[*kernel.MemRef]int{}
	var walk func(nodes []kernel.Node, loop int)
	walk = func(nodes []kernel.Node, loop int) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				for _, r := range n.Loads {
					in[r] = loop
				}
				if n.Store != nil {
					in[n.Store] = loop
				}
			case *kernel.Loop:
				walk(n.Body, n.Index)
			}
		}
	}
	walk(p.Body, -1)
	return in
}
