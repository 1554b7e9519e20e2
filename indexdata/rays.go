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
// form per row (O(rows) memory); a column index is found by binary
// searches over the ray's crossings (O(log row length) time, no memory).
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
// length): where the DDA is after k steps, found without walking them.
// Along axis a the ray crosses boundaries at t = (off_a + j·g)/dist_a, j
// = 0, 1, ... (off_a the distance from p0 to the first boundary ahead,
// dist_a = |p1_a − p0_a|); the DDA steps through the crossings of the
// three axes in order of t, ties to the lowest axis. Those before t = 1
// are the ray's own (length − 1 of them), so its first k steps are the k
// first crossings, and the voxel after them has moved along each axis by
// the number of that axis's crossings among them: for two axes a binary
// search over the axis's crossings by their rank in the merged order, the
// third taking the rest of the k.
func (s raySegment) voxel(k int64) int64 {
	var ax [3]rayAxis
	most := 0 // the axis with the most crossings
	for a := range ax {
		ax[a] = s.axis(a)
		if ax[a].crossings > ax[most].crossings {
			most = a
		}
	}
	// Every one of the k steps crosses one axis, so the axis with the
	// most crossings takes what the other two leave.
	var moved [3]int64
	moved[most] = k
	for a := range ax {
		if a == most {
			continue
		}
		// The crossings of axis a among the first k: the i with rank < k,
		// a prefix of its crossings since rank grows with i.
		lo, hi := int64(0), min(ax[a].crossings, k)
		for lo < hi {
			if mid := lo + (hi-lo)/2; rank(&ax, a, mid) < k {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		moved[a] = lo
		moved[most] -= lo
	}
	var idx [3]int64
	for a := range ax {
		idx[a] = ax[a].first + ax[a].step*moved[a]
	}
	return (idx[2]*s.n+idx[1])*s.n + idx[0]
}

// rayAxis is a ray's motion along one axis: its first voxel index, its
// step (−1, 0 or 1), and its crossings of boundaries before the end, at t
// = (off + j·g)/dist for crossing j.
type rayAxis struct {
	first, step, crossings int64
	off, dist, g           int64
}

func (s raySegment) axis(a int) rayAxis {
	f := s.first(a)
	x := rayAxis{first: f, crossings: max(s.last(a)-f, f-s.last(a)), g: s.g}
	switch d := s.p1[a] - s.p0[a]; {
	case d > 0:
		x.step, x.off, x.dist = 1, (f+1)*s.g-s.p0[a], d
	case d < 0:
		x.step, x.off, x.dist = -1, s.p0[a]-f*s.g, -d
	}
	return x
}

// rank is the number of crossings that come before crossing i of axis a
// (i < its crossings) in the DDA's order: by t, ties to the lowest axis.
// Every product stays below 2^63: a crossing before the end has off + i·g
// < dist, and Rays bounds n·g.
func rank(ax *[3]rayAxis, a int, i int64) int64 {
	n := i
	r := &ax[a]
	for b := range ax {
		o := &ax[b]
		if b == a || o.step == 0 {
			continue
		}
		// Crossings j of b with (o.off + j·g)/o.dist before (r.off +
		// i·g)/r.dist: o.off·r.dist + j·g·r.dist < R, or ≤ R for a lower
		// axis, R = (r.off + i·g)·o.dist.
		R, L, S := (r.off+i*r.g)*o.dist, o.off*r.dist, o.g*r.dist
		switch {
		case b < a && R >= L:
			n += (R-L)/S + 1
		case b > a && R > L:
			n += ceilDiv(R-L, S)
		}
	}
	return n
}

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
