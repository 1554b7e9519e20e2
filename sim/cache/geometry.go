package cache

import (
	"errors"
	"fmt"
	"math"

	"gpumemsim/arch"
)

// Geometry is the plain description a Cache is built from. A zero policy
// field selects the default (arch.ReplaceLRU, arch.IndexLinear,
// arch.ReadOnly).
type Geometry struct {
	Sets int
	Ways int
	// LineBytes is the tag granularity, a power of two.
	LineBytes int
	// SectorBytes is the fill granularity, a power of two dividing
	// LineBytes into at most MaxSectors sectors; 0 means LineBytes (an
	// unsectored cache).
	SectorBytes int
	Replacement arch.Replacement
	SetIndex    arch.SetIndex
	WritePolicy arch.WritePolicy
	// WriteAllocate allocates a line on a write miss; it needs
	// arch.WriteBack or arch.WriteThrough.
	WriteAllocate bool
}

// FromArch is the geometry of one cache described by c with the given
// number of sets: c.Sets() for an L1, arch.L2Cache.SetsPerSlice() for one
// L2 slice. A zero c.Sector means an unsectored cache.
func FromArch(c arch.Cache, sets int) Geometry {
	sector := c.Sector
	if sector == 0 {
		sector = c.Line
	}
	return Geometry{
		Sets:          sets,
		Ways:          c.Associativity,
		LineBytes:     int(c.Line),
		SectorBytes:   int(sector),
		Replacement:   c.Replacement,
		SetIndex:      c.SetIndex,
		WritePolicy:   c.WritePolicy,
		WriteAllocate: c.WriteAllocate,
	}
}

// SizeBytes is the capacity: sets × ways × line bytes.
func (g Geometry) SizeBytes() int { return g.Sets * g.Ways * g.LineBytes }

// Sectors is the number of sectors per line.
func (g Geometry) Sectors() int {
	if g.SectorBytes == 0 || g.LineBytes <= 0 {
		return 1
	}
	return g.LineBytes / g.SectorBytes
}

// Validate reports every problem with g at once.
func (g Geometry) Validate() error {
	var errs []error
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 }
	if g.Sets < 1 {
		errs = append(errs, fmt.Errorf("sets = %d; want at least 1", g.Sets))
	}
	if g.Ways < 1 {
		errs = append(errs, fmt.Errorf("ways = %d; want at least 1", g.Ways))
	}
	if g.Sets >= 1 && g.Ways >= 1 && g.Sets > math.MaxInt32/g.Ways {
		errs = append(errs, fmt.Errorf("sets × ways = %d × %d lines; want at most %d", g.Sets, g.Ways, math.MaxInt32))
	}
	if !pow2(g.LineBytes) {
		errs = append(errs, fmt.Errorf("line = %d bytes; want a power of two, e.g. 128", g.LineBytes))
	}
	if g.SectorBytes != 0 {
		switch {
		case !pow2(g.SectorBytes):
			errs = append(errs, fmt.Errorf("sector = %d bytes; want a power of two, e.g. 32, or 0 for an unsectored cache", g.SectorBytes))
		case pow2(g.LineBytes) && g.SectorBytes > g.LineBytes:
			errs = append(errs, fmt.Errorf("sector = %d bytes is larger than the %d-byte line", g.SectorBytes, g.LineBytes))
		case pow2(g.LineBytes) && g.LineBytes/g.SectorBytes > MaxSectors:
			errs = append(errs, fmt.Errorf("line %d B / sector %d B = %d sectors; want at most %d", g.LineBytes, g.SectorBytes, g.LineBytes/g.SectorBytes, MaxSectors))
		}
	}
	switch g.SetIndex {
	case arch.IndexFermiHash:
		if g.Sets != 32 && g.Sets != 64 {
			errs = append(errs, fmt.Errorf("set index %s needs 32 or 64 sets; got %d", g.SetIndex, g.Sets))
		}
	case arch.IndexXOR:
		if !pow2(g.Sets) {
			errs = append(errs, fmt.Errorf("set index %s needs a power-of-two number of sets; got %d", g.SetIndex, g.Sets))
		}
	}
	if g.WriteAllocate && g.WritePolicy != arch.WriteBack && g.WritePolicy != arch.WriteThrough {
		errs = append(errs, fmt.Errorf("write allocate with write policy %s; want %s or %s, or no write allocate", policyName(g.WritePolicy), arch.WriteBack, arch.WriteThrough))
	}
	return errors.Join(errs...)
}

func policyName(p arch.WritePolicy) arch.WritePolicy {
	if p == 0 {
		return arch.ReadOnly
	}
	return p
}
