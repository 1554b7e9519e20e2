package sim_test

import (
	"fmt"
	"math"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// texProber runs the latency probe (kernel/examples/latency-probe.yaml:
// one thread walks F bytes R times with a stride of S bytes, every load
// waiting for the one before) with its array in texture memory, as
// `gpumemsim run -kernel latency-probe -spaces a=texture` does.
type texProber struct {
	t    *testing.T
	dev  *arch.Device
	k    *kernel.Kernel
	seen map[[2]int64]float64
	// overhead is the issue cycles of each iteration's compute.
	overhead float64
}

func newTexProber(t *testing.T, dev *arch.Device) *texProber {
	t.Helper()
	k, err := kernel.Load("latency-probe")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetSpaces(map[string]kernel.Space{"a": kernel.SpaceTexture}); err != nil {
		t.Fatal(err)
	}
	p := &texProber{t: t, dev: dev, k: k, seen: map[[2]int64]float64{}}
	p.overhead = issueOverhead(dev, p.bind(1024, 32, 1))
	return p
}

func (p *texProber) bind(f, s, r int64) *traces.Launch {
	p.t.Helper()
	l, err := traces.Bind(p.k, nil, arch.Dim3{}, map[string]int64{"F": f, "S": s, "R": r}, p.dev)
	if err != nil {
		p.t.Fatal(err)
	}
	return l
}

// perLoad is the cycles per load of footprint f and stride s after the
// first pass, the differences of a run of three passes and one: the
// cold misses of the first pass cancel (Wong et al., Mei & Chu).
func (p *texProber) perLoad(f, s int64) float64 {
	key := [2]int64{f, s}
	if v, ok := p.seen[key]; ok {
		return v
	}
	var cycles, loads [2]int64
	for i, r := range []int64{1, 3} {
		res := run(p.t, p.dev, p.bind(f, s, r), sim.Options{})
		cycles[i], loads[i] = res.Cycles, res.Texture.Requests
	}
	v := float64(cycles[1]-cycles[0]) / float64(loads[1]-loads[0])
	p.seen[key] = v
	return v
}

// The simulator is exact, so a plateau is flat but for a pass's loop
// overhead spread over its loads, which shrinks as the footprint grows
// (c·S/F cycles per load, c a few cycles). rise is the least increase
// that counts as misses: one set that overflows by a line misses its
// lines every pass, at least 0.045 cycles per load in these sweeps (gt200's
// L2 at 256 KiB + 32 B: 9 lines × 41 cycles over 8193 loads), while a
// footprint larger than the last one hit is never slower without a miss.
// flat is how close two strides' times must be to call them one plateau:
// doubling the stride below the line doubles the misses (at least 2
// cycles per load here), and the loop overhead moves by c·S/F < 0.05.
const (
	rise = 0.005
	flat = 0.05
)

// knee is the largest footprint, a multiple of grain from lo up, whose
// time per load at stride s is no more than that of the largest one known
// to hit: footprints double until the time rises, then a bisection finds
// the step.
func (p *texProber) knee(lo, s, grain int64) int64 {
	hi := 2 * lo
	for p.perLoad(hi, s) <= p.perLoad(lo, s)+rise {
		lo, hi = hi, 2*hi
		if hi > 64<<20 {
			p.t.Fatalf("%s: no knee below 64 MiB at stride %d", p.dev.Name, s)
		}
	}
	for hi-lo > grain {
		mid := (lo + hi) / 2 / grain * grain
		if p.perLoad(mid, s) <= p.perLoad(lo, s)+rise {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// line is the smallest stride at footprint f (which the level above does
// not hold) from which every load misses: the time per load stops rising
// when the stride doubles.
func (p *texProber) line(f int64) int64 {
	for s := int64(4); s <= 4096; s *= 2 {
		if math.Abs(p.perLoad(f, 2*s)-p.perLoad(f, s)) <= flat {
			return s
		}
	}
	p.t.Fatalf("%s: the time per load at footprint %d rises up to a stride of 8 KiB", p.dev.Name, f)
	return 0
}

// TestTextureProbe finds each device's texture cache from the simulated
// time per load alone, as the microbenchmark papers did on hardware, and
// checks it against the config: the capacity is the largest footprint
// swept at a 16-byte stride (finer than any line, so every line is used)
// whose loads all hit, to 32 bytes; the line is the smallest stride at
// which, over twice that footprint, every load misses; the fill
// granularity is what a miss reads, the config's sector (its line where
// the cache is not sectored: Fermi's and Maxwell's 128-byte tags hold
// 32-byte sectors). One thread sees the whole of a cache its TPC shares.
// The hit time is texture.hit_latency; a miss that hits the L2 takes the
// interconnect both ways and l2.hit_latency. On g80 and gt200 the
// texture-only L2 is a second plateau: over twice the L1's footprint at
// the L1's line every load misses the L1, and the knee of those loads is
// the L2's capacity (a contiguous footprint spreads over every slice).
func TestTextureProbe(t *testing.T) {
	for _, name := range []string{"g80", "gt200", "fermi", "fermi-m2050", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		p := newTexProber(t, dev)
		capacity := p.knee(1024, 16, 32)
		line := p.line(2 * capacity)
		hit := p.perLoad(capacity/2, line) - p.overhead
		l2hit := p.perLoad(2*capacity, line) - p.overhead
		tx := dev.Texture
		if capacity != int64(tx.Size) || line != int64(tx.Sector) {
			t.Errorf("%s: the probe finds a %v texture cache with %v lines; the config has %v, fetched %v at a time",
				name, arch.Bytes(capacity), arch.Bytes(line), tx.Size, tx.Sector)
		}
		l2Want := float64(2*dev.Interconnect.Latency + dev.L2.HitLatency)
		if math.Abs(hit-float64(tx.HitLatency)) > flat || math.Abs(l2hit-l2Want) > flat {
			t.Errorf("%s: texture hit %.1f, L2 hit %.1f cycles; want the config's %d and 2 × %d + %d = %.0f",
				name, hit, l2hit, tx.HitLatency, dev.Interconnect.Latency, dev.L2.HitLatency, l2Want)
		}
		row := ""
		if dev.L2.TextureOnly {
			l2 := p.knee(2*capacity, line, 32)
			dram := p.perLoad(2*l2, 1024) - p.overhead
			if l2 != int64(dev.L2.Size) {
				t.Errorf("%s: the probe finds a %v texture L2; the config has %v", name, arch.Bytes(l2), dev.L2.Size)
			}
			row = ", texture L2 " + arch.Bytes(l2).String() + ", DRAM ~" + formatCycles(dram) + " (stride 1 KiB)"
		}
		t.Logf("%-11s texture L1 %v (shared by %d SMs), line %v; hit %s, L2 hit %s%s",
			name, arch.Bytes(capacity), tx.SMsPerCache(), arch.Bytes(line), formatCycles(hit), formatCycles(l2hit), row)
	}
}

func formatCycles(c float64) string { return fmt.Sprintf("%.1f cycles", c) }
