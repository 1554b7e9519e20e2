package sim

import (
	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/traces"
	"math"
	"testing"
)

// meanCI against a hand computation: for 1, 2, 3, 4 the mean is 2.5, the
// sample standard deviation sqrt(5/3), and with t(3) = 3.182 the
// half-width 3.182·sqrt(5/3)/2.
func TestMeanCI(t *testing.T) {
	mean, half := meanCI([]float64{1, 2, 3, 4})
	want := 3.182 * math.Sqrt(5.0/3) / 2
	if mean != 2.5 || math.Abs(half-want) > 1e-12 {
		t.Errorf("meanCI(1,2,3,4) = %v ± %v, want 2.5 ± %v", mean, half, want)
	}
	if _, half := meanCI([]float64{7, 7, 7}); half != 0 {
		t.Errorf("equal samples: half-width %v, want 0", half)
	}
	if studentT95(1) != 12.706 || studentT95(10) != 2.228 || studentT95(40) != 1.96 {
		t.Error("studentT95 does not match the table")
	}
}

// The extrapolated counters leave out the launch's shape and what a run
// works out at its end.
func TestCounterFields(t *testing.T) {
	r := &Result{Refs: make([]RefStats, 2)}
	fs := counterFields(r)
	for _, f := range fs {
		switch f {
		case &r.Cycles, &r.Stalls.Idle, &r.L2.DirtySectorsAtEnd, &r.Loads.Requests, &r.Stores.Transactions:
			t.Errorf("counterFields includes a field worked out at the end")
		}
	}
	found := 0
	for _, f := range fs {
		if f == &r.Refs[1].DRAMReadSectors || f == &r.DRAM.RowHits || f == &r.WarpInsts {
			found++
		}
	}
	if found != 3 {
		t.Errorf("counterFields misses per-reference, DRAM or instruction counters (%d of 3 found)", found)
	}
}

// worthCounting's bounds by hand: a loop nest is counted at 2 skipped
// blocks per simulated one, or at any ratio while the skipped blocks hold
// at most 5e7 memory instructions; past both it is extrapolated (Ryoo's
// 4096² matmul on g80: 64,256 of 65,536 blocks skipped, 65,536 memory
// instructions each). A per-thread kernel is never counted.
func TestWorthCounting(t *testing.T) {
	bindOn := func(dev, name string, params map[string]int64) *traces.Launch {
		d, err := configs.Load(dev)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, params, d)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	nest := bindOn("g80", "matmul", map[string]int64{"M": 64, "N": 64, "P": 64})
	perThread := bindOn("kepler", "stencil-shared", nil)
	for _, c := range []struct {
		l              *traces.Launch
		skipped, total int64
		perBlock       float64
		want           bool
	}{
		{nest, 200, 300, 1e6, true},        // 2 per simulated block
		{nest, 201, 300, 1e6, false},       // over 2, 2e8 instructions
		{nest, 201, 300, 2e5, true},        // over 2, but 4e7 instructions
		{nest, 64256, 65536, 65536, false}, // Ryoo's
		{nest, 61800, 65536, 16, true},     // GT200 copy 2^24: 1e6 instructions
		{perThread, 10, 1000, 100, false},  // a per-thread kernel
	} {
		if got := worthCounting(c.l, c.skipped, c.total, c.perBlock); got != c.want {
			t.Errorf("worthCounting(%s, %d of %d blocks, %g each) = %v, want %v", c.l.Kernel.Name, c.skipped, c.total, c.perBlock, got, c.want)
		}
	}
}
