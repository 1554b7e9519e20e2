package kernel

import "fmt"

// Index data: a per-thread kernel may read an integer array where it
// needs an integer (a subscript, V[COL[j]]; a condition or a loop bound,
// j < ROW[i+1]; an int local's value, int c = COL[j]), and the simulator
// takes the element's value from the array's contents (Array.Data, bound
// by package traces). Each such read is a memory reference of its own,
// issued before the one that needs its value.

// intData finds the first node of e, left to right, that an integer value
// of the thread cannot be made of, and says why: a float value, a read of
// a float array, of a __shared__ array (whose values the kernel writes,
// which the simulator does not follow), or through tex2D; or a read that
// C performs for some threads only (after && or ||, in a branch of ?:),
// which the simulator would perform for all.
func (ps *parser) intData(e *Expr) (*Expr, string) {
	switch {
	case ps.isFloat(e):
		return e, fmt.Sprintf("depends on float data (%s)", ps.describeData(e))
	case e.Kind == ExprLoad:
		a := ps.arrays[e.Name]
		switch {
		case a.Type == F32 || a.Type == F64:
			return e, fmt.Sprintf("depends on float data (array %s)", e.Name)
		case a.Space == SpaceShared:
			return e, fmt.Sprintf("reads __shared__ %s, whose values the kernel writes: the simulator follows index data only from arrays with contents (data:)", e.Name)
		case e.Fetch == FetchTex2D:
			return e, fmt.Sprintf("reads %s through tex2D: index data is read as A[i], __ldg or tex1Dfetch", e.Name)
		}
	}
	for i, a := range e.Args {
		at, why := ps.intData(a)
		if at != nil {
			return at, why
		}
		if i > 0 && (e.Kind == ExprAnd || e.Kind == ExprOr || e.Kind == ExprCond) {
			if ld := firstLoad(a); ld != nil {
				return ld, fmt.Sprintf("reads %s where C reads it for some threads only (%s): the simulator would read it for every thread", ld.Name, condPart(e.Kind))
			}
		}
	}
	return nil, ""
}

func condPart(k ExprKind) string {
	switch k {
	case ExprAnd:
		return "after &&"
	case ExprOr:
		return "after ||"
	}
	return "in a branch of ?:"
}

// firstLoad is the first array read of e, or nil.
func firstLoad(e *Expr) *Expr { return firstKind(e, ExprLoad) }

// firstKind is the first node of e, parents first and left to right, of
// kind k, or nil.
func firstKind(e *Expr, k ExprKind) *Expr {
	if e.Kind == k {
		return e
	}
	for _, a := range e.Args {
		if x := firstKind(a, k); x != nil {
			return x
		}
	}
	return nil
}

// The hint of the errors intData finds.
const indexDataHint = "integer values are made of " + intHint + ", and reads of integer arrays whose contents data: gives; split a condition whose right side reads an array into nested ifs"

// indexLoads records, as reads of statement s, the array reads inside
// e's subscripts, innermost first (COL[j] before V[COL[j]]), and counts
// nothing else: operators in subscripts are free.
func (ps *parser) indexLoads(e *Expr, s *Stmt) {
	for _, ix := range e.Args {
		ps.loadsIn(ix, s)
	}
}

// loadsIn records the reads of e, left to right, each after those of its
// own subscripts.
func (ps *parser) loadsIn(e *Expr, s *Stmt) {
	for _, a := range e.Args {
		ps.loadsIn(a, s)
	}
	if e.Kind == ExprLoad {
		ps.addRef(e, false, s)
	}
}

// condOps counts the instructions of condition c (its operators and calls
// and its reads' address arithmetic) and returns its reads, which the
// condition's every test issues.
func (ps *parser) condOps(c *Expr) (int, []*MemRef) {
	var s Stmt
	n := ps.countOps(c, &s)
	return n + s.Compute, s.Loads
}
