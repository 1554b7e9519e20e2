package traces

import (
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// refSpace is the memory space reference r of k reads or writes on dev
// (nil: no device), its array being in space sp. A load goes through the
// read-only data cache (kernel.SpaceReadOnly) when it is an __ldg, when
// its array is in the readonly space, or, on a device that has the cache,
// when it reads a global array through a const __restrict__ pointer
// parameter: nvcc's choice, assumed here (PG-5x: "When the compiler
// detects that the read-only condition is satisfied for some data, it
// will use __ldg() to read it"). Without a device that last case stays a
// global load. An __ldg or a readonly array on a device without the
// cache (compute capability below 3.5) is an error at the reference.
func refSpace(k *kernel.Kernel, r *kernel.MemRef, sp kernel.Space, dev *arch.Device) (kernel.Space, error) {
	has := dev != nil && dev.ReadOnlyDataCache()
	switch {
	case r.Fetch == kernel.FetchLDG || sp == kernel.SpaceReadOnly:
		if dev != nil && !has {
			return 0, at(kernel.Pos{Line: r.Line, Col: r.Col}, noReadOnlyCache(r, sp, dev))
		}
		return kernel.SpaceReadOnly, nil
	case sp == kernel.SpaceGlobal && !r.Store && has && k.Program.ReadOnlyArg(r.Array.Name):
		return kernel.SpaceReadOnly, nil
	}
	return sp, nil
}

// noReadOnlyCache says why reference r, an __ldg or a read of an array
// in space sp (readonly), cannot run on dev.
func noReadOnlyCache(r *kernel.MemRef, sp kernel.Space, dev *arch.Device) error {
	what := r.Text + " loads through the read-only data cache (ld.global.nc)"
	hint := fmt.Sprintf("fetch %s through a texture instead (space: texture and tex1Dfetch(%s, i)), read it as %s[i], or run on kepler or maxwell", r.Array.Name, r.Array.Name, r.Array.Name)
	if r.Fetch != kernel.FetchLDG && sp == kernel.SpaceReadOnly {
		what = fmt.Sprintf("%s reads array %s, which is in readonly space, through the read-only data cache", r.Text, r.Array.Name)
		hint = fmt.Sprintf("put %s in global or texture memory (-spaces %s=texture), or run on kepler or maxwell", r.Array.Name, r.Array.Name)
	}
	return fmt.Errorf("%s, which %s (compute capability %s) does not have: it came with compute capability 3.5; hint: %s", what, dev.Name, dev.ComputeCapability, hint)
}
