package kernel

import "fmt"

// ldg parses __ldg(&A[i]) or __ldg(A + i): the read of element i of
// array A, a pointer parameter in global memory, through the read-only
// data cache (ld.global.nc; PG-3x, PG-5x). Whether the device has that
// cache is the launch's question (compute capability 3.5 and later).
func (ps *parser) ldg() *Expr {
	ft := ps.next()
	ps.expect("(", "write __ldg(&A[i]) or __ldg(A + i)")
	addr := ps.is("&")
	if addr {
		ps.next()
	}
	nt := ps.peek()
	a := ps.arrays[nt.text]
	if nt.kind != tIdent || a == nil {
		ps.fail(nt, fmt.Sprintf("__ldg reads an element of an array of the kernel file; found %s", describe(nt)),
			"write __ldg(&A[i]) or __ldg(A + i), with A a pointer parameter under arrays:")
	}
	if ps.cuda.args[a.Name] == nil {
		ps.fail(nt, fmt.Sprintf("__ldg reads global memory, and %s is declared __constant__", a.Name),
			fmt.Sprintf("read %s as %s[i]: the constant cache serves it", a.Name, a.Name))
	}
	if a.Space != SpaceGlobal && a.Space != SpaceReadOnly {
		ps.fail(nt, fmt.Sprintf("__ldg reads global memory through the read-only data cache, and array %s is in %s memory", a.Name, a.Space),
			fmt.Sprintf("read %s as %s[i], or keep it in global memory", a.Name, a.Name))
	}
	var e *Expr
	if addr {
		e = ps.arrayRef()
	} else {
		ps.next()
		ps.expect("+", "write __ldg(&A[i]) or __ldg(A + i)")
		ix := ps.expr()
		ps.checkSubscript(ix, a.Name)
		e = &Expr{Kind: ExprLoad, Name: a.Name, Args: []*Expr{ix}}
	}
	e.Fetch = FetchLDG
	end := ps.expect(")", "close __ldg( with ); it takes one address, &A[i] or A + i")
	return ps.fetched(e, ft, end)
}

// checkConstStore refuses a store through a const pointer parameter, at
// the store, as the compiler does.
func (ps *parser) checkConstStore(e *Expr) {
	if ps.cuda == nil {
		return
	}
	if a := ps.cuda.args[e.Name]; a != nil && a.Const {
		ps.failAt(e.Line, e.Col, fmt.Sprintf("store through const pointer %s (%s)", a.Name, ps.refTexts[e]),
			fmt.Sprintf("drop const from the parameter %s to write through it, or write to another array", a.Name))
	}
}
