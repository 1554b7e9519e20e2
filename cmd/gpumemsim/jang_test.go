package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestJangGolden: -spaces jang on every command. run simulates the
// kernel J14's Algorithm 1 selects and names what it did with each
// array; -show-kernel prints that kernel; validate ranks Algorithm 2's
// candidates simulating the rewrite at each; what cannot be rewritten is
// refused with the reason.
func TestJangGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"jang-run-matvec-gt200", []string{"run", "-device", "gt200", "-kernel", "matvec", "-spaces", "jang", "-set", "N=256"}},
		{"jang-show-matvec", []string{"run", "-kernel", "matvec", "-spaces", "jang", "-show-kernel"}},
		{"jang-show-matmul-beta", []string{"run", "-kernel", "matmul", "-map", "i1=ty,i2=tx", "-spaces", "jang", "-show-kernel"}},
		{"jang-validate-matmul-gt200", []string{"validate", "-device", "gt200", "-kernel", "matmul", "-map", "i1=ty,i2=tx", "-spaces", "jang", "-blocks", "16x16,32x8,8x32,16x2", "-set", "M=64,N=64,P=64"}},
		{"jang-err-estimate", []string{"estimate", "-kernel", "matvec", "-spaces", "jang"}},
		{"jang-err-perthread", []string{"run", "-kernel", "matmul-tiled", "-spaces", "jang"}},
		{"jang-err-block", []string{"run", "-device", "gt200", "-kernel", "matvec", "-spaces", "jang", "-block", "48"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// TestJangShowKernelRuns: the kernel -show-kernel prints is what -spaces
// jang simulates: run from a file, it gives the same metrics.
func TestJangShowKernelRuns(t *testing.T) {
	common := []string{"-device", "fermi", "-map", "i1=ty,i2=tx", "-block", "16x8", "-set", "M=64,N=64,P=64"}
	var shown bytes.Buffer
	if err := run(context.Background(), append([]string{"run", "-kernel", "matmul", "-spaces", "jang", "-show-kernel"}, common...), &shown, &shown); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "matmul-jang.yaml")
	if err := os.WriteFile(file, shown.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	metrics := func(args ...string) map[string]float64 {
		out := runTwice(t, append(args, "-format", "json")...)
		var v struct {
			Metrics map[string]float64 `json:"metrics"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		return v.Metrics
	}
	rewritten := metrics(append([]string{"run", "-kernel", "matmul", "-spaces", "jang"}, common...)...)
	fromFile := metrics("run", "-kernel", file, "-device", "fermi", "-block", "16x8", "-set", "M=64,N=64,P=64")
	if len(rewritten) == 0 || rewritten["shared_load_transactions"] == 0 {
		t.Fatalf("the rewrite reads no shared memory: %v", rewritten)
	}
	for k, v := range rewritten {
		if fromFile[k] != v {
			t.Errorf("%s: -spaces jang %v, the shown kernel %v", k, v, fromFile[k])
		}
	}
}
