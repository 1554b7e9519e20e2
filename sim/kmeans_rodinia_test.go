package sim_test

import (
	"context"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// runKmeansRodinia simulates the shipped example kmeans-rodinia-LAYOUT
// (col or row) on dev at params p.
func runKmeansRodinia(t *testing.T, dev *arch.Device, layout string, p map[string]int64) *sim.Result {
	t.Helper()
	k, err := kernel.Load("kmeans-rodinia-" + layout)
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, p, dev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), dev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// kmeansCase is one size of Rodinia's kmeansPoint and what the rules make
// of it, worked out by hand in kmeansCases' comments.
type kmeansCase struct {
	name   string
	params map[string]int64
	// warpInsts: per warp with a point, 17 + nc·(9 + 10·nf); per warp
	// without one, 10 (see TestKmeansRodiniaCounts).
	warpInsts int64
	// texRequests are the warps with a point × nc × nf, one fetch each;
	// colLookups and rowLookups the 32-byte lines those fetches touch.
	texRequests, colLookups, rowLookups int64
	// constPasses are the c_clusters passes: one per request from CC 2.0
	// on; on CC 1.x one per half-warp with an active lane.
	constPasses1x, constPasses int64
	// stores are the membership store's warp requests; storeTxn1x and
	// storeTxn its transactions on gt200 and fermi.
	stores, storeTxn1x, storeTxn int64
}

var kmeansCases = []kmeansCase{
	// 2048 points need 8 blocks of 256; the square grid is 3x3, so block 8
	// has no point: 64 warps with points, 8 without. Every warp is full.
	// Column-major: a warp's fetch is 32 consecutive floats, 128 bytes from
	// a 128-byte boundary (point_id is a multiple of 32, j·np·4 of 8192):
	// 4 lines. Row-major: lanes are nf·4 = 136 bytes apart, more than a
	// line: 32 lines. Constant: one address per warp, so one pass, two on
	// CC 1.x. The store is 32 consecutive ints: on CC 1.3 each half-warp's
	// 64 bytes are one 64-byte transaction; on Fermi the warp's 128 bytes
	// are one 128-byte transaction.
	{name: "np=2048,nf=34,nc=2", params: map[string]int64{"np": 2048, "nf": 34, "nc": 2, "bpd": 3},
		warpInsts:   64*(17+2*(9+10*34)) + 8*10,
		texRequests: 64 * 2 * 34, colLookups: 64 * 2 * 34 * 4, rowLookups: 64 * 2 * 34 * 32,
		constPasses1x: 64 * 2 * 34 * 2, constPasses: 64 * 2 * 34,
		stores: 64, storeTxn1x: 64 * 2, storeTxn: 64},
	// 2000 points: 8 blocks, grid 3x3; 62 full warps and one of 16 lanes
	// (points 1984..1999), 72 - 63 = 9 warps without a point.
	// Column-major: full warps 4 lines (j·np·4 = 8000j is a multiple of
	// 32, so 128 bytes from a 32-byte boundary), the 16-lane warp's 64
	// bytes 2. Row-major: lanes 16 bytes apart, two per line: 32 lanes
	// 16 lines, 16 lanes 8. Constant on CC 1.x: the 16-lane warp's second
	// half-warp has no active lane, 1 pass. Store: the 16-lane warp is one
	// 64-byte transaction on both (Fermi's 128-byte segment shrinks to the
	// half that is used).
	{name: "np=2000,nf=4,nc=3", params: map[string]int64{"np": 2000, "nf": 4, "nc": 3, "bpd": 3},
		warpInsts:   63*(17+3*(9+10*4)) + 9*10,
		texRequests: 63 * 3 * 4, colLookups: (62*4 + 2) * 3 * 4, rowLookups: (62*16 + 8) * 3 * 4,
		constPasses1x: (62*2 + 1) * 3 * 4, constPasses: 63 * 3 * 4,
		stores: 63, storeTxn1x: 62*2 + 1, storeTxn: 63},
}

// TestKmeansRodiniaCounts: the counts of kmeans-rodinia-col and -row that
// no cache decides, on gt200 (CC 1.3) and fermi (CC 2.0), against
// kmeansCases. The instructions follow the kernel package's rules
// (kernel/doc.go): per thread, block_id 2 and point_id 3 operators,
// index = -1 1, each if 2 (compare, branch), the store 1; inside the
// guard the declarations of i, j, min_dist and dist 1 each (a
// declaration without a value counts as a move too) and i = 0 1; per
// cluster the for's 3 (test, branch, i++; the test that ends the loop is
// not counted, so a for costs 3 per iteration as a loop nest's loop
// does), cluster_base_index 1,
// ans 1, j = 0 1, dist, min_dist and index 1 each; per feature the for's
// 3, addr 2, the two reads 1 each, the subtraction 1, ans += diff·diff 2.
// So 17 + nc·(9 + 10·nf) for a warp with a point and 2+3+1+2+2 = 10 for
// one without, which runs neither guarded part. The two layouts differ
// only in addr's operands, so they cost the same.
func TestKmeansRodiniaCounts(t *testing.T) {
	for _, d := range []string{"gt200", "fermi"} {
		dev, err := configs.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		cc1x := strings.HasPrefix(dev.ComputeCapability, "1.")
		for _, c := range kmeansCases {
			for _, layout := range []string{"col", "row"} {
				r := runKmeansRodinia(t, dev, layout, c.params)
				name := d + " kmeans-rodinia-" + layout + " " + c.name
				lookups, passes, storeTxn := c.colLookups, c.constPasses, c.storeTxn
				if layout == "row" {
					lookups = c.rowLookups
				}
				if cc1x {
					passes, storeTxn = c.constPasses1x, c.storeTxn1x
				}
				if r.Grid != (arch.Dim3{X: 3, Y: 3, Z: 1}) {
					t.Errorf("%s: grid %v; want 3x3x1", name, r.Grid)
				}
				if r.WarpInsts != c.warpInsts {
					t.Errorf("%s: %d warp instructions; want %d", name, r.WarpInsts, c.warpInsts)
				}
				if r.Texture.Requests != c.texRequests || r.Texture.Passes != lookups {
					t.Errorf("%s: texture %d requests, %d lookups; want %d, %d", name, r.Texture.Requests, r.Texture.Passes, c.texRequests, lookups)
				}
				if r.Constant.Requests != c.texRequests || r.Constant.Passes != passes {
					t.Errorf("%s: constant %d requests, %d passes; want %d, %d", name, r.Constant.Requests, r.Constant.Passes, c.texRequests, passes)
				}
				if r.Stores.Requests != c.stores || r.Stores.Transactions != storeTxn || r.Stores.RequestedBytes != 4*c.params["np"] {
					t.Errorf("%s: membership store %d requests, %d transactions, %d bytes; want %d, %d, %d",
						name, r.Stores.Requests, r.Stores.Transactions, r.Stores.RequestedBytes, c.stores, storeTxn, 4*c.params["np"])
				}
				if r.Loads.Requests != 0 {
					t.Errorf("%s: %d global loads; want 0 (features are fetched, centres constant)", name, r.Loads.Requests)
				}
				if got := r.Texture.Cache.Hits + r.Texture.Cache.Misses + r.Texture.Cache.MSHRMerges; got != lookups {
					t.Errorf("%s: texture cache hits + misses + merges = %d; want every lookup, %d", name, got, lookups)
				}
			}
		}
	}
}

// TestKmeansRodiniaTextureCache: fermi's texture cache (12 KB, 128-byte
// tags of 32-byte sectors, 4 sets of 24 ways, LRU; a lookup of another
// sector of a line in flight is a miss of its own) on kmeansCases.
//
// At np=2000,nf=4 each of the 9 blocks runs on an SM of its own (fermi
// has 15) and reads its points' features, at most 256·4·4 = 4 KB: at most
// 36 tags, a third of the cache, so nothing is evicted and each SM misses
// once on each sector it reads. The blocks' points are disjoint, so the
// misses are the array's 2000·4·4/32 = 1000 sectors, each read through
// the L2 once; every other lookup hits.
//
// At np=2048,nf=34 column-major, warp w's fetch of feature j lies in the
// 128-byte line at 128·w + 8192·j from the 256-aligned base: the same set
// for all 34 features. Between two fetches of one line (clusters i and
// i+1) the warp itself fetches the other 33 features' lines of that set,
// more than its 24 ways, so LRU has evicted the line: no lookup hits,
// however the warps interleave.
func TestKmeansRodiniaTextureCache(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	small := kmeansCases[1]
	for _, layout := range []string{"col", "row"} {
		r := runKmeansRodinia(t, dev, layout, small.params)
		lookups := small.colLookups
		if layout == "row" {
			lookups = small.rowLookups
		}
		tex := r.Texture.Cache
		if tex.Misses != 1000 || tex.Hits != lookups-1000 || tex.MSHRMerges != 0 || tex.Evictions != 0 || r.Texture.Cache.FillSectors != 1000 {
			t.Errorf("fermi kmeans-rodinia-%s %s: texture %d hits, %d misses, %d merges, %d evictions, %d fill sectors; want %d, 1000, 0, 0, 1000",
				layout, small.name, tex.Hits, tex.Misses, tex.MSHRMerges, tex.Evictions, r.Texture.Cache.FillSectors, lookups-1000)
		}
		if ref := r.Refs[0]; ref.Space != "texture" || ref.L2ReadSectors != 1000 {
			t.Errorf("fermi kmeans-rodinia-%s %s: first reference %s in %q, %d L2 read sectors; want the fetch, texture, 1000", layout, small.name, ref.Ref, ref.Space, ref.L2ReadSectors)
		}
	}
	big := kmeansCases[0]
	r := runKmeansRodinia(t, dev, "col", big.params)
	if tex := r.Texture.Cache; tex.Hits != 0 || tex.Misses != big.colLookups {
		t.Errorf("fermi kmeans-rodinia-col %s: texture %d hits, %d misses; want 0, %d", big.name, tex.Hits, tex.Misses, big.colLookups)
	}
}

// TestKmeansRodiniaLayoutTime: the load/store unit sends one texture
// lookup or constant pass per cycle, so an SM running one of
// np=2048,nf=34,nc=2's full blocks (8 warps × 2 × 34 fetches and as many
// centre reads) takes at least 544·(lookups + passes per request)
// cycles: row-major 544·33 = 17952 on fermi and 544·34 = 18496 on gt200,
// column-major 544·5 and 544·6. Row-major must also take longer than
// column-major: the same instructions with 8 times the lookups.
func TestKmeansRodiniaLayoutTime(t *testing.T) {
	c := kmeansCases[0]
	const requestsPerSM = 8 * 2 * 34
	for _, d := range []string{"gt200", "fermi"} {
		dev, err := configs.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		passes := int64(1)
		if strings.HasPrefix(dev.ComputeCapability, "1.") {
			passes = 2
		}
		col := runKmeansRodinia(t, dev, "col", c.params)
		row := runKmeansRodinia(t, dev, "row", c.params)
		if min := requestsPerSM * (4 + passes); col.Cycles < min {
			t.Errorf("%s kmeans-rodinia-col %s: %d cycles; want at least %d", d, c.name, col.Cycles, min)
		}
		if min := requestsPerSM * (32 + passes); row.Cycles < min || row.Cycles <= col.Cycles {
			t.Errorf("%s kmeans-rodinia-row %s: %d cycles; want at least %d and more than col's %d", d, c.name, row.Cycles, min, col.Cycles)
		}
	}
}
