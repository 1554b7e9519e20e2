package sim_test

import (
	"context"
	"testing"

	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// nwLaunch runs, alone on fermi, launch d = N + 1 = 65 (the longest
// anti-diagonal, 64 cells: two warps) of the example name at N = 64, and
// returns each reference's transactions per request.
func nwLaunch(t *testing.T, name string) map[string][2]int64 {
	t.Helper()
	dev, ls := bindExample(t, "fermi", name, map[string]int64{"N": 64})
	l := ls[63] // d = 2 + 63
	if got := l.ParamValues()["d"]; got != 65 {
		t.Fatalf("launch 64 has d = %d; want 65", got)
	}
	res, err := sim.Run(context.Background(), dev, l, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for _, r := range res.Refs {
		out[r.Ref] = [2]int64{r.Requests, r.Transactions}
	}
	return out
}

// TestNWDiagonalCoalescing: the anti-diagonal d = 65 of a 65 × 65 int
// matrix, cells (r, 65 − r) for r = 1..64, on fermi's 128-byte lines
// (arrays start on a 256-byte boundary, so lines start at element
// multiples of 32). Row-major, element (r, c) is 65r + c and lane r + 1
// is 64 elements (256 bytes) past lane r: every lane its own line, 32
// transactions per request for each of the five references. Remapped
// to diagonal strips, (r, c) is 65(r + c) + r: a warp's lanes are 32
// consecutive words starting at 65(r + c) + r with r = 1 (or 33):
//   - S[r][c] and ref[r][c]: 65·65 + 1 = 4226 ≡ 2 (mod 32): 2 lines;
//   - S[r−1][c−1]: 65·63 + 0 = 4095 ≡ 31: 2 lines;
//   - S[r−1][c]: 65·64 + 0 = 4160 ≡ 0: 1 line;
//   - S[r][c−1]: 65·64 + 1 = 4161 ≡ 1: 2 lines;
//
// the second warp 32 elements on, at the same residues. Two warps: 2
// requests per reference.
func TestNWDiagonalCoalescing(t *testing.T) {
	row := nwLaunch(t, "nw-rowmajor")
	diag := nwLaunch(t, "nw-dymaxion")
	want := map[string]int64{"S[r][c]": 2, "ref[r][c]": 2, "S[r-1][c-1]": 2, "S[r-1][c]": 1, "S[r][c-1]": 2}
	for ref, txn := range want {
		if got := row[ref]; got != [2]int64{2, 64} {
			t.Errorf("nw-rowmajor %s: %d requests, %d transactions; want 2 and 64", ref, got[0], got[1])
		}
		if got := diag[ref]; got != [2]int64{2, 2 * txn} {
			t.Errorf("nw-dymaxion %s: %d requests, %d transactions; want 2 and %d", ref, got[0], got[1], 2*txn)
		}
	}
	if len(row) != len(want) || len(diag) != len(want) {
		t.Errorf("references %v and %v; want %d each", row, diag, len(want))
	}
}

// remapRun runs the remap launches of the kernel file text, then its
// launch, in one sequence on fermi, and returns each reference's
// requests and transactions over the sequence.
func remapRun(t *testing.T, text string) map[string][2]int64 {
	t.Helper()
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	l := bindSource(t, dev, text)
	rls, err := traces.RemapLaunches(l, dev)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []traces.Source
	for _, rl := range append(rls, l) {
		srcs = append(srcs, rl)
	}
	seq, err := sim.RunSequence(context.Background(), dev, srcs, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for _, r := range seq.Total.Refs {
		out[r.Ref] = [2]int64{r.Requests, r.Transactions}
	}
	return out
}

// TestRemapLaunchTransactions: the generated remap kernels' requests and
// 128-byte transactions on fermi, by hand.
//   - row2col of A[64][32]: 2048 threads, 64 warps; warp r reads
//     A_src[32r .. 32r + 31], one line, and writes A at 64·c + r for c =
//     0..31, 256 bytes apart: 32 lines. The kernel's thread t then reads
//     A[t / 32][t % 32] at 64·(t % 32) + t / 32 just the same: 32 per
//     request.
//   - col2row of the same A, which the kernel reads column-major (A[t]
//     is element (t % 64, t / 64)): it lives at 32·(t % 64) + t / 64, so
//     a warp's 32 reads are 128 bytes apart, 32 lines a request, and the
//     remap's store A[width·(t % height) + t / height] the same.
//   - 32×4 tiles of the same A: warp r (row r) covers columns 0..31,
//     8 tiles of 4 words (tile c/4 of the 8 in a tile row, 512 bytes
//     apart): 8 lines a request, for the remap's store and the kernel's
//     read alike.
//   - the gather of V[2048] through COL[t] = 32t (64 threads, 2 warps):
//     COL[t] one line per warp; V_src[COL[t]] 128 bytes apart, 32 lines
//     per warp; V'[t] one line per warp. The kernel reads V'[i], one
//     line per warp, and not COL.
func TestRemapLaunchTransactions(t *testing.T) {
	// copyA is a kernel whose thread t copies A[ref] of A[64][32],
	// remapped as remap, into B[t].
	copyA := func(remap, ref string) string {
		return `name: copy
arrays:
  A: {type: f32, dims: [64, 32], remap: ` + remap + `}
  B: {type: f32, dims: [2048]}
source: |
  __global__ void k(const float *A, float *B)
  {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    B[t] = ` + ref + `;
  }
block: [256]
grid: [8]
`
	}
	got := remapRun(t, copyA("row2col", "A[t / 32][t % 32]"))
	want := map[string][2]int64{"A_src[t]": {64, 64}, "A[height*(t%width)+t/width]": {64, 2048}, "A[t/32][t%32]": {64, 2048}, "B[t]": {64, 64}}
	checkRefs(t, "row2col", got, want)
	got = remapRun(t, copyA("col2row", "A[t]"))
	want = map[string][2]int64{"A_src[t]": {64, 64}, "A[width*(t%height)+t/height]": {64, 2048}, "A[t]": {64, 2048}, "B[t]": {64, 64}}
	checkRefs(t, "col2row", got, want)
	got = remapRun(t, copyA("{tile: [32, 4]}", "A[t / 32][t % 32]"))
	tile := "A[(t/width/th*(width/tw)+t%width/tw)*th*tw+t/width%th*tw+t%width%tw]"
	want = map[string][2]int64{"A_src[t]": {64, 64}, tile: {64, 512}, "A[t/32][t%32]": {64, 512}, "B[t]": {64, 64}}
	checkRefs(t, "tile", got, want)
	got = remapRun(t, `name: gather
params: {N: 64}
arrays:
  COL: {type: i32, dims: [N], data: {gen: strided, stride: 32, mod: 32 * N}}
  V: {type: f32, dims: [32 * N], remap: {gather: COL}}
  R: {type: f32, dims: [N]}
source: |
  __global__ void k(const int *COL, const float *V, float *R)
  {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    R[i] = V[COL[i]];
  }
block: [64]
grid: [1]
`)
	want = map[string][2]int64{"COL[t]": {2, 2}, "V_src[COL[t]]": {2, 64}, "V[t]": {2, 2}, "COL[i]": {0, 0}, "V[COL[i]]": {2, 2}, "R[i]": {2, 2}}
	checkRefs(t, "gather", got, want)
}

func checkRefs(t *testing.T, what string, got, want map[string][2]int64) {
	t.Helper()
	for ref, w := range want {
		if g, ok := got[ref]; !ok || g != w {
			t.Errorf("%s: %s: %d requests, %d transactions (found: %v); want %d and %d", what, ref, g[0], g[1], ok, w[0], w[1])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: references %v; want %d", what, got, len(want))
	}
}
