package traces

import (
	"fmt"
	"math/bits"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
)

// The remap kernels of Dymaxion (CHE Ch. 5, Fig. 5.4): each thread
// relocates one element, reading the row-major source src[t] (coalesced)
// and writing dst[T(t)]; the gather's reads COL[t] and V[COL[t]] and
// writes V'[t]. They are generated as kernel files, the transform written
// as Che's formula, and bound like any other.

// RemapBlock is the block of a remap kernel.
const RemapBlock = 256

// RemapLaunches returns the remap launch of each remapped array of l, in
// declaration order (none when l remaps nothing). A remap writes the
// array where l placed it, from a row-major source placed after l's
// arrays; a gather reads l's index array, with l's contents.
func RemapLaunches(l *Launch, dev *arch.Device) ([]*Launch, error) {
	next := l.arraysEnd()
	var out []*Launch
	for _, a := range l.Kernel.Arrays {
		if a.Remap == nil {
			continue
		}
		src, gk, err := l.remapKernel(a, next)
		if err != nil {
			return nil, err
		}
		var preset map[string]indexdata.Contents
		if a.Remap.Kind == kernel.RemapGather {
			preset = map[string]indexdata.Contents{a.Remap.Index: l.contents[a.Remap.Index]}
		}
		rl, err := bindThreads(gk, nil, arch.Dim3{}, arch.Dim3{}, nil, dev, preset)
		if err != nil {
			return nil, fmt.Errorf("the remap kernel of %s: %w", a.Name, err)
		}
		rl.RemapOf = a.Name
		out = append(out, rl)
		next = alignUp(src.Base+uint64(src.Size), kernel.DefaultAlign)
	}
	return out, nil
}

// arraysEnd is the first aligned address after every array of l.
func (l *Launch) arraysEnd() uint64 {
	var end uint64
	for _, a := range l.Arrays {
		end = max(end, a.Base+uint64(a.Size))
	}
	return alignUp(end, kernel.DefaultAlign)
}

func alignUp(x uint64, al int64) uint64 {
	r, _ := bits.Add64(x, uint64(al-1), 0)
	return r / uint64(al) * uint64(al)
}

// remapKernel generates and parses the remap kernel of array a, its
// source placed at src; it returns the source as bound.
func (l *Launch) remapKernel(a *kernel.Array, src uint64) (BoundArray, *kernel.Kernel, error) {
	dst := l.arrayNamed(a.Name, kernel.SpaceGlobal)
	orig, err := boundArray(a, func(e *kernel.Expr) (int64, error) { return eval(e, l.ParamValues()) })
	if err != nil {
		return orig, nil, err
	}
	orig.Base = src
	var b strings.Builder
	fmt.Fprintf(&b, "name: remap-%s-%s\ndescription: generated, the Dymaxion remap of %s (%s)\n", a.Name, a.Remap.Kind, a.Name, l.Kernel.File)
	if a.Remap.Kind == kernel.RemapGather {
		gatherText(&b, &orig, dst, l.arrayNamed(a.Remap.Index, kernel.SpaceGlobal))
	} else {
		transformText(&b, a.Remap.Kind, &orig, dst)
	}
	fmt.Fprintf(&b, "block: [%d]\n", RemapBlock)
	gk, err := kernel.Parse("remap kernel of "+a.Name, []byte(b.String()))
	if err != nil {
		return orig, nil, fmt.Errorf("generating the remap kernel of %s: %w", a.Name, err)
	}
	return orig, gk, nil
}

// gatherText writes the params, arrays, source and grid of map_indirect:
// thread t reads ix[t] and src[ix[t]] and writes dst[t]. ix's contents
// are the kernel's (RemapLaunches presets them; the data: here only
// makes it an index array).
func gatherText(b *strings.Builder, src, dst, ix *BoundArray) {
	name, t := dst.Name, dst.Type.CName()
	fmt.Fprintf(b, "params: {n: %d, nv: %d}\narrays:\n", ix.Elements(), src.Elements())
	fmt.Fprintf(b, "  %s: {type: %s, dims: [n], base: %#x, data: {gen: uniform, hi: nv}}\n", ix.Name, ix.Type, ix.Base)
	fmt.Fprintf(b, "  %s_src: {type: %s, dims: [nv], base: %#x}\n  %s: {type: %s, dims: [n], base: %#x}\n", name, dst.Type, src.Base, name, dst.Type, dst.Base)
	fmt.Fprintf(b, "source: |\n  __global__ void map_indirect(%s *%s, const %s *%s_src, const %s *%s, int n)\n  {\n", t, name, t, name, ix.Type.CName(), ix.Name)
	fmt.Fprintf(b, "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n    if (t < n)\n      %s[t] = %s_src[%s[t]];\n  }\n", name, name, ix.Name)
	fmt.Fprintf(b, "grid: [\"(n + blockDim.x - 1) / blockDim.x\"]\n")
}

// transformText writes the params, arrays, source and grid of the remap
// kernel of a 2-D transform: thread t reads src[t] and writes dst[T(t)],
// T written as Che's formula.
func transformText(b *strings.Builder, kind kernel.RemapKind, src, dst *BoundArray) {
	name, t := dst.Name, dst.Type.CName()
	fn, image, tile := "map_row2col", "height * (t % width) + t / width", "" // transform_row2col
	switch kind {
	case kernel.RemapCol2Row:
		fn, image = "map_col2row", "width * (t % height) + t / height" // the inverse of transform_row2col
	case kernel.RemapDiagonal:
		fn, image = "map_diagnal", "width * ((t % width) + t / width) + t / width" // transform_diagonal, dim = width
	case kernel.RemapTile:
		fn, image = "map_tile", "(t / width / th * (width / tw) + t % width / tw) * th * tw + t / width % th * tw + t % width % tw"
		tile = fmt.Sprintf(", th: %d, tw: %d", dst.Tile[0], dst.Tile[1])
	}
	fmt.Fprintf(b, "params: {height: %d, width: %d%s}\narrays:\n", src.Dims[0], src.Dims[1], tile)
	fmt.Fprintf(b, "  %s_src: {type: %s, dims: [height * width], base: %#x}\n  %s: {type: %s, dims: [%d], base: %#x}\n", name, dst.Type, src.Base, name, dst.Type, dst.Size/dst.ElemSize(), dst.Base)
	fmt.Fprintf(b, "source: |\n  __global__ void %s(%s *%s, const %s *%s_src, int height, int width)\n  {\n", fn, t, name, t, name)
	fmt.Fprintf(b, "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n    if (t < height * width)\n      %s[%s] = %s_src[t];\n  }\n", name, image, name)
	fmt.Fprintf(b, "grid: [\"(height * width + blockDim.x - 1) / blockDim.x\"]\n")
}
