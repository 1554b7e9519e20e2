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
// then laid out block-linear. A subscript that reads a thread index or
// local in place is read there, its addend added lane by lane with the
// clamp; the others are evaluated first, as an evaluation may settle what
// a local owes (lanes.vreg), which an in-place read adds after.
func (c *ThreadCursor) texels(addr *[WarpSize]uint64, pr *ptRef) {
	ys, xs := &c.idx, &c.sub
	var dy, dx int64
	inY, inX := c.texEvaluate(pr, 0, ys), c.texEvaluate(pr, 1, xs)
	if inY {
		ys, dy = c.inPlaceSub(&pr.plan[pr.texPlans[0]])
	}
	if inX {
		xs, dx = c.inPlaceSub(&pr.plan[pr.texPlans[1]])
	}
	h, w := pr.limits[0], pr.limits[1]
	rowGOBs, elem := uint64((pr.texWidth*pr.size+gobWidth-1)/gobWidth), uint64(pr.size)
	// The row's part of the offset is worked out again only where a
	// lane's row differs from the lane before's: a warp's lanes hold a
	// few rows of a block, in runs. Before the first active lane the row
	// is one other than its (&31: lane 0 when none is active).
	row, rowAt := ys[bits.TrailingZeros32(c.mask)&31]+1, uint64(0)
	for m := c.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		if ys[i] != row {
			row = ys[i]
			rowAt = pr.base + gobRow(uint64(min(max(row+dy, 0), h-1)), rowGOBs)
		}
		addr[i] = rowAt + gobColumn(uint64(min(max(xs[i]+dx, 0), w-1))*elem)
	}
}

// texEvaluate sets out to pr's subscript d in the active lanes, read in
// place where its plan says so (subPlan) or evaluated, and reports false;
// it leaves out alone and reports true where the plan reads a thread
// index or local in place with an addend (inPlaceSub).
func (c *ThreadCursor) texEvaluate(pr *ptRef, d int, out *[WarpSize]int64) bool {
	j := pr.texPlans[d]
	switch {
	case j < 0:
		c.value(pr.subs[d], out)
	case pr.plan[j].reads == readsTid || pr.plan[j].reads == readsVreg:
		return true
	default:
		c.lanesOf(out, &pr.plan[j])
	}
	return false
}

// blockLinear is BlockLinearOffset of texel (x, y) in rows of rowGOBs
// GOBs, texels of elem bytes: its divisions and remainders by powers of
// two as shifts and masks, which they are for texels, never negative.
func blockLinear(x, y, rowGOBs, elem uint64) uint64 {
	return gobRow(y, rowGOBs) + gobColumn(x*elem)
}

// gobRow is the part of blockLinear that row y sets: its row of GOBs
// and its place in a GOB.
func gobRow(y, rowGOBs uint64) uint64 {
	return (y>>3)*rowGOBs<<9 + (y&6)<<5 + (y&1)<<4
}

// gobColumn is the part of blockLinear that byte column xb sets: its GOB
// in the row and its place in the GOB.
func gobColumn(xb uint64) uint64 {
	return xb>>6<<9 + (xb&32)<<3 + (xb&16)<<1 + xb&15
}
