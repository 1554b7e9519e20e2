package sim

import (
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim/constmem"
	"gpumemsim/traces"
)

// texLine is the line a texture lookup asks for: the texture L1s of
// GT200 (WONG via GS-git, 32-B lines), Fermi and Kepler (MEI, 32-B
// lines) and Maxwell (MEI) all fetch 32-byte lines.
const texLine = 32

// textureAccess serves the texture fetch of the warp in slot, issued at
// t: one lookup of the SM's texture cache per distinct 32-byte line its
// active lanes touch, in the order their first lanes come, sent one per
// cycle through the load/store unit as the constant cache's passes are.
// A miss reads its line through the L2 (Fermi and later) or from DRAM
// (G80, GT200).
func (s *sm) textureAccess(slot int, t int64) {
	w := s.addressed(slot)
	tu := &s.texture
	tu.addrs = TextureLines(w.mem.Active, &w.mem.Addr, tu.addrs[:0])
	s.readThrough(slot, t, tu, &s.res.Texture)
}

// TextureLines appends to dst the distinct 32-byte lines, by address, that
// the active lanes of addr touch, in the order their first lanes come.
func TextureLines(active uint32, addr *[32]uint64, dst []uint64) []uint64 {
	var lines [32]uint64
	for l := range addr {
		lines[l] = addr[l] &^ (texLine - 1)
	}
	return constmem.Distinct(active, &lines, 0, 32, dst)
}

// texRefs says, per reference of a launch, whether the texture cache
// serves it: a texture fetch or an LDG (readonly.go).
func texRefs(dev *arch.Device, info *traces.Info) ([]bool, error) {
	tex, err := readOnlyRefs(dev.Name, dev.Texture.Cache, info, kernel.SpaceTexture)
	if err != nil {
		return nil, err
	}
	return ldgRefs(dev, info, tex)
}

// newTexUnits gives the SMs their texture paths for a launch whose
// references are in space, counting into res: one texture cache per
// texture.shared_by consecutive SMs (a TPC of G80 or GT200), each SM with
// its own scratch. The SMs of a group share the cache's tags, LRU state
// and MSHRs; see docs/design.md, "Texture memory", for the order in which
// it sees their lookups.
func (c cores) newTexUnits(dev *arch.Device, space []refSpace, res *Result) error {
	k, used := dev.Texture.SMsPerCache(), slices.Contains(space, spaceTexture)
	for first := 0; first < len(c); first += k {
		lv, err := newReadLevel(dev.Name, "texture", dev.Texture.Cache, used, &res.Texture)
		if err != nil {
			return err
		}
		for i := first; i < min(first+k, len(c)); i++ {
			c[i].texture = newReadPath(lv)
		}
	}
	return nil
}

// texGroup is the range [lo, hi) of the SMs that share SM id's texture
// cache.
func (c cores) texGroup(id int) (lo, hi int) {
	k := c[id].spec.texShare
	lo = id - id%k
	return lo, min(lo+k, len(c))
}
