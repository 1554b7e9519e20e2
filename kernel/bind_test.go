package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/internal/golden"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// TestBindErrors binds each kernel of testdata/bind, which parses but
// cannot run as its file says, with the file's own mapping, block and
// params on gt200, and compares the error with testdata/bind/NAME.err.
// The positions are also checked against a table counted by hand: an
// error found after parsing still names the key or expression at fault.
func TestBindErrors(t *testing.T) {
	pos := map[string]string{ // line:col, counted by hand from the files
		"block-too-large":      "9:8",   // [1024, 1]: gt200 runs 512 threads
		"block-huge":           "9:8",   // [1e9, 1e9, 1e9]
		"grid":                 "9:8",   // [32] over 2^40 iterations: 2^35 blocks
		"regs":                 "10:7",  // 200
		"regs-per-block":       "11:7",  // 60
		"smem":                 "9:7",   // 64KiB
		"dims-divide-by-zero":  "4:27",  // the / of N / Z
		"bound-divide-by-zero": "7:23",  // the % of N % Z
		"overflow":             "4:30",  // the * of N * N
		"overlap":              "5:3",   // B
		"mapped-empty":         "6:3",   // for
		"step-zero":            "7:29",  // S
		"out-of-bounds":        "9:12",  // A[i + N]
		"out-of-bounds-2d":     "10:15", // A[i][j], j <= N
		"loop-bounds":          "7:5",   // for (j ...), M = 2^61
		"no-mapping":           "1:1",   // the document
		"no-loop":              "1:1",   // the document
		"constant-too-large":   "5:3",   // c: 16385 floats, 64 KiB + 4 B
		"constant-total":       "6:3",   // d: 32768 B of c + 32776 B of d
	}
	dev, err := configs.Load("gt200")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/bind/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(pos) {
		t.Errorf("%d kernels in testdata/bind, %d in the position table", len(files), len(pos))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			k, err := kernel.Parse(f, data)
			if err != nil {
				t.Fatalf("Parse(%s): %v", f, err)
			}
			_, err = traces.Bind(k, nil, arch.Dim3{}, nil, dev)
			if err == nil {
				t.Fatalf("Bind(%s) succeeded; want an error", f)
			}
			got := err.Error() + "\n"
			if want := f + ":" + pos[name] + ": "; !strings.HasPrefix(got, want) {
				t.Errorf("Bind(%s) = %q; want the position %s", f, got, want)
			}
			golden.Check(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(got))
		})
	}
}
