package kernel

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ConstantMemory is the constant memory of a device in bytes, on every
// compute capability: "Total amount of constant memory 64 KB" (PG42
// Table F-2). The constant arrays of a launch must fit in it together.
const ConstantMemory = 64 << 10

// ParseSpace reads the memory space a kernel file's space: key or the
// -spaces flag gives an array: global, constant, texture (read through
// the texture cache, as through a texture reference bound to the array)
// or readonly (global memory whose every load is an LDG through the
// read-only data cache, as if each read were written __ldg; compute
// capability 3.5 and later). Shared memory is declared in a __global__
// kernel's source, not chosen for an array of the file.
func ParseSpace(s string) (Space, error) {
	switch s {
	case "global":
		return SpaceGlobal, nil
	case "constant":
		return SpaceConstant, nil
	case "texture":
		return SpaceTexture, nil
	case "readonly":
		return SpaceReadOnly, nil
	case "shared":
		return 0, errors.New(`space "shared": an array of the kernel file lives in device memory; hint: declare a __shared__ array in a __global__ kernel's source and copy the data into it`)
	}
	return 0, fmt.Errorf("unknown space %q; hint: want global, constant, texture or readonly", s)
}

// SetSpaces puts arrays of the kernel file in other memory spaces, as
// the -spaces flag does: spaces maps array names to spaces. A name that
// is no array of the file is an error naming the arrays, and so is a
// store to an array that becomes constant, texture or readonly (at the
// store), another space than texture for an array a tex1Dfetch or tex2D
// reads, and constant or texture for one an __ldg reads. k is changed in
// place.
func (k *Kernel) SetSpaces(spaces map[string]Space) error {
	var unknown []string
	for name := range spaces {
		if !slices.ContainsFunc(k.Arrays, func(a *Array) bool { return a.Name == name }) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(k.Arrays))
		for i, a := range k.Arrays {
			names[i] = a.Name
		}
		return fmt.Errorf("unknown array %s; hint: the arrays of %s are %s", strings.Join(unknown, ", "), k.Name, strings.Join(names, ", "))
	}
	for _, a := range k.Arrays {
		if sp, ok := spaces[a.Name]; ok {
			a.Space = sp
		}
	}
	if err := fetchSpaces(k.File, k.Program); err != nil {
		return err
	}
	return readOnlyStores(k.File, k.Program)
}

// readOnlyStores refuses the first store to a constant, texture or
// readonly array, at the store: a kernel only reads those spaces.
func readOnlyStores(file string, p *Program) error {
	for _, r := range p.Refs {
		if !r.Store {
			continue
		}
		switch r.Array.Space {
		case SpaceConstant:
			return posError(file, r.Line, r.Col, fmt.Sprintf("store to constant array %s (%s)", r.Array.Name, r.Text),
				"constant memory is read-only in a kernel (the host fills it before the launch, with cudaMemcpyToSymbol); keep "+r.Array.Name+" in global memory")
		case SpaceTexture:
			return posError(file, r.Line, r.Col, fmt.Sprintf("store to texture array %s (%s)", r.Array.Name, r.Text),
				"a kernel only reads through a texture (its cache is not coherent with stores); keep "+r.Array.Name+" in global memory")
		case SpaceReadOnly:
			return posError(file, r.Line, r.Col, fmt.Sprintf("store to readonly array %s (%s)", r.Array.Name, r.Text),
				"the read-only data cache is not coherent with stores, so only data read-only for the whole kernel may go through it; keep "+r.Array.Name+" in global memory")
		}
	}
	return nil
}
