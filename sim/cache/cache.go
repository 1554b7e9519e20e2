package cache

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"

	"gpumemsim/arch"
)

// MaxSectors is the largest number of sectors in one line: sector masks are
// uint32.
const MaxSectors = 32

// noLine is the tag of an invalid way: no address shifted right by the
// line bits reaches it, so a tag match alone means a present line.
const noLine = math.MaxUint64

// Cache is a set-associative cache. Line i of set s lives at index
// s·ways+i of every array. A line is present iff its valid mask is not
// zero, and then only iff its tag is not noLine.
type Cache struct {
	g Geometry

	ways       int
	sets       uint64
	setMask    uint64 // sets-1 when sets is a power of two
	setPow2    bool
	setBits    uint // log2 sets when a power of two
	lineShift  uint
	sectorBits uint // log2 sector bytes
	full       uint32
	index      arch.SetIndex
	fermiHigh  uint64 // under the Fermi hash: 0x20 with 64 sets (the sixth set bit), else 0
	policy     arch.WritePolicy
	allocate   bool
	lru        bool

	tags   []uint64 // line number: addr >> lineShift; noLine when invalid
	stamps []uint64 // lru: last use; fifo: fill; 0 for an invalid way (the clock counts from 1)
	valid  []uint32
	dirty  []uint32
	clock  uint64
	// dirtied lists, once each (listed), the ways that went from clean to
	// dirty since DirtySectors last counted, some cleaned since, so that
	// counting the dirty data left at a launch's end passes over them,
	// not over every line (a100's L2 has 327,680).
	dirtied []int32
	listed  []bool

	// the line the latest evicting access took out (Victim)
	victimLine  uint64
	victimDirty uint32
}

// New builds an empty cache, or says what is wrong with g.
func New(g Geometry) (*Cache, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("cache geometry: %w", err)
	}
	if g.SectorBytes == 0 {
		g.SectorBytes = g.LineBytes
	}
	if g.Replacement == 0 {
		g.Replacement = arch.ReplaceLRU
	}
	if g.SetIndex == 0 {
		g.SetIndex = arch.IndexLinear
	}
	if g.WritePolicy == 0 {
		g.WritePolicy = arch.ReadOnly
	}
	n := g.Sets * g.Ways
	c := &Cache{
		g:          g,
		ways:       g.Ways,
		sets:       uint64(g.Sets),
		setPow2:    g.Sets&(g.Sets-1) == 0,
		lineShift:  uint(bits.TrailingZeros(uint(g.LineBytes))),
		sectorBits: uint(bits.TrailingZeros(uint(g.SectorBytes))),
		full:       uint32(1<<(g.LineBytes/g.SectorBytes)) - 1,
		allocate:   g.WriteAllocate,
		lru:        g.Replacement == arch.ReplaceLRU,
		tags:       make([]uint64, n),
		stamps:     make([]uint64, n),
		valid:      make([]uint32, n),
		dirty:      make([]uint32, n),
		listed:     make([]bool, n),
	}
	for i := range c.tags {
		c.tags[i] = noLine
	}
	if c.setPow2 {
		c.setMask = uint64(g.Sets - 1)
		c.setBits = uint(bits.TrailingZeros(uint(g.Sets)))
	}
	c.index, c.policy = g.SetIndex, g.WritePolicy
	if g.SetIndex == arch.IndexFermiHash && g.Sets == 64 {
		c.fermiHigh = 0x20
	}
	return c, nil
}

// Reset empties the cache: every line invalid and its clock back to the
// start, as New built it.
func (c *Cache) Reset() {
	c.InvalidateAll()
	c.clock, c.victimLine, c.victimDirty = 0, 0, 0
}

// Geometry is the geometry the cache was built from, with defaults filled
// in.
func (c *Cache) Geometry() Geometry { return c.g }

// LineAddr is the address of the first byte of addr's line.
func (c *Cache) LineAddr(addr uint64) uint64 { return addr >> c.lineShift << c.lineShift }

// FullMask is the sector mask of a whole line.
func (c *Cache) FullMask() uint32 { return c.full }

// SectorMask is the mask of the sectors of addr's line that the bytes
// [addr, addr+size) touch; bytes past the end of the line are ignored. A
// size below 1 counts as 1.
func (c *Cache) SectorMask(addr uint64, size int) uint32 {
	lineBytes := uint64(1) << c.lineShift
	off := addr & (lineBytes - 1)
	end := off + 1
	if size > 1 {
		end = min(off+uint64(size), lineBytes)
	}
	first := off >> c.sectorBits
	last := (end - 1) >> c.sectorBits
	return uint32((uint64(2)<<last)-(uint64(1)<<first)) & c.full
}

