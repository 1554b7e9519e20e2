package sim

import (
	"math/bits"

	"gpumemsim/sim/cache"
)

// atomBytes is the unit every level counts and DRAM moves: a 32-byte
// sector, the profilers' "transaction" at L2 and DRAM. A coalescer
// transaction is a mask of the atoms of one 128-byte block.
const atomBytes = 32

// sectoring turns the atoms of a 128-byte block into the sectors of a
// cache's line and back, for any sector size of at least an atom and any
// line of at least 128 bytes (arch.Validate refuses the others).
type sectoring struct {
	c *cache.Cache
	// mode is sameAtoms when the cache has 32-byte sectors in 128-byte
	// lines (a sector is an atom), wholeLine when it has one sector per
	// line of any size (unsectored 128-byte lines, the constant caches'
	// 64-byte lines, G80's and GT200's 32-byte texture lines and 256-byte
	// L2 lines), else general.
	mode uint8
	// atomsPerSector is the cache's sector bytes over atomBytes.
	atomsPerSector int64
}

const (
	general = iota
	sameAtoms
	wholeLine
)

func newSectoring(c *cache.Cache) sectoring {
	g := c.Geometry()
	s := sectoring{c: c, atomsPerSector: int64(g.SectorBytes / atomBytes)}
	switch {
	case g.LineBytes == 128 && g.SectorBytes == atomBytes:
		s.mode = sameAtoms
	case g.SectorBytes == g.LineBytes:
		s.mode = wholeLine
	}
	return s
}

// sectors is the mask of the sectors of the cache line holding addr that
// atoms, the atoms of addr's 128-byte block, touch.
func (s *sectoring) sectors(addr uint64, atoms uint32) uint32 {
	switch s.mode {
	case sameAtoms:
		return atoms
	case wholeLine:
		return 1
	}
	return s.sectorsOf(addr, atoms)
}

func (s *sectoring) sectorsOf(addr uint64, atoms uint32) uint32 {
	var m uint32
	base := addr &^ 127
	for a := range 4 {
		if atoms&(1<<a) != 0 {
			m |= s.c.SectorMask(base+uint64(a)*atomBytes, atomBytes)
		}
	}
	return m
}

// count is the number of atoms of atoms (as sectors takes them) that lie
// in the sectors of mask.
func (s *sectoring) count(addr uint64, atoms, mask uint32) int64 {
	if s.mode == sameAtoms {
		return int64(bits.OnesCount32(atoms & mask))
	}
	return s.countOf(addr, atoms, mask)
}

func (s *sectoring) countOf(addr uint64, atoms, mask uint32) int64 {
	var n int64
	base := addr &^ 127
	for a := range 4 {
		if atoms&(1<<a) != 0 && s.c.SectorMask(base+uint64(a)*atomBytes, atomBytes)&mask != 0 {
			n++
		}
	}
	return n
}

// atoms is the number of atoms the sectors of mask hold.
func (s *sectoring) atoms(mask uint32) int64 {
	return s.sectorAtoms(int64(bits.OnesCount32(mask)))
}

// sectorAtoms is the number of atoms n sectors hold.
func (s *sectoring) sectorAtoms(n int64) int64 { return n * s.atomsPerSector }
