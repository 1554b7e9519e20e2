package dram

import (
	"slices"
	"testing"

	"gpumemsim/arch"
)

// gtx480Timing is gtx480 with the core clocked like the DRAM, so that core
// cycles are DRAM cycles and a schedule can be followed by hand.
func gtx480Timing(channels int) *arch.Device {
	d := gtx480(channels)
	d.Clocks.Core = d.Clocks.DRAM
	return d
}

func TestAlternatingStream(t *testing.T) {
	// Groups of read, read, write of 128 B, all to the 16 lines of one
	// open row of one bank, so FR-FCFS serves them strictly in arrival
	// order and the bus turns around twice per group. GTX 480 timing in
	// DRAM cycles: a 128-B request is 2 column commands tCCD = 2 apart
	// (2 bursts of 2 cycles); read to write 12 + 2 + 2 − 4 = 12; write to
	// read 4 + 2 + 5 = 11. A group whose first column command is at s:
	//
	//	reads   s, s+2 and s+4, s+6
	//	write   s+6+12 = s+18, s+20
	//	next    s+20+11 = s+31
	//
	// The ACT is at 0 and the first column at tRCD = 12, so group k starts
	// at 12 + 31k, and the last group's write ends at its column s+20 plus
	// tWL + burst = 6: 12 + 31(G−1) + 26 = 31G + 7. The bus carries 6
	// bursts of 2 cycles per group: efficiency 12G / (31G + 7), 38.7%.
	const groups = 1000
	var pushes []push
	for g := range groups {
		for k, w := range []bool{false, false, true} {
			i := 3*g + k
			pushes = append(pushes, push{0, Request{Addr: uint64(i%16) * 128, Bytes: 128, Write: w, Tag: int64(i)}})
		}
	}
	m := newMemory(t, gtx480Timing(1))
	got := simulate(t, m, pushes)
	if len(got) != len(pushes) {
		t.Fatalf("%d completions; want %d", len(got), len(pushes))
	}
	end := got[len(got)-1].finish
	if want := int64(31*groups + 7); end != want {
		t.Errorf("%d alternating groups end at cycle %d; want %d", groups, end, want)
	}
	// Peak: 8 B × 4 transfers = 32 B per DRAM cycle.
	eff := float64(len(pushes)*128) / float64(32*end)
	if want := 12.0 * groups / (31*groups + 7); eff != want {
		t.Errorf("alternating stream efficiency = %.4f; want %.4f", eff, want)
	}
	if eff >= 0.95 {
		t.Errorf("alternating stream efficiency = %.1f%%; want below 95%%", 100*eff)
	}
	s := m.Stats().Total
	if want := int64(2*groups - 1); s.Turnarounds != want {
		t.Errorf("Turnarounds = %d; want %d (two per group but the first)", s.Turnarounds, want)
	}
	if s.RowMisses != 1 || s.RowHits != int64(len(pushes)-1) {
		t.Errorf("row misses/hits = %d/%d; want 1/%d", s.RowMisses, s.RowHits, len(pushes)-1)
	}
}

func TestDirectionGrouping(t *testing.T) {
	// Reads to bank 0 and writes to bank 1, pushed alternately. Among
	// column commands the first legal goes first, and after a read
	// another read is legal tCCD later but a write only after the
	// read-to-write turnaround, so the reads go first and the bus turns
	// around once (GPGPU-Sim's issue_col_command behaves alike: a write
	// waits while RTWc counts down, a read only for CCDc). testDevice
	// timing: ACTs at 0 (bank 0) and tRRD = 6 (bank 1).
	//
	//	R1 columns 12, 14  data end 14+10+2 = 26
	//	R2 columns 16, 18  data end 30
	//	R3 columns 20, 22  data end 34
	//	W1 columns 22+11 = 33, 35  data end 35+3+2 = 40
	//	W2 columns 37, 39  data end 44
	//	W3 columns 41, 43  data end 48
	pushes := []push{
		{0, read(1, addr(0, 0, 0), 128)}, {0, write(2, addr(1, 0, 0), 128)},
		{0, read(3, addr(0, 0, 128), 128)}, {0, write(4, addr(1, 0, 128), 128)},
		{0, read(5, addr(0, 0, 256), 128)}, {0, write(6, addr(1, 0, 256), 128)},
	}
	m := newMemory(t, testDevice(1, arch.SchedFRFCFS))
	got := simulate(t, m, pushes)
	want := []completed{{1, 26}, {3, 30}, {5, 34}, {2, 40}, {4, 44}, {6, 48}}
	if !slices.Equal(got, want) {
		t.Errorf("completions (tag, cycle) = %v; want %v", got, want)
	}
	if s := m.Stats().Total; s.Turnarounds != 1 {
		t.Errorf("Turnarounds = %d; want 1", s.Turnarounds)
	}
}
