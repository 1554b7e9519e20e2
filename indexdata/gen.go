package indexdata

import (
	"fmt"
	"math/bits"
)

// Uniform is n values drawn uniformly from [lo, hi), each the hash of the
// seed and its position.
type Uniform struct {
	n, lo int64
	span  uint64
	seed  uint64
}

// NewUniform is n values in [lo, hi) that seed selects.
func NewUniform(n, lo, hi int64, seed uint64) (*Uniform, error) {
	if err := checkLen("uniform", n); err != nil {
		return nil, err
	}
	if hi <= lo || uint64(hi-lo) > 1<<62 {
		return nil, fmt.Errorf("uniform: want lo < hi within 2^62 of each other; got lo %d, hi %d", lo, hi)
	}
	return &Uniform{n: n, lo: lo, span: uint64(hi - lo), seed: seed}, nil
}

// Len is n.
func (u *Uniform) Len() int64 { return u.n }

// At is value i.
func (u *Uniform) At(i int64) int64 { return u.lo + int64(scale(hash2(u.seed, uint64(i)), u.span)) }

// Range is [lo, hi-1].
func (u *Uniform) Range() (int64, int64) { return u.lo, u.lo + int64(u.span) - 1 }

// Strided is the walk i·stride mod m over n elements.
type Strided struct {
	n           int64
	stride, mod uint64
}

// NewStrided is n elements, element i being i·stride mod m.
func NewStrided(n, stride, m int64) (*Strided, error) {
	if err := checkLen("strided", n); err != nil {
		return nil, err
	}
	if stride < 0 || m < 1 {
		return nil, fmt.Errorf("strided: want stride ≥ 0 and mod ≥ 1; got stride %d, mod %d", stride, m)
	}
	return &Strided{n: n, stride: uint64(stride), mod: uint64(m)}, nil
}

// Len is n.
func (s *Strided) Len() int64 { return s.n }

// At is i·stride mod m, exactly.
func (s *Strided) At(i int64) int64 {
	hi, lo := bits.Mul64(uint64(i), s.stride)
	_, rem := bits.Div64(hi%s.mod, lo, s.mod)
	return int64(rem)
}

// Range is [0, m-1].
func (s *Strided) Range() (int64, int64) { return 0, int64(s.mod) - 1 }
