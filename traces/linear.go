package traces

// This file plans the varying subscripts and assigned values that are
// linear in lanes read in place: a sum of thread indices and varying
// locals, each plus or minus uniform values and times a constant or a
// uniform value, plus uniform values ((y + j) * width + x, y * N + x,
// index + cols * ty). The cursor forms them in one pass over the warp,
// where the lane stack took a pass per operator.

import (
	"slices"

	"gpumemsim/internal/truth"
	"gpumemsim/kernel"
)

// linTerm is one lane read of a linear subscript: its lanes (a thread
// index or varying local, read in place), the constants (off) and
// uniform values (unis) added to them, and the coefficient the sum is
// multiplied by, k times coef's value (coef a constant 1 where the
// coefficient is k alone).
type linTerm struct {
	reads uint8
	reg   int32
	off   int64
	unis  []uniTerm
	k     int64
	coef  xop
}

// linForm is a linear expression of lanes read in place: the sum of its
// terms and of its uniform part, off plus unis.
type linForm struct {
	terms []linTerm
	off   int64
	unis  []uniTerm
}

// one is the coefficient of a term multiplied by a constant alone.
var one = xop{kind: kernel.ExprConst, val: 1}

// linearOf is x as a linear form, where its code is lane reads in place
// and uniform reads joined by +, −, negation and products with at most
// one uniform read for each lane read's coefficient; false otherwise.
// The lane
// stack computes +, − and × in wrapping 64-bit arithmetic, a ring, so
// the form's value is the program's however its terms are grouped; the
// code has no step of C's types, which would be an operator of its own.
func linearOf(x *xprog, vary []bool) (linForm, bool) {
	var st []linForm
	for _, o := range x.ops {
		r := readsOf(o, vary)
		switch {
		case o.kind == kernel.ExprConst:
			st = append(st, linForm{off: o.val})
		case uniformRead(o, vary):
			st = append(st, linForm{unis: []uniTerm{{read: o, sign: 1}}})
		case r != 0:
			st = append(st, linForm{terms: []linTerm{{reads: r, reg: o.arg, k: 1, coef: one}}})
		case o.kind == kernel.ExprNeg && len(st) > 0:
			st[len(st)-1].scale(-1)
		case len(st) < 2:
			return linForm{}, false
		default:
			a, b := &st[len(st)-2], st[len(st)-1]
			if !a.join(o.kind, b) {
				return linForm{}, false
			}
			st = st[:len(st)-1]
		}
	}
	if len(st) != 1 || len(st[0].terms) == 0 {
		return linForm{}, false
	}
	return st[0], true
}

// readsOf is how lanes of o are read in place, readsTid or readsVreg, or
// 0 where they are not.
func readsOf(o xop, vary []bool) uint8 {
	switch {
	case o.kind == kernel.ExprSpecial && o.arg < int32(kernel.BlockIdxX):
		return readsTid
	case o.kind == kernel.ExprScalar && int(o.arg) < len(vary) && vary[o.arg]:
		return readsVreg
	}
	return 0
}

// join sets f to f op b, for op +, − or ×; false where the result is not
// a linear form.
func (f *linForm) join(op kernel.ExprKind, b linForm) bool {
	switch op {
	case kernel.ExprSub:
		b.scale(-1)
		fallthrough
	case kernel.ExprAdd:
		f.terms = append(f.terms, b.terms...)
		f.off += b.off
		f.unis = append(f.unis, b.unis...)
		return true
	case kernel.ExprMul:
		switch {
		case b.constant():
			f.scale(b.off)
		case f.constant():
			b.scale(f.off)
			*f = b
		case len(b.terms) == 0:
			return f.times(b)
		case len(f.terms) == 0:
			a := *f
			*f = b
			return f.times(a)
		default:
			return false
		}
		return true
	}
	return false
}

// constant says f is a constant alone.
func (f *linForm) constant() bool { return len(f.terms) == 0 && len(f.unis) == 0 }

// scale multiplies f by the constant c.
func (f *linForm) scale(c int64) {
	f.terms = append([]linTerm(nil), f.terms...) // copies: a form's slices stay its own
	for i := range f.terms {
		f.terms[i].k *= c
	}
	f.off *= c
	f.unis = append([]uniTerm(nil), f.unis...)
	for i := range f.unis {
		f.unis[i].sign *= c
	}
}

