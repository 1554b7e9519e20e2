package sim_test

import (
	"context"
	"testing"

	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// TestLavaMDPengLayouts simulates lavamd-peng on a 2×2×2 grid of boxes
// on the GTX 480 in each of Peng's layouts and counts the transactions
// of two global reads by hand, with the compute capability 2.x rule for
// loads cached in L1: one 128-byte transaction per line the warp's
// active lanes touch. Every box of a 2×2×2 grid is a corner, so its
// list holds all 8 boxes; a block of 128 threads has 4 warps, of 32,
// 32, 32 and 4 active lanes (wtx < 100). Particle p's field f lies at
// base + p·size + offset of f's group (aos: one 32-byte struct; soa:
// 4-byte floats; soaos1: 16-byte {rv_*} and {fv_*}; soaos2: 8-byte
// {rv_c, fv_c}).
//   - fA[wtx].fv_v, read each j of each listed box: Σ_bx Σ_w lines × 8
//     boxes × 100 particles.
//   - rB[wtx].rv_v, read once a listed box: every block reads every box,
//     8 × Σ_box Σ_w lines.
//
// The neighbour list is read at one address a warp, 1 transaction a
// request in every layout: NEI[k] once a listed box (8 boxes × 4 warps
// × 8 = 256), ROW[bx + 1] at each test of the loop (8 + 1 a warp: 288).
func TestLavaMDPengLayouts(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	const boxes, listed, par = 8, 8, 100
	for _, layout := range []string{"aos", "soa", "soaos1", "soaos2"} {
		l := bindLayout(t, dev, "lavamd-peng", layout, "", map[string]int64{"B": 2})
		// lines is Σ over the boxes and warps of the 128-byte lines the
		// warp's lanes touch reading field f.
		lines := func(f string) int64 {
			var ba *traces.BoundArray
			for i := range l.Arrays {
				if s := l.Arrays[i].Struct; s != nil && s.Field(f) != nil {
					ba = &l.Arrays[i]
				}
			}
			if ba == nil {
				t.Fatalf("%s: no array holds field %s", layout, f)
			}
			var n int64
			for box := int64(0); box < boxes; box++ {
				for w := int64(0); w < 4; w++ {
					seen := map[uint64]bool{}
					for p := 32 * w; p < min(32*w+32, par); p++ {
						seen[(ba.Base+uint64((box*par+p)*ba.Struct.Size+ba.Struct.Field(f).Offset))/128] = true
					}
					n += int64(len(seen))
				}
			}
			return n
		}
		r, err := sim.Run(context.Background(), dev, l, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{
			"d_pv_gpu[first_i+wtx].fv_v": lines("fv_v") * listed * par,
			"d_pv_gpu[first_j+wtx].rv_v": listed * lines("rv_v"),
		}
		index := map[string]int64{"NEI[k]": boxes * 4 * listed, "ROW[bx+1]": boxes * 4 * (listed + 1)}
		for _, ref := range r.Refs {
			if n, ok := index[ref.Ref]; ok && (ref.Requests != n || ref.Transactions != n) {
				t.Errorf("%s: %s: %d requests, %d transactions; want %d of each", layout, ref.Ref, ref.Requests, ref.Transactions, n)
			}
			if w, ok := want[ref.Ref]; ok && ref.Op == "load" {
				if ref.Transactions != w {
					t.Errorf("%s: %s: %d transactions; want %d", layout, ref.Ref, ref.Transactions, w)
				}
				delete(want, ref.Ref)
			}
		}
		for ref := range want {
			t.Errorf("%s: no load %s", layout, ref)
		}
	}
}
