package arch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// L1Shared is the on-chip memory of an SM that Fermi and Kepler divide
// between shared memory and the L1 data cache, chosen per kernel with
// cudaFuncSetCacheConfig (A100 too, among more carveouts than the two or
// three splits kept here). The config as loaded (its sm and l1 sections)
// is one of the splits; WithCacheConfig gives another. A device whose L1
// and shared memory are fixed has none: the zero value.
type L1Shared struct {
	// Size is shared memory plus L1 per SM (64 KiB on Fermi and Kepler).
	Size Bytes `yaml:"size" json:"size"`
	// MaxSharedMemoryPerBlock is the compute capability's limit per
	// block; a split with less shared memory per SM than that limits a
	// block to the split's.
	MaxSharedMemoryPerBlock Bytes `yaml:"max_shared_memory_per_block" json:"max_shared_memory_per_block"`
	// The splits, named as cudaFuncCache names them. PreferShared and
	// PreferL1 are required; PreferEqual is absent (zero) where the
	// hardware has no equal split (compute capability 2.x).
	PreferShared Split `yaml:"prefer_shared" json:"prefer_shared"`
	PreferL1     Split `yaml:"prefer_l1" json:"prefer_l1"`
	PreferEqual  Split `yaml:"prefer_equal,omitempty" json:"prefer_equal,omitzero"`
}

// Split is one division of L1Shared: the shared memory per SM, and the
// associativity of the L1 that takes the rest. The L1's line, sectors,
// set-index function and timing are the l1 section's in every split; its
// sets follow from size / (line × associativity).
type Split struct {
	SharedMemory    Bytes `yaml:"shared_memory" json:"shared_memory"`
	L1Associativity int   `yaml:"l1_associativity" json:"l1_associativity"`
}

// Present reports whether the device has a configurable split.
func (s L1Shared) Present() bool { return s != L1Shared{} }

// Split returns the split that c selects and whether the device offers it.
func (s L1Shared) Split(c CacheConfig) (Split, bool) {
	var sp Split
	switch c {
	case PreferShared:
		sp = s.PreferShared
	case PreferL1:
		sp = s.PreferL1
	case PreferEqual:
		sp = s.PreferEqual
	}
	return sp, sp != Split{}
}

// Offered lists the cache configs the device offers, in cudaFuncCache's
// order.
func (s L1Shared) Offered() []CacheConfig {
	var out []CacheConfig
	for _, c := range []CacheConfig{PreferShared, PreferL1, PreferEqual} {
		if _, ok := s.Split(c); ok {
			out = append(out, c)
		}
	}
	return out
}

// L1Size is the L1 that a split leaves.
func (s L1Shared) L1Size(sp Split) Bytes { return s.Size - sp.SharedMemory }

// MaxSharedMemoryPerBlockIn is what one block may use in a split.
func (s L1Shared) MaxSharedMemoryPerBlockIn(sp Split) Bytes {
	return min(sp.SharedMemory, s.MaxSharedMemoryPerBlock)
}

// ErrNoSplit is the error WithCacheConfig wraps for a device whose L1 and
// shared memory cannot be traded.
var ErrNoSplit = errors.New("no configurable L1/shared split")

// WithCacheConfig returns a copy of d with the split that c selects, as
// cudaFuncSetCacheConfig(c) gives a kernel: the shared memory per SM and
// per block, and the L1's size and associativity (so its sets). Nothing
// else changes. Zero (cudaFuncCachePreferNone) returns d's split
// unchanged. A device without a configurable split, or without the split
// c names, is an error that names what it offers.
func (d *Device) WithCacheConfig(c CacheConfig) (*Device, error) {
	out := *d
	out.Sources = slices.Clone(d.Sources)
	if c == 0 {
		return &out, nil
	}
	s := d.L1Shared
	if !s.Present() {
		return nil, fmt.Errorf("device %s has %w: its config has no l1_shared section", d.Name, ErrNoSplit)
	}
	sp, ok := s.Split(c)
	if !ok {
		return nil, fmt.Errorf("device %s (compute capability %s) offers %s; it has no %s split",
			d.Name, d.ComputeCapability, orList(s.Offered()), c)
	}
	out.CacheConfig = c
	out.SM.SharedMemory = sp.SharedMemory
	out.SM.MaxSharedMemoryPerBlock = s.MaxSharedMemoryPerBlockIn(sp)
	out.L1.Size = s.L1Size(sp)
	out.L1.Associativity = sp.L1Associativity
	// Validate checked the split's geometry when d was loaded; a device
	// built in code is checked here, so that the result always validates.
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("device %s with %s: %w", d.Name, c, err)
	}
	return &out, nil
}

