package sim_test

import (
	"context"
	"fmt"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// texGrid binds a per-thread kernel of grid blocks of one warp, each
// lane reading element threadIdx.x of the texture array c (128 bytes,
// four 32-byte lines, the same for every block) and, when global, of
// the global array g too, on dev.
func texGrid(t testing.TB, dev *arch.Device, grid int, global bool) *traces.Launch {
	t.Helper()
	g := ""
	if global {
		g = "    float w = g[threadIdx.x];\n"
	}
	src := fmt.Sprintf("name: tex-grid\narrays:\n  c: {type: f32, dims: [256]}\n  g: {type: f32, dims: [256]}\nsource: |\n"+
		"  __global__ void k(const float *c, const float *g) {\n    float v = c[threadIdx.x];\n%s  }\nblock: [32]\ngrid: [%d]\n", g, grid)
	k, err := kernel.Parse("tex-grid.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k.Arrays[0].Space = kernel.SpaceTexture
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTextureSharedPerTPC: four blocks go to SMs 0-3, and each reads the
// same four lines. With a texture cache per TPC (gt200: 3 SMs, g80: 2)
// SMs 0-3 span two TPCs, whose caches fetch each line once: 2 × 4 = 8
// fills; the other lookups of the 16 hit or merge into a fill in flight
// (misses = fills + merges). With a cache per SM every SM fetches its
// own: 16 fills. Each fill reads one 32-byte sector at the texture-only
// L2, which fetches the 128 bytes' 256-byte line from DRAM once (8
// sectors; the first fill's sector misses, the rest merge or hit); the
// global load of g bypasses the L2: 4 blocks × 4 sectors straight from
// DRAM.
func TestTextureSharedPerTPC(t *testing.T) {
	for _, name := range []string{"gt200", "g80"} {
		for _, perSM := range []bool{false, true} {
			dev := texDevice(t, name)
			fills := int64(8)
			if perSM {
				dev.Texture.SharedBy = 1
				fills = 16
			}
			r := run(t, dev, texGrid(t, dev, 4, true), sim.Options{})
			tc := r.Texture.Cache
			if r.Texture.Passes != 16 || tc.Fills != fills || tc.Misses != fills+tc.MSHRMerges || tc.Hits+tc.Misses != 16 {
				t.Errorf("%s, per SM %v: %d lookups, %d fills, %d misses (%d merged), %d hits; want 16 lookups, %d fills, misses = fills + merges, 16 in all",
					name, perSM, r.Texture.Passes, tc.Fills, tc.Misses, tc.MSHRMerges, tc.Hits, fills)
			}
			c, g := r.Refs[0], r.Refs[1]
			if r.L2.ReadRequests != fills || c.L2ReadSectors != fills || c.L2MissSectors != 1 || c.DRAMReadSectors != 8 {
				t.Errorf("%s, per SM %v: L2 %d reads, c %d L2 sectors (%d missed), %d DRAM sectors; want %d, %[6]d, 1, 8",
					name, perSM, r.L2.ReadRequests, c.L2ReadSectors, c.L2MissSectors, c.DRAMReadSectors, fills)
			}
			if g.L2ReadSectors != 0 || g.DRAMReadSectors != 16 || r.L2.WriteRequests != 0 {
				t.Errorf("%s, per SM %v: g %d L2 sectors, %d DRAM sectors, L2 %d writes; want 0, 16, 0", name, perSM, g.L2ReadSectors, g.DRAMReadSectors, r.L2.WriteRequests)
			}
		}
	}
}

// TestTextureSharedDeterministic: a texture-heavy launch on gt200, whose
// TPCs' SMs meet in their shared caches, gives the same bytes run twice
// and through RunAll with one worker or many.
func TestTextureSharedDeterministic(t *testing.T) {
	dev := texDevice(t, "gt200")
	l := bindSpaces(t, dev, "matmul", map[string]kernel.Space{"B": kernel.SpaceTexture}, "i1=ty,i2=tx", "16x16", map[string]int64{"M": 96, "N": 96, "P": 64})
	want := resultJSON(t, run(t, dev, l, sim.Options{}))
	if got := resultJSON(t, run(t, dev, l, sim.Options{})); got != want {
		t.Errorf("gt200 matmul, B in texture: a second Run differs")
	}
	jobs := []sim.Job{{Device: dev, Source: l}, {Device: dev, Source: l}, {Device: dev, Source: l}}
	for _, workers := range []int{1, 3} {
		rs, err := sim.RunAll(context.Background(), jobs, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if resultJSON(t, r) != want {
				t.Errorf("RunAll with %d workers: job %d differs from Run", workers, i)
			}
		}
	}
}

// TestTextureRunAllocs: a simulated launch allocates per launch, never
// per lookup: the shared texture path on gt200 and the private one on
// fermi allocate as much for 1024 blocks as for 4096 (both fill every SM).
func TestTextureRunAllocs(t *testing.T) {
	for _, name := range []string{"gt200", "fermi"} {
		dev := texDevice(t, name)
		allocs := func(grid int) float64 {
			l := texGrid(t, dev, grid, false)
			return testing.AllocsPerRun(3, func() {
				if _, err := sim.Run(context.Background(), dev, l, sim.Options{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		if small, big := allocs(1024), allocs(4096); big > small {
			t.Errorf("%s: Run allocates %v times for 1024 blocks and %v for 4096; want no more", name, small, big)
		}
	}
}
