package traces

import (
	"fmt"

	"gpumemsim/kernel"
)

// Struct arrays: under the kernel's selected layout (kernel.DataLayout)
// each struct array is bound as one array per group of its fields, each
// an array of structures of the group's fields laid out anew by C's rules
// (an AoS is one group, the array itself; a SoA one group per field).
// A reference P[i].f reads f's group at base + i·(group size) + (f's
// offset in the group), f's size bytes per thread.

// ElemSize is the bytes between consecutive elements of a: its group
// structure's size, or its element type's.
func (a *BoundArray) ElemSize() int64 {
	if a.Struct != nil {
		return a.Struct.Size
	}
	return int64(a.Type.Size())
}

// TypeName names a's element type: its structure's fields in braces
// ({x f32, y f32}) or the element type's name.
func (a *BoundArray) TypeName() string {
	if a.Struct == nil {
		return a.Type.String()
	}
	s := "{"
	for i, f := range a.Struct.Fields {
		if i > 0 {
			s += ", "
		}
		s += f.Name + " " + f.Type.String()
	}
	return s + "}"
}

// groupArrays is the bound arrays of struct array a, extents and size in
// ba, one per group of the kernel's layout, not yet placed.
func groupArrays(k *kernel.Kernel, a *kernel.Array, ba BoundArray) ([]BoundArray, error) {
	if a.Space == kernel.SpaceTexture {
		return nil, fmt.Errorf("array %s holds structs %s; a texture holds elements of one scalar type; hint: keep %s in global memory, or read it through the read-only cache", a.Name, a.Struct.Name, a.Name)
	}
	groups := k.Layout.Groups(a)
	n := ba.Size / a.ElemSize()
	out := make([]BoundArray, len(groups))
	for g, fs := range groups {
		sub := a.Struct
		if len(groups) > 1 {
			sub = a.Struct.Sub(fs)
		}
		gb := ba
		gb.Name, gb.Struct = kernel.GroupName(a, groups, g), sub
		gb.Size = n * sub.Size // at most ba.Size: a group is no larger than the whole
		out[g] = gb
	}
	return out, nil
}

// refArray is the bound array reference r reads or writes, and the byte
// offset of its field within an element (0 for arrays of scalars).
func (l *Launch) refArray(r *kernel.MemRef, sp kernel.Space) (*BoundArray, int64) {
	if r.Field == nil {
		return l.arrayNamed(r.Array.Name, sp), 0
	}
	groups := l.Kernel.Layout.Groups(r.Array)
	for g, fs := range groups {
		for _, f := range fs {
			if f != r.Field {
				continue
			}
			ba := l.arrayNamed(kernel.GroupName(r.Array, groups, g), sp)
			if ba == nil {
				return nil, 0
			}
			return ba, ba.Struct.Field(f.Name).Offset
		}
	}
	return nil, 0
}
