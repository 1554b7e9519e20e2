package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/internal/golden"
)

// runGolden runs the command with args and compares its stdout, and its
// error (as main would print it), with testdata/NAME.stdout and .stderr.
// skipUnderRace skips a test that simulates for seconds: under the race
// detector it takes tens (lavamd-peng, a 512³ trace, 32768 sampled
// blocks), and the plain pass checks the same bytes, while cheaper
// goldens (validate-layouts-nbody, jang-validate-matmul-gt200) keep
// RunAll's goroutines under the detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("simulates for tens of seconds under the race detector; the plain pass checks it")
	}
}

func runGolden(t *testing.T, name string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	if err != nil {
		stderr.WriteString("gpumemsim: " + err.Error() + "\n")
	}
	golden.Check(t, filepath.Join("testdata", name+".stdout"), stdout.Bytes())
	golden.Check(t, filepath.Join("testdata", name+".stderr"), stderr.Bytes())
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"devices", []string{"devices"}},
		{"devices-json", []string{"devices", "-format", "json"}},
		{"devices-show-m2050", []string{"devices", "show", "fermi-m2050"}},
		{"devices-show-json", []string{"devices", "show", "gt200", "-format", "json"}},
		{"occupancy-gt200", []string{"occupancy", "-device", "gt200", "-block", "16x16", "-regs", "10"}},
		{"occupancy-m2050-json", []string{"occupancy", "-device", "fermi-m2050", "-block", "512", "-regs", "21", "-format", "json"}},
		{"occupancy-smem", []string{"occupancy", "-device", "fermi", "-block", "128", "-smem", "10KiB"}},
		{"err-no-command", nil},
		{"err-unknown-command", []string{"simulate"}},
		{"err-unknown-device", []string{"occupancy", "-device", "fermy"}},
		{"err-bad-block", []string{"occupancy", "-device", "fermi", "-block", "16x"}},
		{"err-block-too-large", []string{"occupancy", "-device", "gt200", "-block", "32x32"}},
		{"err-too-many-regs", []string{"occupancy", "-device", "fermi", "-block", "256", "-regs", "64"}},
		{"err-occupancy-set-without-kernel", []string{"occupancy", "-set", "N=64"}},
		{"occupancy-kernel-tiled", []string{"occupancy", "-device", "gt200", "-kernel", "matmul-tiled", "-block", "32x16"}},
		{"err-bad-format", []string{"devices", "-format", "xml"}},
		{"err-broken-config", []string{"devices", "show", "../../configs/testdata/broken/unknown-key.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// The JSON forms carry the fields programs rely on.
func TestJSONFields(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"devices", "-format", "json"}, &stdout, &stdout); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, k := range []string{"name", "board", "compute_capability", "sms", "peak_dram_bandwidth_gbps"} {
			if _, ok := r[k]; !ok {
				t.Errorf("devices -format json: row %v lacks %q", r["name"], k)
			}
		}
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"occupancy", "-device", "gt200", "-block", "64", "-regs", "3", "-format", "json"}, &stdout, &stdout); err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	// J14 Table 2, WGS 64: 8 blocks, 16 warps, 50%, limited by max blocks.
	want := map[string]any{"active_blocks_per_sm": 8.0, "active_warps_per_sm": 16.0, "active_threads_per_sm": 512.0, "occupancy": 0.5, "limited_by": "blocks"}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("occupancy -format json: %s = %v; want %v", k, o[k], v)
		}
	}
}

// TestOccupancyKernel: -kernel counts the kernel's registers and its
// __shared__ arrays as they are sized for the block, derived by hand.
func TestOccupancyKernel(t *testing.T) {
	for _, c := range []struct {
		args         []string
		regs, smem   float64
		blocks, warp float64
	}{
		// Ryoo's prefetching matmul: 11 registers, 3·256·11 = 8448 > 8192,
		// so 2 blocks of 8 warps; As and Bs are 16·16·4 B each.
		{[]string{"-device", "g80", "-kernel", "matmul-ryoo-d"}, 11, 2048, 2, 16},
		// J14's tiles at 16(y)x32(x): As 16x16 and Bs 16x32 floats, 1 KiB
		// + 2 KiB; 512 threads, so 1024/512 = 2 blocks on GT200.
		{[]string{"-device", "gt200", "-kernel", "matmul-tiled", "-block", "32x16"}, 0, 3072, 2, 32},
		// -smem adds dynamic shared memory: 2 KiB + 6 KiB on 16 KiB, 2 blocks.
		{[]string{"-device", "g80", "-kernel", "matmul-ryoo-b", "-smem", "6KiB"}, 10, 8192, 2, 16},
	} {
		var stdout bytes.Buffer
		args := append([]string{"occupancy", "-format", "json"}, c.args...)
		if err := run(context.Background(), args, &stdout, &stdout); err != nil {
			t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
		}
		var o map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"registers_per_thread": c.regs, "shared_memory_per_block_bytes": c.smem, "active_blocks_per_sm": c.blocks, "active_warps_per_sm": c.warp}
		for k, v := range want {
			if o[k] != v {
				t.Errorf("gpumemsim %s: %s = %v; want %v", strings.Join(args, " "), k, o[k], v)
			}
		}
	}
}
