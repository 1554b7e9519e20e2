package kernel

import (
	"fmt"
	"strings"
)

// Fetch is how a per-thread kernel's read names its element when it is
// not written A[i]: through a texture reference bound to the array, or
// through the read-only data cache.
type Fetch uint8

// Fetches. A texture fetch reads an array in texture memory; __ldg reads
// one in global memory.
const (
	// NoFetch is a plain read, A[i].
	NoFetch Fetch = iota
	// FetchTex1D is tex1Dfetch(A, i): element i of linear memory bound
	// to a 1-D texture reference.
	FetchTex1D
	// FetchTex2D is tex2D(A, x, y): element A[y][x] of a 2-D array bound
	// to a 2-D texture reference as a cudaArray, which is laid out
	// block-linear (traces.BlockLinearOffset), with integer coordinates
	// clamped to the edges (cudaAddressModeClamp).
	FetchTex2D
	// FetchLDG is __ldg(&A[i]) or __ldg(A + i): a global load through
	// the read-only data cache (ld.global.nc), on compute capability 3.5
	// and later.
	FetchLDG
)

func (f Fetch) String() string {
	switch f {
	case FetchTex1D:
		return "tex1Dfetch"
	case FetchTex2D:
		return "tex2D"
	case FetchLDG:
		return "__ldg"
	}
	return "plain"
}

// writeLoad writes an array read as its source writes it.
func (e *Expr) writeLoad(b *strings.Builder) {
	switch e.Fetch {
	case FetchTex1D:
		b.WriteString("tex1Dfetch(" + e.Name + ", ")
		e.Args[0].write(b, 0)
		b.WriteByte(')')
		return
	case FetchTex2D: // Args are [y, x]
		b.WriteString("tex2D(" + e.Name + ", ")
		e.Args[1].write(b, 0)
		b.WriteString(", ")
		e.Args[0].write(b, 0)
		b.WriteByte(')')
		return
	case FetchLDG:
		b.WriteString("__ldg(&")
		defer b.WriteByte(')')
	}
	b.WriteString(e.Name)
	for _, a := range e.Args {
		b.WriteByte('[')
		a.write(b, 0)
		b.WriteByte(']')
	}
	if e.Field != nil {
		b.WriteString("." + e.Field.Name)
	}
}

// fetchSpaces refuses, at the first such read, a texture fetch of an
// array that is not in texture memory and an __ldg of one that is not in
// global memory (the -spaces flag may change an array's space after the
// file is read).
func fetchSpaces(file string, p *Program) error {
	for _, r := range p.Refs {
		a := r.Array
		switch {
		case (r.Fetch == FetchTex1D || r.Fetch == FetchTex2D) && a.Space != SpaceTexture:
			hint := "keep " + a.Name + " in texture memory, or read it as " + a.Name + "[i]"
			if r.Fetch == FetchTex2D {
				hint = "keep " + a.Name + " in texture memory, or read it as " + a.Name + "[y][x]"
			}
			return posError(file, r.Line, r.Col, fmt.Sprintf("%s reads a texture, and array %s is in %s memory (%s)", r.Fetch, a.Name, a.Space, r.Text), hint)
		case r.Fetch == FetchLDG && a.Space != SpaceGlobal && a.Space != SpaceReadOnly:
			return posError(file, r.Line, r.Col, fmt.Sprintf("__ldg reads global memory through the read-only data cache, and array %s is in %s memory (%s)", a.Name, a.Space, r.Text),
				"keep "+a.Name+" in global memory, or read it as "+a.Name+"[i]")
		}
	}
	return nil
}

// CUDAArray says array name is read with tex2D: it is a cudaArray, laid
// out block-linear rather than row by row.
func (p *Program) CUDAArray(name string) bool {
	for _, r := range p.Refs {
		if r.Fetch == FetchTex2D && r.Array.Name == name {
			return true
		}
	}
	return false
}

// ReadOnlyArg says array name is a const __restrict__ pointer parameter
// of a per-thread kernel: data the kernel only reads and reaches through
// no other pointer, which nvcc loads through the read-only data cache on
// compute capability 3.5 and later (PG-5x: "When the compiler detects
// that the read-only condition is satisfied for some data, it will use
// __ldg() to read it").
func (p *Program) ReadOnlyArg(name string) bool {
	for _, a := range p.Args {
		if a.Name == name && a.Array != nil {
			return a.Const && a.Restrict
		}
	}
	return false
}