// Set is the set addr maps to.
func (c *Cache) Set(addr uint64) int { return int(c.setOf(addr)) }

func (c *Cache) setOf(addr uint64) uint64 {
	line := addr >> c.lineShift
	switch c.index {
	case arch.IndexFermiHash:
		lower := line & 0x1f
		upper := (addr>>13)&0x7 | (addr>>14)&0x8 | (addr>>15)&0x10
		return lower ^ upper | (addr>>7)&c.fermiHigh
	case arch.IndexXOR:
		return (line ^ line>>c.setBits) & c.setMask
	}
	if c.setPow2 {
		return line & c.setMask
	}
	return line % c.sets
}

// Status is the outcome of the tag lookup of one access.
type Status uint8

const (
	// Hit: the line was present with every requested sector valid.
	Hit Status = iota
	// SectorMiss: the line was present but a requested sector was not
	// valid.
	SectorMiss
	// Miss: the line was absent.
	Miss
)

func (s Status) String() string {
	switch s {
	case Hit:
		return "hit"
	case SectorMiss:
		return "sector miss"
	case Miss:
		return "miss"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Result is what one access did; it is small enough to come back in
// registers. Hit and Miss split the requested sectors by whether they were
// valid before the access. A read fetches exactly its Miss sectors from the
// next level; a write never fetches (Write reports what it forwards).
// Evicted says a valid line left the cache: the replacement victim of an
// allocation, or the written line itself under write_evict; Victim then
// gives its line address and dirty sectors, to be written back.
type Result struct {
	Status  Status
	Evicted bool
	Hit     uint32
	Miss    uint32
}

// Read looks up the sectors of addr's line in mask and makes them valid,
// allocating the line on a miss. mask must be a non-empty subset of
// FullMask. The sectors to fetch are the result's Miss.
func (c *Cache) Read(addr uint64, mask uint32) Result {
	c.checkMask(addr, mask)
	line := addr >> c.lineShift
	base := int(c.setOf(addr)) * c.ways
	c.clock++
	if i := c.lookup(base, line); i >= 0 {
		v := c.valid[i]
		if c.lru {
			c.stamps[i] = c.clock
		}
		if mask&^v == 0 {
			return Result{Status: Hit, Hit: mask}
		}
		c.valid[i] = v | mask
		return Result{Status: SectorMiss, Hit: mask & v, Miss: mask &^ v}
	}
	// A read miss is most fills: a set of eight ways or more is searched
	// by eights (oldestWide), one of four by pairs (oldest4: Fermi's L1,
	// where most loads of an uncoalesced mapping miss), and the other
	// narrow sets keep victim inlined.
	v := base
	switch {
	case c.ways >= 8:
		v += oldestWide(c.stamps[base : base+c.ways])
	case c.ways == 4:
		v = c.oldest4(base)
	default:
		v = c.victim(base)
	}
	return Result{Status: Miss, Evicted: c.fill(v, line, mask, 0), Miss: mask}
}

// Write writes the sectors of addr's line in mask under the cache's write
// policy (see the package documentation) and reports forward, the sectors
// to write to the next level (those of a write that does not stop here).
// It reports ok false, and changes nothing, for a read-only cache. mask
// must be a non-empty subset of FullMask.
func (c *Cache) Write(addr uint64, mask uint32) (r Result, forward uint32, ok bool) {
	if c.policy == arch.ReadOnly {
		return Result{}, 0, false
	}
	c.checkMask(addr, mask)
	line := addr >> c.lineShift
	base := int(c.setOf(addr)) * c.ways
	c.clock++
	if i := c.lookup(base, line); i >= 0 {
		v := c.valid[i]
		r = Result{Hit: mask & v, Miss: mask &^ v}
		if r.Miss != 0 {
			r.Status = SectorMiss
		}
		switch c.policy {
		case arch.WriteBack:
			c.valid[i] = v | mask
			d := c.dirty[i]
			c.dirty[i] = d | mask
			if d == 0 {
				c.markDirty(i)
			}
		case arch.WriteThrough:
			c.valid[i] = v | mask
			forward = mask
		case arch.WriteEvict:
			r.Evicted = true
			c.victimLine, c.victimDirty = line<<c.lineShift, c.dirty[i]
			c.tags[i], c.valid[i], c.dirty[i], c.stamps[i] = noLine, 0, 0, 0
			return r, mask, true
		}
		if c.lru {
			c.stamps[i] = c.clock
		}
		return r, forward, true
	}
	r = Result{Status: Miss, Miss: mask}
	if !c.allocate {
		return r, mask, true
	}
	var dirty uint32
	if c.policy == arch.WriteBack {
		dirty = mask
	} else {
		forward = mask
	}
	r.Evicted = c.fill(c.victim(base), line, mask, dirty)
	return r, forward, true
}

// Victim is the line address and dirty sectors of the line that the latest
// access whose Result has Evicted set took out of the cache.
func (c *Cache) Victim() (lineAddr uint64, dirty uint32) { return c.victimLine, c.victimDirty }

// Probe reports the valid and dirty sectors of addr's line without
// changing anything; valid is 0 when the line is absent.
func (c *Cache) Probe(addr uint64) (valid, dirty uint32) {
	i := c.lookup(int(c.setOf(addr))*c.ways, addr>>c.lineShift)
	if i < 0 {
		return 0, 0
	}
	return c.valid[i], c.dirty[i]
}

// Invalidate removes addr's line and reports what it held (valid is 0 when
// the line was absent); dirty sectors are dropped, so write them back
// first if they matter.
func (c *Cache) Invalidate(addr uint64) (valid, dirty uint32) {
	i := c.lookup(int(c.setOf(addr))*c.ways, addr>>c.lineShift)
	if i < 0 {
		return 0, 0
	}
	valid, dirty = c.valid[i], c.dirty[i]
	c.tags[i], c.valid[i], c.dirty[i], c.stamps[i] = noLine, 0, 0, 0
	return valid, dirty
}

// InvalidateAll empties the cache, dropping dirty data (as Fermi's L1 is
// invalidated between kernels); use Flush first to count write-backs.
func (c *Cache) InvalidateAll() {
	for i := range c.tags {
		c.tags[i] = noLine
	}
	clear(c.valid)
	clear(c.dirty)
	clear(c.stamps)
	for _, i := range c.dirtied {
		c.listed[i] = false
	}
	c.dirtied = c.dirtied[:0]
}

// Dirty yields the line address and dirty sectors of every dirty line, in
// set then way order; the lines stay valid and dirty (the dirty data at
// the end of one kernel is still there for the next).
func (c *Cache) Dirty() iter.Seq2[uint64, uint32] {
	return func(yield func(uint64, uint32) bool) {
		for i, d := range c.dirty {
			if d == 0 {
				continue
			}
			if !yield(c.tags[i]<<c.lineShift, d) {
				return
			}
		}
	}
}

// DirtySectors is the number of dirty sectors over all lines: those
// Dirty yields, counted.
func (c *Cache) DirtySectors() int64 {
	c.compactDirtied()
	var n int64
	for _, i := range c.dirtied {
		n += int64(bits.OnesCount32(c.dirty[i]))
	}
	return n
}

// markDirty lists way i, which has just gone from clean to dirty, unless
// it is listed already.
func (c *Cache) markDirty(i int) {
	if !c.listed[i] {
		c.listed[i] = true
		c.dirtied = append(c.dirtied, int32(i))
	}
}

// compactDirtied leaves the list holding the dirty ways: every way that
// goes from clean to dirty is listed (markDirty), so the dirty ways are
// among those listed.
func (c *Cache) compactDirtied() {
	c.dirtied = slices.DeleteFunc(c.dirtied, func(i int32) bool {
		if c.dirty[i] != 0 {
			return false
		}
		c.listed[i] = false
		return true
	})
}

// ValidLines is the number of present lines.
func (c *Cache) ValidLines() int {
	n := 0
	for _, v := range c.valid {
		if v != 0 {
			n++
		}
	}
	return n
}

// FreeLines is the number of ways holding no line: never filled, or
// invalidated since.
func (c *Cache) FreeLines() int { return len(c.valid) - c.ValidLines() }

// fill puts line into way i with the given sectors; it reports whether a
// valid line was replaced, and keeps that line for Victim.
func (c *Cache) fill(i int, line uint64, valid, dirty uint32) (evicted bool) {
	if c.valid[i] != 0 {
		evicted = true
		c.victimLine, c.victimDirty = c.tags[i]<<c.lineShift, c.dirty[i]
	}
	c.tags[i], c.valid[i], c.dirty[i], c.stamps[i] = line, valid, dirty, c.clock
	if dirty != 0 {
		c.markDirty(i)
	}
	return evicted
}

func (c *Cache) checkMask(addr uint64, mask uint32) {
	if mask-1 >= c.full { // mask is 0 or has a bit above the line's sectors
		badMask(addr, mask, c.full)
	}
}

// badMask is out of line so that the formatting stays off the hot path.
//
//go:noinline
func badMask(addr uint64, mask, full uint32) {
	panic(fmt.Sprintf("cache: access at %#x with sector mask %#b; want a non-empty subset of %#b", addr, mask, full))
}
