package gpgpusim

import (
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// cacheString is a GPGPU-Sim cache geometry string, as cache_config::init
// (src/gpgpu-sim/gpu-cache.h) reads it:
//
//	<N|S>:<sets>:<line>:<assoc>,<rep>:<write>:<alloc>:<write_alloc>:<set_index>,<mshr>:<entries>:<merge>,<miss_queue>[:<fifo>][,<port width>]
//
// The 3.x-era form without the leading N or S (deprecated configs) is a
// normal (not sectored) cache.
type cacheString struct {
	sectored        bool
	sets, line, way int
	replacement     arch.Replacement
	write           arch.WritePolicy
	writeNote       string // set where the letter is an approximation
	alloc           byte   // m, f or s: not modelled
	writeAllocate   bool
	setIndex        arch.SetIndex
	indexNote       string
	mshrEntries     int
	mshrMerges      int
}

// maxField bounds each number of a geometry, so that their product cannot
// overflow; arch.Device.Validate bounds the size itself.
const maxField = 1 << 20

// sectorSize is GPGPU-Sim's SECTOR_SIZE.
const sectorSize = 32

const cacheHint = "want <N|S>:<sets>:<line bytes>:<ways>,<L|F>:<R|B|T|E|L>:<m|f|s>:<N|W|F|L>:<L|H|X|P>,<A|S|F|T>:<MSHR entries>:<merges>,<miss queue>, e.g. N:32:128:4,L:L:m:N:H,S:64:8,8 (GPGPU-Sim's cache_config::init)"

// parseCacheString reads s; ok is false for "none", GPGPU-Sim's absent
// cache.
func parseCacheString(s string) (c cacheString, ok bool, err error) {
	if s == "none" {
		return c, false, nil
	}
	groups := strings.Split(s, ",")
	if len(groups) < 4 {
		return c, false, fmt.Errorf("%d comma-separated groups, want at least 4; %s", len(groups), cacheHint)
	}
	geo := strings.Split(groups[0], ":")
	switch {
	case len(geo) == 4 && (geo[0] == "N" || geo[0] == "S"):
		c.sectored = geo[0] == "S"
		geo = geo[1:]
	case len(geo) == 3 && geo[0] != "N" && geo[0] != "S":
		// 3.x format: no cache type.
	default:
		return c, false, fmt.Errorf("geometry %q: %s", groups[0], cacheHint)
	}
	nums, err := positives("geometry", geo, "sets", "line bytes", "ways")
	if err != nil {
		return c, false, err
	}
	c.sets, c.line, c.way = nums[0], nums[1], nums[2]
	if c.sets > maxField || c.line > maxField || c.way > maxField {
		return c, false, fmt.Errorf("geometry %q: a field is above %d, larger than any cache", groups[0], maxField)
	}
	if c.sectored && c.line != 4*sectorSize {
		return c, false, fmt.Errorf("a sectored (S) cache has lines of 4 × 32-byte sectors, got %d-byte lines", c.line)
	}
	if err := c.policies(groups[1]); err != nil {
		return c, false, err
	}
	mshr := strings.Split(groups[2], ":")
	if len(mshr) != 3 || len(mshr[0]) != 1 || !strings.Contains("ASFT", mshr[0]) {
		return c, false, fmt.Errorf("MSHR %q: want <A|S|F|T>:<entries>:<merges>, e.g. A:64:8", groups[2])
	}
	if nums, err = positives("MSHR", mshr[1:], "entries", "merges"); err != nil {
		return c, false, err
	}
	c.mshrEntries, c.mshrMerges = nums[0], nums[1]
	if _, err := positives("miss queue", strings.Split(groups[3], ":")[:1], "size"); err != nil {
		return c, false, err
	}
	return c, true, nil
}

// positives reads the named fields of a group as positive integers.
func positives(group string, fields []string, names ...string) ([]int, error) {
	if len(fields) != len(names) {
		return nil, fmt.Errorf("%s %q: want %d fields (%s)", group, strings.Join(fields, ":"), len(names), strings.Join(names, ":"))
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %s %q is not a positive integer", group, names[i], f)
		}
		out[i] = n
	}
	return out, nil
}

// policies reads <rep>:<write>:<alloc>:<write_alloc>:<set_index>.
func (c *cacheString) policies(g string) error {
	p := strings.Split(g, ":")
	if len(p) != 5 {
		return fmt.Errorf("policies %q: want 5 letters <L|F>:<R|B|T|E|L>:<m|f|s>:<N|W|F|L>:<L|H|X|P>, e.g. L:L:m:N:H", g)
	}
	for i, f := range p {
		if len(f) != 1 {
			return fmt.Errorf("policies %q: field %d %q is not one letter", g, i+1, f)
		}
	}
	bad := func(what, got, want string) error {
		return fmt.Errorf("policies %q: %s %q; want %s", g, what, got, want)
	}
	switch p[0] {
	case "L":
		c.replacement = arch.ReplaceLRU
	case "F":
		c.replacement = arch.ReplaceFIFO
	default:
		return bad("replacement", p[0], "L (LRU) or F (FIFO)")
	}
	switch p[1] {
	case "R":
		c.write = arch.ReadOnly
	case "B":
		c.write = arch.WriteBack
	case "T":
		c.write = arch.WriteThrough
	case "E":
		c.write = arch.WriteEvict
	case "L":
		c.write = arch.WriteThrough
		c.writeNote = "L (local write-back, global write-through) read as write_through: gpumemsim has one policy for every space"
	default:
		return bad("write policy", p[1], "R, B, T, E or L")
	}
	if !strings.Contains("mfs", p[2]) {
		return bad("allocation", p[2], "m (on miss), f (on fill) or s (streaming)")
	}
	c.alloc = p[2][0]
	switch p[3] {
	case "N":
	case "W", "F", "L":
		c.writeAllocate = true
	default:
		return bad("write allocation", p[3], "N, W, F or L")
	}
	switch p[4] {
	case "L":
		c.setIndex = arch.IndexLinear
	case "H":
		c.setIndex = arch.IndexFermiHash
	case "X":
		c.setIndex = arch.IndexXOR
	case "P":
		c.setIndex = arch.IndexXOR
		c.indexNote = "P (IPOLY hash) read as xor, the closest set-index function gpumemsim has"
	default:
		return bad("set index function", p[4], "L (linear), H (Fermi hash), X (XOR) or P (IPOLY); C (custom) has no definition to import")
	}
	return nil
}

// cache is the arch.Cache the string describes (hit latency not set).
func (c cacheString) cache() arch.Cache {
	out := arch.Cache{
		Size:          arch.Bytes(c.sets * c.line * c.way),
		Line:          arch.Bytes(c.line),
		Sector:        arch.Bytes(c.line),
		Associativity: c.way,
		Replacement:   c.replacement,
		SetIndex:      c.setIndex,
		WritePolicy:   c.write,
		WriteAllocate: c.writeAllocate,
		MSHREntries:   c.mshrEntries,
		MSHRMerges:    c.mshrMerges,
	}
	if c.sectored {
		out.Sector = sectorSize
	}
	return out
}
