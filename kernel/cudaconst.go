package kernel

import (
	"fmt"
	"strings"
)

// constantDecl parses __constant__ TYPE NAME[d]...[d]; outside the
// function: the kernel file's array NAME lives in constant memory.
func (ps *parser) constantDecl() {
	kw := ps.next()
	start := ps.peek()
	if start.kind != tIdent || !cTypeWords[start.text] {
		ps.fail(start, fmt.Sprintf("expected the __constant__ array's type, found %s", describe(start)), "write __constant__ float c[N];")
	}
	ct := ps.cType()
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected the __constant__ array's name, found %s", describe(nt)), "write __constant__ float c[N];")
	}
	a := ps.arrays[nt.text]
	switch {
	case a == nil:
		ps.fail(nt, fmt.Sprintf("__constant__ array %s is not an array of the kernel file", nt.text),
			fmt.Sprintf("declare it under arrays: with type: %s and its dims", ct.elemName()))
	case ps.constantOf(a.Name) != nil:
		ps.fail(nt, fmt.Sprintf("__constant__ array %s is declared twice", a.Name), "declare it once")
	case ct.elem != a.Type:
		ps.fail(start, fmt.Sprintf("__constant__ array %s is declared %s, but array %s has type %s", a.Name, ct.name, a.Name, a.Type),
			fmt.Sprintf("declare it __constant__ %s %s, or give the array type: %s", cTypeName(a.Type), a.Name, ct.elemName()))
	}
	ps.next()
	d := &ConstantDecl{Array: a}
	d.Line, d.Col = ps.pos(kw.line, kw.col)
	d.Dims = ps.extents(fmt.Sprintf("__constant__ %s %s", ct.name, a.Name), a.Name, launchConst, "the size of a __constant__ array must be an expression of constants, params and #defines",
		"constant memory is filled by the host before the launch: size it with a param or a #define")
	if len(d.Dims) != len(a.Dims) {
		ps.fail(nt, fmt.Sprintf("__constant__ array %s has %d extents; arrays: gives it %d", a.Name, len(d.Dims), len(a.Dims)),
			"declare it with the extents of its dims under arrays:")
	}
	if ps.is("=") {
		ps.fail(ps.peek(), "a __constant__ array cannot have an initialiser here", "the simulator reads addresses, not values: drop the initialiser")
	}
	ps.expect(";", "end the declaration with ;")
	a.Space = SpaceConstant
	ps.prog.Constants = append(ps.prog.Constants, d)
}

// constantOf is the __constant__ declaration of the array called name,
// or nil.
func (ps *parser) constantOf(name string) *ConstantDecl {
	for _, d := range ps.prog.Constants {
		if d.Array.Name == name {
			return d
		}
	}
	return nil
}

// extents parses the [d]...[d] of the declaration of array name (decl
// is the declaration up to the name, "__shared__ float s"): each extent
// an expression that check accepts, else the error msg and hint at the
// first node it refuses.
func (ps *parser) extents(decl, name string, check func(*Expr) *Expr, msg, hint string) []*Expr {
	kind, _, _ := strings.Cut(decl, " ")
	if !ps.is("[") {
		ps.fail(ps.peek(), kind+" scalars are not supported", fmt.Sprintf("declare a one-element array: %s[1];", decl))
	}
	var dims []*Expr
	for ps.is("[") {
		open := ps.next()
		if ps.is("]") {
			ps.fail(open, "a "+kind+" array needs its size", "size it with constants and params: "+name+"[BS]")
		}
		d := ps.expr()
		if bad := check(d); bad != nil {
			ps.failAt(bad.Line, bad.Col, msg, hint)
		}
		dims = append(dims, d)
		ps.expect("]", "close the size with ]")
	}
	return dims
}
