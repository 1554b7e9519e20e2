package traces

import "testing"

// TestNextHalves checks NextHalves against Next on every stream case: the
// same instructions, and where it reports lazy, lane addresses that
// follow the Halves it gives and that Addresses writes back exactly.
func TestNextHalves(t *testing.T) {
	var ref, lazy WarpCursor
	for _, tc := range streamCases() {
		l := bindCase(t, tc)
		var n, lazyN int64
		for b := range l.Blocks() {
			for wi := range l.WarpsPerBlock() {
				ref.Start(l, b, wi)
				lazy.Start(l, b, wi)
				var want, got WarpInst
				var addr [WarpSize]uint64
				var h Halves
				for {
					ok := ref.Next(&want)
					has, isLazy := lazy.NextHalves(&got, &addr, &h)
					if has != ok {
						t.Fatalf("%s block %d warp %d inst %d: NextHalves = %v; Next = %v", tc.name, b, wi, n, has, ok)
					}
					if !ok {
						break
					}
					n++
					if isLazy {
						lazyN++
						if got.Op == OpCompute || got.Active != fullMask {
							t.Fatalf("%s inst %d: lazy for op %v, active %#x; want only full memory instructions", tc.name, n, got.Op, got.Active)
						}
						for lane := range uint64(16) {
							if a, e := want.Addr[lane], h.Lo+lane*h.Stride; a != e {
								t.Fatalf("%s inst %d: lane %d at %#x; Halves says %#x", tc.name, n, lane, a, e)
							}
							if a, e := want.Addr[16+lane], h.Hi+lane*h.Stride; a != e {
								t.Fatalf("%s inst %d: lane %d at %#x; Halves says %#x", tc.name, n, 16+lane, a, e)
							}
						}
						lazy.Addresses(&addr)
					}
					got.Addr = addr
					if got.Op == OpCompute {
						got.Addr, want.Addr = [WarpSize]uint64{}, [WarpSize]uint64{}
					}
					if got != want {
						t.Fatalf("%s block %d warp %d inst %d: NextHalves gives %+v; Next %+v", tc.name, b, wi, n, got, want)
					}
				}
			}
		}
		if tc.name == "matmul" && lazyN == 0 {
			t.Errorf("%s: no instruction left lazy; its full warps read rows", tc.name)
		}
	}
}
