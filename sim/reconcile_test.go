package sim_test

import (
	"encoding/json"
	"slices"
	"testing"

	"gpumemsim/kernel"
	"gpumemsim/sim"
)

// In a sampled run whose skipped blocks were counted, the counters the
// transactions fix are exact, as in the full run: every load transaction
// is one L1 lookup where the L1 caches global loads (fermi, a100), one L2
// read request where it does not (kepler; of one sector, its
// transactions being 32 bytes), every store transaction one L2 write
// request of the sectors it touches,
// every texture lookup one texture-cache access. By hand
// for vecadd N=2^22 on fermi: 131,072 warps, each loading 128 aligned
// bytes of A and of B (one transaction each) and storing 128 of C.
func TestSampleFirstLevelExact(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates each grid twice")
	}
	const warps = 1 << 22 / 32
	for _, c := range []struct {
		device, kernel string
		spaces         map[string]kernel.Space
	}{
		{"fermi", "vecadd", nil},
		{"kepler", "vecadd", nil},
		// a100's 40-MiB L2 holds copy's 32 MiB at 2^22 elements: it never
		// fills, and the sampler skips 47% of the grid (vecadd's 48 MiB
		// fill it near the grid's end, and it simulates every block:
		// warmth.go).
		{"a100", "copy", nil},
		{"fermi", "vecadd", map[string]kernel.Space{"A": kernel.SpaceTexture}},
		{"gt200", "vecadd", map[string]kernel.Space{"A": kernel.SpaceTexture}},
	} {
		dev, _ := bind(t, c.device, c.kernel, "", "", nil)
		l := bindSpaces(t, dev, c.kernel, c.spaces, "", "", map[string]int64{"N": 1 << 22})
		full := run(t, dev, l, sim.Options{})
		got := run(t, dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
		name := c.device
		if c.spaces != nil {
			name += " with A in texture memory"
		}
		if s := got.Sampling; s == nil || s.SkippedBlocks == 0 || !s.Counted {
			t.Fatalf("%s: sampling %s; want blocks skipped and counted", name, describe(s))
		}
		if got.L1.Accesses != full.L1.Accesses || got.L1.Hits+got.L1.Misses != got.L1.Accesses {
			t.Errorf("%s: L1 %d hits + %d misses, %d accesses; the full run's %d accesses", name, got.L1.Hits, got.L1.Misses, got.L1.Accesses, full.L1.Accesses)
		}
		for i := range full.Refs {
			g, f := &got.Refs[i], &full.Refs[i]
			if g.L1Hits+g.L1Misses != f.L1Hits+f.L1Misses || g.TexHits+g.TexMisses != f.TexHits+f.TexMisses {
				t.Errorf("%s, %s: %d L1 and %d texture-cache lookups; the full run's %d and %d", name, f.Ref,
					g.L1Hits+g.L1Misses, g.TexHits+g.TexMisses, f.L1Hits+f.L1Misses, f.TexHits+f.TexMisses)
			}
		}
		if got.Texture.Cache.Accesses != full.Texture.Cache.Accesses {
			t.Errorf("%s: %d texture-cache accesses; the full run's %d", name, got.Texture.Cache.Accesses, full.Texture.Cache.Accesses)
		}
		// A's 16 MiB are read once, 32 bytes a lookup: 2^19 lookups, each
		// a miss and one fill of a 32-byte sector. The misses follow from
		// the counted lookups and no hits, the fills from the misses.
		if tx := got.Texture; c.spaces != nil && (tx.Cache.Accesses != 1<<19 || tx.Cache.Misses != 1<<19 || tx.Cache.Fills != 1<<19 || tx.Cache.FillSectors != 1<<19) {
			t.Errorf("%s: %d texture lookups, %d misses, %d fills of %d sectors; want 2^19 each", name, tx.Cache.Accesses, tx.Cache.Misses, tx.Cache.Fills, tx.Cache.FillSectors)
		}
		if got.L2.WriteRequests != full.L2.WriteRequests || got.L2.WriteSectors != full.L2.WriteSectors {
			t.Errorf("%s: %d L2 write requests of %d sectors; the full run's %d of %d", name,
				got.L2.WriteRequests, got.L2.WriteSectors, full.L2.WriteRequests, full.L2.WriteSectors)
		}
		if !dev.Coalescer.CacheGlobalLoads && got.Texture.Requests == 0 && (got.L2.ReadRequests != full.L2.ReadRequests || got.L2.ReadSectors != full.L2.ReadSectors) {
			t.Errorf("%s: %d L2 read requests of %d sectors; the full run's %d of %d", name,
				got.L2.ReadRequests, got.L2.ReadSectors, full.L2.ReadRequests, full.L2.ReadSectors)
		}
		if c.device == "fermi" && c.spaces == nil && (got.L1.Accesses != 2*warps || got.L2.WriteRequests != warps) {
			t.Errorf("fermi: %d L1 accesses and %d L2 write requests, want %d and %d", got.L1.Accesses, got.L2.WriteRequests, 2*warps, warps)
		}
		// Kepler serves a global load from the L2 in 32-byte segments
		// (hardware.md §2.4): each of the 2 × 131,072 warp loads of 128
		// bytes is 4 L2 read requests of one sector, and each store writes
		// 4 sectors.
		if c.device == "kepler" && (got.L2.ReadRequests != 8*warps || got.L2.ReadSectors != 8*warps || got.L2.WriteSectors != 4*warps) {
			t.Errorf("kepler: %d L2 read requests of %d sectors and %d write sectors, want %d, %d and %d",
				got.L2.ReadRequests, got.L2.ReadSectors, got.L2.WriteSectors, 8*warps, 8*warps, 4*warps)
		}
	}
}

