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

// memoCase is one device family, word width and op of the memo tests,
// with a coalescer for the memo and another as the oracle.
type memoCase struct {
	name       string
	width      uint8
	op         traces.Op
	co, oracle *Coalescer
}

// forMemoCases calls f for every device family, word width and op, with
// fresh coalescers; last is true for a family's last case.
func forMemoCases(t *testing.T, f func(c memoCase, last bool)) {
	t.Helper()
	ops := []traces.Op{traces.OpLoad, traces.OpStore}
	widths := []uint8{4, 8, 16}
	for _, name := range []string{"g80", "gt200", "fermi", "kepler", "maxwell"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, width := range widths {
			for j, op := range ops {
				co, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				oracle, err := NewCoalescer(dev)
				if err != nil {
					t.Fatal(err)
				}
				f(memoCase{name, width, op, co, oracle}, i == len(widths)-1 && j == len(ops)-1)
			}
		}
	}
}

// drawShape is a shape of w-byte words drawn from a few offsets,
// distances and strides, at one of many multiples of 128 bytes; with
// rows set, half the draws are a warp's row of words from the start of a
// period or its middle, two shapes met again and again.
func drawShape(rng *rand.Rand, w uint64, rows bool) traces.Halves {
	off := w * rng.Uint64N(128/w)
	dist := []uint64{0, 64, 128, 192, 4096, 160, -w * 16}[rng.IntN(7)]
	stride := []uint64{0, w, 2 * w, 3 * w, 8 * w, 4096, -w}[rng.IntN(7)]
	if rows && rng.IntN(2) == 0 {
		off, dist, stride = 64*rng.Uint64N(2), 16*w, w
	}
	lo := 1<<30 + 128*rng.Uint64N(1<<20) + off
	return traces.Halves{Lo: lo, Hi: lo + dist, Stride: stride}
}

// TestCountShapeMemo: counting warp instructions by the shape of their
// addresses through the memo gives, on every device family, the counts
// of coalescing each one's 32 addresses. The shapes are drawn from a few
// offsets, distances and strides, each at many multiples of 128 bytes, so
// most are met again (the memo answers) and the same slot sees different
// shapes (it must not).
func TestCountShapeMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forMemoCases(t, func(c memoCase, _ bool) {
		k := &counter{co: c.co, memo: newShapeMemo(1), touched: true}
		var got, want RefCounts
		var gotStores, wantStores int64
		for range 4000 {
			cur := &halvesCursor{h: drawShape(rng, uint64(c.width), false)}
			in := traces.WarpInst{Op: c.op, Width: c.width, Active: 0xFFFFFFFF}
			gotStores += k.countShape(&got, &in, &cur.h, cur)
			cur.Addresses(&in.Addr)
			warp, txns := c.oracle.Coalesce(&in)
			want.record(warp, txns)
			if c.op == traces.OpStore {
				wantStores += touchedSectors(txns)
			}
		}
		if got != want || gotStores != wantStores {
			t.Errorf("%s, %d-byte %v: memo counted %+v and %d store sectors; coalescing each %+v and %d", c.name, c.width, c.op, got, gotStores, want, wantStores)
		}
	})
}

// TestTxnShapeMemo: the engine's way to a warp instruction's transactions
// by the shape of its addresses (shapeMemo.coalesce) gives, on every
// device family, the transactions and counts of coalescing its 32
// addresses, shape after shape: met again at another multiple of 128
// bytes (the kept transactions, moved), met in a slot another shape
// holds, or with more transactions than an entry keeps.
func TestTxnShapeMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kept, answered := 0, 0
	forMemoCases(t, func(c memoCase, last bool) {
		memo := newShapeMemo(1)
		var got, want RefCounts
		for range 4000 {
			cur := &halvesCursor{h: drawShape(rng, uint64(c.width), true)}
			in := traces.WarpInst{Op: c.op, Width: c.width, Active: 0xFFFFFFFF}
			cur.Addresses(&in.Addr)
			warp, wantTxns := c.oracle.Coalesce(&in)
			e := memo.entry(0, keyOf(&cur.h))
			if memo.holds(e, keyOf(&cur.h)) && e.n >= 0 {
				kept++
			}
			txns, ok := memo.coalesce(c.co, 0, warp, &cur.h, &got)
			if ok {
				answered++
			} else {
				txns = c.co.CoalesceWarp(warp)
				got.record(warp, txns)
			}
			want.record(warp, wantTxns)
			if !slices.Equal(txns, wantTxns) {
				t.Fatalf("%s, %d-byte %v, shape %+v: memo gave %+v; coalescing the addresses %+v", c.name, c.width, c.op, cur.h, txns, wantTxns)
			}
		}
		if got != want {
			t.Errorf("%s, %d-byte %v: memo counted %+v; coalescing each %+v", c.name, c.width, c.op, got, want)
		}
		if !last {
			return
		}
		// Most of the rows of 4-byte words, half the draws, are met
		// again with their transactions kept (at most 4: on CC 1.x two
		// segments, on Fermi's L1 one or two lines, in 32-B units four
		// or five sectors).
		if kept < 2000 {
			t.Errorf("%s: %d of %d shapes answered, %d from kept transactions; want at least 2000", c.name, answered, 6*4000, kept)
		}
		kept, answered = 0, 0
	})
}

// A memo reset for the next launch holds none of the shapes of the
// launch before, whose reference numbers mean other arrays, nor do the
// entries of references it grows to hold; it keeps its entries where
// they fit.
func TestShapeMemoReset(t *testing.T) {
	var m shapeMemo
	m.reset(2)
	key := memoKey{lo: 8, hi: 64, stride: 4}
	for ref := range 2 {
		m.fill(m.entry(ref, key), key)
		if !m.holds(m.entry(ref, key), key) {
			t.Fatalf("reference %d: the entry just filled does not hold its shape", ref)
		}
	}
	kept := &m.slots[0]
	m.reset(1)
	if m.holds(m.entry(0, key), key) {
		t.Error("after reset(1) reference 0 still holds the last launch's shape")
	}
	if &m.slots[0] != kept {
		t.Error("reset(1) of a memo of 2 references allocated its entries again")
	}
	m.reset(3)
	for ref := range 3 {
		if m.holds(m.entry(ref, key), key) {
			t.Errorf("after reset(3) reference %d holds a shape", ref)
		}
	}
}
