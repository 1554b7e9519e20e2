package indexdata

import (
	"math/big"
	"slices"
	"testing"
)

// rayVoxels lists ray r's voxels as (x, y, z).
func rayVoxels(c *CSR, n, r int64) [][3]int64 {
	var out [][3]int64
	for j := c.RowPtr.At(r); j < c.RowPtr.At(r+1); j++ {
		v := c.Col.At(j)
		out = append(out, [3]int64{v % n, v / n % n, v / (n * n)})
	}
	return out
}

// TestRaysAxisAligned: with an odd detector the middle cell's ray runs
// down the axis x = y = n/2 exactly, on the boundary between voxels
// n/2 − 1 and n/2: it visits the n voxels (n/2, n/2, z), z = 0..n−1, in
// order (a point on a boundary belongs to the voxel above it).
func TestRaysAxisAligned(t *testing.T) {
	const n = 8
	c, err := Rays(n, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	got := rayVoxels(c, n, 2*3+1) // u = 1, v = 2
	if len(got) != n {
		t.Fatalf("axis ray visits %d voxels; want %d", len(got), n)
	}
	for z, v := range got {
		if v != [3]int64{n / 2, n / 2, int64(z)} {
			t.Errorf("voxel %d: %v; want (4, 4, %d)", z, v, z)
		}
	}
}

// TestRaysTraversal checks every ray of small geometries against a
// float-free oracle: consecutive voxels share a face (6-connected), each
// coordinate moves one way, z runs 0..n−1, and, by exact rational
// arithmetic over every voxel of the volume, the list holds each voxel
// the segment passes through with positive length (its open box) and
// only voxels the segment touches (the closed box).
func TestRaysTraversal(t *testing.T) {
	for _, geo := range [][3]int64{{4, 3, 2}, {6, 4, 4}, {5, 2, 3}, {1, 1, 1}, {7, 5, 1}} {
		n, w, h := geo[0], geo[1], geo[2]
		c, err := Rays(n, w, h)
		if err != nil {
			t.Fatal(err)
		}
		if c.Rows != w*h || c.Cols != n*n*n || c.NNZ != c.RowPtr.At(c.Rows) || c.Col.Len() != c.NNZ {
			t.Fatalf("%v: rows %d cols %d nnz %d", geo, c.Rows, c.Cols, c.NNZ)
		}
		g := rayGeometry{n: n, w: w, h: h, g: 8 * w * h}
		for r := range w * h {
			vox := rayVoxels(c, n, r)
			checkPath(t, geo, r, n, vox)
			seg := g.ray(r)
			for x := range n {
				for y := range n {
					for z := range n {
						v := [3]int64{x, y, z}
						in := slices.Contains(vox, v)
						if open := crosses(seg, v, true); open && !in {
							t.Errorf("%v ray %d: misses voxel %v, which it passes through", geo, r, v)
						}
						if closed := crosses(seg, v, false); in && !closed {
							t.Errorf("%v ray %d: lists voxel %v, which it does not touch", geo, r, v)
						}
					}
				}
			}
		}
	}
}

func checkPath(t *testing.T, geo [3]int64, r, n int64, vox [][3]int64) {
	t.Helper()
	if len(vox) == 0 || vox[0][2] != 0 || vox[len(vox)-1][2] != n-1 {
		t.Fatalf("%v ray %d: %v does not run from z = 0 to z = %d", geo, r, vox, n-1)
	}
	var dir [3]int64
	for i := 1; i < len(vox); i++ {
		moved := 0
		for a := range 3 {
			d := vox[i][a] - vox[i-1][a]
			if d == 0 {
				continue
			}
			moved++
			if d*d != 1 || dir[a] == -d {
				t.Errorf("%v ray %d: step %v → %v is not one voxel in a steady direction", geo, r, vox[i-1], vox[i])
			}
			dir[a] = d
		}
		if moved != 1 {
			t.Errorf("%v ray %d: %v → %v does not cross exactly one face", geo, r, vox[i-1], vox[i])
		}
	}
}

// crosses says the segment p0 + t·(p1 − p0), t in [0, 1], meets voxel
// v's box: its open interior (open) or the closed box, exactly.
func crosses(s raySegment, v [3]int64, open bool) bool {
	lo, hi := big.NewRat(0, 1), big.NewRat(1, 1)
	for a := range 3 {
		b0, b1 := v[a]*s.g, (v[a]+1)*s.g
		d := s.p1[a] - s.p0[a]
		if d == 0 {
			inside := s.p0[a] > b0 && s.p0[a] < b1
			if !open {
				inside = s.p0[a] >= b0 && s.p0[a] <= b1
			}
			if !inside {
				return false
			}
			continue
		}
		t0, t1 := big.NewRat(b0-s.p0[a], d), big.NewRat(b1-s.p0[a], d)
		if t0.Cmp(t1) > 0 {
			t0, t1 = t1, t0
		}
		if t0.Cmp(lo) > 0 {
			lo = t0
		}
		if t1.Cmp(hi) < 0 {
			hi = t1
		}
	}
	if open {
		return lo.Cmp(hi) < 0
	}
	return lo.Cmp(hi) <= 0
}

// walk is the k-th voxel of the ray by running the DDA k steps from the
// start, one crossing at a time: the definition voxel's binary search
// must agree with.
func walk(s raySegment, k int64) int64 {
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
	absDiff := func(a, b int64) int64 { return max(a-b, b-a) }
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

// TestRaysVoxelWalk holds every voxel of every ray to the step-by-step
// walk, on detectors whose rays cross x and y boundaries at the same t as
// z ones (even sizes, where the geometry's fractions meet) and not.
func TestRaysVoxelWalk(t *testing.T) {
	for _, geo := range [][3]int64{{4, 3, 2}, {8, 8, 8}, {16, 4, 2}, {33, 5, 3}, {64, 16, 4}, {7, 1, 9}, {1, 3, 3}, {128, 2, 2}} {
		n, w, h := geo[0], geo[1], geo[2]
		g := rayGeometry{n: n, w: w, h: h, g: 8 * w * h}
		for r := range w * h {
			seg := g.ray(r)
			for k := range seg.length() {
				if got, want := seg.voxel(k), walk(seg, k); got != want {
					t.Fatalf("%v ray %d voxel %d: %d; the walk gives %d", geo, r, k, got, want)
				}
			}
		}
	}
}

// TestRaysVoxelLargest: at the largest volume and detector Rays accepts
// (n·width·height = 2^28, n = 2^16), where the rank's products come
// nearest 2^63, the search still agrees with the walk.
func TestRaysVoxelLargest(t *testing.T) {
	n, w, h := int64(1<<16), int64(64), int64(64)
	if _, err := Rays(n, w, h); err != nil {
		t.Fatal(err)
	}
	g := rayGeometry{n: n, w: w, h: h, g: 8 * w * h}
	for _, r := range []int64{0, 63, 2080, w*h - 1} {
		seg := g.ray(r)
		l := seg.length()
		for _, k := range []int64{0, 1, l / 3, l / 2, l - 2, l - 1} {
			if got, want := seg.voxel(k), walk(seg, k); got != want {
				t.Errorf("ray %d voxel %d of %d: %d; the walk gives %d", r, k, l, got, want)
			}
		}
	}
}

func TestRaysErrors(t *testing.T) {
	for _, a := range [][3]int64{{0, 1, 1}, {1 << 17, 1, 1}, {4, 0, 3}, {4, 1 << 12, 1 << 11}, {1 << 12, 1 << 9, 1 << 8}} {
		if _, err := Rays(a[0], a[1], a[2]); err == nil {
			t.Errorf("Rays%v: no error", a)
		}
	}
}

// FuzzRays: any geometry Rays accepts gives rows that are consistent CSR
// (pointers rising to NNZ, voxels within the volume) and paths from the
// top face to the bottom one, a face at a time.
func FuzzRays(f *testing.F) {
	f.Add(uint8(4), uint8(3), uint8(2))
	f.Add(uint8(1), uint8(1), uint8(1))
	f.Add(uint8(64), uint8(16), uint8(2))
	f.Fuzz(func(t *testing.T, n8, w8, h8 uint8) {
		n, w, h := int64(n8), int64(w8%32), int64(h8%8)
		c, err := Rays(n, w, h)
		if err != nil {
			if n >= 1 && w >= 1 && h >= 1 {
				t.Fatalf("Rays(%d, %d, %d): %v", n, w, h, err)
			}
			return
		}
		if lo, hi := c.Col.Range(); lo != 0 || hi != n*n*n-1 || c.RowPtr.At(0) != 0 || c.RowPtr.At(c.Rows) != c.NNZ {
			t.Fatalf("Rays(%d, %d, %d): range [%d, %d], pointers %d..%d, nnz %d", n, w, h, lo, hi, c.RowPtr.At(0), c.RowPtr.At(c.Rows), c.NNZ)
		}
		g := rayGeometry{n: n, w: w, h: h, g: 8 * w * h}
		for r := range c.Rows {
			checkPath(t, [3]int64{n, w, h}, r, n, rayVoxels(c, n, r))
			seg := g.ray(r)
			for _, k := range []int64{seg.length() / 2, seg.length() - 1} {
				if got, want := seg.voxel(k), walk(seg, k); got != want {
					t.Fatalf("Rays(%d, %d, %d) ray %d voxel %d: %d; the walk gives %d", n, w, h, r, k, got, want)
				}
			}
		}
	})
}

// BenchmarkRaysAt reads every voxel of siddon's default rays scaled to a
// 256³ volume (256×32 detector, about 2.2 M voxels), in order, as the
// kernel's threads do; it reports the time per voxel read.
func BenchmarkRaysAt(b *testing.B) {
	c, err := Rays(256, 256, 32)
	if err != nil {
		b.Fatal(err)
	}
	var sum int64
	for b.Loop() {
		for j := range c.NNZ {
			sum += c.Col.At(j)
		}
	}
	if sum == 0 {
		b.Fatal("no voxels read")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*c.NNZ), "ns/voxel")
}
