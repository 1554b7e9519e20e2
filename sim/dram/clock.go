package dram

import (
	"math"
	"math/bits"
)

// clockRatio converts between core cycles and transfer slots: one core
// cycle is num/den slots, with num/den in lowest terms.
type clockRatio struct {
	num, den uint64
}

func newClockRatio(slotsPerSecond, coreHz uint64) clockRatio {
	g := gcd(slotsPerSecond, coreHz)
	return clockRatio{num: slotsPerSecond / g, den: coreHz / g}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// mulDiv returns x·mul/div rounded down or up, saturating at MaxInt64.
func mulDiv(x int64, mul, div uint64, roundUp bool) int64 {
	hi, lo := bits.Mul64(uint64(x), mul)
	if hi >= div {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, div)
	if roundUp && r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// slotCeil is the first slot at or after core cycle c.
func (k clockRatio) slotCeil(c int64) int64 { return mulDiv(c, k.num, k.den, true) }

// slotFloor is the last slot at or before core cycle c.
func (k clockRatio) slotFloor(c int64) int64 { return mulDiv(c, k.num, k.den, false) }

// coreCeil is the first core cycle at or after slot s.
func (k clockRatio) coreCeil(s int64) int64 { return mulDiv(s, k.den, k.num, true) }
