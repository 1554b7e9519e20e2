package sim_test

import (
	"context"
	"testing"

	"gpumemsim/sim"
)

// BenchmarkRun reports simulated warp memory instructions (global and
// shared loads and stores) per second of the full hierarchy on one core,
// of those the shared ones, and memory accesses per second: L1 lookups,
// L2 requests and DRAM requests, the work a run's cost follows (a
// transposed store is one warp instruction but 32 L2 requests).
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name, device, kernel, mapping, block string
		params                               map[string]int64
	}{
		{"matmul/fermi", "fermi", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"matmul/kepler", "kepler", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"matmul/gt200", "gt200", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		{"vecadd/fermi", "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 20}},
		// The same product as matmul/fermi, per thread with shared tiles:
		// 16 shared loads per global load.
		{"matmul-tiled/fermi", "fermi", "matmul-tiled", "", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		// The DRAM-bound path: J14's uncoalesced mapping on a device
		// without L1 or L2, 16 transactions per half-warp load.
		{"matmul-uncoalesced/gt200", "gt200", "matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 128, "N": 128, "P": 128}},
		// J14's uncoalesced mapping behind an L1 and an L2: every lane's
		// load a line of its own, the L1's MSHR table full at most misses.
		{"matmul-uncoalesced/fermi", "fermi", "matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		// Ryoo's path: a CC 1.0 half-warp reading one address (A's row
		// element) makes 16 transactions, all to DRAM, on a device
		// without caches.
		{"matmul/g80", "g80", "matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 128, "N": 128, "P": 128}},
		// The stall-bound path: uncoalesced stores saturate the L2 and
		// DRAM while the load/store units wait.
		{"transpose/fermi", "fermi", "transpose", "", "", map[string]int64{"N": 1024}},
		// Each lane a row of a 16-MiB matrix: the L2's MSHR tables stay
		// full and the accesses waiting for an entry queue at the slices
		// (177,761 of them).
		{"matvec/maxwell", "maxwell", "matvec", "", "", map[string]int64{"N": 2048}},
		// A tiled per-thread kernel on CC 1.3: shared tiles under the
		// half-warp bank rule, loose round robin.
		{"matmul-tiled/gt200", "gt200", "matmul-tiled", "", "16x16", map[string]int64{"M": 256, "N": 256, "P": 256}},
		// A per-thread kernel whose time is its interpreter's: Ryoo's
		// naive matmul, two pointers walked by a loop.
		{"matmul-ryoo-a/maxwell", "maxwell", "matmul-ryoo-a", "", "", map[string]int64{"W": 256}},
		// The same instructions and transactions with many warps resident
		// and with few: Ryoo's shared-tile matmul, its 256 blocks all
		// resident on a100 (2,048 warps; 108 SMs), 104 at a time on kepler
		// (832 warps): a100 runs it about twice as slow (the estimate's
		// term per resident warp, threadCrowd in cmd/gpumemsim/rates.go).
		{"matmul-ryoo-b/a100", "a100", "matmul-ryoo-b", "", "", map[string]int64{"W": 256}},
		{"matmul-ryoo-b/kepler", "kepler", "matmul-ryoo-b", "", "", map[string]int64{"W": 256}},
		// The texture path: Rodinia's k-means reading its features
		// row-major, every lane of a fetch a 32-byte line of its own.
		// G80's texture caches hit 1% of the lookups, and the L2 that
		// caches textures keeps 604 K of its 648 K reads waiting for an
		// MSHR entry, tried again at the fills. At its own size on g80 it
		// takes 15 times the time run estimates (cmd/gpumemsim/rates.go),
		// the widest miss of the estimate.
		{"kmeans-rodinia-row/g80", "g80", "kmeans-rodinia-row", "", "", map[string]int64{"np": 8192, "bpd": 6, "nf": 16}},
		// The constant path: MRI-Q's samples read at a uniform index, one
		// address a warp; and a 2-D texture of a 16-wide block, two rows
		// of texels a warp, block-linear.
		{"mri-q/fermi", "fermi", "mri-q", "", "", map[string]int64{"NX": 8192, "NK": 512}},
		{"convolution-tex2d/fermi", "fermi", "convolution-tex2d", "", "", map[string]int64{"imageW": 512, "imageH": 512}},
		// Shared tiles read in ways that conflict: a 32 × 32 tile down
		// its columns (32-way on CC 2.x, the stride rule), and an 18-wide
		// tile's two rows a warp (two-way where they share banks).
		{"transpose-shared/fermi", "fermi", "transpose-shared", "", "", map[string]int64{"N": 1024}},
		{"stencil-shared/fermi", "fermi", "stencil-shared", "", "", map[string]int64{"N": 1024}},
		// A reduction tree: tid < s and sdata[tid + s], uniform values
		// against and beside the thread index.
		{"reduce-sequential/fermi", "fermi", "reduce-sequential", "", "", map[string]int64{"N": 1 << 20}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dev, l := bind(b, bc.device, bc.kernel, bc.mapping, bc.block, bc.params)
			b.ReportAllocs()
			var insts, shared, accesses int64
			for b.Loop() {
				r, err := sim.Run(context.Background(), dev, l, sim.Options{})
				if err != nil {
					b.Fatal(err)
				}
				insts += r.MemInsts
				shared += r.Shared.LoadRequests + r.Shared.StoreRequests
				accesses += memoryAccesses(r)
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "warp-mem-insts/s")
			if shared > 0 {
				b.ReportMetric(float64(shared)/b.Elapsed().Seconds(), "shared-insts/s")
			}
			b.ReportMetric(float64(accesses)/b.Elapsed().Seconds(), "mem-accesses/s")
		})
	}
}

// memoryAccesses is the lookups and requests r's memory units served: L1
// lookups, L2 read and write requests, DRAM reads and writes.
func memoryAccesses(r *sim.Result) int64 {
	return r.L1.Accesses + r.L2.ReadRequests + r.L2.WriteRequests + r.DRAM.Reads + r.DRAM.Writes
}
