package sim

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/sim/dram"
)

// TestCountsAdd subtracts one set of DRAM counters from another, every
// field written out by hand, so that a field the plan missed shows.
func TestCountsAdd(t *testing.T) {
	s := dram.ChannelStats{Reads: 100, Writes: 90, ReadBytes: 80, WriteBytes: 70, ReadSectors: 60, WriteSectors: 50,
		Completed: 40, RowHits: 30, RowMisses: 20, RowConflicts: 10, Activates: 9, Precharges: 8,
		BusBusyTransfers: 7, Turnarounds: 6, QueueFull: 5}
	o := dram.ChannelStats{Reads: 1, Writes: 2, ReadBytes: 3, WriteBytes: 4, ReadSectors: 5, WriteSectors: 6,
		Completed: 7, RowHits: 8, RowMisses: 9, RowConflicts: 10, Activates: 1, Precharges: 2,
		BusBusyTransfers: 3, Turnarounds: 4, QueueFull: 5}
	want := dram.ChannelStats{Reads: 99, Writes: 88, ReadBytes: 77, WriteBytes: 66, ReadSectors: 55, WriteSectors: 44,
		Completed: 33, RowHits: 22, RowMisses: 11, RowConflicts: 0, Activates: 8, Precharges: 6,
		BusBusyTransfers: 4, Turnarounds: 2, QueueFull: 0}
	channelCounts.add(&s, &o, -1)
	if s != want {
		t.Errorf("after subtracting: %+v\nwant %+v", s, want)
	}
	if len(channelCounts) != 15 {
		t.Errorf("%d DRAM counters; the struct has 15", len(channelCounts))
	}
}

// TestLaunchCountsSkip adds a launch's result to another: the counts add
// up, the launch's shape and the dirty data it left do not, and the
// references are left to runRefs.
func TestLaunchCountsSkip(t *testing.T) {
	a := Result{Cycles: 10, Block: arch.Dim3{X: 16, Y: 1, Z: 1}, Refs: []RefStats{{Ref: "A"}}}
	a.L2.DirtySectorsAtEnd, a.L2.ReadRequests, a.DRAM.Reads = 3, 4, 5
	a.Refs[0].Requests = 6
	b := a
	b.Refs = []RefStats{{Ref: "A"}}
	b.Refs[0].Requests = 6
	launchCounts.add(&a, &b, 1)
	if a.Cycles != 20 || a.L2.ReadRequests != 8 || a.DRAM.Reads != 10 {
		t.Errorf("cycles, L2 reads, DRAM reads %d, %d, %d; want 20, 8, 10", a.Cycles, a.L2.ReadRequests, a.DRAM.Reads)
	}
	if a.Block.X != 16 || a.L2.DirtySectorsAtEnd != 3 || a.Refs[0].Requests != 6 {
		t.Errorf("block %v, dirty sectors %d, reference requests %d changed; want 16, 3, 6", a.Block, a.L2.DirtySectorsAtEnd, a.Refs[0].Requests)
	}
	defer func() {
		if recover() == nil {
			t.Error("counts of a Result with its references did not refuse the slice")
		}
	}()
	countsOf[Result](nil)
}
