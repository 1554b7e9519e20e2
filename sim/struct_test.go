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
		l := bindLayout(t, dev, "vecadd-peng", layout, "256", map[string]int64{"N": 1 << 16})
		r, err := sim.Run(context.Background(), dev, l, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Loads.Requests != 4096 || r.Loads.Transactions != txn || r.Stores.Transactions != 2048 {
			t.Errorf("%s: loads %d requests, %d transactions, stores %d; want 4096, %d, 2048", layout, r.Loads.Requests, r.Loads.Transactions, r.Stores.Transactions, txn)
		}
	}
}

// TestNNLayouts simulates Rodinia's nn (Che's Nearest Neighbor, phase
// 1) over struct latLong {float lat, lng} on the GTX 480, 65536 records
// in blocks of 256: 2048 full warps, each reading lat and lng once and
// storing one distance. By the compute capability 2.x rule for loads
// cached in L1 (one 128-byte transaction per line the warp touches),
// as an array of structures a warp's 32 lat reads are 8 bytes apart in
// a 256-byte aligned span, 2 lines, and so are its lng reads; as a
// structure of arrays each field is 32 consecutive floats, 128 bytes
// of one line. The store is 32 consecutive floats: 1 transaction.
func TestNNLayouts(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	const warps = 65536 / 32
	for layout, perWarp := range map[string]int64{"aos": 2, "soa": 1} {
		l := bindLayout(t, dev, "nn", layout, "", nil)
		if g := l.Grid(); g != (arch.Dim3{X: 256, Y: 1, Z: 1}) {
			t.Errorf("%s: grid %s; want 256 blocks of 256 (65536 records, one row: fewer than 65535 blocks)", layout, g)
		}
		r, err := sim.Run(context.Background(), dev, l, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range r.Refs {
			want := perWarp
			if ref.Op == "store" {
				want = 1
			}
			if ref.Requests != warps || ref.Transactions != want*warps {
				t.Errorf("%s: %s %s: %d requests, %d transactions; want %d, %d (%d per warp)", layout, ref.Op, ref.Ref, ref.Requests, ref.Transactions, warps, want*warps, want)
			}
		}
		if len(r.Refs) != 3 {
			t.Errorf("%s: %d references; want lat, lng and the distance", layout, len(r.Refs))
		}
	}
}

// TestNNGridRows: nn_cuda.cu splits the blocks into rows of at most
// 65535 (gridY = ceil(blocks/65535), gridX = ceil(blocks/gridY)).
// 65535·256 + 1 records need 65536 blocks: 2 rows of 32768.
func TestNNGridRows(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load("nn")
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"numRecords": 65535*256 + 1}, dev)
	if err != nil {
		t.Fatal(err)
	}
	if g := l.Grid(); g != (arch.Dim3{X: 32768, Y: 2, Z: 1}) {
		t.Errorf("grid %s; want 32768x2", g)
	}
}
