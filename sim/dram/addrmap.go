package dram

// AddressMap interleaves an address space over n units: consecutive chunks
// of interleave bytes (a power of two) go to consecutive units, and each
// unit sees the chunks it owns as one contiguous local space. The DRAM
// maps addresses to its channels with it, and the simulator maps a
// channel's local space to the channel's L2 slices with a second one, so
// one piece of arithmetic places an address everywhere.
type AddressMap struct {
	shift uint   // log2 of the interleave
	mask  uint64 // interleave - 1
	units divisor
}

// NewAddressMap returns the map of interleave-byte chunks over units
// units; interleave must be a power of two and units positive.
func NewAddressMap(interleave, units uint64) AddressMap {
	d := newDivisor(interleave)
	if !d.pow2 {
		panic("dram: the address interleave must be a power of two")
	}
	return AddressMap{shift: d.shift, mask: interleave - 1, units: newDivisor(units)}
}

// Split returns the unit addr maps to and its address within the unit:
// with chunk = addr / I, unit = chunk mod N and local = (chunk / N)·I +
// addr mod I.
func (m *AddressMap) Split(addr uint64) (unit int, local uint64) {
	chunk := addr >> m.shift
	q := m.units.quo(chunk)
	return int(chunk - q*m.units.d), q<<m.shift | addr&m.mask
}

// Unit is the unit of Split(addr).
func (m *AddressMap) Unit(addr uint64) int {
	chunk := addr >> m.shift
	return int(chunk - m.units.quo(chunk)*m.units.d)
}

// Nested is Split by m and then by sub, whose interleave must be m's: the
// unit of addr, the sub-unit within it, and the address local to that,
// with one division by each count (the L2 slices of a channel are its
// sub-units).
func (m *AddressMap) Nested(addr uint64, sub *AddressMap) (unit, subunit int, local uint64) {
	chunk := addr >> m.shift
	q := m.units.quo(chunk)
	hi := sub.units.quo(q)
	return int(chunk - q*m.units.d), int(q - hi*sub.units.d), hi<<m.shift | addr&m.mask
}

// Join inverts Split: the address whose unit and local address are given.
func (m *AddressMap) Join(unit int, local uint64) uint64 {
	q := local >> m.shift
	return (q*m.units.d+uint64(unit))<<m.shift | local&m.mask
}
