package main

import (
	"context"
	"strings"
	"testing"
)

// TestRemaps: Dymaxion's remaps on fermi (short sizes), with and without
// the remap kernels' cost, and what they refuse.
func TestRemaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"remap-run-spmv-csr-dymaxion", []string{"run", "-device", "fermi", "-kernel", "spmv-csr-dymaxion"}},
		{"remap-run-spmv-csr-dymaxion-cost", []string{"run", "-device", "fermi", "-kernel", "spmv-csr-dymaxion", "-remap-cost", "include"}},
		{"remap-run-nw-dymaxion", []string{"run", "-device", "fermi", "-kernel", "nw-dymaxion", "-set", "N=16"}},
		{"remap-run-nw-dymaxion-cost", []string{"run", "-device", "fermi", "-kernel", "nw-dymaxion", "-set", "N=16", "-remap-cost", "include"}},
		{"remap-run-nw-rowmajor", []string{"run", "-device", "fermi", "-kernel", "nw-rowmajor", "-set", "N=16"}},
		{"remap-trace-nw-dymaxion", []string{"trace", "-device", "fermi", "-kernel", "nw-dymaxion", "-set", "N=8", "-launch", "8", "-warps", "1"}},
		{"remap-csv-spmv-csr-dymaxion-cost", []string{"run", "-device", "fermi", "-kernel", "spmv-csr-dymaxion", "-remap-cost", "include", "-format", "csv"}},
		{"remap-err-cost-value", []string{"run", "-kernel", "spmv-csr-dymaxion", "-remap-cost", "maybe"}},
		{"remap-err-cost-no-remap", []string{"run", "-kernel", "spmv-csr", "-remap-cost", "include"}},
		// The static models read a remapped array where the remap puts
		// it: A[row][col] under row2col is 4·64 bytes a lane along tx
		// (false linear; 32 transactions a warp by Peng's rule), and
		// spmv-csr-dymaxion's V'[i] is true linear, COL's read left out.
		// A tile's place is not affine: refused by name.
		{"remap-estimate-row2col", []string{"estimate", "-device", "fermi", "-kernel", "testdata/kernels/remap-row2col-2d.yaml"}},
		{"remap-err-estimate-tile", []string{"estimate", "-kernel", "testdata/kernels/remap-row2col-2d.yaml", "-remap", "A=tile:8x8"}},
		{"remap-validate-gather", []string{"validate", "-kernel", "spmv-csr-dymaxion"}},
		{"remap-err-unknown", []string{"run", "-kernel", "testdata/kernels/remap-unknown.yaml"}},
		{"remap-err-soa", []string{"run", "-kernel", "testdata/kernels/remap-soa.yaml"}},
		{"remap-err-diagonal-1d", []string{"run", "-kernel", "testdata/kernels/remap-diagonal-1d.yaml"}},
		{"remap-err-diagonal-nonsquare", []string{"run", "-kernel", "testdata/kernels/remap-diagonal-nonsquare.yaml"}},
		{"remap-err-gather-missing", []string{"run", "-kernel", "testdata/kernels/remap-gather-missing.yaml"}},
		{"remap-err-gather-not-index", []string{"run", "-kernel", "testdata/kernels/remap-gather-not-index.yaml"}},
		{"remap-err-gather-direct", []string{"run", "-kernel", "testdata/kernels/remap-gather-direct.yaml"}},
		{"remap-err-gather-store", []string{"run", "-kernel", "testdata/kernels/remap-gather-store.yaml"}},
		{"remap-err-tile-indivisible", []string{"run", "-kernel", "testdata/kernels/remap-tile-indivisible.yaml"}},
		{"remap-err-tile-form", []string{"run", "-kernel", "testdata/kernels/remap-tile-form.yaml"}},
		{"remap-err-two-kinds", []string{"run", "-kernel", "testdata/kernels/remap-two-kinds.yaml"}},
		{"remap-flag-nw-tile", []string{"run", "-device", "fermi", "-kernel", "nw-rowmajor", "-set", "N=15", "-remap", "S=tile:4x4,ref=diagonal"}},
		{"remap-flag-err-kind", []string{"run", "-kernel", "spmv-csr", "-remap", "V=transpose"}},
		{"remap-flag-err-form", []string{"run", "-kernel", "spmv-csr", "-remap", "V"}},
		{"remap-flag-err-array", []string{"run", "-kernel", "spmv-csr", "-remap", "X=row2col"}},
		{"remap-flag-err-1d", []string{"run", "-kernel", "spmv-csr", "-remap", "V=diagonal"}},
		{"remap-flag-err-tile", []string{"run", "-kernel", "nw-rowmajor", "-set", "N=16", "-remap", "S=tile:5x17"}},
		{"remap-err-loop-nest", []string{"run", "-kernel", "testdata/kernels/remap-loopnest.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// TestRemapFlag: -remap V=gather:COL makes spmv-csr the kernel that
// spmv-csr-dymaxion declares, and -remap S=none,ref=none makes
// nw-dymaxion nw-rowmajor: the outputs agree but for the kernel's name.
func TestRemapFlag(t *testing.T) {
	for _, c := range [][2][]string{
		{{"run", "-kernel", "spmv-csr", "-remap", "V=gather:COL"}, {"run", "-kernel", "spmv-csr-dymaxion"}},
		{{"run", "-kernel", "nw-dymaxion", "-set", "N=16", "-remap", "S=none,ref=none"}, {"run", "-kernel", "nw-rowmajor", "-set", "N=16"}},
	} {
		var out [2]string
		for i, args := range c {
			var stdout, stderr strings.Builder
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			out[i] = strings.Replace(stdout.String(), "Kernel   "+args[2]+" ", "Kernel   K ", 1)
		}
		if out[0] != out[1] {
			t.Errorf("%v and %v differ:\n%s\n%s", c[0], c[1], out[0], out[1])
		}
	}
}
