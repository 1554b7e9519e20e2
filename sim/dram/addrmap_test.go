package dram

import (
	"math/rand/v2"
	"testing"
)

// The shifting, single-division Split agrees with plain division, Unit
// with Split, and Join inverts Split, for power-of-two and other
// interleaves and unit counts.
func TestAddressMapMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ interleave, units uint64 }{
		{256, 6}, {256, 8}, {256, 1}, {512, 5}, {4096, 3}, {128, 12},
	} {
		m := NewAddressMap(c.interleave, c.units)
		for range 20000 {
			addr := rng.Uint64() >> rng.IntN(40)
			unit, local := m.Split(addr)
			chunk := addr / c.interleave
			wantUnit, wantLocal := int(chunk%c.units), chunk/c.units*c.interleave+addr%c.interleave
			if unit != wantUnit || local != wantLocal {
				t.Fatalf("interleave %d over %d units: Split(%#x) = (%d, %#x); want (%d, %#x)",
					c.interleave, c.units, addr, unit, local, wantUnit, wantLocal)
			}
			if u := m.Unit(addr); u != unit {
				t.Fatalf("interleave %d over %d units: Unit(%#x) = %d; Split says %d", c.interleave, c.units, addr, u, unit)
			}
			if back := m.Join(unit, local); back != addr {
				t.Fatalf("interleave %d over %d units: Join(Split(%#x)) = %#x", c.interleave, c.units, addr, back)
			}
		}
	}
}

// Two maps in a row place an address on a channel and then on one of the
// channel's L2 slices: slice ch·P + sub of C·P, where the chunks go round
// the channels first, then round each channel's P slices, and the slice's
// own bits are squeezed out of its local address (so every set is used).
func TestAddressMapSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ interleave, channels, perChannel uint64 }{
		{256, 6, 2}, {256, 10, 2}, {256, 8, 2}, {256, 6, 1}, {1024, 6, 2}, {4096, 5, 3},
	} {
		chMap, subMap := NewAddressMap(c.interleave, c.channels), NewAddressMap(c.interleave, c.perChannel)
		for range 20000 {
			addr := rng.Uint64() >> rng.IntN(40)
			ch, chLocal := chMap.Split(addr)
			sub, local := subMap.Split(chLocal)
			slice := uint64(ch)*c.perChannel + uint64(sub)
			chunk := addr / c.interleave
			q := chunk / c.channels
			wantSlice := chunk%c.channels*c.perChannel + q%c.perChannel
			wantLocal := q/c.perChannel*c.interleave + addr%c.interleave
			if slice != wantSlice || local != wantLocal {
				t.Fatalf("%+v: slice of %#x = (%d, %#x); want (%d, %#x)", c, addr, slice, local, wantSlice, wantLocal)
			}
			if u, su, l := chMap.Nested(addr, &subMap); u != ch || su != sub || l != local {
				t.Fatalf("%+v: Nested(%#x) = (%d, %d, %#x); two Splits give (%d, %d, %#x)", c, addr, u, su, l, ch, sub, local)
			}
			if back := chMap.Join(ch, subMap.Join(sub, local)); back != addr {
				t.Fatalf("%+v: the slice address of %#x maps back to %#x", c, addr, back)
			}
		}
	}
}
