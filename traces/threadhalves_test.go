package traces

import (
	"testing"

	"gpumemsim/kernel"
)

// TestThreadHalvesAreTheAddresses steps two cursors over the same warps
// of every per-thread example, one with NextTo and one with NextHalves:
// the instructions must be the same, and where NextHalves reports lazy,
// the Halves it gives must describe, lane by lane, the addresses NextTo
// writes, as must what Addresses writes. A kernel whose shared tiles are
// read by thread index (matmul-tiled) must report some lazy, and one
// that reads a filter's taps at a uniform index (convolution-global's
// c_Kernel[KERNEL_RADIUS - k]) some with one address in every lane.
func TestThreadHalvesAreTheAddresses(t *testing.T) {
	lazyIn, uniformIn := map[string]int{}, map[string]int{}
	for _, name := range kernel.Examples() {
		k, err := kernel.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if k.Source == "" || len(k.Launches) > 0 {
			continue
		}
		l, err := Bind(k, nil, k.Block, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.pt == nil {
			continue
		}
		a, b := l.NewWarp().(*ThreadCursor), l.NewWarp().(*ThreadCursor)
		info := l.Info()
		blocks, warps := info.Blocks(), info.WarpsPerBlock()
		for _, blk := range []int{0, blocks / 2, blocks - 1} {
			for w := range warps {
				a.Reset(blk, w)
				b.Reset(blk, w)
				for steps := 0; steps < 20000; steps++ {
					var ia, ib WarpInst
					var aa, ba, written [WarpSize]uint64
					hasA := a.NextTo(&ia, &aa)
					var h Halves
					hasB, lazy := b.NextHalves(&ib, &ba, &h)
					if hasA != hasB || ia.Op != ib.Op || ia.Ref != ib.Ref || ia.Active != ib.Active || ia.Count != ib.Count || ia.Width != ib.Width {
						t.Fatalf("%s block %d warp %d step %d: NextTo %v %+v, NextHalves %v %+v", name, blk, w, steps, hasA, ia, hasB, ib)
					}
					if !hasA {
						break
					}
					if ia.Op != OpLoad && ia.Op != OpStore {
						continue
					}
					if !lazy {
						if aa != ba {
							t.Fatalf("%s block %d warp %d step %d: addresses %v, want %v", name, blk, w, steps, ba, aa)
						}
						continue
					}
					lazyIn[name]++
					if h.Stride == 0 && h.Lo == h.Hi {
						uniformIn[name]++
					}
					if ib.Active != fullMask {
						t.Fatalf("%s: lazy with lanes %#x", name, ib.Active)
					}
					b.Addresses(&written)
					for i := range WarpSize / 2 {
						lo, hi := h.Lo+uint64(i)*h.Stride, h.Hi+uint64(i)*h.Stride
						if aa[i] != lo || aa[16+i] != hi || written[i] != aa[i] || written[16+i] != aa[16+i] {
							t.Fatalf("%s block %d warp %d step %d: halves %+v, Addresses %v; want %v", name, blk, w, steps, h, written, aa)
						}
					}
				}
			}
		}
	}
	if lazyIn["matmul-tiled"] == 0 {
		t.Errorf("matmul-tiled: no instruction came as Halves (%v)", lazyIn)
	}
	if uniformIn["convolution-global"] == 0 {
		t.Errorf("convolution-global: no instruction came as one address in every lane (%v)", uniformIn)
	}
}

// TestHalvesOf checks the half-warp stride of tables worked out by hand:
// a 16-wide block's row of a 64-word array (lanes 0–15 words 0–15, lanes
// 16–31 words 64–79), a broadcast per half-warp, an 8-wide block's (two
// rows a half-warp: no stride) and a 32-wide block's row.
func TestHalvesOf(t *testing.T) {
	table := func(f func(l uint64) uint64) *[WarpSize]uint64 {
		var add [WarpSize]uint64
		for l := range uint64(WarpSize) {
			add[l] = f(l)
		}
		return &add
	}
	tests := []struct {
		name   string
		add    *[WarpSize]uint64
		stride uint64
		ok     bool
	}{
		{"16 wide", table(func(l uint64) uint64 { return 4 * (l/16*64 + l%16) }), 4, true},
		{"broadcast", table(func(l uint64) uint64 { return 4 * (l / 16 * 64) }), 0, true},
		{"8 wide", table(func(l uint64) uint64 { return 4 * (l/8*64 + l%8) }), 0, false},
		{"32 wide", table(func(l uint64) uint64 { return 8 * l }), 8, true},
		{"one lane off", table(func(l uint64) uint64 { return 4*l + 4*(l/31) }), 0, false},
	}
	for _, tc := range tests {
		if stride, ok := halvesOf(tc.add); stride != tc.stride || ok != tc.ok {
			t.Errorf("%s: halvesOf = %d, %v; want %d, %v", tc.name, stride, ok, tc.stride, tc.ok)
		}
	}
}
