package sim

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/sim/cache"
)

// TestSectoringModes holds the shortcuts of sectors to the general rule,
// each atom's sector of the line looked up (sectorsOf), for every
// non-empty set of the atoms of a 128-byte block at each place in a
// line: a line of one sector, whatever its size (the constant caches'
// 64 bytes, 32, 128, 256), gives sector 1 alone; 32-byte sectors in
// 128-byte lines give the atoms themselves. Lines of several sectors
// larger than an atom take the general rule.
func TestSectoringModes(t *testing.T) {
	for _, g := range []struct{ line, sector int }{{32, 32}, {64, 64}, {128, 128}, {256, 256}, {128, 32}, {128, 64}, {256, 32}, {256, 128}} {
		c, err := cache.New(cache.Geometry{Sets: 4, Ways: 2, LineBytes: g.line, SectorBytes: g.sector, Replacement: arch.ReplaceLRU, WritePolicy: arch.WriteEvict})
		if err != nil {
			t.Fatal(err)
		}
		s := newSectoring(c)
		one := g.line == g.sector
		for addr := uint64(0x1000); addr < 0x1000+2*uint64(max(g.line, 128)); addr += 32 {
			for atoms := uint32(1); atoms < 16; atoms++ {
				got, want := s.sectors(addr, atoms), s.sectorsOf(addr, atoms)
				if got != want || (one && got != 1) {
					t.Fatalf("line %d, sector %d, atoms %04b at %#x: sectors %b, the general rule %b", g.line, g.sector, atoms, addr, got, want)
				}
			}
		}
	}
}
