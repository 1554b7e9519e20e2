package sim

import (
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// Loads through the read-only data cache (LDG: __ldg, a const
// __restrict__ pointer on compute capability 3.5 and later, an array in
// the readonly space) take the texture path: on GK110 the read-only data
// cache is the SM's texture cache ("each SM has a 48 KB read-only data
// cache", PG-3x; "accessed directly for 3.5/3.7, or via the texture
// unit"), on Maxwell the unified L1/texture cache ("Data that is
// read-only for the entire lifetime of the kernel can also be cached in
// the unified L1/texture cache ... by reading it using the __ldg()
// function", PG-5x). So they look up their 32-byte lines in the config's
// texture cache (TextureLines) and count in Result.Texture, as nvprof
// counts LDG in tex_cache_transactions; a reference keeps its own space,
// "readonly", in the per-reference counts.

// ldgRefs marks in tex, the references the texture cache serves, the
// loads of a launch through the read-only data cache. A device without
// that cache (compute capability below 3.5; traces.Bind refuses such a
// launch at the reference) cannot run them.
func ldgRefs(dev *arch.Device, info *traces.Info, tex []bool) ([]bool, error) {
	for i, r := range info.Refs {
		if r.Space != kernel.SpaceReadOnly {
			continue
		}
		if !dev.ReadOnlyDataCache() {
			return nil, fmt.Errorf("%s loads through the read-only data cache, which device %s (compute capability %s) does not have; hint: bind the launch for %s, which refuses it at the reference, or run on kepler or maxwell", r.Text, dev.Name, dev.ComputeCapability, dev.Name)
		}
		if !dev.Texture.Present() {
			return nil, fmt.Errorf("device %s has no texture cache (texture: size 0B), which serves %s as its read-only data cache; hint: describe the device's texture cache in its config", dev.Name, r.Text)
		}
		tex[i] = true
	}
	return tex, nil
}

// texturePath says references of space (a RefStats.Space) are served
// by the SMs' texture caches: texture fetches and LDGs.
func texturePath(space string) bool {
	return space == kernel.SpaceTexture.String() || space == kernel.SpaceReadOnly.String()
}
