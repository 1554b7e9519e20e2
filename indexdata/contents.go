package indexdata

import (
	"fmt"
	"math/bits"
)

// Contents is the integer contents of an array, element by element.
type Contents interface {
	// Len is the number of elements.
	Len() int64
	// At is element i, 0 ≤ i < Len().
	At(i int64) int64
	// Range bounds every element: lo ≤ At(i) ≤ hi.
	Range() (lo, hi int64)
}

// Values is contents held in memory, as a file gives them.
type Values struct {
	v      []int64
	lo, hi int64
}

// NewValues holds v (not copied).
func NewValues(v []int64) *Values {
	s := &Values{v: v}
	for i, x := range v {
		if i == 0 || x < s.lo {
			s.lo = x
		}
		if i == 0 || x > s.hi {
			s.hi = x
		}
	}
	return s
}

// Len is the number of values.
func (s *Values) Len() int64 { return int64(len(s.v)) }

// At is value i.
func (s *Values) At(i int64) int64 { return s.v[i] }

// Range is the smallest and the largest value (0, 0 when empty).
func (s *Values) Range() (int64, int64) { return s.lo, s.hi }

// mix is splitmix64's finalizer: a bijective hash of 64 bits.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// hash2 hashes a seed and a position.
func hash2(seed, i uint64) uint64 { return mix(mix(seed) ^ i) }

// scale maps a hash h to [0, span) by the high word of h·span.
func scale(h, span uint64) uint64 {
	hi, _ := bits.Mul64(h, span)
	return hi
}

// checkLen refuses a negative length or one past MaxGenerated.
func checkLen(what string, n int64) error {
	if n < 0 || n > MaxGenerated {
		return fmt.Errorf("%s: %d elements; want 0 to %d", what, n, int64(MaxGenerated))
	}
	return nil
}

// Bounds on what a generator or a file may describe.
const (
	// MaxGenerated bounds a generator's elements: 2^48, far beyond what
	// a simulation reads, and small enough that no element's arithmetic
	// overflows.
	MaxGenerated = 1 << 48
	// MaxStoredRows bounds the rows of a power-law matrix, whose row
	// pointers are kept: 2^22 rows, 32 MiB.
	MaxStoredRows = 1 << 22
	// MaxEntries bounds the values a file may hold once read (a
	// symmetric matrix's mirrored entries included): 2^22, 32 MiB.
	MaxEntries = 1 << 22
	// MaxFileBytes bounds the bytes read of a file: 256 MiB, room for
	// MaxEntries entries with long values and comments.
	MaxFileBytes = 1 << 28
)
