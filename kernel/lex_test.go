package kernel

import (
	"math"
	"testing"
)

// parseIntLit takes every integer that fits in an int64, in decimal and
// hexadecimal, with C's suffixes, and refuses the next one: the bound
// was once 2^62, refusing 9223372036854775807 with a hint to write an
// integer that fits in 64 bits.
func TestParseIntLit(t *testing.T) {
	for _, c := range []struct {
		s  string
		v  int64
		ok bool
	}{
		{"0", 0, true},
		{"42u", 42, true},
		{"4611686018427387904", 1 << 62, true},
		{"9223372036854775806", math.MaxInt64 - 1, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775807LL", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"92233720368547758070", 0, false},
		{"0x7fffffffffffffff", math.MaxInt64, true},
		{"0x8000000000000000", 0, false},
		{"0x", 0, false},
	} {
		if v, ok := parseIntLit(c.s); v != c.v || ok != c.ok {
			t.Errorf("parseIntLit(%q) = %d, %v; want %d, %v", c.s, v, ok, c.v, c.ok)
		}
	}
}
