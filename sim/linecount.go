package sim

// lineCounts counts, per line, the accesses of an L2 slice that wait for
// an MSHR entry. It is an open-addressed table (linear probing, deletion
// by backward shift, at most half full) rather than a Go map: every
// access that waits adds to it and every one that goes on takes from it,
// and on a slice whose table stays full (g80's texture reads through the
// L2) the map's hashing was 5.7% of the run. cache.MSHR's index
// probes and deletes the same way but keeps no keys, reading each slot's
// line from its entry; keys beside that index, which would let the two
// share one table, cost the fermi runs 0.2 to 0.4% more instructions
// (docs/speed-log.md, "The waiting accesses counted per line").
type lineCounts struct {
	keys   []uint64
	counts []int32 // 0: an empty slot
	n      int     // lines counted
	mask   uint64
}

// minLineSlots is the slots of a table's first allocation.
const minLineSlots = 64

// len is the number of lines counted.
func (c *lineCounts) len() int { return c.n }

// slot is line's home slot.
func (c *lineCounts) slot(line uint64) uint64 {
	return (line * 0x9E3779B97F4A7C15 >> 32) & c.mask
}

// find is the slot holding line, or the empty slot where it would go.
func (c *lineCounts) find(line uint64) uint64 {
	h := c.slot(line)
	for c.counts[h] != 0 && c.keys[h] != line {
		h = (h + 1) & c.mask
	}
	return h
}

// get is line's count, 0 when it has none.
func (c *lineCounts) get(line uint64) int32 {
	if c.n == 0 {
		return 0
	}
	return c.counts[c.find(line)]
}

// inc adds one to line's count.
func (c *lineCounts) inc(line uint64) {
	if 2*(c.n+1) > len(c.counts) {
		c.grow()
	}
	h := c.find(line)
	if c.counts[h] == 0 {
		c.keys[h] = line
		c.n++
	}
	c.counts[h]++
}

// dec takes one from line's count, if it has one, and forgets the line
// at 0.
func (c *lineCounts) dec(line uint64) {
	if c.n == 0 {
		return
	}
	h := c.find(line)
	if c.counts[h] == 0 { // not counted
		return
	}
	if c.counts[h] > 1 {
		c.counts[h]--
		return
	}
	c.n--
	// Backward shift: later lines of h's probe run whose home is not
	// cyclically in (h, j] move into the hole, so probes never stop early.
	for {
		c.counts[h] = 0
		j := h
		for {
			j = (j + 1) & c.mask
			if c.counts[j] == 0 {
				return
			}
			if home := c.slot(c.keys[j]); (j-home)&c.mask >= (j-h)&c.mask {
				c.keys[h], c.counts[h] = c.keys[j], c.counts[j]
				h = j
				break
			}
		}
	}
}

// grow doubles the table (or makes its first), placing every line again.
func (c *lineCounts) grow() {
	keys, counts := c.keys, c.counts
	n := max(minLineSlots, 2*len(counts))
	c.keys, c.counts, c.mask = make([]uint64, n), make([]int32, n), uint64(n-1)
	for i, k := range counts {
		if k != 0 {
			h := c.find(keys[i])
			c.keys[h], c.counts[h] = keys[i], k
		}
	}
}