// reconcile leaves a simulated run, which keeps every identity, as it is;
// a counter moved off an identity fails the check, and reconcile fits it
// back without moving the counts the coalescer made. Each device takes
// its own branch: fermi (an L1 for global loads, A through the texture
// cache and the L2), kepler (the L2 alone), gt200 (no L2 for global
// memory; its L2 caches the texture caches' fills only).
func TestReconcileRestoresIdentities(t *testing.T) {
	for _, c := range []struct {
		device string
		moves  map[string]func(r *sim.Result) *int64
	}{
		{"fermi", map[string]func(r *sim.Result) *int64{
			"L1 hits":              func(r *sim.Result) *int64 { return &r.L1.Hits },
			"B's L1 misses":        func(r *sim.Result) *int64 { return &r.Refs[1].L1Misses },
			"L1 merged misses":     func(r *sim.Result) *int64 { return &r.L1.MSHRMerges },
			"L2 hit sectors":       func(r *sim.Result) *int64 { return &r.L2.ReadHitSectors },
			"B's L2 hit sectors":   func(r *sim.Result) *int64 { return &r.Refs[1].L2HitSectors },
			"texture misses":       func(r *sim.Result) *int64 { return &r.Texture.Cache.Misses },
			"texture fill sectors": func(r *sim.Result) *int64 { return &r.Texture.Cache.FillSectors },
			"DRAM read sectors":    func(r *sim.Result) *int64 { return &r.DRAM.ReadSectors },
			"L2 write requests":    func(r *sim.Result) *int64 { return &r.L2.WriteRequests },
			"B's L2 read sectors":  func(r *sim.Result) *int64 { return &r.Refs[1].L2ReadSectors },
			"memory instructions":  func(r *sim.Result) *int64 { return &r.MemInsts },
			"DRAM precharges":      func(r *sim.Result) *int64 { return &r.DRAM.Precharges },
		}},
		{"kepler", map[string]func(r *sim.Result) *int64{
			"L2 read requests":      func(r *sim.Result) *int64 { return &r.L2.ReadRequests },
			"B's L2 read sectors":   func(r *sim.Result) *int64 { return &r.Refs[1].L2ReadSectors },
			"B's DRAM read sectors": func(r *sim.Result) *int64 { return &r.Refs[1].DRAMReadSectors },
			"DRAM read bytes":       func(r *sim.Result) *int64 { return &r.DRAM.ReadBytes },
			"DRAM write sectors":    func(r *sim.Result) *int64 { return &r.DRAM.WriteSectors },
			"DRAM row hits":         func(r *sim.Result) *int64 { return &r.DRAM.RowHits },
			"DRAM completed":        func(r *sim.Result) *int64 { return &r.DRAM.Completed },
			"DRAM activates":        func(r *sim.Result) *int64 { return &r.DRAM.Activates },
		}},
		{"gt200", map[string]func(r *sim.Result) *int64{
			"texture fills":         func(r *sim.Result) *int64 { return &r.Texture.Cache.Fills },
			"L2 read sectors":       func(r *sim.Result) *int64 { return &r.L2.ReadSectors },
			"DRAM write sectors":    func(r *sim.Result) *int64 { return &r.DRAM.WriteSectors },
			"B's DRAM read sectors": func(r *sim.Result) *int64 { return &r.Refs[1].DRAMReadSectors },
			"DRAM writes":           func(r *sim.Result) *int64 { return &r.DRAM.Writes },
		}},
	} {
		dev, _ := bind(t, c.device, "vecadd", "", "", nil)
		l := bindSpaces(t, dev, "vecadd", map[string]kernel.Space{"A": kernel.SpaceTexture}, "", "", map[string]int64{"N": 1 << 16})
		full := run(t, dev, l, sim.Options{})
		want, _ := json.Marshal(full)
		same := copyResult(full)
		sim.Reconcile(dev, same)
		if got, _ := json.Marshal(same); string(got) != string(want) {
			t.Errorf("%s: reconcile changed a simulated run", c.device)
		}
		for name, field := range c.moves {
			r := copyResult(full)
			*field(r) += 3
			if err := sim.CheckTotals(dev, r); err == nil {
				t.Errorf("%s: %s 3 off passes the check", c.device, name)
			}
			sim.Reconcile(dev, r)
			if err := sim.CheckTotals(dev, r); err != nil {
				t.Errorf("%s: %s 3 off, reconciled: %v", c.device, name, err)
			}
			for i := range r.Refs {
				if r.Refs[i].RefCounts != full.Refs[i].RefCounts {
					t.Errorf("%s: %s 3 off: reconcile moved %s's coalescer counts", c.device, name, full.Refs[i].Ref)
				}
			}
		}
	}
}

// copyResult is a copy of r that shares nothing with it.
func copyResult(r *sim.Result) *sim.Result {
	c := *r
	c.Refs = slices.Clone(r.Refs)
	return &c
}
