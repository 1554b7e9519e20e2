package indexdata

import "math/bits"

// Permutation is a seeded bijection of 0..n-1: a balanced Feistel network
// over 2h bits, with 2^(2h) the smallest such domain of at least n values,
// cycle-walked into [0, n). It keeps four round keys, whatever n.
type Permutation struct {
	n    uint64
	half uint
	mask uint64
	keys [feistelRounds]uint64
}

const feistelRounds = 4

// NewPermutation is the permutation of 0..n-1 that seed selects.
func NewPermutation(n int64, seed uint64) (*Permutation, error) {
	if err := checkLen("permutation", n); err != nil {
		return nil, err
	}
	h := uint(1)
	if n > 4 {
		h = uint(bits.Len64(uint64(n-1))+1) / 2
	}
	p := &Permutation{n: uint64(n), half: h, mask: 1<<h - 1}
	for r := range p.keys {
		p.keys[r] = hash2(seed, uint64(r))
	}
	return p, nil
}

// Len is n.
func (p *Permutation) Len() int64 { return int64(p.n) }

// Range is [0, n-1].
func (p *Permutation) Range() (int64, int64) { return 0, int64(p.n) - 1 }

// At is the image of i. Walking the cycle of i under the network until
// it comes back into [0, n) keeps the map a bijection of [0, n).
func (p *Permutation) At(i int64) int64 {
	x := uint64(i)
	for {
		x = p.feistel(x)
		if x < p.n {
			return int64(x)
		}
	}
}

// feistel is one pass of the network over the domain of 2h bits.
func (p *Permutation) feistel(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(mix(r^k)&p.mask)
	}
	return l<<p.half | r
}
