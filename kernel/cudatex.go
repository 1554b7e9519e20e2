package kernel

import (
	"fmt"
	"strings"
)

// texFetch parses tex1Dfetch(A, i), a 1-D fetch from the texture
// reference bound to array A of the kernel file: the read of element i
// of A through the texture cache. A is in texture memory (space: texture
// under arrays:, the binding cudaBindTexture makes on the host) and has
// one dimension.
func (ps *parser) texFetch() *Expr {
	ft := ps.next()
	ps.expect("(", "write tex1Dfetch(A, i)")
	nt := ps.peek()
	a := ps.arrays[nt.text]
	if nt.kind != tIdent || a == nil {
		ps.fail(nt, fmt.Sprintf("tex1Dfetch reads an array of the kernel file; found %s", describe(nt)),
			"name the array the texture is bound to: tex1Dfetch(A, i), with A under arrays: and space: texture")
	}
	if len(a.Dims) != 1 {
		ps.fail(nt, fmt.Sprintf("tex1Dfetch reads a 1-D array; %s has %d dimensions", a.Name, len(a.Dims)),
			fmt.Sprintf("declare %s with one dimension (dims: [N]) and fetch at the linear index", a.Name))
	}
	if a.Space != SpaceTexture {
		ps.fail(nt, fmt.Sprintf("tex1Dfetch reads a texture, and array %s is in %s memory", a.Name, a.Space),
			fmt.Sprintf("bind it to a texture: give %s space: texture under arrays:", a.Name))
	}
	ps.next()
	ps.expect(",", "write tex1Dfetch(A, i)")
	ix := ps.expr()
	ps.checkSubscript(ix, a.Name)
	end := ps.expect(")", "close tex1Dfetch( with )")
	e := &Expr{Kind: ExprLoad, Name: a.Name, Args: []*Expr{ix}, Fetch: true}
	e.Line, e.Col = ps.pos(ft.line, ft.col)
	ps.refTexts[e] = strings.Join(strings.Fields(ps.src[ft.off:end.end]), "")
	ps.measure(e, ft)
	return e
}

// texFetchSpaces refuses another space than texture for an array that
// a tex1Dfetch reads, at the first such fetch (the -spaces flag may
// change an array's space after the file is read).
func texFetchSpaces(file string, p *Program) error {
	for _, r := range p.Refs {
		if r.Fetch && r.Array.Space != SpaceTexture {
			return posError(file, r.Line, r.Col, fmt.Sprintf("tex1Dfetch reads a texture, and array %s is in %s memory (%s)", r.Array.Name, r.Array.Space, r.Text),
				"keep "+r.Array.Name+" in texture memory, or read it as "+r.Array.Name+"[i]")
		}
	}
	return nil
}
