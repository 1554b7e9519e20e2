package main

import "testing"

// TestIndexData: the index-data flags and kernels, and what they refuse.
func TestIndexData(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		// spmv-csr on a permutation matrix: V[COL[i]] makes 3615
		// transactions in 128 requests, the brute-force count of
		// sim/indirect_test.go.
		{"indirect-run-permutation", []string{"run", "-device", "fermi", "-kernel", "spmv-csr", "-matrix", "banded:rows=4096,width=1", "-data", "COL=permutation:seed=3"}},
		{"indirect-err-data-spec", []string{"run", "-kernel", "spmv-csr", "-data", "COL=uniform:lo=0,hii=3"}},
		{"indirect-err-data-form", []string{"run", "-kernel", "spmv-csr", "-data", "COL"}},
		{"indirect-err-no-matrix", []string{"run", "-kernel", "vecadd", "-matrix", "banded:rows=8,width=1"}},
		{"indirect-err-set-matrix-param", []string{"run", "-kernel", "spmv-csr", "-set", "NNZ=100"}},
		// Contents a flag gave that fail only when the launch binds: the
		// error names the flag, not a place in the kernel file.
		{"indirect-err-data-bind", []string{"run", "-kernel", "spmv-csr", "-data", "COL=uniform:lo=5,hi=2"}},
		{"indirect-err-matrix-bind", []string{"run", "-kernel", "spmv-csr", "-matrix", "banded:rows=0,width=1"}},
		{"indirect-err-out-of-bounds", []string{"run", "-kernel", "spmv-csr", "-data", "COL=uniform:lo=0,hi=N+1"}},
		// The static models on data-dependent subscripts: J14's Z (true
		// random, texture, cost 0 there), and Peng's assumption for an
		// indirect access: a full warp's 32 lanes, 32 transactions (west0479
		// has 1910 nonzeros: 60 warps of spmv-csr, 16 of
		// spmv-csr-scalar's 479 rows).
		{"indirect-estimate-scalar", []string{"estimate", "-kernel", "spmv-csr-scalar"}},
		{"indirect-estimate-gt200", []string{"estimate", "-device", "gt200", "-kernel", "spmv-csr"}},
		{"indirect-validate", []string{"validate", "-kernel", "spmv-csr"}},
		{"indirect-refuse-work", []string{"run", "-kernel", "testdata/kernels/data-loop.yaml"}},
		{"indirect-err-for-ever", []string{"run", "-kernel", "testdata/kernels/data-loop-for-ever.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}
