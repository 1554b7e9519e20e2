package indexdata

import (
	"math/big"
	"slices"
	"testing"
)

func all(c Contents) []int64 {
	v := make([]int64, c.Len())
	for i := range v {
		v[i] = c.At(int64(i))
	}
	return v
}

func TestPermutationIsABijection(t *testing.T) {
	for _, n := range []int64{0, 1, 2, 3, 4, 5, 16, 17, 63, 64, 65, 100, 1000, 4097, 65537} {
		for _, seed := range []uint64{0, 1, 7, 1 << 40} {
			p, err := NewPermutation(n, seed)
			if err != nil {
				t.Fatal(err)
			}
			v := all(p)
			slices.Sort(v)
			for i, x := range v {
				if x != int64(i) {
					t.Fatalf("Permutation(n=%d, seed=%d): sorted image has %d at %d; want a bijection of 0..%d", n, seed, x, i, n-1)
				}
			}
		}
	}
}

func TestPermutationIsSeeded(t *testing.T) {
	a, _ := NewPermutation(1000, 3)
	b, _ := NewPermutation(1000, 3)
	c, _ := NewPermutation(1000, 4)
	if !slices.Equal(all(a), all(b)) {
		t.Error("Permutation(1000, 3) differs between two constructions")
	}
	if slices.Equal(all(a), all(c)) {
		t.Error("Permutation(1000, 3) equals Permutation(1000, 4): the seed does not select")
	}
	fixed := 0
	for i, x := range all(a) {
		if x == int64(i) {
			fixed++
		}
	}
	// A random permutation has one fixed point on average; 20 would be
	// a sign of a near-identity map.
	if fixed > 20 {
		t.Errorf("Permutation(1000, 3) has %d fixed points; a shuffled order has about 1", fixed)
	}
}

func TestUniform(t *testing.T) {
	u, err := NewUniform(10000, -5, 15, 9)
	if err != nil {
		t.Fatal(err)
	}
	var buckets [20]int
	for _, x := range all(u) {
		if x < -5 || x >= 15 {
			t.Fatalf("Uniform[-5, 15) gave %d", x)
		}
		buckets[x+5]++
	}
	// 500 expected per bucket, σ ≈ 22: ±150 is beyond six σ.
	for b, n := range buckets {
		if n < 350 || n > 650 {
			t.Errorf("Uniform[-5, 15): %d values of %d in 10000; want about 500", n, b-5)
		}
	}
	v, _ := NewUniform(10000, -5, 15, 9)
	if !slices.Equal(all(u), all(v)) {
		t.Error("Uniform differs between two constructions with one seed")
	}
	if lo, hi := u.Range(); lo != -5 || hi != 14 {
		t.Errorf("Uniform[-5, 15).Range() = %d, %d; want -5, 14", lo, hi)
	}
}

func TestStrided(t *testing.T) {
	for _, tc := range []struct{ n, stride, mod int64 }{{10, 3, 10}, {100, 33, 1000}, {50, 1 << 40, 97}, {8, 0, 5}} {
		s, err := NewStrided(tc.n, tc.stride, tc.mod)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.n {
			want := new(big.Int).Mod(new(big.Int).Mul(big.NewInt(i), big.NewInt(tc.stride)), big.NewInt(tc.mod)).Int64()
			if got := s.At(i); got != want {
				t.Errorf("Strided(stride=%d, mod=%d).At(%d) = %d; want %d", tc.stride, tc.mod, i, got, want)
			}
		}
	}
	// 3 is coprime to 10: i·3 mod 10 is a permutation of 0..9.
	s, _ := NewStrided(10, 3, 10)
	if got, want := all(s), []int64{0, 3, 6, 9, 2, 5, 8, 1, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("Strided(10, 3, 10) = %v; want %v", got, want)
	}
}

func TestGeneratorBounds(t *testing.T) {
	if _, err := NewPermutation(-1, 0); err == nil {
		t.Error("NewPermutation(-1) accepted")
	}
	if _, err := NewUniform(10, 5, 5, 0); err == nil {
		t.Error("NewUniform with lo = hi accepted")
	}
	if _, err := NewStrided(10, 1, 0); err == nil {
		t.Error("NewStrided with mod 0 accepted")
	}
	if _, err := Banded(10, 11); err == nil {
		t.Error("Banded with width > rows accepted")
	}
	if _, err := PowerLaw(10, 10, 2, 1, 0); err == nil {
		t.Error("PowerLaw with exponent 1 accepted")
	}
}
