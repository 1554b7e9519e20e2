package kernel

import (
	"math"
	"slices"
	"strings"
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

// TestDefineTypes: a #define's value and type follow C, as the kernel's
// expressions do: worked out by hand from C11 6.3.1 and 6.4.4.1.
func TestDefineTypes(t *testing.T) {
	src := strings.Join([]string{
		"#define MM (0u - 1)",             // 4294967295u
		"#define H 0xFFFFFFFF",            // unsigned int
		"#define H1 (H + 1)",              // wraps to 0
		"#define BIG (1 << 31)",           // INT_MIN (C++14)
		"#define OCT 010",                 // octal: 8
		"#define UL (0ul - 1)",            // 2^64 - 1
		"#define HALF (UL / 2)",           // 2^63 - 1, divided unsigned
		"#define UC ((unsigned char)300)", // 44
		"#define MIN (min(-1, 1u))",       // -1 is 4294967295 here: 1
		"#define GT (UL > 5)",             // unsigned: 1
		"#define OV (2147483647 + 1)",     // a signed overflow keeps 2^31
	}, "\n") + "\n" + sig + "A[0] = 1;\n}"
	k, err := Parse("t.yaml", []byte(cudaYAML(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		v int64
		t IntType
	}{
		"MM": {math.MaxUint32, UInt}, "H": {math.MaxUint32, UInt}, "H1": {0, UInt}, "BIG": {math.MinInt32, Int},
		"OCT": {8, Int}, "UL": {-1, ULong}, "HALF": {math.MaxInt64, ULong}, "UC": {44, UChar}, "MIN": {1, UInt},
		"GT": {1, Int}, "OV": {1 << 31, Int},
	}
	for _, d := range k.Program.Defines {
		if w := want[d.Name]; d.Val != w.v || d.Type != w.t {
			t.Errorf("#define %s: %d of type %s; want %d of type %s", d.Name, d.Val, d.Type, w.v, w.t)
		}
	}
	if len(k.Program.Defines) != len(want) {
		t.Errorf("%d defines; want %d", len(k.Program.Defines), len(want))
	}
}

// TestOctalLiterals: a literal with a leading 0 is octal, as in C; 8 and
// 9 are not octal digits.
func TestOctalLiterals(t *testing.T) {
	for text, want := range map[string]int64{"010": 8, "0": 0, "0777": 511, "017u": 15} {
		if v, ok := parseIntLit(text); !ok || v != want {
			t.Errorf("%s: %d, %v; want %d", text, v, ok, want)
		}
	}
	if _, ok := parseIntLit("09"); ok {
		t.Error("09 parses; want it refused")
	}
	if got := LiteralType("037777777777", 037777777777); got != UInt {
		t.Errorf("037777777777: %s; want unsigned int, as a hexadecimal of its value", got)
	}
}

// TestElemIntType: an element type's C integer type is the one its C
// name (ElemType.CName) reads as.
func TestElemIntType(t *testing.T) {
	for et := I8; et <= F64; et++ {
		if got, want := et.IntType(), CIntType(et.CName()); got != want {
			t.Errorf("%s: %s; want %s, as %q reads", et, got, want, et.CName())
		}
	}
}
