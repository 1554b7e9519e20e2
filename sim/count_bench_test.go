package sim_test

import (
	"context"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// coalesceLaunch streams every warp instruction of l through co with a
// reused cursor, the work of sim.Count without its bookkeeping, and
// returns the memory instructions and transactions.
func coalesceLaunch(l *traces.Launch, co *sim.Coalescer, cur *traces.WarpCursor, in *traces.WarpInst) (insts, txns int64) {
	for b := range l.Blocks() {
		for w := range l.WarpsPerBlock() {
			cur.Start(l, b, w)
			for cur.Next(in) {
				if in.Op == traces.OpCompute {
					continue
				}
				_, t := co.Coalesce(in)
				insts++
				txns += int64(len(t))
			}
		}
	}
	return insts, txns
}

// countBenches are the kernels of the trace benchmarks, small enough for
// one iteration to take well under a second.
var countBenches = []struct {
	name, kernel string
	params       map[string]int64
}{
	{"matmul", "matmul", map[string]int64{"M": 256, "N": 256, "P": 256}}, // 2^20 memory instructions
	{"vecadd", "vecadd", map[string]int64{"N": 1 << 20}},                 // 3·2^15
	{"transpose", "transpose", map[string]int64{"N": 1024}},              // 2^16
}

// BenchmarkTraceCoalesce measures trace generation plus coalescing on one
// core (fermi's rule), in memory warp instructions per second. Each
// iteration is a whole kernel through one reused cursor and coalescer, so
// allocs/op is the allocations of that many warp instructions: 0.
func BenchmarkTraceCoalesce(b *testing.B) {
	for _, bc := range countBenches {
		b.Run(bc.name, func(b *testing.B) {
			dev, l := bind(b, "fermi", bc.kernel, "", "", bc.params)
			co, err := sim.NewCoalescer(dev)
			if err != nil {
				b.Fatal(err)
			}
			var cur traces.WarpCursor
			var in traces.WarpInst
			coalesceLaunch(l, co, &cur, &in) // the cursor's first Reset sizes it
			b.ReportAllocs()
			var insts int64
			for b.Loop() {
				n, _ := coalesceLaunch(l, co, &cur, &in)
				insts += n
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "warp-insts/s")
		})
	}
}

// BenchmarkCount measures sim.Count itself (trace, coalescing and the
// per-reference counts, one block of each block class), which allocates a
// handful of objects per kernel and per class met and none per warp
// instruction.
func BenchmarkCount(b *testing.B) {
	benchCount(b, func(dev *arch.Device, l *traces.Launch) (*sim.Counts, error) {
		return sim.Count(context.Background(), dev, l, nil)
	})
}

// BenchmarkCountEveryBlock measures what Count costs per warp
// instruction it streams through the cursor (trace, coalescing by shape
// and the per-reference counts), block by block: the cost of the blocks
// that no class stands for, which sampling's bounds on counting are of.
// BenchmarkCount counts these kernels through their block classes, a
// few blocks each.
func BenchmarkCountEveryBlock(b *testing.B) {
	benchCount(b, sim.CountEveryBlock)
}

// benchCount runs count over countBenches on fermi and reports the memory
// warp instructions counted per second.
func benchCount(b *testing.B, count func(*arch.Device, *traces.Launch) (*sim.Counts, error)) {
	for _, bc := range countBenches {
		b.Run(bc.name, func(b *testing.B) {
			dev, l := bind(b, "fermi", bc.kernel, "", "", bc.params)
			b.ReportAllocs()
			var insts int64
			for b.Loop() {
				c, err := count(dev, l)
				if err != nil {
					b.Fatal(err)
				}
				for i := range c.Refs {
					insts += c.Refs[i].Requests
				}
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "warp-insts/s")
		})
	}
}

// sim.Count allocates per kernel and per block class, never per block or
// warp instruction: matmul at n = 32 and n = 64 (8 times the
// instructions, 4 times the blocks, the same two classes) make the same
// number of allocations, counted through the classes or block by block,
// and the reused trace-and-coalesce loop makes none.
func TestCountAllocs(t *testing.T) {
	allocs := func(n int64) (count, loop float64) {
		dev, l := bind(t, "fermi", "matmul", "", "", map[string]int64{"M": n, "N": n, "P": n})
		count = testing.AllocsPerRun(3, func() {
			if _, err := sim.Count(context.Background(), dev, l, nil); err != nil {
				t.Fatal(err)
			}
		})
		count += 1000 * testing.AllocsPerRun(3, func() {
			if _, err := sim.CountEveryBlock(dev, l); err != nil {
				t.Fatal(err)
			}
		})
		co, err := sim.NewCoalescer(dev)
		if err != nil {
			t.Fatal(err)
		}
		var cur traces.WarpCursor
		var in traces.WarpInst
		loop = testing.AllocsPerRun(3, func() { coalesceLaunch(l, co, &cur, &in) })
		return count, loop
	}
	small, smallLoop := allocs(32) // 2·32³/32 = 2048 memory instructions
	large, largeLoop := allocs(64) // 16384
	if small != large {
		t.Errorf("sim.Count allocations (through classes + 1000 × block by block): %g for matmul n=32, %g for n=64; want equal (none per block or warp instruction)", small, large)
	}
	if smallLoop != 0 || largeLoop != 0 {
		t.Errorf("trace and coalesce with a reused cursor: %g and %g allocations per kernel; want 0", smallLoop, largeLoop)
	}
}

// BenchmarkCountBlocks measures the sample a per-thread kernel's time
// estimate counts before a run (cmd/gpumemsim's threadCounts: 16 blocks
// spread over the grid, 4,096 cursor steps each), on shipped examples at
// their own sizes: the constant passes of mri-q-k-outer, the struct
// gathers of lavamd-peng, the rays of siddon (set up by the cursor) and
// the shared tiles of matmul-tiled. Each run is a user's wait.
func BenchmarkCountBlocks(b *testing.B) {
	for _, bc := range []struct{ name, device, kernel string }{
		{"mri-q-k-outer/fermi", "fermi", "mri-q-k-outer"},
		{"lavamd-peng/g80", "g80", "lavamd-peng"},
		{"siddon/fermi", "fermi", "siddon"},
		{"matmul-tiled/gt200", "gt200", "matmul-tiled"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dev, l := bind(b, bc.device, bc.kernel, "", "", nil)
			blocks := traces.SampleBlocks(l.Blocks(), 16)
			for b.Loop() {
				if _, err := sim.CountBlocks(context.Background(), dev, l, blocks, 4096); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
