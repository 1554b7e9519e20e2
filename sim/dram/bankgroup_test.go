package dram

import (
	"slices"
	"testing"

	"gpumemsim/arch"
)

// groupDevice is testDevice with two bank groups, as GPGPU-Sim assigns
// them (higher bank bits): banks 0 and 1 form group 0, banks 2 and 3 group
// 1. tCCDL = 3 (GS GTX480 CCDL=3) and tRTPL = 2; column commands to
// different groups stay tCCD = 2 apart.
func groupDevice() *arch.Device {
	d := testDevice(1, arch.SchedFRFCFS)
	d.DRAM.BankGroups = 2
	d.DRAM.Timing.CCDL = 3
	d.DRAM.Timing.RTPL = 2
	return d
}

func TestBankGroupSpacing(t *testing.T) {
	// Rows are opened at cycle 0 by one-burst reads (ACT at 0 and
	// tRRD = 6, columns at tRCD later), and at cycle 100 two 128-B reads
	// (two bursts each) arrive for the open rows, the first for bank 0.
	// Data end tCL + burst = 12 cycles after the column command.
	//
	// Different groups (banks 0 and 2): the bursts alternate, each tCCD
	// after the previous and tCCDL after its group's previous one:
	//	bank 0: 100, 104 (max(100+3, 102+2))  → 116
	//	bank 2: 102, 106                       → 118
	// Same group (banks 0 and 1): every column command is tCCDL after
	// the previous one, and at 103 both banks may go, so the older
	// request (bank 0's) does:
	//	bank 0: 100, 103 → 115
	//	bank 1: 106, 109 → 121
	tests := []struct {
		name  string
		other uint64 // bank of the second stream
		want  []completed
	}{
		{"different groups", 2, []completed{{1, 24}, {2, 30}, {3, 116}, {4, 118}}},
		{"same group", 1, []completed{{1, 24}, {2, 30}, {3, 115}, {4, 121}}},
	}
	for _, tc := range tests {
		pushes := []push{
			{0, read(1, addr(0, 0, 0), 64)}, {0, read(2, addr(tc.other, 0, 0), 64)},
			{100, read(3, addr(0, 0, 128), 128)}, {100, read(4, addr(tc.other, 0, 128), 128)},
		}
		got := simulate(t, newMemory(t, groupDevice()), pushes)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: completions (tag, cycle) = %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestBankGroupStream(t *testing.T) {
	// Eight 128-B reads (16 bursts). Confined to bank 0, one group: ACT
	// at 0, the first column command at tRCD = 12 and every next one
	// tCCDL = 3 later, so the last is at 12 + 15·3 = 57 and its data end
	// at 57 + 12 = 69 (without bank groups: 12 + 15·2 + 12 = 54).
	//
	// Alternating between bank 0 (group 0) and bank 2 (group 1), ACTs at
	// 0 and 6: bank 0's first request takes columns 12 and 15 (tCCDL,
	// the other group not yet open), bank 2's first starts at its tRCD,
	// 18, and from then on bursts of the two groups alternate with only
	// the tCCDL in each group ruling, the oldest request first on ties:
	//	tag 0: 12, 15 → 27	tag 1: 18, 22 → 34
	//	tag 2: 20, 24 → 36	tag 3: 26, 30 → 42
	//	tag 4: 28, 32 → 44	tag 5: 34, 38 → 50
	//	tag 6: 36, 40 → 52	tag 7: 42, 45 → 57
	var one, two []push
	for i := range 8 {
		one = append(one, push{0, read(int64(i), addr(0, 0, uint64(i)*128), 128)})
		two = append(two, push{0, read(int64(i), addr(uint64(2*(i%2)), 0, uint64(i/2)*128), 128)})
	}
	got := simulate(t, newMemory(t, groupDevice()), one)
	if end := got[len(got)-1]; end != (completed{7, 69}) {
		t.Errorf("one-group stream ends with %v; want {7 69}", end)
	}
	got = simulate(t, newMemory(t, groupDevice()), two)
	want := []completed{{0, 27}, {1, 34}, {2, 36}, {3, 42}, {4, 44}, {5, 50}, {6, 52}, {7, 57}}
	if !slices.Equal(got, want) {
		t.Errorf("two-group stream completions = %v; want %v", got, want)
	}
}

func TestBankGroupReadToPrecharge(t *testing.T) {
	// tRTPL holds a precharge in every bank of the read's group, not in
	// another group. With tRTPL = 40 (beyond every other rule), all
	// pushed at cycle 0:
	//
	//	tag 1: bank 0 row 0: ACT 0, column 12 → 24
	//	tag 2: bank 1 row 0 (group 0): ACT 6, column 18 → 30
	//	tag 3: bank 0 row 1: precharge legal at tRAS = 28 but the
	//	       group's last read was at 18: 18 + 40 = 58; ACT 58 + tRP 11
	//	       = 69, column 81 → 93
	// With bank 1 replaced by bank 2 (group 1), tRTPL from bank 0's own
	// read at 12 rules: precharge at max(28, 52) = 52, ACT 63, column
	// 75 → 87.
	for _, tc := range []struct {
		other uint64
		want  int64
	}{{1, 93}, {2, 87}} {
		d := groupDevice()
		d.DRAM.Timing.RTPL = 40
		pushes := []push{
			{0, read(1, addr(0, 0, 0), 64)}, {0, read(2, addr(tc.other, 0, 0), 64)},
			{0, read(3, addr(0, 1, 0), 64)},
		}
		got := simulate(t, newMemory(t, d), pushes)
		if len(got) != 3 || got[2] != (completed{3, tc.want}) {
			t.Errorf("other bank %d: completions = %v; want tag 3 at %d", tc.other, got, tc.want)
		}
	}
}