// orList writes "a, b or c".
func orList(cs []CacheConfig) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// l1Shared checks the l1_shared section: each split leaves an L1 whose
// geometry works with the l1 section's line and set index, the splits
// are what their names say, and the config as loaded is one of them.
func (v *validator) l1Shared(d *Device) {
	s := d.L1Shared
	if !s.Present() {
		return
	}
	if !d.L1.Present() {
		v.add("l1_shared", "describes a split of shared memory with an L1, but the device has no L1 (l1.size is 0); remove l1_shared")
		return
	}
	before := len(v.errs)
	v.size("l1_shared.size", s.Size, maxSMem+maxL1)
	v.size("l1_shared.max_shared_memory_per_block", s.MaxSharedMemoryPerBlock, maxSMem)
	for _, c := range []CacheConfig{PreferShared, PreferL1, PreferEqual} {
		path := "l1_shared." + c.key()
		sp, ok := s.Split(c)
		if !ok {
			if c != PreferEqual {
				v.add(path, "required: the shared memory per SM and the associativity of the L1 in this split, e.g. {shared_memory: 48KiB, l1_associativity: 4}")
			}
			continue
		}
		v.split(path, c, sp, s, d.L1)
	}
	// Matching the config as loaded against the splits only makes sense
	// when both are sound; otherwise it would repeat their errors.
	if len(v.errs) == before && !v.failed("sm.shared_memory", "sm.max_shared_memory_per_block", "l1.") {
		v.loadedSplit(d)
	}
}

// split checks one split of s, the one c names, against the l1 section.
func (v *validator) split(path string, c CacheConfig, sp Split, s L1Shared, l1 Cache) {
	v.size(path+".shared_memory", sp.SharedMemory, maxSMem)
	v.count(path+".l1_associativity", int64(sp.L1Associativity), maxWays)
	if s.Size <= 0 || sp.SharedMemory <= 0 {
		return
	}
	size := s.L1Size(sp)
	if size <= 0 {
		v.add(path+".shared_memory", "%v leaves no L1 of the %v in l1_shared.size", sp.SharedMemory, s.Size)
		return
	}
	switch {
	case c == PreferShared && sp.SharedMemory <= size:
		v.add(path+".shared_memory", "%v leaves a %v L1: prefer_shared has more shared memory than L1", sp.SharedMemory, size)
	case c == PreferL1 && sp.SharedMemory >= size:
		v.add(path+".shared_memory", "%v leaves a %v L1: prefer_l1 has less shared memory than L1", sp.SharedMemory, size)
	case c == PreferEqual && sp.SharedMemory != size:
		v.add(path+".shared_memory", "%v leaves a %v L1: prefer_equal has as much shared memory as L1 (half of l1_shared.size)", sp.SharedMemory, size)
	}
	if size > maxL1 {
		v.add(path+".shared_memory", "leaves a %v L1, more than the simulator allows (at most %v, above any GPU it models)", size, Bytes(maxL1))
		return
	}
	if l1.Line <= 0 || sp.L1Associativity <= 0 || sp.L1Associativity > maxWays {
		return
	}
	way := l1.Line * Bytes(sp.L1Associativity)
	if size%way != 0 {
		v.add(path+".l1_associativity", "the %v L1 this split leaves (%v − %v) is not divisible by l1.line × l1_associativity (%v × %d = %v)",
			size, s.Size, sp.SharedMemory, l1.Line, sp.L1Associativity, way)
		return
	}
	sets := int(size / way)
	switch l1.SetIndex {
	case IndexFermiHash:
		if sets != 32 && sets != 64 {
			v.add(path+".l1_associativity", "the %v L1 this split leaves has %d sets of %d ways; l1.set_index fermi_hash needs 32 or 64", size, sets, sp.L1Associativity)
		}
	case IndexXOR:
		if !pow2(int64(sets)) {
			v.add(path+".l1_associativity", "the %v L1 this split leaves has %d sets of %d ways; l1.set_index xor needs a power of two", size, sets, sp.L1Associativity)
		}
	}
}

// loadedSplit checks that the sm and l1 sections give one of the splits
// of l1_shared, so that WithCacheConfig of that split gives the config
// back.
func (v *validator) loadedSplit(d *Device) {
	s := d.L1Shared
	var offered []string
	for _, c := range s.Offered() {
		sp, _ := s.Split(c)
		offered = append(offered, fmt.Sprintf("%s %v", c.key(), sp.SharedMemory))
		if sp.SharedMemory != d.SM.SharedMemory {
			continue
		}
		if size := s.L1Size(sp); d.L1.Size != size {
			v.add("l1.size", "%v: with sm.shared_memory %v (l1_shared.%s), l1_shared.size %v leaves %v for the L1",
				d.L1.Size, sp.SharedMemory, c.key(), s.Size, size)
		}
		if d.L1.Associativity != sp.L1Associativity {
			v.add("l1.associativity", "%d: l1_shared.%s gives the L1 %d ways", d.L1.Associativity, c.key(), sp.L1Associativity)
		}
		if pb := s.MaxSharedMemoryPerBlockIn(sp); d.SM.MaxSharedMemoryPerBlock != pb {
			v.add("sm.max_shared_memory_per_block", "%v: in l1_shared.%s a block may use %v (the split's shared memory, at most l1_shared.max_shared_memory_per_block %v)",
				d.SM.MaxSharedMemoryPerBlock, c.key(), pb, s.MaxSharedMemoryPerBlock)
		}
		return
	}
	v.add("sm.shared_memory", "%v is the shared memory of none of the splits in l1_shared (%s); the config as loaded must be one of them",
		d.SM.SharedMemory, strings.Join(offered, ", "))
}

// failed reports whether a problem was found with a field whose path
// starts with one of the prefixes.
func (v *validator) failed(prefixes ...string) bool {
	for _, e := range v.errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(fe.Path, p) {
				return true
			}
		}
	}
	return false
}
