package indexdata

import (
	"fmt"
	"slices"
)

// Rays is the voxels a cone beam's rays cross in an n×n×n volume, as a
// CSR structure: row r = v·width + u is the ray through detector cell
// (u, v) of a width×height detector, and its columns are the linear
// indices z·n² + y·n + x of the voxels the ray crosses, in the order it
// crosses them (so not sorted, unlike a matrix's columns).
//
// Geometry, in voxel units (the volume is [0, n]³, z the beam's axis):
// the source sits at (n/2, n/2, −n), a distance n above the top face;
// ray (u, v) enters the top face z = 0 at
//
//	x0 = n/2 + (2u + 1 − width)·n/(8·width)
//	y0 = n/2 + (2v + 1 − height)·n/(8·height)
//
// (the detector cells' centres, spread over the middle quarter of the
// face's width) and leaves the bottom face z = n at twice that distance
// from the axis, x1 = 2·x0 − n/2 (magnification 2 from the source's
// distance). Every coordinate is a multiple of 1/G, G = 8·width·height,
// so the traversal is exact integer arithmetic: Amanatides and Woo's
// 3-D DDA, stepping one axis per voxel (x before y before z where a ray
// crosses an edge or a corner, which visits a voxel the ray only
// touches), so consecutive voxels share a face and each coordinate
// moves one way. A ray visits 1 + |Δx| + |Δy| + (n − 1) voxels, Δ its
// change of voxel index along an axis: the row pointers are a closed
// form per row (O(rows) memory); a column index walks its ray from the
// start (O(row length) time, no memory).
func Rays(n, width, height int64) (*CSR, error) {
	switch {
	case n < 1 || n > 1<<16:
		return nil, fmt.Errorf("rays: volume edge %d voxels; want 1 to 65536", n)
	case width < 1 || height < 1 || width > MaxStoredRows/height:
		return nil, fmt.Errorf("rays: detector %d×%d; want 1 to %d rays in all (their row pointers are kept)", width, height, int64(MaxStoredRows))
	case n > (1<<28)/(width*height):
		return nil, fmt.Errorf("rays: n·width·height = %d·%d·%d; want at most 2^28, so that the exact traversal's products stay within 64 bits", n, width, height)
	}
	g := rayGeometry{n: n, w: width, h: height, g: 8 * width * height}
	rows := width * height
	ptr := make([]int64, rows+1)
	for r := range rows {
		ptr[r+1] = ptr[r] + g.ray(r).length()
	}
	return &CSR{Rows: rows, Cols: n * n * n, NNZ: ptr[rows], RowPtr: NewValues(ptr), Col: rayCol{g: g, ptr: ptr}}, nil
}

// rayGeometry is the volume (n voxels a side), the detector (w×h) and
// the sub-voxel unit 1/g.
type rayGeometry struct{ n, w, h, g int64 }

// ray is ray r's segment, from p0 (z = 0) to p1 (z = n), in units of
// 1/g voxel.
func (geo rayGeometry) ray(r int64) raySegment {
	u, v := r%geo.w, r/geo.w
	c := geo.n * geo.g / 2 // the axis, x = y = n/2
	x0 := c + (2*u+1-geo.w)*geo.n*geo.h
	y0 := c + (2*v+1-geo.h)*geo.n*geo.w
	return raySegment{g: geo.g, n: geo.n, p0: [3]int64{x0, y0, 0}, p1: [3]int64{2*x0 - c, 2*y0 - c, geo.n * geo.g}}
}

type raySegment struct {
	g, n   int64
	p0, p1 [3]int64
}

// first and last are the voxel index along axis a just after the ray
// starts and just before it ends.
func (s raySegment) first(a int) int64 {
	if s.p1[a] < s.p0[a] {
		return ceilDiv(s.p0[a], s.g) - 1
	}
	return s.p0[a] / s.g
}

func (s raySegment) last(a int) int64 {
	switch {
	case s.p1[a] > s.p0[a]:
		return ceilDiv(s.p1[a], s.g) - 1
	case s.p1[a] < s.p0[a]:
		return s.p1[a] / s.g
	}
	return s.first(a)
}

// length is the number of voxels the ray visits: one, and one more per
// boundary it crosses.
func (s raySegment) length() int64 {
	k := int64(1)
	for a := range 3 {
		k += max(s.last(a)-s.first(a), s.first(a)-s.last(a))
	}
	return k
}

// voxel is the linear index of the k-th voxel the ray visits (0 ≤ k <
// length): the DDA run k steps from the start.
func (s raySegment) voxel(k int64) int64 {
	var idx, step, next, dist [3]int64 // next: the boundary ahead; dist: |p1 − p0|
	for a := range 3 {
		idx[a] = s.first(a)
		d := s.p1[a] - s.p0[a]
		dist[a] = max(d, -d)
		switch {
		case d > 0:
			step[a], next[a] = 1, (idx[a]+1)*s.g
		case d < 0:
			step[a], next[a] = -1, idx[a]*s.g
		}
	}
	for ; k > 0; k-- {
		// The axis whose boundary comes first: t_a = |next_a − p0_a| /
		// dist_a, compared by cross-multiplication; ties go to the
		// lowest axis.
		best := -1
		for a := range 3 {
			if step[a] == 0 {
				continue
			}
			if best < 0 || absDiff(next[a], s.p0[a])*dist[best] < absDiff(next[best], s.p0[best])*dist[a] {
				best = a
			}
		}
		idx[best] += step[best]
		next[best] += step[best] * s.g
	}
	return (idx[2]*s.n+idx[1])*s.n + idx[0]
}

func absDiff(a, b int64) int64 { return max(a-b, b-a) }

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// rayCol is the voxel indices of the rays, row by row.
type rayCol struct {
	g   rayGeometry
	ptr []int64
}

func (c rayCol) Len() int64            { return c.ptr[len(c.ptr)-1] }
func (c rayCol) Range() (int64, int64) { return 0, c.g.n*c.g.n*c.g.n - 1 }

func (c rayCol) At(j int64) int64 {
	r, found := slices.BinarySearch(c.ptr, j)
	if !found {
		r-- // ptr[r] < j < ptr[r+1]
	}
	// Rays are never empty, so ptr[r] = j names j's own row.
	return c.g.ray(int64(r)).voxel(j - c.ptr[r])
}
