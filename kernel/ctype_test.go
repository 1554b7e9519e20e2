package kernel

import (
	"math"
	"slices"
	"testing"
)

// TestLiteralType follows the table of C11 6.4.4.1p5: a decimal literal
// is the first of int, long that holds it; a hexadecimal one may also be
// unsigned; u and l narrow the list.
func TestLiteralType(t *testing.T) {
	for _, tc := range []struct {
		text string
		want IntType
	}{
		{"5", Int}, {"2147483647", Int}, {"2147483648", Long}, {"4294967295", Long},
		{"0x7fffffff", Int}, {"0xffffffff", UInt}, {"0x100000000", Long},
		{"5u", UInt}, {"5U", UInt}, {"4294967295u", UInt}, {"4294967296u", ULong},
		{"5l", Long}, {"5LL", Long}, {"5ul", ULong}, {"5lu", ULong}, {"5ULL", ULong},
	} {
		v, ok := parseIntLit(tc.text)
		if !ok {
			t.Fatalf("%s does not parse", tc.text)
		}
		if got := LiteralType(tc.text, v); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.text, got, tc.want)
		}
	}
}

// TestCommon follows C11 6.3.1.8: promotion to int, then the wider, then
// of one width the unsigned; long holds every unsigned int.
func TestCommon(t *testing.T) {
	for _, tc := range []struct{ a, b, want IntType }{
		{Char, UChar, Int}, {Bool, Short, Int}, {UShort, Int, Int},
		{Int, UInt, UInt}, {UInt, Int, UInt}, {Long, UInt, Long}, {UInt, Long, Long},
		{ULong, Int, ULong}, {Long, ULong, ULong}, {Int, Long, Long},
	} {
		if got := Common(tc.a, tc.b); got != tc.want {
			t.Errorf("Common(%s, %s) = %s; want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestConvert: C11 6.3.1.2 (to bool: 0 or 1), 6.3.1.3 (to unsigned:
// modulo 2^n; to signed: the two's-complement wrap CUDA's hardware does).
func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		t    IntType
		v    int64
		want int64
	}{
		{Bool, -5, 1}, {Bool, 0, 0}, {UChar, 300, 44}, {Char, 200, -56}, {Char, -129, 127},
		{Short, 70000, 70000 - 65536}, {UShort, -1, 65535}, {Int, 1 << 31, math.MinInt32},
		{Int, -1, -1}, {UInt, -1, math.MaxUint32}, {UInt, 1 << 32, 0},
		{Long, math.MinInt64, math.MinInt64}, {ULong, -1, -1},
	} {
		if got := tc.t.Convert(tc.v); got != tc.want {
			t.Errorf("(%s)%d = %d; want %d", tc.t, tc.v, got, tc.want)
		}
	}
}

func TestCIntType(t *testing.T) {
	for name, want := range map[string]IntType{"const unsigned int": UInt, "size_t": ULong, "long long": Long,
		"unsigned long long": ULong, "bool": Bool, "unsigned char": UChar, "float": NoInt, "const double": NoInt} {
		if got := CIntType(name); got != want {
			t.Errorf("%s: %s; want %s", name, got, want)
		}
	}
}

// TestCastsAndSuffixes: a cast to an integer type is an ExprCast of it,
// printed back as written; a literal's suffix or base gives it its type
// where its value alone would give another.
func TestCastsAndSuffixes(t *testing.T) {
	p := mustCUDA(t, "int a = 1;\nlong b = (unsigned char)(a + 250) + 5u + 0xffffffff + 7 + 3000000000;")
	v := p.Stmts[1].Value
	if got, want := v.String(), "(unsigned char)(a + 250) + 5u + 4294967295u + 7 + 3000000000"; got != want {
		t.Errorf("prints %s; want %s", got, want)
	}
	var types []IntType // the right operands', right to left
	e := v
	for ; e.Kind == ExprAdd; e = e.Args[0] {
		types = append(types, e.Args[1].Type)
	}
	if want := []IntType{NoInt, NoInt, UInt, UInt}; !slices.Equal(types, want) {
		t.Errorf("literal types %v; want %v", types, want)
	}
	if e.Kind != ExprCast || e.Type != UChar || e.Args[0].String() != "a + 250" {
		t.Errorf("leftmost term %s: kind %d, type %s; want a cast to unsigned char of a + 250", e, e.Kind, e.Type)
	}
}

// TestRefTextKeepsWords: a reference's text drops the source's spaces
// but the one between two words of a type.
func TestRefTextKeepsWords(t *testing.T) {
	p := mustCUDA(t, "int a = 1;\nA[(unsigned char) (a + 250)] = 0;")
	if got, want := p.Refs[0].Text, "A[(unsigned char)(a+250)]"; got != want {
		t.Errorf("text %q; want %q", got, want)
	}
}
