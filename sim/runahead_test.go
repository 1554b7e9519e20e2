package sim_test

import (
	"testing"

	"gpumemsim/kernel"
	"gpumemsim/sim"
)

// A scheduler running ahead of the event queue by up to the interconnect
// latency changes what was issued and sent by the time other SMs act, but
// not what is issued: every reference sends the same requests and
// transactions as in strict time order, and the cycles stay close to
// those of strict order (docs/design.md: 2.3% apart on average over the
// golden cases, 20% at most, on the contended L2 of Kepler's row-major
// copy). The texture cases put a matrix in texture memory on gt200, whose
// TPCs share a texture cache that sees their SMs' lookups in the
// engine's order (docs/design.md, "Texture memory").
func TestRunAheadMatchesStrictOrder(t *testing.T) {
	tex := func(a string) map[string]kernel.Space { return map[string]kernel.Space{a: kernel.SpaceTexture} }
	cases := []struct {
		device, kernel, mapping, block string
		params                         map[string]int64
		spaces                         map[string]kernel.Space
	}{
		{"fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 64, "N": 64, "P": 48}, nil},
		{"fermi", "matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 128, "N": 128, "P": 64}, nil},
		{"kepler", "copy-rowmajor", "", "", map[string]int64{"rows": 2048, "cols": 8}, nil},
		{"kepler", "vecadd", "", "", map[string]int64{"N": 40000}, nil},
		{"maxwell", "copy", "", "", map[string]int64{"N": 400000}, nil},
		{"gt200", "vecadd", "", "", map[string]int64{"N": 40000}, nil},
		// Blocks of 512 on GT200, where taking blocks in processing order
		// rather than finishing order made the run 6.6% faster than in
		// strict order at N = 2^25.
		{"gt200", "vecadd", "i=tx", "512", map[string]int64{"N": 1 << 22}, nil},
		{"g80", "transpose", "", "", map[string]int64{"N": 160}, nil},
		{"gt200", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 128, "N": 128, "P": 128}, tex("B")},
		{"gt200", "matvec", "", "", map[string]int64{"N": 1024}, tex("x")},
	}
	var sum float64
	for _, c := range cases {
		dev := texDevice(t, c.device)
		l := bindSpaces(t, dev, c.kernel, c.spaces, c.mapping, c.block, c.params)
		ahead, err := sim.RunAhead(dev, l, int64(dev.Interconnect.Latency))
		if err != nil {
			t.Fatal(err)
		}
		strict, err := sim.RunAhead(dev, l, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := c.device + "/" + c.kernel + "/" + c.mapping
		for i := range strict.Refs {
			a, s := ahead.Refs[i], strict.Refs[i]
			if a.RefCounts != s.RefCounts {
				t.Errorf("%s %s: requests and transactions %+v ahead; %+v in strict order", name, s.Ref, a.RefCounts, s.RefCounts)
			}
		}
		d := float64(ahead.Cycles-strict.Cycles) / float64(strict.Cycles)
		if d < 0 {
			d = -d
		}
		sum += d
		t.Logf("%s: %d cycles ahead, %d in strict order (%.1f%% apart)", name, ahead.Cycles, strict.Cycles, 100*d)
		if d > 0.25 {
			t.Errorf("%s: %d cycles running ahead, %d in strict order: %.1f%% apart; want at most 25%%", name, ahead.Cycles, strict.Cycles, 100*d)
		}
	}
	if mean := sum / float64(len(cases)); mean > 0.08 {
		t.Errorf("cycles running ahead are %.1f%% from strict order on average; want at most 8%%", 100*mean)
	}
}
