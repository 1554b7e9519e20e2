package kernel

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFields bounds the fields of one struct (Peng's Bell-number layout
// space is already 4140 groupings at 8 fields; LavaMD's largest has 8).
const MaxFields = 64

// Struct is a C structure element type, declared under a kernel file's
// structs: key: named fields of 1, 2, 4 or 8 bytes in declaration order,
// each at the next multiple of its own size, the whole padded to a
// multiple of its largest field (C's rule on every ABI CUDA supports;
// Peng et al.'s struct {char a; int b; char c; short d;} is 12 bytes).
type Struct struct {
	Name   string
	Fields []*Field
	// Size includes the padding; Align is the largest field's size.
	Size, Align int64
	Line, Col   int
}

// Field is one field of a Struct.
type Field struct {
	Name   string
	Type   ElemType
	Offset int64 // bytes from the start of the structure
}

// NewStruct lays out fields of the given names and types in order by C's
// rules.
func NewStruct(name string, names []string, types []ElemType) *Struct {
	s := &Struct{Name: name, Align: 1}
	for i, n := range names {
		size := int64(types[i].Size())
		s.Size = (s.Size + size - 1) / size * size
		s.Fields = append(s.Fields, &Field{Name: n, Type: types[i], Offset: s.Size})
		s.Size += size
		s.Align = max(s.Align, size)
	}
	s.Size = (s.Size + s.Align - 1) / s.Align * s.Align
	return s
}

// Field returns the field called name, or nil.
func (s *Struct) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FieldNames lists the fields in declaration order.
func (s *Struct) FieldNames() []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

// Sub is the structure of the given fields of s, in that order, laid out
// anew: one group of a layout that splits s.
func (s *Struct) Sub(fields []*Field) *Struct {
	names := make([]string, len(fields))
	types := make([]ElemType, len(fields))
	for i, f := range fields {
		names[i], types[i] = f.Name, f.Type
	}
	sub := NewStruct(s.Name, names, types)
	sub.Line, sub.Col = s.Line, s.Col
	return sub
}

// ElemSize is the bytes of one element of a: its type's size, or its
// structure's with the padding.
func (a *Array) ElemSize() int64 {
	if a.Struct != nil {
		return a.Struct.Size
	}
	return int64(a.Type.Size())
}

// TypeName is the name of a's element type: a structure's name or the
// element type's (f32).
func (a *Array) TypeName() string {
	if a.Struct != nil {
		return a.Struct.Name
	}
	return a.Type.String()
}

// structs reads the structs: key: NAME: {FIELD: TYPE, ...} per structure.
func (ld *loader) structs(n *yaml.Node) ([]*Struct, error) {
	sm, keys, err := ld.fields(n, "structs", nil)
	if err != nil {
		return nil, err
	}
	var out []*Struct
	for _, kn := range keys {
		if !isIdent(kn.Value) {
			return nil, ld.errAt(kn, fmt.Sprintf("struct name %q is not an identifier", kn.Value), "")
		}
		if _, err := ParseElemType(kn.Value); err == nil {
			return nil, ld.errAt(kn, fmt.Sprintf("struct %s has the name of an element type", kn.Value), "rename the struct")
		}
		fm, fkeys, err := ld.fields(sm[kn.Value], "struct "+kn.Value, nil)
		if err != nil {
			return nil, err
		}
		if len(fkeys) == 0 || len(fkeys) > MaxFields {
			return nil, ld.errAt(sm[kn.Value], fmt.Sprintf("struct %s has %d fields; want 1 to %d", kn.Value, len(fkeys), MaxFields), "write {x: f32, y: f32}")
		}
		var names []string
		var types []ElemType
		for _, fk := range fkeys {
			if !isIdent(fk.Value) {
				return nil, ld.errAt(fk, fmt.Sprintf("struct %s: field name %q is not an identifier", kn.Value, fk.Value), "")
			}
			tn := fm[fk.Value]
			t, err := ParseElemType(tn.Value)
			if err != nil || tn.Kind != yaml.ScalarNode {
				return nil, ld.errAt(tn, fmt.Sprintf("struct %s: field %s: unknown type %q", kn.Value, fk.Value, tn.Value), "fields are i8 u8 i16 u16 i32 u32 f32 i64 u64 f64 (nested structs are not supported)")
			}
			names, types = append(names, fk.Value), append(types, t)
		}
		s := NewStruct(kn.Value, names, types)
		s.Line, s.Col = kn.Line, kn.Column
		out = append(out, s)
	}
	return out, nil
}

// DataLayout is a named layout of a kernel file's struct arrays, a value
// of its layouts: key: how each struct array's fields are grouped. A group
// is stored as an array of structures of its fields (in the group's
// order, laid out anew); one group of every field is the array of
// structures (AoS), one group per field the structure of arrays (SoA),
// anything between a structure of arrays of structures (SoAoS). A struct
// array the layout does not name stays an array of structures.
type DataLayout struct {
	Name   string
	Arrays []GroupedArray
	Line   int
	Col    int
}

// GroupedArray is the grouping of one struct array's fields.
type GroupedArray struct {
	Array  string
	Groups [][]*Field
}

// Groups returns the grouping of array a under the layout (nil l: the
// file's declared AoS): one group of all its fields unless l names a.
func (l *DataLayout) Groups(a *Array) [][]*Field {
	if l != nil {
		for _, g := range l.Arrays {
			if g.Array == a.Name {
				return g.Groups
			}
		}
	}
	return [][]*Field{a.Struct.Fields}
}

// GroupName names group g of struct array a as Bind's arrays call it: the
// array's own name for an array of structures, A.f for a group of one
// field, A.{f,g} otherwise.
func GroupName(a *Array, groups [][]*Field, g int) string {
	if len(groups) == 1 {
		return a.Name
	}
	fs := groups[g]
	if len(fs) == 1 {
		return a.Name + "." + fs[0].Name
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return a.Name + ".{" + strings.Join(names, ",") + "}"
}

// SelectLayout makes the layout called name the one Bind lays the struct
// arrays out by.
func (k *Kernel) SelectLayout(name string) error {
	for _, l := range k.Layouts {
		if l.Name == name {
			k.Layout = l
			return nil
		}
	}
	if len(k.Layouts) == 0 {
		return fmt.Errorf("kernel %s declares no layouts; hint: add a layouts: key naming groupings of its struct arrays' fields, or drop -layout", k.Name)
	}
	return fmt.Errorf("kernel %s has no layout %q; hint: its layouts are %s", k.Name, name, strings.Join(k.LayoutNames(), ", "))
}

// LayoutNames lists the file's layouts in order.
func (k *Kernel) LayoutNames() []string {
	names := make([]string, len(k.Layouts))
	for i, l := range k.Layouts {
		names[i] = l.Name
	}
	return names
}

// layouts reads the layouts: key: NAME: {ARRAY: GROUPING, ...}, where a
// grouping is aos, soa or a list of groups, each a list of field names.
func (ld *loader) layouts(n *yaml.Node, arrays []*Array) ([]*DataLayout, error) {
	lm, keys, err := ld.fields(n, "layouts", nil)
	if err != nil {
		return nil, err
	}
	var out []*DataLayout
	for _, kn := range keys {
		if !isIdent(kn.Value) {
			return nil, ld.errAt(kn, fmt.Sprintf("layout name %q is not an identifier", kn.Value), "")
		}
		l := &DataLayout{Name: kn.Value, Line: kn.Line, Col: kn.Column}
		am, akeys, err := ld.fields(lm[kn.Value], "layout "+kn.Value, nil)
		if err != nil {
			return nil, err
		}
		for _, ak := range akeys {
			i := slices.IndexFunc(arrays, func(a *Array) bool { return a.Name == ak.Value })
			if i < 0 || arrays[i].Struct == nil {
				return nil, ld.errAt(ak, fmt.Sprintf("layout %s: %s is not a struct array of the kernel file", kn.Value, ak.Value), "name the arrays whose type is a struct: "+strings.Join(structArrays(arrays), ", "))
			}
			groups, err := ld.grouping(am[ak.Value], kn.Value, arrays[i])
			if err != nil {
				return nil, err
			}
			l.Arrays = append(l.Arrays, GroupedArray{Array: ak.Value, Groups: groups})
		}
		out = append(out, l)
	}
	return out, nil
}

// structArrays names the arrays whose elements are structures.
func structArrays(arrays []*Array) []string {
	var names []string
	for _, a := range arrays {
		if a.Struct != nil {
			names = append(names, a.Name)
		}
	}
	if names == nil {
		return []string{"(none: give an array type: STRUCT)"}
	}
	return names
}

// grouping reads one array's grouping under layout name: every field of
// the array's structure in exactly one group.
func (ld *loader) grouping(n *yaml.Node, layout string, a *Array) ([][]*Field, error) {
	s := a.Struct
	hint := fmt.Sprintf("write aos, soa or groups of %s's fields (%s), e.g. [[%s], ...]", a.Name, strings.Join(s.FieldNames(), ", "), s.Fields[0].Name)
	what := fmt.Sprintf("layout %s: %s", layout, a.Name)
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "aos":
			return [][]*Field{s.Fields}, nil
		case "soa":
			groups := make([][]*Field, len(s.Fields))
			for i, f := range s.Fields {
				groups[i] = []*Field{f}
			}
			return groups, nil
		}
		return nil, ld.errAt(n, fmt.Sprintf("%s: unknown grouping %q", what, n.Value), hint)
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, ld.errAt(n, what+": a grouping is aos, soa or a list of groups", hint)
	}
	seen := map[string]bool{}
	var groups [][]*Field
	for _, gn := range n.Content {
		if gn.Kind != yaml.SequenceNode || len(gn.Content) == 0 {
			return nil, ld.errAt(gn, what+": each group is a list of one or more field names", hint)
		}
		var g []*Field
		for _, fn := range gn.Content {
			f := s.Field(fn.Value)
			switch {
			case fn.Kind != yaml.ScalarNode || f == nil:
				return nil, ld.errAt(fn, fmt.Sprintf("%s: struct %s has no field %q", what, s.Name, fn.Value), hint)
			case seen[f.Name]:
				return nil, ld.errAt(fn, fmt.Sprintf("%s: field %s is in two groups", what, f.Name), "put each field in one group")
			}
			seen[f.Name] = true
			g = append(g, f)
		}
		groups = append(groups, g)
	}
	for _, f := range s.Fields {
		if !seen[f.Name] {
			return nil, ld.errAt(n, fmt.Sprintf("%s: field %s is in no group", what, f.Name), "put every field of "+s.Name+" in one group")
		}
	}
	return groups, nil
}

// structNamed returns the struct called name, or nil.
func structNamed(structs []*Struct, name string) *Struct {
	for _, s := range structs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// structsNode writes the structs: key, one flow mapping of fields per
// struct.
func structsNode(structs []*Struct) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, s := range structs {
		fs := flowMap()
		for _, f := range s.Fields {
			fs.Content = append(fs.Content, str(f.Name), str(f.Type.String()))
		}
		n.Content = append(n.Content, str(s.Name), fs)
	}
	return n
}

// layoutsNode writes the layouts: key, each grouping as a flow list of
// groups.
func layoutsNode(layouts []*DataLayout) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, l := range layouts {
		am := flowMap()
		for _, g := range l.Arrays {
			gs := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, grp := range g.Groups {
				fl := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				for _, f := range grp {
					fl.Content = append(fl.Content, str(f.Name))
				}
				gs.Content = append(gs.Content, fl)
			}
			am.Content = append(am.Content, str(g.Array), gs)
		}
		n.Content = append(n.Content, str(l.Name), am)
	}
	return n
}
