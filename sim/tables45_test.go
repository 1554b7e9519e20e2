package sim_test

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// segments counts the distinct 128-byte lines (Fermi's transaction for
// 4-byte loads, a warp per request) of the elements the lanes read.
func segments(elems []int64) int64 {
	seen := map[int64]bool{}
	for _, e := range elems {
		seen[4*e/128] = true
	}
	return int64(len(seen))
}

// simulateRefs runs kernel name on fermi with params, in blocks of 32×1
// (a warp per block, the row y of blockIdx.y), and returns its
// per-reference counts by text.
func simulateRefs(t *testing.T, name string, params map[string]int64) map[string]sim.RefStats {
	t.Helper()
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{X: 32, Y: 1, Z: 1}, params, dev)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sim.RefStats{}
	for _, r := range run(t, dev, l, sim.Options{}).Refs {
		out[r.Ref] = r
	}
	return out
}

// TestSiddonTransactionsBruteForce: siddon over a 8³ volume and a 64×2
// detector, a warp per 32 detector cells. Each lane walks its ray's
// voxels (indexdata.Rays, the generator itself is checked against an
// exact oracle in its package): at step k the lanes whose ray is longer
// than k read VOX[ROW[ray] + k] and vol[that voxel]. By brute force over
// the rays: a request per step while any lane is active, and per request
// the distinct 128-byte lines of the active lanes' elements (every
// array's base is 256-byte aligned).
func TestSiddonTransactionsBruteForce(t *testing.T) {
	const n, w, h = 8, 64, 2
	rays, err := indexdata.Rays(n, w, h)
	if err != nil {
		t.Fatal(err)
	}
	var wantReq, wantVOX, wantVol int64
	for ray0 := int64(0); ray0 < w*h; ray0 += 32 {
		for k := int64(0); ; k++ {
			var js, vs []int64
			for ray := ray0; ray < ray0+32; ray++ {
				if j := rays.RowPtr.At(ray) + k; j < rays.RowPtr.At(ray+1) {
					js, vs = append(js, j), append(vs, rays.Col.At(j))
				}
			}
			if len(js) == 0 {
				break
			}
			wantReq++
			wantVOX += segments(js)
			wantVol += segments(vs)
		}
	}
	got := simulateRefs(t, "siddon", map[string]int64{"NV": n, "W": w, "H": h})
	vox, vol := got["VOX[j]"], got["vol[VOX[j]]"]
	if vox.Requests != wantReq || vox.Transactions != wantVOX || vol.Requests != wantReq || vol.Transactions != wantVol {
		t.Errorf("VOX[j] %d requests, %d transactions; vol[VOX[j]] %d, %d; want %d, %d and %d, %d by brute force",
			vox.Requests, vox.Transactions, vol.Requests, vol.Transactions, wantReq, wantVOX, wantReq, wantVol)
	}
}

// TestNMSTransactionsBruteForce: nms on a 32×4 layer, a warp per row y.
// Neighbour k of pixel (y, x) is (clamp(y+dy), clamp(x+dx)) with (dy,
// dx) the k-th of the 3×3 neighbourhood row by row
// (data/nms-neighbours.txt); T and B are read at all nine, M at the
// eight that are not the centre. By brute force: 9 requests per warp
// for T and B, 8 for M, each the distinct 128-byte lines of the 32
// lanes' elements.
func TestNMSTransactionsBruteForce(t *testing.T) {
	const w, h = 32, 4
	clamp := func(v, hi int64) int64 { return min(max(v, 0), hi-1) }
	var wantAll, wantM int64
	for y := int64(0); y < h; y++ {
		for k := int64(0); k < 9; k++ {
			dy, dx := k/3-1, k%3-1
			var es []int64
			for x := int64(0); x < w; x++ {
				es = append(es, clamp(y+dy, h)*w+clamp(x+dx, w))
			}
			wantAll += segments(es)
			if k != 4 {
				wantM += segments(es)
			}
		}
	}
	got := simulateRefs(t, "nms", map[string]int64{"W": w, "H": h})
	for ref, want := range map[string][2]int64{"T[yy][xx]": {9 * h, wantAll}, "B[yy][xx]": {9 * h, wantAll}, "M[yy][xx]": {8 * h, wantM}} {
		if g := got[ref]; g.Requests != want[0] || g.Transactions != want[1] {
			t.Errorf("%s: %d requests, %d transactions; want %d, %d by brute force", ref, g.Requests, g.Transactions, want[0], want[1])
		}
	}
}
