package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"gpumemsim/internal/golden"
)

// runGolden runs the command with args and compares its stdout, and its
// error (as main would print it), with testdata/NAME.stdout and .stderr.
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
