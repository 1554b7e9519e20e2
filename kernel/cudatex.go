package kernel

import (
	"fmt"
)

// texFetch parses tex1Dfetch(A, i), a 1-D fetch from the texture
// reference bound to array A of the kernel file: the read of element i
// of A through the texture cache. A is in texture memory (space: texture
// under arrays:, the binding cudaBindTexture makes on the host) and has
// one dimension.
func (ps *parser) texFetch() *Expr {
	ft := ps.next()
	ps.expect("(", "write tex1Dfetch(A, i)")
	a, _ := ps.textureArg(ft.text, 1)
	ps.expect(",", "write tex1Dfetch(A, i)")
	ix := ps.expr()
	ps.checkSubscript(ix, a.Name)
	end := ps.expect(")", "close tex1Dfetch( with )")
	return ps.fetched(&Expr{Kind: ExprLoad, Name: a.Name, Args: []*Expr{ix}, Fetch: FetchTex1D}, ft, end)
}

// tex2D parses tex2D(A, x, y), a fetch from the 2-D texture reference
// bound to array A of the kernel file as a cudaArray (cudaBindTextureToArray):
// the read of element A[y][x], column x of row y, through the texture
// cache. A is in texture memory and has two dimensions, [height, width].
// The coordinates are integers, unnormalised and point-sampled; the
// launch clamps them to the edges, as cudaAddressModeClamp does.
func (ps *parser) tex2D() *Expr {
	ft := ps.next()
	ps.expect("(", "write tex2D(A, x, y)")
	a, nt := ps.textureArg(ft.text, 2)
	if a.Layout == ColMajor {
		ps.fail(nt, fmt.Sprintf("tex2D reads a cudaArray, laid out block-linear, and array %s has layout: col-major", a.Name),
			fmt.Sprintf("drop layout: from %s: tex2D(%s, x, y) reads column x of row y whatever the layout", a.Name, a.Name))
	}
	ps.expect(",", "write tex2D(A, x, y)")
	x := ps.texCoord("x", a.Name)
	ps.expect(",", "write tex2D(A, x, y)")
	y := ps.texCoord("y", a.Name)
	end := ps.expect(")", "close tex2D( with )")
	return ps.fetched(&Expr{Kind: ExprLoad, Name: a.Name, Args: []*Expr{y, x}, Fetch: FetchTex2D}, ft, end)
}

// textureArg reads the array a texture fetch names, the next token (nt),
// and checks it: an array of the kernel file, of rank dims, in texture
// memory.
func (ps *parser) textureArg(fetch string, dims int) (a *Array, nt token) {
	nt = ps.next()
	a = ps.arrays[nt.text]
	form := map[int]string{1: fetch + "(A, i)", 2: fetch + "(A, x, y)"}[dims]
	if nt.kind != tIdent || a == nil {
		ps.fail(nt, fmt.Sprintf("%s reads an array of the kernel file; found %s", fetch, describe(nt)),
			"name the array the texture is bound to: "+form+", with A under arrays: and space: texture")
	}
	if len(a.Dims) != dims {
		hint := fmt.Sprintf("declare %s with one dimension (dims: [N]) and fetch at the linear index", a.Name)
		if dims == 2 {
			hint = fmt.Sprintf("declare %s with two dimensions (dims: [HEIGHT, WIDTH]), or fetch a 1-D array with tex1Dfetch(%s, i)", a.Name, a.Name)
		}
		ps.fail(nt, fmt.Sprintf("%s reads a %d-D array; %s has %d dimensions", fetch, dims, a.Name, len(a.Dims)), hint)
	}
	if a.Space != SpaceTexture {
		ps.fail(nt, fmt.Sprintf("%s reads a texture, and array %s is in %s memory", fetch, a.Name, a.Space),
			fmt.Sprintf("bind it to a texture: give %s space: texture under arrays:", a.Name))
	}
	return a, nt
}

// texCoord parses coordinate axis ("x" or "y") of a tex2D of array: an
// integer expression.
func (ps *parser) texCoord(axis, array string) *Expr {
	c := ps.expr()
	at, load := ps.dataIn(c)
	switch {
	case at == nil:
	case load:
		ps.failAt(at.Line, at.Col, fmt.Sprintf("indirect coordinates are not supported yet: coordinate %s of tex2D(%s, ...) reads %s", axis, array, at.Name), "compute coordinates from "+intHint)
	default:
		ps.failAt(at.Line, at.Col, fmt.Sprintf("coordinate %s of tex2D(%s, ...) depends on float data (%s); coordinates are integer texel indices here (unnormalised, point-sampled)", axis, array, ps.describeData(at)),
			"write the texel's integer column and row, and drop a + 0.5f that aims at texel centres")
	}
	return c
}

// fetched finishes read e, written from token ft to token end: its
// position, text and depth.
func (ps *parser) fetched(e *Expr, ft, end token) *Expr {
	e.Line, e.Col = ps.pos(ft.line, ft.col)
	ps.refTexts[e] = refText(ps.src[ft.off:end.end])
	ps.measure(e, ft)
	return e
}

// checkCUDAArrays refuses a read of a cudaArray (an array some tex2D
// reads) that is not a tex2D, at the read: a cudaArray is laid out
// block-linear, and only texture fetches read it. Stores are left to
// readOnlyStores.
func (ps *parser) checkCUDAArrays() {
	for _, r := range ps.prog.Refs {
		if r.Store || r.Fetch == FetchTex2D || !ps.prog.CUDAArray(r.Array.Name) {
			continue
		}
		first := ps.firstTex2D(r.Array.Name)
		ps.failAt(r.Line, r.Col, fmt.Sprintf("%s reads array %s as linear memory, and the tex2D at %d:%d makes it a cudaArray, laid out block-linear", r.Text, r.Array.Name, first.Line, first.Col),
			fmt.Sprintf("read %s with tex2D(%s, x, y) everywhere, or declare a second array for the linear reads", r.Array.Name, r.Array.Name))
	}
}

// firstTex2D is the first tex2D of array name.
func (ps *parser) firstTex2D(name string) *MemRef {
	for _, r := range ps.prog.Refs {
		if r.Fetch == FetchTex2D && r.Array.Name == name {
			return r
		}
	}
	return nil
}
