package cache_test

import (
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/sim/cache"
)

// A 128-B line of four 32-B sectors: the first read of a sector misses the
// line, a second sector misses only that sector, and a write-back eviction
// reports the dirty sectors to write back.
func Example() {
	c, err := cache.New(cache.Geometry{Sets: 1, Ways: 1, LineBytes: 128, SectorBytes: 32,
		WritePolicy: arch.WriteBack, WriteAllocate: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Read(0x1000, c.SectorMask(0x1000, 4)).Status)
	fmt.Println(c.Read(0x1020, c.SectorMask(0x1020, 4)).Status)
	c.Write(0x1060, c.SectorMask(0x1060, 32))
	r := c.Read(0x2000, c.FullMask())
	if r.Evicted {
		victim, dirty := c.Victim()
		fmt.Printf("%v, evicted %#x, write back sectors %04b\n", r.Status, victim, dirty)
	}
	// Output:
	// miss
	// sector miss
	// miss, evicted 0x1000, write back sectors 1000
}
