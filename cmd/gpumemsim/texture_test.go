package main

import (
	"encoding/json"
	"math"
	"testing"
)

// TestTextureGolden: texture memory in the outputs. run's references
// say their space and the texture cache's hit rate, trace shows a
// fetch's 32-byte lines and -totals the coalescer-only tex counts, and a
// store to an array made texture is refused naming the flag.
func TestTextureGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"spaces-run-matvec-texture-gt200", []string{"run", "-device", "gt200", "-kernel", "matvec", "-spaces", "x=texture", "-set", "N=512"}},
		{"spaces-trace-matvec-texture-fermi", []string{"trace", "-device", "fermi", "-kernel", "matvec", "-spaces", "A=texture", "-set", "N=64", "-block", "64", "-warps", "2", "-totals"}},
		{"spaces-err-texture-store", []string{"estimate", "-kernel", "matvec", "-spaces", "y=texture"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// TestTextureMatvec: J14's matvec at N = 512 with x in texture memory,
// counted by hand. 16 blocks of one warp, one per SM; each warp reads
// x[i2] once per i2, every lane the same address: 16 · 512 = 8192
// requests of 1 lookup (a broadcast is one 32-byte line). On gt200 the
// SMs share a texture cache per TPC of 3: SMs 0-14 fill five TPCs and
// SM 15 is alone in the sixth. x (2 KB, 64 lines) fits the 5 KB cache,
// so each TPC's cache fetches each line once: 6 · 64 = 384 fills of one
// 32-byte sector, read at the texture-only L2; every other lookup hits
// or merges into a fill in flight (how many merge depends on how far
// apart the TPC's warps run), so misses = 384 + merges and hits + misses
// = 8192. A warp reads a line's other 7 elements after its first one's
// data is back, so each warp misses at most once per line: at most 16 ·
// 64 = 1024 misses, the count with one cache per SM. x is 8 of the L2's 256-byte lines, each read from DRAM once
// when its first sector misses: 64 DRAM sectors, 8 L2 miss sectors and
// 376 hits.
// On fermi the lookups are
// the same 8192; the misses that are not merged into one in flight read
// their sector through the L2, which reads each of x's 64 sectors from
// DRAM once and serves the other SMs' misses.
func TestTextureMatvec(t *testing.T) {
	skipUnderRace(t)
	metrics := func(dev string) (map[string]float64, map[string]any) {
		out := runTwice(t, "run", "-device", dev, "-kernel", "matvec", "-spaces", "x=texture", "-set", "N=512", "-format", "json")
		var v struct {
			Metrics    map[string]float64 `json:"metrics"`
			References []map[string]any   `json:"references"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		return v.Metrics, v.References[2]
	}
	ms, x := metrics("gt200")
	want := map[string]float64{"sim_tex_requests": 8192, "tex_cache_transactions": 8192, "sim_tex_transactions_per_request": 1,
		"sim_tex_fill_sectors": 384, "gld_request": 16384, "l2_tex_read_transactions": 384}
	for k, w := range want {
		if got, ok := ms[k]; !ok || got != w {
			t.Errorf("gt200: %s = %v; want %v", k, got, w)
		}
	}
	// nvprof's tex_cache_throughput: 8192 lookups of 32 bytes over the
	// simulated time, in GB/s (bytes per ms / 1e6).
	if got, want := ms["tex_cache_throughput"], 8192*32/ms["sim_time_ms"]/1e6; math.Abs(got-want) > 1e-9*want || want == 0 {
		t.Errorf("gt200: tex_cache_throughput = %v; want %v", got, want)
	}
	if h, m := ms["sim_tex_hits"], ms["sim_tex_misses"]; h+m != 8192 || m < 384 || m > 1024 {
		t.Errorf("gt200: %v hits, %v misses; want 8192 in all, 384 to 1024 misses", h, m)
	}
	if x["ref"] != "x[i2]" || x["space"] != "texture" || x["l2_read_sectors"] != 384.0 || x["l2_miss_sectors"] != 8.0 || x["dram_read_sectors"] != 64.0 {
		t.Errorf("gt200: x's reference %v; want x[i2], texture, 384 L2 sectors of which 8 miss, 64 DRAM sectors", x)
	}
	ms, x = metrics("fermi")
	if ms["tex_cache_transactions"] != 8192 || x["l2_read_sectors"] != ms["sim_tex_fill_sectors"] || x["dram_read_sectors"] != 64.0 {
		t.Errorf("fermi: %v lookups, x %v; want 8192 lookups, x's L2 sectors = the fill sectors %v, 64 DRAM sectors", ms["tex_cache_transactions"], x, ms["sim_tex_fill_sectors"])
	}
}
