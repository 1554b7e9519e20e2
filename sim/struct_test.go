package sim_test

import (
	"context"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// TestVecAddPengLayouts simulates PEN's vector add over struct MyAoS
// {float x, y} on the GTX 480, N = 2^16 in blocks of 256. By the CUDA
// guide's compute capability 2.x rule for loads cached in L1 (one
// 128-byte line per line the warp touches): as an array of structures a
// warp's x (or y) lies in 32 × 8 = 256 bytes of a 256-byte aligned array,
// 2 lines; as a structure of arrays in 32 × 4 = 128 bytes, 1 line. 2048
// warps load x and y and store result (1 transaction each): loads 4096
// requests, 8192 or 4096 transactions.
func TestVecAddPengLayouts(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	for layout, txn := range map[string]int64{"aos": 8192, "soa": 4096} {
		k, err := kernel.Load("vecadd-peng")
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SelectLayout(layout); err != nil {
			t.Fatal(err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{X: 256, Y: 1, Z: 1}, map[string]int64{"N": 1 << 16}, dev)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Run(context.Background(), dev, l, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Loads.Requests != 4096 || r.Loads.Transactions != txn || r.Stores.Transactions != 2048 {
			t.Errorf("%s: loads %d requests, %d transactions, stores %d; want 4096, %d, 2048", layout, r.Loads.Requests, r.Loads.Transactions, r.Stores.Transactions, txn)
		}
	}
}
