package sim_test

import (
	"context"
	"testing"

	"gpumemsim/sim"
	"gpumemsim/traces"
)

// CountBlocks counts only the blocks it is given, and of each only the
// steps it is allowed. transpose-shared at N=64 on fermi (2×2 blocks of
// 32×8 threads, 8 warps): each warp loads four rows of 32 floats of idata
// (four 128-B lines), stores them into a row of tile each (one pass:
// 32 consecutive words), reads four columns of tile (32 words 32 apart,
// all in one of the 32 banks: 32 passes each) and stores four rows of
// odata (four 128-B lines).
func TestCountBlocksByHand(t *testing.T) {
	dev, l := bind(t, "fermi", "transpose-shared", "", "", map[string]int64{"N": 64})
	type want struct{ loads, stores, sharedLoads, sharedLoadPasses, sharedStores int64 }
	check := func(name string, c *sim.Counts, w want) {
		t.Helper()
		got := want{c.Loads.Transactions, c.Stores.Transactions, c.Shared.LoadRequests, c.Shared.LoadTransactions, c.Shared.StoreRequests}
		if got != w || c.Loads.Requests != w.loads || c.Stores.Requests != w.stores || c.Shared.StoreTransactions != w.sharedStores {
			t.Errorf("%s: loads, stores, shared loads, their passes, shared stores = %+v (requests %d, %d; shared store passes %d); want %+v",
				name, got, c.Loads.Requests, c.Stores.Requests, c.Shared.StoreTransactions, w)
		}
	}
	perWarp := want{4, 4, 4, 4 * 32, 4}
	times := func(n int64) want {
		return want{n * perWarp.loads, n * perWarp.stores, n * perWarp.sharedLoads, n * perWarp.sharedLoadPasses, n * perWarp.sharedStores}
	}
	ctx := context.Background()
	c, err := sim.CountBlocks(ctx, dev, l, []int{1, 3}, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	check("blocks 1 and 3 whole", c, times(2*8))

	// The steps of warp 0 of block 2, counted off its cursor here: that
	// many steps stream that warp alone.
	cur := l.NewWarp()
	cur.Reset(2, 0)
	var in traces.WarpInst
	var steps int64
	for cur.NextTo(&in, &in.Addr) {
		steps++
	}
	if c, err = sim.CountBlocks(ctx, dev, l, []int{2}, steps); err != nil {
		t.Fatal(err)
	}
	check("block 2, one warp's steps", c, times(1))
	if c, err = sim.CountBlocks(ctx, dev, l, []int{0, 2}, 3*steps); err != nil {
		t.Fatal(err)
	}
	check("blocks 0 and 2, three warps' steps each", c, times(2*3))
}
