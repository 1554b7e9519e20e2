package sim

import (
	"math/rand/v2"
	"testing"

	"gpumemsim/configs"
	"gpumemsim/traces"
)

// halvesCursor is a cursor whose latest lazy instruction had shape h.
type halvesCursor struct {
	traces.HalvesWarp // not called
	h                 traces.Halves
}

func (c *halvesCursor) Addresses(addr *[traces.WarpSize]uint64) {
	for l := range uint64(16) {
		addr[l] = c.h.Lo + l*c.h.Stride
		addr[16+l] = c.h.Hi + l*c.h.Stride
	}
}

// TestCountShapeMemo: counting warp instructions by the shape of their
// addresses through the memo gives, on every device family, the counts
// of coalescing each one's 32 addresses. The shapes are drawn from a few
// offsets, distances and strides, each at many multiples of 128 bytes, so
// most are met again (the memo answers) and the same slot sees different
// shapes (it must not).
func TestCountShapeMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"g80", "gt200", "fermi", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, width := range []uint8{4, 8, 16} {
			for _, op := range []traces.Op{traces.OpLoad, traces.OpStore} {
				co, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				k := &counter{co: co, memo: newShapeMemo(1), touched: true}
				oracle, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				var got, want RefCounts
				var gotStores, wantStores int64
				for range 4000 {
					w := uint64(width)
					off := w * rng.Uint64N(128/w)
					dist := []uint64{0, 64, 128, 192, 4096, 160, -w * 16}[rng.IntN(7)]
					stride := []uint64{0, w, 2 * w, 3 * w, 8 * w, 4096, -w}[rng.IntN(7)]
					lo := 1<<30 + 128*rng.Uint64N(1<<20) + off
					cur := &halvesCursor{h: traces.Halves{Lo: lo, Hi: lo + dist, Stride: stride}}
					in := traces.WarpInst{Op: op, Width: width, Active: 0xFFFFFFFF}
					gotStores += k.countShape(&got, &in, &cur.h, cur)
					cur.Addresses(&in.Addr)
					warp, txns := oracle.Coalesce(&in)
					want.record(warp, txns)
					if op == traces.OpStore {
						wantStores += touchedSectors(txns)
					}
				}
				if got != want || gotStores != wantStores {
					t.Errorf("%s, %d-byte %v: memo counted %+v and %d store sectors; coalescing each %+v and %d", name, width, op, got, gotStores, want, wantStores)
				}
			}
		}
	}
}
