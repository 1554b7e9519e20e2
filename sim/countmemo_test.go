package sim

import (
	"math/rand/v2"
	"slices"
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

// TestTxnShapeMemo: the engine's way to a warp instruction's transactions
// by the shape of its addresses (shapeMemo.coalesce) gives, on every
// device family, the transactions and counts of coalescing its 32
// addresses, shape after shape: met again at another multiple of 128
// bytes (the kept transactions, moved), met in a slot another shape
// holds, or with more transactions than an entry keeps.
func TestTxnShapeMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"g80", "gt200", "fermi", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		kept, answered := 0, 0
		for _, width := range []uint8{4, 8, 16} {
			for _, op := range []traces.Op{traces.OpLoad, traces.OpStore} {
				co, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				oracle, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				memo := newShapeMemo(1)
				var got, want RefCounts
				for range 4000 {
					w := uint64(width)
					off := w * rng.Uint64N(128/w)
					dist := []uint64{0, 64, 128, 192, 4096, 160, -w * 16}[rng.IntN(7)]
					stride := []uint64{0, w, 2 * w, 3 * w, 8 * w, 4096, -w}[rng.IntN(7)]
					if rng.IntN(2) == 0 {
						// One of two shapes met again and again: a
						// warp's row of words, from the start of a
						// period or its middle.
						off, dist, stride = 64*rng.Uint64N(2), 16*w, w
					}
					lo := 1<<30 + 128*rng.Uint64N(1<<20) + off
					cur := &halvesCursor{h: traces.Halves{Lo: lo, Hi: lo + dist, Stride: stride}}
					in := traces.WarpInst{Op: op, Width: width, Active: 0xFFFFFFFF}
					cur.Addresses(&in.Addr)
					warp, wantTxns := oracle.Coalesce(&in)
					e := memo.entry(0, keyOf(&cur.h))
					hit := e.full && e.key == keyOf(&cur.h) && e.n >= 0
					txns, ok := memo.coalesce(co, 0, warp, &cur.h, &got)
					if !ok {
						txns = co.CoalesceWarp(warp)
						got.record(warp, txns)
					} else {
						answered++
					}
					if hit {
						kept++
					}
					want.record(warp, wantTxns)
					if !slices.Equal(txns, wantTxns) {
						t.Fatalf("%s, %d-byte %v, shape %+v: memo gave %+v; coalescing the addresses %+v", name, width, op, cur.h, txns, wantTxns)
					}
				}
				if got != want {
					t.Errorf("%s, %d-byte %v: memo counted %+v; coalescing each %+v", name, width, op, got, want)
				}
			}
		}
		// Most of the rows of 4-byte words, half the draws, are met
		// again with their transactions kept (at most 4: on CC 1.x two
		// segments, on Fermi's L1 one or two lines, in 32-B units four
		// or five sectors).
		if kept < 2000 {
			t.Errorf("%s: %d of %d shapes answered, %d from kept transactions; want at least 2000", name, answered, 6*4000, kept)
		}
	}
}