// times multiplies f, one lane read whose coefficient is a constant, by
// u, one uniform read: the read becomes the coefficient, and f's
// uniform part moves into the term where the constant is ±1 (lane·±1 + w
// = (lane ± w)·±1). False where f or u is not of that shape.
func (f *linForm) times(u linForm) bool {
	if len(f.terms) != 1 || u.off != 0 || len(u.unis) != 1 {
		return false
	}
	t := f.terms[0]
	if t.coef != one || (t.k != 1 && t.k != -1 && (f.off != 0 || len(f.unis) > 0)) {
		return false
	}
	t.off += t.k * f.off
	t.unis = append(append([]uniTerm(nil), t.unis...), f.unis...)
	for i := len(t.unis) - len(f.unis); i < len(t.unis); i++ {
		t.unis[i].sign *= t.k
	}
	t.k *= u.unis[0].sign
	t.coef = u.unis[0].read
	*f = linForm{terms: []linTerm{t}}
	return true
}

// linear sets out to s's value in every lane: its terms' lanes times
// their coefficients, plus what the rest of s adds to every lane (its
// uniform part, and each term's addend, its constants, uniform values
// and, for a varying local, what it owes, times its coefficient). out
// may be one of the lanes the terms read: each lane reads its own
// before it is written.
func (c *ThreadCursor) linear(out *[WarpSize]int64, s *ptSub) {
	d := s.addend(&c.ln)
	p, m, e := c.termLanes(&s.lin[0])
	d += e
	if len(s.lin) == 1 {
		mulLanes(out, p, m, d)
		return
	}
	q, n, e := c.termLanes(&s.lin[1])
	mulAddLanes(out, p, m, q, n, d+e)
	for i := 2; i < len(s.lin); i++ {
		q, n, e := c.termLanes(&s.lin[i])
		addMulLanes(out, q, n, e)
	}
}

// selfFirst orders the terms of s, the value assigned to varying local
// r, so that those reading r come first, and says whether linear may
// then write r's lanes in place: its first pass reads two terms' lanes
// before it writes, a later pass reads them after.
func selfFirst(s *ptSub, r int32) bool {
	self := func(t linTerm) bool { return t.reads == readsVreg && t.reg == r }
	if s.reads != readsLinear {
		return true // one read, in the one pass
	}
	slices.SortStableFunc(s.lin, func(a, b linTerm) int { return int(truth.Int(self(b)) - truth.Int(self(a))) })
	return len(s.lin) <= 2 || !self(s.lin[2])
}

// lanesOf sets out to the value in every lane of s, a subscript or
// value read in place (s.reads is not 0).
func (c *ThreadCursor) lanesOf(out *[WarpSize]int64, s *ptSub) {
	if s.reads == readsLinear {
		c.linear(out, s)
		return
	}
	v, d := c.laneValues(s)
	mulLanes(out, v, 1, d)
}

// termLanes is term t as the warp's lanes hold it now: the lanes it reads
// in place, its coefficient, and its addend times the coefficient.
func (c *ThreadCursor) termLanes(t *linTerm) (p *[WarpSize]int64, m, e int64) {
	m = t.k * c.ln.read(t.coef)
	p, owed := c.ln.inPlace(t.reads, t.reg)
	return p, m, (t.off + uniformSum(t.unis, &c.ln) + owed) * m
}

// mulLanes sets each lane of out to a·m + d, four lanes a step.
func mulLanes(out, a *[WarpSize]int64, m, d int64) {
	for i := 0; i < WarpSize; i += 4 {
		o, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
		o[0], o[1], o[2], o[3] = x[0]*m+d, x[1]*m+d, x[2]*m+d, x[3]*m+d
	}
}

// mulAddLanes sets each lane of out to a·m + b·n + d, four lanes a step.
func mulAddLanes(out, a *[WarpSize]int64, m int64, b *[WarpSize]int64, n, d int64) {
	for i := 0; i < WarpSize; i += 4 {
		o, x, y := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4]), (*[4]int64)(b[i:i+4])
		o[0], o[1] = x[0]*m+y[0]*n+d, x[1]*m+y[1]*n+d
		o[2], o[3] = x[2]*m+y[2]*n+d, x[3]*m+y[3]*n+d
	}
}

// addMulLanes adds a·m + d to each lane of out, four lanes a step.
func addMulLanes(out, a *[WarpSize]int64, m, d int64) {
	for i := 0; i < WarpSize; i += 4 {
		o, x := (*[4]int64)(out[i:i+4]), (*[4]int64)(a[i:i+4])
		o[0], o[1], o[2], o[3] = o[0]+x[0]*m+d, o[1]+x[1]*m+d, o[2]+x[2]*m+d, o[3]+x[3]*m+d
	}
}
