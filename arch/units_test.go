package arch

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
	}{
		{"128B", 128},
		{"48KiB", 48 * 1024},
		{"1.5MiB", 1536 * 1024},
		{"1.25MiB", 1280 * 1024},
		{"2GiB", 2 << 30},
		{"1TiB", 1 << 40},
		{"0.5TiB", 512 << 30},
		{"0B", 0},
		{" 16KiB ", 16384},
	} {
		got, err := ParseBytes(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, wantErr string }{
		{"48KB", "KiB"},
		{"1TB", "TiB"},
		{"1PiB", `want a unit B, KiB, MiB, GiB or TiB, not "PiB"`},
		{"12 bytes", `not "bytes"`},
		{"128", `size "128": want a unit, e.g. 128B`},
		{"99999999999999999999", `size "99999999999999999999": is too large`},
		{"1.5B", "whole number"},
		{"-4KiB", "negative"},
		{"KiB", "missing number"},
		{"abcKiB", "want a number with a unit"},
		{"1.2.3KiB", "not a number"},
		{"", "want a number with a unit"},
	} {
		_, err := ParseBytes(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseBytes(%q) error = %v; want it to mention %q", tc.in, err, tc.wantErr)
		}
	}
}

func TestBytesString(t *testing.T) {
	for _, tc := range []struct {
		in   Bytes
		want string
	}{{128, "128B"}, {49152, "48KiB"}, {1536 * 1024, "1536KiB"}, {2 << 20, "2MiB"}, {3 << 40, "3TiB"}, {100, "100B"}, {0, "0B"}} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Bytes(%d).String() = %q; want %q", int64(tc.in), got, tc.want)
		}
		if back, err := ParseBytes(tc.in.String()); err != nil || back != tc.in {
			t.Errorf("ParseBytes(%q) = %d, %v; want the round trip %d", tc.in.String(), back, err, tc.in)
		}
	}
}

func TestParseHz(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Hz
	}{{"700MHz", 700e6}, {"1.4GHz", 1400e6}, {"337.5MHz", 337500000}, {"924 MHz", 924e6}, {"50kHz", 50000}} {
		got, err := ParseHz(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseHz(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"700", "700mhz", "fastMHz", "0.5Hz"} {
		if _, err := ParseHz(in); err == nil {
			t.Errorf("ParseHz(%q) succeeded; want an error", in)
		}
	}
	if got := Hz(1400e6).String(); got != "1400MHz" {
		t.Errorf("Hz(1.4e9).String() = %q; want 1400MHz", got)
	}
	if got := Hz(337500000).String(); got != "337500kHz" {
		t.Errorf("Hz(337.5e6).String() = %q; want 337500kHz", got)
	}
}

func TestUnitsYAMLPosition(t *testing.T) {
	var v struct {
		Size Bytes `yaml:"size"`
	}
	err := yaml.Unmarshal([]byte("\n\nsize: 48KB\n"), &v)
	pe, ok := err.(*PosError)
	if !ok || pe.Line != 3 || pe.Column != 7 {
		t.Fatalf("error = %#v; want a *PosError at line 3, column 7", err)
	}
}

func TestParseDim3(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Dim3
	}{{"16x16", Dim3{16, 16, 1}}, {"256", Dim3{256, 1, 1}}, {"8x4x2", Dim3{8, 4, 2}}} {
		got, err := ParseDim3(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDim3(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "16x", "0x4", "1x2x3x4", "axb", "-4"} {
		if _, err := ParseDim3(in); err == nil {
			t.Errorf("ParseDim3(%q) succeeded; want an error", in)
		}
	}
}
