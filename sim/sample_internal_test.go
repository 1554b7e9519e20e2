package sim

import (
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
