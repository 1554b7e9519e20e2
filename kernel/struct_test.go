package kernel

import (
	"strings"
	"testing"
)

// TestStructLayoutC checks C's layout rule on Peng et al.'s worked
// example, struct {char w; int x; char y; short z;}: w at 0, three bytes
// of padding, x at 4, y at 8, one byte, z at 10, 12 bytes in all (PEN
// §III: 1+3+4+1+1+2), and on mixes where the tail padding shows.
func TestStructLayoutC(t *testing.T) {
	for _, c := range []struct {
		name    string
		types   []ElemType
		offsets []int64
		size    int64
	}{
		{"peng", []ElemType{I8, I32, I8, I16}, []int64{0, 4, 8, 10}, 12},
		{"myaos", []ElemType{F32, F32}, []int64{0, 4}, 8},
		{"tail", []ElemType{F64, I8}, []int64{0, 8}, 16},       // padded to a multiple of 8
		{"chars", []ElemType{I8, I8, I8}, []int64{0, 1, 2}, 3}, // no padding at all
		{"short-long", []ElemType{I16, I64, I16}, []int64{0, 8, 16}, 24},
	} {
		names := make([]string, len(c.types))
		for i := range names {
			names[i] = string(rune('a' + i))
		}
		s := NewStruct(c.name, names, c.types)
		for i, f := range s.Fields {
			if f.Offset != c.offsets[i] {
				t.Errorf("%s: field %s at %d; want %d", c.name, f.Name, f.Offset, c.offsets[i])
			}
		}
		if s.Size != c.size {
			t.Errorf("%s: size %d; want %d", c.name, s.Size, c.size)
		}
	}
	// A group of Peng's struct laid out anew: {z, w} is 2 + 1, padded to 4.
	peng := NewStruct("peng", []string{"w", "x", "y", "z"}, []ElemType{I8, I32, I8, I16})
	sub := peng.Sub([]*Field{peng.Field("z"), peng.Field("w")})
	if sub.Size != 4 || sub.Field("z").Offset != 0 || sub.Field("w").Offset != 2 {
		t.Errorf("{z, w}: size %d, z at %d, w at %d; want 4, 0, 2", sub.Size, sub.Field("z").Offset, sub.Field("w").Offset)
	}
}

const structFile = `name: s
params: {N: 64}
structs:
  Peng: {w: i8, x: i32, y: i8, z: i16}
arrays:
  P: {type: Peng, dims: [N]}
  R: {type: f32, dims: [N]}
layouts:
  aos: {P: aos}
  soa: {P: soa}
  mixed: {P: [[z, w], [x, y]]}
source: |
  for (i = 0; i < N; i++)
    R[i] = P[i].x + P[i].z;
mapping: {i: tx}
`

func TestStructParse(t *testing.T) {
	k, err := Parse("s.yaml", []byte(structFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(k.LayoutNames(), " "); got != "aos soa mixed" || k.Layout.Name != "aos" {
		t.Fatalf("layouts %q, selected %s; want aos soa mixed, aos", got, k.Layout.Name)
	}
	p := k.Arrays[0]
	if p.ElemSize() != 12 {
		t.Errorf("P's element size %d; want 12", p.ElemSize())
	}
	refs := k.Program.Refs
	if refs[0].Field.Name != "x" || refs[0].Width() != 4 || refs[1].Field.Name != "z" || refs[1].Width() != 2 || refs[0].Text != "P[i].x" {
		t.Errorf("refs %s (%d B), %s (%d B); want P[i].x (4 B), P[i].z (2 B)", refs[0].Text, refs[0].Width(), refs[1].Text, refs[1].Width())
	}
	if err := k.SelectLayout("mixed"); err != nil {
		t.Fatal(err)
	}
	g := k.Layout.Groups(p)
	if len(g) != 2 || GroupName(p, g, 0) != "P.{z,w}" || GroupName(p, g, 1) != "P.{x,y}" {
		t.Errorf("mixed groups %v; want P.{z,w} and P.{x,y}", g)
	}
	if err := k.SelectLayout("soaos"); err == nil || !strings.Contains(err.Error(), "its layouts are aos, soa, mixed") {
		t.Errorf("SelectLayout(soaos) = %v; want an error listing aos, soa, mixed", err)
	}
	// Format writes the structs and layouts back, and Parse reads them.
	k2, err := Parse("s2.yaml", Format(k))
	if err != nil {
		t.Fatalf("Parse(Format(k)): %v\n%s", err, Format(k))
	}
	if string(Format(k2)) != string(Format(k)) {
		t.Errorf("Format is not idempotent:\n%s\n---\n%s", Format(k), Format(k2))
	}
}

// TestStructErrors checks each bad struct file's error: its position
// (counted by hand in structFile's lines), what it says and that it
// hints.
func TestStructErrors(t *testing.T) {
	for _, c := range []struct {
		name, old, new, pos, says string
	}{
		{"unknown field type", "z: i16}", "z: f16}", "4:35", `field z: unknown type "f16"`},
		{"struct named like a type", "  Peng: {w", "  f32: {w", "4:3", "struct f32 has the name of an element type"},
		{"unknown field in a reference", "P[i].z;", "P[i].q;", "14:26", `struct Peng has no field "q"`},
		{"no field", "P[i].z;", "P[i];", "14:25", "array P holds structs Peng"},
		{"field of scalars", "R[i] =", "R[i].x =", "14:9", "array R has elements of type f32, not a struct"},
		{"field in two groups", "[[z, w], [x, y]]", "[[z, w], [x, y, w]]", "11:30", "field w is in two groups"},
		{"field in no group", "[[z, w], [x, y]]", "[[z, w], [x]]", "11:14", "field y is in no group"},
		{"unknown field in a group", "[[z, w], [x, y]]", "[[z, v], [x, y]]", "11:19", `struct Peng has no field "v"`},
		{"layout of a scalar array", "soa: {P: soa}", "soa: {R: soa}", "10:9", "R is not a struct array"},
		{"unknown grouping", "soa: {P: soa}", "soa: {P: sao}", "10:12", `unknown grouping "sao"`},
	} {
		src := strings.Replace(structFile, c.old, c.new, 1)
		if src == structFile {
			t.Fatalf("%s: %q not in the file", c.name, c.old)
		}
		_, err := Parse("s.yaml", []byte(src))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		got := err.Error()
		if !strings.HasPrefix(got, "s.yaml:"+c.pos+": ") || !strings.Contains(got, c.says) || !strings.Contains(got, "hint: ") {
			t.Errorf("%s: %s\nwant s.yaml:%s: …%s…; hint: …", c.name, got, c.pos, c.says)
		}
	}
}
