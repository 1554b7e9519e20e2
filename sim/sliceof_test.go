package sim

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// sliceOf by plain division and remainder, as the mapping is defined.
func sliceOfByDivision(addr, interleave, channels, perChannel uint64) (int, uint64) {
	chunk := addr / interleave
	ch := chunk % channels
	q := chunk / channels
	sub := q % perChannel
	local := (q/perChannel)*interleave + addr%interleave
	return int(ch*perChannel + sub), local
}

// The shifting, single-division sliceOf agrees with plain division, and
// globalAddr inverts it, for power-of-two and other interleaves.
func TestSliceOfMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ interleave, channels, perChannel uint64 }{
		{256, 6, 2}, {256, 10, 2}, {256, 8, 2}, {256, 6, 1}, {384, 6, 2}, {4096, 5, 3},
	} {
		e := &engine{sliceShift: c.interleave, channels: c.channels, perChannel: c.perChannel, interleaveShift: -1}
		if c.interleave&(c.interleave-1) == 0 {
			e.interleaveShift = bits.TrailingZeros64(c.interleave)
		}
		for range 20000 {
			addr := rng.Uint64() >> rng.IntN(40)
			gs, gl := e.sliceOf(addr)
			ws, wl := sliceOfByDivision(addr, c.interleave, c.channels, c.perChannel)
			if gs != ws || gl != wl {
				t.Fatalf("sliceOf(%#x) with interleave %d, %d channels, %d per channel = (%d, %#x); want (%d, %#x)",
					addr, c.interleave, c.channels, c.perChannel, gs, gl, ws, wl)
			}
			if back := e.globalAddr(gs, gl); back != addr {
				t.Fatalf("globalAddr(sliceOf(%#x)) = %#x; want the address back", addr, back)
			}
		}
	}
}
