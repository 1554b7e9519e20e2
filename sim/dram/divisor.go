package dram

import "math/bits"

// divisor divides by a constant of the device, by a shift when it is a
// power of two.
type divisor struct {
	d     uint64
	shift uint
	pow2  bool
}

func newDivisor(d uint64) divisor {
	v := divisor{d: d}
	if d > 0 && d&(d-1) == 0 {
		v.pow2 = true
		v.shift = uint(bits.TrailingZeros64(d))
	}
	return v
}

func (v divisor) quo(x uint64) uint64 {
	if v.pow2 {
		return x >> v.shift
	}
	return x / v.d
}

func (v divisor) rem(x uint64) uint64 {
	if v.pow2 {
		return x & (v.d - 1)
	}
	return x % v.d
}
