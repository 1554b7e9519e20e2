package cache

import (
	"math"

	"gpumemsim/internal/truth"
)

// Finding a way in a set: the line's way on a lookup, the victim's on a
// fill. These run at every access and every miss, so each is written for
// the host (see docs/design.md, "Where the time goes").

// lookup is the index of line in the set starting at base, or -1. Tags
// are unique within a set and invalid ways hold noLine, so it compares
// tags only and stops at the match.
func (c *Cache) lookup(base int, line uint64) int {
	for w, t := range c.tags[base : base+c.ways] {
		if t == line {
			return base + w
		}
	}
	return -1
}

// victim is the index of the way to fill in the set starting at base: the
// first invalid way, else the smallest stamp. An invalid way's stamp is 0
// and a valid one's at least 1, so both are the first smallest stamp: one
// pass over the stamps, without the valid bits. oldestWide makes the same
// choice by eights, which Read takes in a wide set.
func (c *Cache) victim(base int) int {
	stamps := c.stamps[base : base+c.ways]
	best, oldest := 0, uint64(math.MaxUint64)
	for w, t := range stamps {
		// Conditional moves: which way is older follows no pattern the
		// host predicts.
		older := -int(truth.Bit(t < oldest)) // every bit set if t is older
		best, oldest = best^(best^w)&older, min(oldest, t)
	}
	return base + best
}

// oldest4 is victim in a set of four ways (Fermi's and Kepler's L1):
// the first smallest stamp, by pairs without a loop. A later way wins a
// pair, and the second pair the first, only when strictly older, so
// that ties go to the first way. It stays a call: inlined, it made
// Read's tag loop an instruction longer on every device.
//
//go:noinline
func (c *Cache) oldest4(base int) int {
	s := c.stamps[base : base+4 : base+4]
	lo, b := s[0], 0
	if s[1] < lo {
		lo, b = s[1], 1
	}
	hi, h := s[2], 2
	if s[3] < hi {
		hi, h = s[3], 3
	}
	if hi < lo {
		b = h
	}
	return base + b
}

// oldestWide is victim's choice in a set of eight ways or more: the first
// smallest stamp, found eight ways at a time. Most eights hold nothing
// older than the oldest so far, which their least tells at once; in one
// that does, the first way with that least is the oldest.
func oldestWide(stamps []uint64) int {
	best, oldest := 0, uint64(math.MaxUint64)
	w := 0
	for ; w < len(stamps)-7; w += 8 {
		g := stamps[w : w+8 : w+8]
		lo := min(min(g[0], g[1], g[2], g[3]), min(g[4], g[5], g[6], g[7]))
		if lo >= oldest {
			continue
		}
		oldest = lo
		for k, t := range g {
			if t == lo {
				best = w + k
				break
			}
		}
	}
	for ; w < len(stamps); w++ {
		if t := stamps[w]; t < oldest {
			best, oldest = w, t
		}
	}
	return best
}
