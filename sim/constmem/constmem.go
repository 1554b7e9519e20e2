package constmem

import (
	"math/bits"
	"slices"

	"gpumemsim/arch"
)

// RequestLanes is the lanes of one request of a constant read under a
// compute-capability family's rule: a half-warp (16) on CC 1.x, the warp
// (32) from CC 2.0 on.
func RequestLanes(rule arch.CoalescingRule) int {
	if rule.Legacy() {
		return 16
	}
	return 32
}

// Passes appends to dst the address of each pass that a warp's read of
// constant memory takes under rule, and returns the extended slice: for
// each request in lane order (the half-warps one after the other on
// CC 1.x), the distinct addresses of its active lanes in the order their
// first lanes come. addr holds each lane's byte address; only active
// lanes are read.
func Passes(rule arch.CoalescingRule, active uint32, addr *[32]uint64, dst []uint64) []uint64 {
	n := RequestLanes(rule)
	for lo := 0; lo < 32; lo += n {
		dst = Distinct(active, addr, lo, lo+n, dst)
	}
	return dst
}

// HalvesPasses is Passes of a full warp whose half-warps each read one
// address, lo the first's and hi the second's (stride 0 in the Halves
// form, a uniform read where they are equal), without the lanes written
// out: one pass per half-warp on CC 1.x, whose requests are half-warps;
// from CC 2.0 on one pass, or two where the halves differ. It reports
// false, leaving dst as it was, for a stride other than 0.
func HalvesPasses(rule arch.CoalescingRule, lo, hi, stride uint64, dst []uint64) ([]uint64, bool) {
	switch {
	case stride != 0:
		return dst, false
	case lo == hi && !rule.Legacy():
		return append(dst, lo), true
	}
	return append(dst, lo, hi), true
}

// Distinct appends to dst the distinct addresses of the active lanes
// lo to hi-1 of addr, in the order their first lanes come, and returns
// the extended slice. Addresses already in dst before the call do not
// count.
func Distinct(active uint32, addr *[32]uint64, lo, hi int, dst []uint64) []uint64 {
	all := uint32(uint64(1)<<hi - uint64(1)<<lo)
	lanes := active & all
	if lanes == all && lanes != 0 && addr[lo] == addr[hi-1] && same(addr[lo:hi]) {
		return append(dst, addr[lo]) // a uniform read: one address
	}
	first := len(dst)
	dst, rest := distinctRising(lanes, addr, dst)
	if rest == 0 {
		return dst
	}
	// The lanes before rest rose: their addresses, dst[first:run], are
	// sorted, and a later lane's is looked for there by halves (a
	// texture's second row of texels in a warp, which meets the lines
	// of its first), then among the ones since. A lane whose address is
	// the active lane before it's (the same line of a texture, the same
	// word) is not looked up again.
	run, prev := len(dst), dst[len(dst)-1]
	for m := rest; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]
		if a == prev {
			continue
		}
		prev = a
		if _, found := slices.BinarySearch(dst[first:run], a); !found && !slices.Contains(dst[run:], a) {
			dst = append(dst, a)
		}
	}
	return dst
}

// distinctRising appends to dst the distinct addresses of the lanes set
// in lanes for as long as they never fall from one lane to the next (one
// address, consecutive words, a stride): equal addresses are then
// neighbours, and each that differs from the lane before is new. It
// returns the lanes from the first address below the one before on, or
// 0 when none falls.
func distinctRising(lanes uint32, addr *[32]uint64, dst []uint64) ([]uint64, uint32) {
	if lanes == 0 {
		return dst, 0
	}
	prev := addr[bits.TrailingZeros32(lanes)]
	dst = append(dst, prev)
	for m := lanes & (lanes - 1); m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]
		if a > prev {
			dst = append(dst, a)
		} else if a < prev {
			return dst, m
		}
		prev = a
	}
	return dst, 0
}

// same reports whether every address of a is a's first: their
// differences ORed together, four a step.
func same(a []uint64) bool {
	x, a0 := uint64(0), a[0]
	i := 0
	for ; i < len(a)-3; i += 4 {
		q := a[i : i+4 : i+4]
		x |= (q[0] ^ a0) | (q[1] ^ a0) | (q[2] ^ a0) | (q[3] ^ a0)
	}
	for ; i < len(a); i++ {
		x |= a[i] ^ a0
	}
	return x == 0
}
