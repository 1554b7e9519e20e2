package configs

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/internal/golden"
)

func mustLoad(t *testing.T, name string) *arch.Device {
	t.Helper()
	d, err := Load(name)
	if err != nil {
		t.Fatalf("Load(%q): %v", name, err)
	}
	return d
}

func TestShippedConfigsLoad(t *testing.T) {
	want := []string{"a100", "fermi", "fermi-l1-48k", "fermi-m2050", "g80", "gt200", "kepler", "maxwell"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v; want %v", got, want)
	}
	for _, name := range want {
		d := mustLoad(t, name)
		if d.Name != name {
			t.Errorf("%s: name field is %q", name, d.Name)
		}
		if len(d.Sources) == 0 {
			t.Errorf("%s: no sources listed", name)
		}
	}
}

// Peak DRAM bandwidth from each config, against the board's specification
// (hardware.md §1; RYO for the 8800 GTX), within 1%.
func TestPeakDRAMBandwidth(t *testing.T) {
	for _, tc := range []struct {
		name string
		gbps float64
	}{
		{"g80", 86.4},           // GeForce 8800 GTX
		{"gt200", 159.0},        // GeForce GTX 285
		{"fermi", 177.4},        // GeForce GTX 480
		{"fermi-l1-48k", 177.4}, // same board
		{"fermi-m2050", 148.4},  // Tesla M2050
		{"kepler", 208},         // Tesla K20c
		{"maxwell", 224},        // GeForce GTX 980
		{"a100", 1555},          // A100-SXM4-40GB (A100 whitepaper: 1555 GB/s)
	} {
		got := mustLoad(t, tc.name).PeakDRAMBandwidth() / 1e9
		if math.Abs(got-tc.gbps)/tc.gbps > 0.01 {
			t.Errorf("%s: PeakDRAMBandwidth() = %.2f GB/s; want %.1f GB/s ± 1%%", tc.name, got, tc.gbps)
		}
	}
}

type occRow struct {
	threads int
	blocks  int
	occPct  float64 // 0: the table has no occupancy column
}

func checkOccupancy(t *testing.T, d *arch.Device, table string, block arch.Dim3, regs int, r occRow) {
	t.Helper()
	o, err := d.Occupancy(block, regs, 0)
	if err != nil {
		t.Errorf("%s on %s, block %v, %d regs: %v", table, d.Name, block, regs, err)
		return
	}
	if o.ActiveBlocks != r.blocks {
		t.Errorf("%s on %s: block %v with %d regs gives %d active blocks; want %d", table, d.Name, block, regs, o.ActiveBlocks, r.blocks)
	}
	if r.occPct != 0 && math.Abs(100*o.Occupancy-r.occPct) > 1e-9 {
		t.Errorf("%s on %s: block %v with %d regs gives occupancy %.4g%%; want %g%%", table, d.Name, block, regs, 100*o.Occupancy, r.occPct)
	}
}

// J14 Tables 1, 2, 4 and 5 (models.md §1.1.5, §2): AWG and OC columns on
// the GTX 285. Every row is listed; 2-D shapes are ty×tx in the paper.
func TestJ14Occupancy(t *testing.T) {
	d := mustLoad(t, "gt200")
	shape := func(ty, tx int) arch.Dim3 { return arch.Dim3{X: tx, Y: ty, Z: 1} }

	// Table 1 (matmul, tiled, mapping β): AWG only; the register count is
	// not printed, and its AWG values imply at most 16 (models.md §2).
	for _, r := range []struct{ ty, tx, awg int }{
		{2, 256, 2}, {4, 128, 2}, {8, 64, 2}, {16, 32, 2}, {32, 16, 2},
		{2, 128, 4}, {4, 64, 4}, {8, 32, 4}, {16, 16, 4},
		{2, 64, 8}, {4, 32, 8}, {8, 16, 8},
	} {
		checkOccupancy(t, d, "J14 Table 1", shape(r.ty, r.tx), 16, occRow{blocks: r.awg})
	}
	// Table 2 (vector add, 3 registers).
	for _, r := range []occRow{{512, 2, 100}, {256, 4, 100}, {128, 8, 100}, {64, 8, 50}, {32, 8, 25}, {16, 8, 25}} {
		checkOccupancy(t, d, "J14 Table 2", arch.Dim3{X: r.threads, Y: 1, Z: 1}, 3, r)
	}
	// Table 4 (radiological path, 28 registers).
	for _, r := range []struct {
		ty, tx, awg int
		oc          float64
	}{
		{2, 128, 2, 50}, {4, 64, 2, 50}, {8, 32, 2, 50}, {16, 16, 2, 50},
		{2, 64, 4, 50}, {4, 32, 4, 50}, {8, 16, 4, 50},
		{2, 32, 8, 50}, {4, 16, 8, 50}, {2, 16, 8, 25},
	} {
		checkOccupancy(t, d, "J14 Table 4", shape(r.ty, r.tx), 28, occRow{blocks: r.awg, occPct: r.oc})
	}
	// Table 5 (SURF non-max suppression, 15 registers).
	for _, r := range []struct {
		ty, tx, awg int
		oc          float64
	}{
		{2, 256, 2, 100}, {4, 128, 2, 100}, {8, 64, 2, 100}, {16, 32, 2, 100}, {32, 16, 2, 100},
		{2, 128, 4, 100}, {4, 64, 4, 100}, {8, 32, 4, 100}, {16, 16, 4, 100},
		{2, 64, 8, 100}, {4, 32, 8, 100}, {8, 16, 8, 100},
		{2, 32, 8, 50}, {4, 16, 8, 50}, {2, 16, 8, 25},
	} {
		checkOccupancy(t, d, "J14 Table 5", shape(r.ty, r.tx), 15, occRow{blocks: r.awg, occPct: r.oc})
	}
}

