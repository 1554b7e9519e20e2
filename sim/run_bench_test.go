package sim_test

import (
	"context"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

func bindBench(b *testing.B, device, kernel, mapping, block string, params map[string]int64) (*arch.Device, *traces.Launch) {
	b.Helper()
	dev, err := configs.Load(device)
	if err != nil {
		b.Fatal(err)
	}
	k, err := traces.LoadKernel(kernel)
	if err != nil {
		b.Fatal(err)
	}
	var m traces.Mapping
	if mapping != "" {
		if m, err = traces.ParseMapping(mapping); err != nil {
			b.Fatal(err)
		}
	}
	var blk arch.Dim3
	if block != "" {
		if blk, err = arch.ParseDim3(block); err != nil {
			b.Fatal(err)
		}
	}
	l, err := traces.Bind(k, m, blk, params, dev)
	if err != nil {
		b.Fatal(err)
	}
	return dev, l
}

// BenchmarkRun reports simulated warp memory instructions per second of
// the full hierarchy on one core.
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name, device, kernel, mapping, block string
		params                               map[string]int64
	}{
		{"matmul/fermi", "fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"matmul/kepler", "kepler", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"matmul/gt200", "gt200", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"vecadd/fermi", "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 20}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dev, l := bindBench(b, bc.device, bc.kernel, bc.mapping, bc.block, bc.params)
			b.ReportAllocs()
			var insts int64
			for b.Loop() {
				r, err := sim.Run(context.Background(), dev, l, sim.Options{})
				if err != nil {
					b.Fatal(err)
				}
				insts += r.MemInsts
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "warp-mem-insts/s")
		})
	}
}
