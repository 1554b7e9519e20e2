package traces

import (
	"testing"

	"gpumemsim/arch"
)

// TestNextTo checks that NextTo yields the instructions of Next, with a
// memory instruction's lane addresses in addr and dst.Addr left as it
// was, on full warps (matmul), a partial warp (vecadd, N=33: block 1 has
// one lane) and a divergent loop (a triangular loop over a 32-lane
// block).
func TestNextTo(t *testing.T) {
	k := mustParse(t, "N: 40", "x=N; A=N, N", "for (i = 0; i < N; i++)\n  for (j = 0; j <= i; j++)\n    x[i] += A[i][j];", "mapping: {i: tx}\nblock: [32]\n")
	div, err := Bind(k, nil, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		l    *Launch
	}{
		{"matmul", bindExample(t, "matmul", nil, arch.Dim3{}, map[string]int64{"M": 64, "N": 64, "P": 64})},
		{"vecadd N=33", bindExample(t, "vecadd", nil, arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"N": 33})},
		{"triangular", div},
	} {
		const sentinel = 0xDEAD
		mem := 0
		for b := range tc.l.Blocks() {
			for w := range tc.l.WarpsPerBlock() {
				want := warpInsts(tc.l, b, w)
				c := tc.l.Warp(b, w)
				var got WarpInst
				for i := range got.Addr {
					got.Addr[i] = sentinel
				}
				var addr [WarpSize]uint64
				n := 0
				for c.NextTo(&got, &addr) {
					if n >= len(want) {
						t.Fatalf("%s block %d warp %d: NextTo yields more than the %d instructions of Next", tc.name, b, w, len(want))
					}
					x := &want[n]
					if got.Block != x.Block || got.Warp != x.Warp || got.Ref != x.Ref || got.Op != x.Op ||
						got.Width != x.Width || got.Active != x.Active || got.Count != x.Count {
						t.Fatalf("%s block %d warp %d instruction %d: NextTo header %+v; want Next's", tc.name, b, w, n, got)
					}
					if x.Op != OpCompute {
						mem++
						if addr != x.Addr {
							t.Fatalf("%s block %d warp %d instruction %d: NextTo addresses %#x; want %#x", tc.name, b, w, n, addr, x.Addr)
						}
					}
					for i, a := range got.Addr {
						if a != sentinel {
							t.Fatalf("%s block %d warp %d instruction %d: dst.Addr[%d] = %#x; want it untouched", tc.name, b, w, n, i, a)
						}
					}
					n++
				}
				if n != len(want) {
					t.Fatalf("%s block %d warp %d: NextTo yields %d instructions; want %d", tc.name, b, w, n, len(want))
				}
			}
		}
		if mem == 0 {
			t.Fatalf("%s: no memory instructions compared", tc.name)
		}
	}
}
