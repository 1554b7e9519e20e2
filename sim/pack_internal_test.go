package sim

import (
	"testing"

	"gpumemsim/sim/cache"
	"gpumemsim/sim/dram"
)

// TestPackRoundTrip: a request survives the port's two-word form at the
// extremes of every field the Tag carries (the largest SM, slice and entry
// numbers arch allows and beyond) and of its size (a 4-KiB line).
func TestPackRoundTrip(t *testing.T) {
	var tags []int64
	for _, unit := range []uint64{0, 1, 255, 1023, 1<<16 - 1} {
		for _, entry := range []uint64{0, 1, 4095, 1<<32 - 1} {
			tags = append(tags, fillTag(int(unit), cache.MSHREntry(entry)))
			for _, tok := range []uint64{l1Token(int(unit), int(entry)), constToken(int(unit), int(entry)), texToken(int(unit), int(entry)), unit<<32 | entry} {
				for _, kind := range []uint64{reqDirect, reqWrite, reqStore} {
					tags = append(tags, tokenTag(kind, tok))
				}
			}
		}
	}
	for _, tag := range tags {
		for _, bytes := range []int{1, 32, 96, 128, 4096} {
			k := tagKind(tag)
			r := dram.Request{Addr: 0xFFFF_FFFF_FFFF_FFE0, Bytes: bytes, Write: k == reqWrite || k == reqStore, Tag: tag}
			if got := pack(r).unpack(); got != r {
				t.Fatalf("%+v came back as %+v", r, got)
			}
		}
	}
}
