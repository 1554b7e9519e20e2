package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/internal/golden"
)

// TestKernelErrors loads each bad kernel in testdata and compares the error
// with testdata/NAME.err. The positions are also checked against a table
// counted by hand from the files.
func TestKernelErrors(t *testing.T) {
	pos := map[string]string{ // file line:col, counted by hand
		"syntax":           "6:26", // the { where ) belongs
		"unknown-array":    "7:12", // D
		"wrong-indices":    "8:12", // A
		"nonaffine":        "9:17", // the * of i*j
		"unknown-loop":     "8:18", // k
		"mapped-twice":     "11:3", // second i
		"one-axis":         "9:21", // second tx
		"unknown-type":     "4:13", // f16
		"bad-dims":         "4:30", // Q
		"unknown-key":      "9:1",  // blocks
		"duplicate-key":    "5:3",  // second A
		"wrong-type":       "2:13", // sixty-four
		"nonaffine-bound":  "7:22", // the * of i*i
		"mapped-bound":     "9:11", // j
		"unknown-function": "9:12", // tanh
		"bad-block":        "8:13", // 0
		"unsupported":      "7:5",  // if
	}
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(pos) {
		t.Errorf("%d bad kernels in testdata, %d in the position table", len(files), len(pos))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseKernel(f, data)
			if err == nil {
				t.Fatalf("ParseKernel(%s) succeeded; want an error", f)
			}
			got := err.Error() + "\n"
			if want := f + ":" + pos[name] + ": "; !strings.HasPrefix(got, want) {
				t.Errorf("ParseKernel(%s) = %q; want the position %s", f, got, want)
			}
			if !strings.Contains(got, "hint: ") && name != "bad-block" {
				t.Errorf("ParseKernel(%s) = %q; want a hint", f, got)
			}
			golden.Check(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(got))
		})
	}
}

// TestBindErrors checks errors of mappings, blocks and params given at
// bind time (the -map, -block, -set flags).
func TestBindErrors(t *testing.T) {
	dev := &arch.Device{Name: "testdev", SM: arch.SMLimits{MaxThreadsPerBlock: 512, MaxBlockDim: arch.Dim3{X: 512, Y: 512, Z: 64}}}
	k, err := LoadKernel("matmul")
	if err != nil {
		t.Fatal(err)
	}
	mustMap := func(s string) Mapping {
		m, err := ParseMapping(s)
		if err != nil {
			t.Fatalf("ParseMapping(%q): %v", s, err)
		}
		return m
	}
	cases := []struct {
		name   string
		m      Mapping
		block  arch.Dim3
		params map[string]int64
		want   string
	}{
		{"unknown loop", mustMap("i1=ty,i9=tx"), arch.Dim3{}, nil, "unknown loop i9"},
		{"mapped twice", Mapping{{"i1", AxisX}, {"i1", AxisY}}, arch.Dim3{}, nil, "loop i1 mapped twice"},
		{"one axis", Mapping{{"i1", AxisX}, {"i2", AxisX}}, arch.Dim3{}, nil, "both mapped to tx"},
		{"too many threads", nil, arch.Dim3{X: 32, Y: 32, Z: 1}, nil, "1024 threads; testdev runs at most 512"},
		{"block extent", nil, arch.Dim3{X: 1, Y: 1, Z: 128}, nil, "exceeds the largest block extents"},
		{"unknown param", nil, arch.Dim3{}, map[string]int64{"Q": 3}, "unknown param Q"},
		{"zero dims", nil, arch.Dim3{}, map[string]int64{"P": 0}, "extents must be positive"},
	}
	for _, tc := range cases {
		_, err := Bind(k, tc.m, tc.block, tc.params, dev)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Bind(%s) error = %v; want it to contain %q", tc.name, err, tc.want)
		}
	}
	for _, s := range []string{"", "i1", "i1=tw", "i1=tx,i1=ty", "i1=tx,i2=tx"} {
		if _, err := ParseMapping(s); err == nil {
			t.Errorf("ParseMapping(%q) succeeded; want an error", s)
		}
	}
}
