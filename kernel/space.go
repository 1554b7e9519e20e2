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
// -spaces flag gives an array: global or constant. Texture memory is
// refused until its caches are simulated; shared memory is declared in
// a __global__ kernel's source, not chosen for an array of the file.
func ParseSpace(s string) (Space, error) {
	switch s {
	case "global":
		return SpaceGlobal, nil
	case "constant":
		return SpaceConstant, nil
	case "texture":
		return 0, errors.New(`space "texture": texture memory is not simulated yet; hint: use global, or constant for a small array that the lanes of a warp read at few addresses`)
	case "shared":
		return 0, errors.New(`space "shared": an array of the kernel file lives in device memory; hint: declare a __shared__ array in a __global__ kernel's source and copy the data into it`)
	}
	return 0, fmt.Errorf("unknown space %q; hint: want global or constant", s)
}

// SetSpaces puts arrays of the kernel file in other memory spaces, as
// the -spaces flag does: spaces maps array names to spaces. A name that
// is no array of the file is an error naming the arrays, and so is a
// store to an array that becomes constant (at the store). k is changed
// in place.
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
	return constantStores(k.File, k.Program)
}

// constantStores refuses the first store to a constant array, at the
// store: a kernel only reads constant memory.
func constantStores(file string, p *Program) error {
	for _, r := range p.Refs {
		if r.Store && r.Array.Space == SpaceConstant {
			return posError(file, r.Line, r.Col, fmt.Sprintf("store to constant array %s (%s)", r.Array.Name, r.Text),
				"constant memory is read-only in a kernel (the host fills it before the launch, with cudaMemcpyToSymbol); keep "+r.Array.Name+" in global memory")
		}
	}
	return nil
}