// A100 against the CC 8.0 limits (PG-8x; 255 registers, per-warp
// allocation in units of 256, shared memory in units of 128 bytes), worked
// by hand: the sm_80 vectorAdd trace's 256 threads with 12 registers fill
// the SM's 64 warps with 8 blocks; 64 registers allow 32 warps; 32 blocks
// of 64 threads are the block limit (50%); 48 KiB of shared memory a
// block leaves 3 blocks in 164 KiB.
func TestA100Occupancy(t *testing.T) {
	d := mustLoad(t, "a100")
	for _, r := range []struct {
		threads, regs int
		smem          arch.Bytes
		blocks        int
		pct           float64
	}{
		{256, 12, 0, 8, 100}, {1024, 64, 0, 1, 50}, {64, 16, 0, 32, 100}, {32, 16, 0, 32, 50},
		{256, 32, 48 * arch.KiB, 3, 37.5}, {128, 255, 0, 2, 12.5},
	} {
		o, err := d.Occupancy(arch.Dim3{X: r.threads, Y: 1, Z: 1}, r.regs, r.smem)
		if err != nil || o.ActiveBlocks != r.blocks || 100*o.Occupancy != r.pct {
			t.Errorf("a100: block %d, %d registers, %v shared: %d blocks, %.4g%%, %v; want %d, %g%%", r.threads, r.regs, r.smem, o.ActiveBlocks, 100*o.Occupancy, err, r.blocks, r.pct)
		}
	}
}

// Ryoo et al. (models.md §1.3): 16×16 matmul blocks on the 8800 GTX.
func TestRyooOccupancy(t *testing.T) {
	d := mustLoad(t, "g80")
	block := arch.Dim3{X: 16, Y: 16, Z: 1}
	checkOccupancy(t, d, "RYO", block, 10, occRow{blocks: 3}) // 768 threads
	checkOccupancy(t, d, "RYO", block, 11, occRow{blocks: 2}) // 3·256·11 = 8448 > 8192
	o, _ := d.Occupancy(block, 10, 0)
	if o.ActiveThreads != 768 {
		t.Errorf("RYO: 3 blocks of 16×16 give %d threads; want 768", o.ActiveThreads)
	}
}

// Peng et al.'s blocks-per-SM examples (models.md §1.4). The calculator
// rounds registers per warp up to the allocation unit; Peng's formula does
// not, which changes one case: 512 threads × 21 registers on the M2050 is
// 2 blocks here (672 → 704 registers per warp, 32768/704 = 46 warps, 46/16
// = 2) and 3 in Peng's formula (32768/21/512 = 3).
func TestPengBlocksPerSM(t *testing.T) {
	m2050 := mustLoad(t, "fermi-m2050")
	for _, r := range []struct{ threads, regs, blocks int }{
		{256, 20, 6}, {256, 32, 4}, {128, 63, 4}, {512, 21, 2},
	} {
		checkOccupancy(t, m2050, "PEN", arch.Dim3{X: r.threads, Y: 1, Z: 1}, r.regs, occRow{blocks: r.blocks})
	}
	k20 := mustLoad(t, "kepler")
	for _, r := range []struct{ threads, regs, blocks int }{
		{256, 20, 8}, {256, 32, 8}, {512, 21, 4}, {1024, 32, 2},
	} {
		checkOccupancy(t, k20, "PEN", arch.Dim3{X: r.threads, Y: 1, Z: 1}, r.regs, occRow{blocks: r.blocks})
	}
}

