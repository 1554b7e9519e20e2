package traces

import "math/bits"

// A cudaArray, the memory a 2-D texture reference is bound to with
// cudaBindTextureToArray and that tex2D reads, is not stored row by row
// but in NVIDIA's block-linear layout, which keeps 2-D neighbourhoods in
// the same 32-byte sector. Its unit is the GOB ("group of bytes"): 64
// bytes of a row by 8 rows, 512 bytes; inside a GOB each 32-byte sector
// holds 16 bytes of 2 rows (4×2 floats), and the GOB's bytes go
//
//	(x%64/32)·256 + (y%8/2)·64 + (x%32/16)·32 + (y%2)·16 + x%16
//
// for byte column x and row y. That is the Tegra X1 Technical Reference
// Manual's formula (Maxwell GM20B), as yuzu's texture decoder quotes it
// (yuzu-emu/yuzu, src/video_core/textures/decoders.cpp, GetSwizzleOffset,
// "Taken from the Tegra X1 TRM") and the tegra_swizzle crate documents
// it ("Groups of 512 bytes form GOBs ... each GOB is 64x8 bytes").
// GPGPU-Sim (90ec3399, cuda-sim/instructions.cc tex_impl and cuda-sim.cc
// gpgpu_ptx_sim_bindTextureToArray) tiles a cudaArray the same way at
// the 32-byte line its configs give the texture cache: Tx×Ty texels with
// Tx·Ty·texel = the line, 4×2 floats for 32-byte lines, tiles row-major.
//
// Assumed here: blocks one GOB high (the driver picks 1 to 32 GOBs by
// the array's height; the height changes which GOBs neighbour in memory,
// not which texels share a sector), GOBs row-major across the array, and
// the same layout on every device (NV50-era GOBs were reportedly 64×4
// bytes; no source at hand gives GT200's). The array is padded to whole
// GOBs: its width in bytes to a multiple of 64, its height to one of 8.
const (
	gobWidth  = 64 // bytes of a row
	gobHeight = 8  // rows
	gobBytes  = gobWidth * gobHeight
)

// BlockLinearOffset is the byte offset of texel (x, y), column x of row
// y, in a cudaArray whose rows hold width texels of elem bytes each,
// laid out block-linear with blocks one GOB high.
func BlockLinearOffset(x, y, width, elem int64) int64 {
	xb := x * elem
	gobsPerRow := (width*elem + gobWidth - 1) / gobWidth
	gob := y/gobHeight*gobsPerRow + xb/gobWidth
	in := xb%64/32*256 + y%8/2*64 + xb%32/16*32 + y%2*16 + xb%16
	return gob*gobBytes + in
}

// BlockLinearSize is the bytes of a cudaArray of height rows of width
// texels of elem bytes, padded to whole GOBs; ok is false when that is
// 2^63 bytes or more.
func BlockLinearSize(width, height, elem int64) (size int64, ok bool) {
	rowBytes := (width*elem + gobWidth - 1) / gobWidth * gobWidth
	rows := (height + gobHeight - 1) / gobHeight * gobHeight
	hi, lo := bits.Mul64(uint64(rowBytes), uint64(rows))
	if hi != 0 || lo >= 1<<63 {
		return 0, false
	}
	return int64(lo), true
}

// texels sets the addresses of the active lanes' texels of pr, a tex2D:
// subscripts [y, x] clamped to the array's edges, as the default
// cudaAddressModeClamp does (so a filter's halo reads the edge texels),
// then laid out block-linear.
func (c *ThreadCursor) texels(addr *[WarpSize]uint64, pr *ptRef) {
	c.subscript(pr, 0, &c.idx) // y
	c.subscript(pr, 1, &c.sub) // x
	h, w := pr.limits[0], pr.limits[1]
	rowGOBs, elem := uint64((pr.texWidth*pr.size+gobWidth-1)/gobWidth), uint64(pr.size)
	for m := c.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		x, y := min(max(c.sub[i], 0), w-1), min(max(c.idx[i], 0), h-1)
		addr[i] = pr.base + blockLinear(uint64(x), uint64(y), rowGOBs, elem)
	}
}

// blockLinear is BlockLinearOffset of texel (x, y) in rows of rowGOBs
// GOBs, texels of elem bytes: its divisions and remainders by powers of
// two as shifts and masks, which they are for texels, never negative.
func blockLinear(x, y, rowGOBs, elem uint64) uint64 {
	xb := x * elem
	gob := (y>>3)*rowGOBs + xb>>6
	return gob<<9 + (xb&32)<<3 + (y&6)<<5 + (xb&16)<<1 + (y&1)<<4 + xb&15
}

// subscript sets out to pr's subscript d in the active lanes: read in
// place where its plan says so (subPlan), else evaluated.
func (c *ThreadCursor) subscript(pr *ptRef, d int, out *[WarpSize]int64) {
	for j := range pr.plan {
		if s := &pr.plan[j]; s.x == pr.subs[d] && s.reads != 0 {
			c.lanesOf(out, s)
			return
		}
	}
	c.value(pr.subs[d], out)
}
