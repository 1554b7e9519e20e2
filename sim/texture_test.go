package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// texProbe is one warp reading the texture array c (n floats) once per
// offset of offsets, lane l at element offset + l*S, each read a
// statement of its own that waits for its load (see constProbe).
func texProbe(t *testing.T, n int64, s int64, offsets []int64) *sim.Result {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: tex-probe\nparams: {S: 1}\narrays:\n  c: {type: f32, dims: [%d]}\nsource: |\n  __global__ void probe(const float *c) {\n", n)
	for i, o := range offsets {
		fmt.Fprintf(&b, "    float v%d = c[%d + threadIdx.x * S];\n", i, o)
	}
	b.WriteString("  }\nblock: [32]\ngrid: [1]\n")
	k, err := kernel.Parse("tex-probe.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	k.Arrays[0].Space = kernel.SpaceTexture
	return runTex(t, k, map[string]int64{"S": s})
}

func texDevice(t *testing.T, name string) *arch.Device {
	t.Helper()
	dev, err := configs.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

var texDev *arch.Device

func runTex(t *testing.T, k *kernel.Kernel, params map[string]int64) *sim.Result {
	t.Helper()
	l, err := traces.Bind(k, nil, arch.Dim3{}, params, texDev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), texDev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var texDevices = []string{"g80", "gt200", "fermi", "kepler", "maxwell"}

// TestTextureLines: a warp's fetch looks up each distinct 32-byte line
// its lanes touch once. 32 consecutive floats (S = 1) are 128 bytes, 4
// lines; a stride of 8 floats (32 bytes) puts every lane in a line of
// its own, 32; S = 0 is a broadcast, 1 line. Cold, every lookup misses
// and reads its 32-byte line (one sector) from below: the L2 on Fermi
// and later, DRAM on G80 and GT200; the same fetch again hits them all.
func TestTextureLines(t *testing.T) {
	for _, name := range texDevices {
		texDev = texDevice(t, name)
		for _, c := range []struct{ s, lines int64 }{{1, 4}, {8, 32}, {0, 1}} {
			one := texProbe(t, 256, c.s, []int64{0})
			two := texProbe(t, 256, c.s, []int64{0, 0})
			tx := one.Texture
			if tx.Requests != 1 || tx.Passes != c.lines || tx.Cache.Misses != c.lines || tx.Cache.Hits != 0 || tx.Cache.FillSectors != c.lines {
				t.Errorf("%s, S=%d cold: %+v; want 1 request, %d lookups, all misses, %[3]d fill sectors", name, c.s, tx, c.lines)
			}
			if r := two.Refs[1]; r.Space != "texture" || r.TexHits != c.lines || r.TexMisses != 0 || r.Transactions != c.lines {
				t.Errorf("%s, S=%d warm: second reference %+v; want texture, %d lookups, all hits", name, c.s, r, c.lines)
			}
			r := one.Refs[0]
			below := r.L2ReadSectors
			if !texDev.L2.Present() {
				below = r.DRAMReadSectors
			}
			if below != c.lines || one.Loads.Requests != 0 || one.MemInsts != 1 {
				t.Errorf("%s, S=%d: %d sectors read below the texture cache (L2 %d, DRAM %d), %d global loads, %d memory insts; want %d, 0, 1",
					name, c.s, below, r.L2ReadSectors, r.DRAMReadSectors, one.Loads.Requests, one.MemInsts, c.lines)
			}
		}
	}
}

// TestTextureCapacity: a sweep of 128-byte fetches (4 lines each) over
// as many bytes as the texture cache holds, twice, hits on every lookup
// of the second pass (with a linear set index the sweep fills every set
// exactly); a sweep of twice the capacity misses on every one (LRU
// evicts each line before its second use). gt200: 5 KB, 160 lines per
// pass; g80: 8 KB, 256; fermi: 12 KB, 384; maxwell: 24 KB, 768; kepler:
// 48 KB, 1536.
func TestTextureCapacity(t *testing.T) {
	for _, name := range texDevices {
		texDev = texDevice(t, name)
		size := int64(texDev.Texture.Size)
		for _, factor := range []int64{1, 2} {
			bytes := factor * size
			src := fmt.Sprintf("name: sweep\narrays:\n  c: {type: f32, dims: [%d]}\nsource: |\n  __global__ void sweep(const float *c) {\n    for (int p = 0; p < 2; p++) {\n      for (int k = 0; k < %[1]d; k += 32) {\n        float v = c[k + threadIdx.x];\n      }\n    }\n  }\nblock: [32]\ngrid: [1]\n", bytes/4)
			k, err := kernel.Parse("sweep.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			k.Arrays[0].Space = kernel.SpaceTexture
			res := runTex(t, k, nil)
			lines := bytes / 32
			wantHits := lines
			if factor == 2 {
				wantHits = 0
			}
			if tx := res.Texture; tx.Passes != 2*lines || tx.Cache.Hits != wantHits || tx.Cache.Misses != 2*lines-wantHits {
				t.Errorf("%s, %d B sweep twice: %d lookups, %d hits, %d misses; want %d, %d, %d", name, bytes, tx.Passes, tx.Cache.Hits, tx.Cache.Misses, 2*lines, wantHits, 2*lines-wantHits)
			}
		}
	}
}

// TestTextureMetrics: a fetch of 32 consecutive floats, twice, on fermi
// is 2 requests of 4 lookups, 4 cold misses that read 4 sectors through
// the L2 and then 4 hits (50%), which the gpgpusim style spells
// Total_core_cache_stats_breakdown[TEXTURE_ACC_R][...] (8 accesses, 4
// hits, no merges); the coalescer-only Count gives the same
// requests and lookups. A kernel without texture references shows none
// of the texture metrics.
func TestTextureMetrics(t *testing.T) {
	texDev = texDevice(t, "fermi")
	res := texProbe(t, 256, 1, []int64{0, 0})
	ms, err := sim.Metrics(texDev, res, sim.StyleNvprof)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"sim_tex_requests": 2, "tex_cache_transactions": 8, "sim_tex_transactions_per_request": 4,
		"tex_cache_hit_rate": 50, "sim_tex_hits": 4, "sim_tex_misses": 4, "sim_tex_fill_sectors": 4}
	wantMetrics(t, ms, want)
	if ms, err = sim.Metrics(texDev, res, sim.StyleGPGPUSim); err != nil {
		t.Fatal(err)
	}
	wantMetrics(t, ms, map[string]float64{"Total_core_cache_stats_breakdown[TEXTURE_ACC_R][TOTAL_ACCESS]": 8,
		"Total_core_cache_stats_breakdown[TEXTURE_ACC_R][HIT]": 4, "Total_core_cache_stats_breakdown[TEXTURE_ACC_R][MSHR_HIT]": 0})
	k := constProbe(t, 1)
	k.Arrays[0].Space = kernel.SpaceTexture
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, texDev)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.Count(context.Background(), texDev, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Texture.Requests != 1 || c.Texture.Passes != 4 || c.Loads.Requests != 0 {
		t.Errorf("Count: texture %+v, %d global loads; want 1 request, 4 lookups, 0", c.Texture, c.Loads.Requests)
	}
	k.Arrays[0].Space = kernel.SpaceGlobal
	_, g := runKernel(t, "fermi", k)
	if ms, err = sim.Metrics(texDev, g, sim.StyleNvprof); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if strings.HasPrefix(m.Name, "sim_tex_") || strings.HasPrefix(m.Name, "tex_cache_") {
			t.Errorf("%s shown for a kernel without texture references", m.Name)
		}
	}
}
