package sim_test

import (
	"context"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

const ldgProbe = `name: ldg-probe
arrays:
  c: {type: f32, dims: [64]}
source: |
  __global__ void probe(const float * __restrict__ c) {
    float v0 = __ldg(&c[threadIdx.x]);
    float v1 = c[threadIdx.x];
    float v2 = __ldg(c + threadIdx.x + 32);
  }
block: [32]
grid: [1]
`

// TestLDGTexturePath: on kepler and maxwell one warp's __ldg of floats
// 0-31, its plain read of them through the const __restrict__ pointer
// (an LDG too on CC 3.5+) and its __ldg of floats 32-63 go through the
// texture cache: 4 lookups each (128 bytes, 32-byte lines), the first 4
// cold misses reading 4 sectors through the L2, the second 4 hits, the
// third 4 misses: 3 requests, 12 lookups, 4 hits, 8 misses, 8 fill
// sectors, tex_cache_hit_rate 33.3%, no global loads; each reference is
// labelled readonly. The coalescer-only Count gives the same requests
// and lookups.
func TestLDGTexturePath(t *testing.T) {
	k, err := kernel.Parse("ldg-probe.yaml", []byte(ldgProbe))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kepler", "maxwell"} {
		texDev = texDevice(t, name)
		res := runTex(t, k, nil)
		tx := res.Texture
		if tx.Requests != 3 || tx.Passes != 12 || tx.Cache.Hits != 4 || tx.Cache.Misses != 8 || tx.Cache.FillSectors != 8 || res.Loads.Requests != 0 {
			t.Errorf("%s: texture %+v, %d global loads; want 3 requests, 12 lookups, 4 hits, 8 misses, 8 fill sectors, 0", name, tx, res.Loads.Requests)
		}
		for i, want := range [][2]int64{{0, 4}, {4, 0}, {0, 4}} {
			if r := res.Refs[i]; r.Space != "readonly" || r.TexHits != want[0] || r.TexMisses != want[1] || r.L2ReadSectors != want[1] {
				t.Errorf("%s: %s: %s, %d hits, %d misses, %d L2 sectors; want readonly, %d, %d, %[6]d", name, r.Ref, r.Space, r.TexHits, r.TexMisses, r.L2ReadSectors, want[0], want[1])
			}
		}
		ms, err := sim.Metrics(texDev, res, sim.StyleNvprof)
		if err != nil {
			t.Fatal(err)
		}
		hits := 4.0 / 12 // a runtime ratio, as the metric's
		wantMetrics(t, ms, map[string]float64{"tex_cache_transactions": 12, "tex_cache_hit_rate": 100 * hits, "sim_tex_requests": 3})
		l, err := traces.Bind(k, nil, arch.Dim3{}, nil, texDev)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sim.Count(context.Background(), texDev, l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Texture.Requests != 3 || c.Texture.Passes != 12 || c.Loads.Requests != 0 {
			t.Errorf("%s: Count: texture %+v, %d global loads; want 3 requests, 12 lookups, 0", name, c.Texture, c.Loads.Requests)
		}
	}
}

// TestLDGOldDevices: on fermi the __ldg is refused when the launch binds,
// at the reference with a hint; a launch bound without a device (where
// __ldg stays an LDG) is refused by the simulator; the const __restrict__
// read alone is a global load there.
func TestLDGOldDevices(t *testing.T) {
	k, err := kernel.Parse("ldg-probe.yaml", []byte(ldgProbe))
	if err != nil {
		t.Fatal(err)
	}
	texDev = texDevice(t, "fermi")
	want := "ldg-probe.yaml:6:16: __ldg(&c[threadIdx.x]) loads through the read-only data cache (ld.global.nc), which fermi (compute capability 2.0) does not have"
	if _, err := traces.Bind(k, nil, arch.Dim3{}, nil, texDev); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "hint: ") {
		t.Errorf("Bind on fermi = %v; want %s...; hint: ...", err, want)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(context.Background(), texDev, l, sim.Options{}); err == nil || !strings.Contains(err.Error(), "read-only data cache, which device fermi (compute capability 2.0) does not have") {
		t.Errorf("Run on fermi = %v; want the read-only data cache refused", err)
	}
	plain, err := kernel.Parse("plain.yaml", []byte(strings.Replace(strings.Replace(ldgProbe,
		"    float v0 = __ldg(&c[threadIdx.x]);\n", "", 1), "    float v2 = __ldg(c + threadIdx.x + 32);\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	res := runTex(t, plain, nil)
	if res.Loads.Requests != 1 || res.Texture.Requests != 0 || res.Refs[0].Space != "" {
		t.Errorf("fermi, c[threadIdx.x] through const __restrict__: %d global loads, %d texture requests, space %q; want 1, 0, global", res.Loads.Requests, res.Texture.Requests, res.Refs[0].Space)
	}
}
