package main

import "testing"

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
		{"remap-err-estimate", []string{"estimate", "-kernel", "testdata/kernels/remap-row2col.yaml"}},
		{"remap-err-validate-gather", []string{"validate", "-kernel", "spmv-csr-dymaxion"}},
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
		{"remap-err-loop-nest", []string{"run", "-kernel", "testdata/kernels/remap-loopnest.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}
