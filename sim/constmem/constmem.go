package constmem

import "gpumemsim/arch"

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

// Distinct appends to dst the distinct addresses of the active lanes
// lo to hi-1 of addr, in the order their first lanes come, and returns
// the extended slice. Addresses already in dst before the call do not
// count.
func Distinct(active uint32, addr *[32]uint64, lo, hi int, dst []uint64) []uint64 {
	first := len(dst)
lanes:
	for l := lo; l < hi; l++ {
		if active>>l&1 == 0 {
			continue
		}
		for _, a := range dst[first:] {
			if a == addr[l] {
				continue lanes
			}
		}
		dst = append(dst, addr[l])
	}
	return dst
}