func TestBases(t *testing.T) {
	fermi := mustLoad(t, "fermi")
	m2050 := mustLoad(t, "fermi-m2050")
	if m2050.SMs != 14 || m2050.Board != "Tesla M2050" {
		t.Errorf("fermi-m2050: %d SMs, board %q; want 14, Tesla M2050", m2050.SMs, m2050.Board)
	}
	if m2050.L1 != fermi.L1 || m2050.L2 != fermi.L2 || m2050.SM != fermi.SM {
		t.Errorf("fermi-m2050 does not inherit fermi's L1, L2 and SM limits")
	}
	l1 := mustLoad(t, "fermi-l1-48k")
	if l1.L1.Size != 48*arch.KiB || l1.L1.Sets() != 64 || l1.SM.SharedMemory != 16*arch.KiB {
		t.Errorf("fermi-l1-48k: L1 %v with %d sets, shared %v; want 48KiB, 64 sets, 16KiB", l1.L1.Size, l1.L1.Sets(), l1.SM.SharedMemory)
	}
	if l1.L1.Line != fermi.L1.Line || l1.L1.HitLatency != fermi.L1.HitLatency {
		t.Errorf("fermi-l1-48k does not inherit the rest of fermi's L1")
	}
}

func TestUserFileWithBase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	body := "base: fermi\nname: mine\nsms: 4\nl2:\n  hit_latency: 99\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	d := mustLoad(t, path)
	fermi := mustLoad(t, "fermi")
	if d.Name != "mine" || d.SMs != 4 || d.L2.HitLatency != 99 || d.L2.Size != fermi.L2.Size {
		t.Errorf("user file: name %q, %d SMs, L2 latency %d, L2 %v; want mine, 4, 99 and fermi's L2 size %v",
			d.Name, d.SMs, d.L2.HitLatency, d.L2.Size, fermi.L2.Size)
	}
	// A base given as a path is relative to the file that names it.
	child := filepath.Join(dir, "child.yaml")
	if err := os.WriteFile(child, []byte("base: mine.yaml\nname: child\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := mustLoad(t, child); d.SMs != 4 || d.Name != "child" {
		t.Errorf("child of a user file: %d SMs, name %q; want 4, child", d.SMs, d.Name)
	}
}

// The broken configs in testdata/broken each have a golden message; the
// messages must name the file and the line.
func TestBrokenConfigs(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no broken configs in testdata/broken: %v", err)
	}
	for _, f := range files {
		_, err := Load(f)
		if err == nil {
			t.Errorf("Load(%s) succeeded; want an error", f)
			continue
		}
		got := err.Error() + "\n"
		golden.Check(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(got))
		if !strings.Contains(got, f+":") && !strings.Contains(got, "configs/") {
			t.Errorf("Load(%s) error does not name a file: %s", f, got)
		}
	}
}

func TestUnknownDevice(t *testing.T) {
	_, err := Load("fermy")
	if err == nil || !strings.Contains(err.Error(), `unknown device "fermy"`) || !strings.Contains(err.Error(), "fermi") {
		t.Errorf("Load(fermy) error = %v; want it to name the known devices", err)
	}
	_, err = Load("/nonexistent/dev.yaml")
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load of a missing file: error = %v", err)
	}
}

// TestFileSizeLimit: a config file of more than MaxFileSize bytes, or an
// endless one, is refused after reading at most one byte past the limit.
func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	// A valid config padded with a comment to exactly the limit loads;
	// one byte more is refused.
	base := "base: fermi\nname: padded\n#"
	pad := strings.Repeat("x", MaxFileSize-len(base)-1) + "\n"
	ok := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(ok, []byte(base+pad), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Load(ok); err != nil || d.Name != "padded" {
		t.Errorf("Load(a file of exactly %d bytes) = %v, %v; want the device", MaxFileSize, d, err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(base+"x"+pad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{big, "/dev/zero"} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		_, err := Load(f)
		if err == nil || !strings.Contains(err.Error(), f+": larger than 1048576 bytes") {
			t.Errorf("Load(%s) error = %v; want it to name the file and the 1 MiB limit", f, err)
		}
	}
}
