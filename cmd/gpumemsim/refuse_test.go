package main

import "testing"

// TestRefuse runs kernels, files and flags that once crashed the command
// or ran it out of memory: each must end with an error naming what is
// wrong and where (golden testdata/NAME.stderr), never a panic.
func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"refuse-block-flag", []string{"trace", "-kernel", "vecadd", "-block", "2147483647x2147483647"}},
		{"refuse-block-file", []string{"trace", "-kernel", "testdata/kernels/huge-block.yaml"}},
		{"refuse-kernel-dev-zero", []string{"trace", "-kernel", "/dev/zero"}},
		{"refuse-device-dev-zero", []string{"devices", "show", "/dev/zero"}},
		{"refuse-many-refs", []string{"trace", "-kernel", "testdata/kernels/many-refs.yaml"}},
		// Errors in the kernel file found at bind time name the file's key.
		{"refuse-file-regs", []string{"run", "-device", "gt200", "-kernel", "../../kernel/testdata/bind/regs.yaml"}},
		{"refuse-file-divide-by-zero", []string{"trace", "-kernel", "../../kernel/testdata/bind/dims-divide-by-zero.yaml"}},
		{"refuse-out-of-bounds", []string{"trace", "-kernel", "../../kernel/testdata/bind/out-of-bounds.yaml"}},
		{"refuse-no-mapping", []string{"trace", "-kernel", "../../kernel/testdata/bind/no-mapping.yaml", "-block", "64"}},
		// A flag that makes an expression of the file fail is named, and
		// so is the expression.
		{"refuse-set-empty-array", []string{"trace", "-kernel", "stride", "-set", "S=0,O=0"}},
		// What would run for hours is refused from the closed-form
		// estimate of its warp instructions, with the ways forward.
		{"refuse-work-run", []string{"run", "-kernel", "matmul", "-set", "M=100000,N=100000,P=100000"}},
		{"refuse-work-deep-nest", []string{"run", "-kernel", "testdata/kernels/deep-nest.yaml"}},
		{"refuse-work-validate", []string{"validate", "-kernel", "matmul", "-maps", "all", "-set", "M=4096,N=4096,P=4096"}},
		{"refuse-work-trace-warp", []string{"trace", "-kernel", "testdata/kernels/empty-loop.yaml"}},
		// Counting is judged by what it streams: a triangular nest's
		// every block (matmul at 8192³ counts two blocks of its 262,144
		// and is not refused).
		{"refuse-work-trace-totals", []string{"trace", "-kernel", "testdata/kernels/triangular.yaml", "-set", "N=262144", "-totals"}},
		{"refuse-max-work", []string{"run", "-max-work", "-1"}},
		// What the count cannot see, the DRAM sectors, stops the run as it
		// goes: at once where its first 1/64, and 2^20 warp instructions,
		// are on course past twice the cap, as it passes the cap otherwise,
		// and in a sequence or a validate with the launch or configuration
		// named. matvec on gt200 at N=8192 issues 2.73e7 warp instructions
		// (trace), and in each of its N²/32 warp iterations loads and
		// stores y[i] (4 sectors each), x[j] (one 32-B segment a
		// half-warp, 2) and A[i][j], a 32-B segment per lane on CC 1.3
		// (32): 42 sectors, 8.81e7 in all, 1.15e8 of work, projected from
		// 3.8% of it (2^20 warp instructions). vecadd on gt200 at 2^16 is
		// 38,912 units of work, 19 a warp.
		{"refuse-dram-projected", []string{"run", "-device", "gt200", "-kernel", "matvec", "-set", "N=8192", "-max-work", "3e7"}},
		// The same as a per-thread kernel of 256 blocks: its count, 3 + 13N
		// warp instructions a warp (as the grids of N=64 and 128, of 2 and
		// 4 blocks, counted whole, issue), is an estimate on 16 blocks all
		// alike, and is projected as the loop nest's is.
		{"refuse-dram-projected-estimate", []string{"run", "-device", "gt200", "-kernel", "testdata/kernels/matvec-per-thread.yaml", "-set", "N=8192", "-max-work", "3e7"}},
		{"refuse-dram-sampled", []string{"run", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536", "-max-work", "2e4", "-sample"}},
		{"refuse-dram-validate", []string{"validate", "-device", "gt200", "-kernel", "vecadd", "-set", "N=1048576", "-blocks", "256", "-max-work", "5e5"}},
		{"refuse-dram-sequence", []string{"run", "-device", "gt200", "-kernel", "testdata/kernels/vecadd-launches.yaml", "-max-work", "1e6"}},
		// An access outside its array found while the work is counted is
		// named, not the cap: before a loop that would be counted for
		// minutes, and where a count that stops at it scales past the cap
		// (2^20 blocks times block 0's instructions up to the access).
		{"refuse-access-before-loop", []string{"run", "-kernel", "testdata/kernels/access-before-loop.yaml"}},
		{"refuse-access-large-grid", []string{"run", "-kernel", "testdata/kernels/access-in-large-grid.yaml"}},
		{"refuse-access-large-grid-validate", []string{"validate", "-kernel", "testdata/kernels/access-in-large-grid.yaml", "-blocks", "32,64"}},
		{"refuse-access-in-sequence", []string{"run", "-kernel", "testdata/kernels/access-in-sequence.yaml"}},
		// The sampler's tolerances: a percentage in (0, 50], and only
		// with -sample.
		{"refuse-sample-tol-zero", []string{"run", "-kernel", "vecadd", "-sample", "-sample-cycles-tol", "0"}},
		{"refuse-sample-tol-large", []string{"validate", "-kernel", "vecadd", "-sample", "-sample-count-tol", "51"}},
		{"refuse-sample-tol-nan", []string{"run", "-kernel", "vecadd", "-sample", "-sample-count-tol", "NaN"}},
		{"refuse-sample-tol-alone", []string{"run", "-kernel", "vecadd", "-sample-cycles-tol", "5"}},
		// The sampler's warm-up: whole waves from 1, and only with
		// -sample.
		{"refuse-sample-warmup-zero", []string{"run", "-kernel", "vecadd", "-sample", "-sample-warmup", "0"}},
		{"refuse-sample-warmup-alone", []string{"validate", "-kernel", "vecadd", "-sample-warmup", "4"}},
		// A device whose bank count disagrees with its rule's bank rule
		// runs kernels without shared memory; one with it is refused,
		// with the fields to change.
		{"refuse-device-banks", []string{"run", "-device", "testdata/devices/a100-cc13.yaml", "-kernel", "stencil-shared"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if simulatesSeconds[tc.name] {
				skipUnderRace(t)
			}
			runGolden(t, tc.name, tc.args...)
		})
	}
}

// simulatesSeconds are the cases of TestRefuse that simulate 2^20 warp
// instructions or more before they stop, the least the cap projects
// from: about 2 s each, 40 s under the race detector (skipUnderRace).
var simulatesSeconds = map[string]bool{"refuse-dram-projected": true, "refuse-dram-projected-estimate": true}

// TestMapForAKernelWithout: -map gives a kernel file without a mapping
// one, and the other flags are then judged with it.
func TestMapForAKernelWithout(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"map-for-kernel-without", []string{"trace", "-device", "gt200", "-kernel", "../../kernel/testdata/bind/no-mapping.yaml", "-map", "i=tx", "-block", "32", "-warps", "1"}},
		{"map-for-kernel-without-bad-block", []string{"trace", "-device", "gt200", "-kernel", "../../kernel/testdata/bind/no-mapping.yaml", "-map", "i=tx", "-block", "2000000"}},
		{"map-for-kernel-without-bad-set", []string{"trace", "-kernel", "../../kernel/testdata/bind/no-mapping.yaml", "-map", "i=tx", "-set", "N=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}
