package kernel

import (
	"fmt"
	"strings"
)

// declarators parses a declaration's type and its declarators (int a =
// 0, b;), without the ;, into one statement each.
func (ps *parser) declarators() []Node {
	ct := ps.cType()
	var out []Node
	for {
		if ps.is("*") {
			ps.fail(ps.peek(), "pointer locals are not supported", "index the arrays directly: A[i]")
		}
		nt := ps.peek()
		if nt.kind != tIdent {
			ps.fail(nt, fmt.Sprintf("expected a variable name, found %s", describe(nt)), "declare a local as int i = 0; or float acc = 0;")
		}
		if len(out) > 0 && cTypeWords[nt.text] {
			ps.fail(nt, "the locals of one declaration share its type", "declare a local of another type in a declaration of its own")
		}
		ps.checkLocal(nt)
		ps.next()
		if ps.is("[") {
			ps.fail(ps.peek(), "local arrays are not supported yet", "use a __shared__ array, or a local per element")
		}
		s := ps.newStmt(nt)
		s.Scalar, s.Decl = nt.text, true
		if ps.is("=") {
			ps.next()
			s.Assign, s.Value = "=", ps.expr()
			if ct.int {
				ps.checkIntValue(s.Value, nt.text)
			}
			s.Compute = ps.countOps(s.Value, s)
		}
		s.Local = ps.addLocal(nt, ct)
		ps.record(s, nt, true)
		s.Text = ct.String() + " " + s.Text
		out = append(out, s)
		if !ps.is(",") {
			return out
		}
		ps.next()
	}
}

// sharedDecl parses __shared__ TYPE NAME[d]...[d], ...; into
// Program.Shared.
func (ps *parser) sharedDecl() {
	ps.next()
	start := ps.peek()
	if start.kind != tIdent || !cTypeWords[start.text] {
		ps.fail(start, fmt.Sprintf("expected the __shared__ array's type, found %s", describe(start)), "write __shared__ float As[BS][BS];")
	}
	ct := ps.cType()
	if ct.elem == 0 {
		ps.fail(start, "bool arrays are not supported", "use unsigned char")
	}
	for {
		ps.sharedArray(ct)
		if !ps.is(",") {
			break
		}
		ps.next()
	}
	if ps.is("=") {
		ps.fail(ps.peek(), "a __shared__ array cannot have an initialiser", "assign its elements in the body")
	}
	ps.expect(";", "end the declaration with ;")
}

// sharedArray parses one declarator of a __shared__ declaration.
func (ps *parser) sharedArray(ct cType) {
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected the __shared__ array's name, found %s", describe(nt)), "write __shared__ float As[BS][BS];")
	}
	ps.checkReserved(nt, "__shared__ array")
	for _, l := range ps.prog.Locals {
		if l.Name == nt.text {
			ps.fail(nt, fmt.Sprintf("__shared__ array %s has the name of the local declared at line %d", nt.text, l.Line), "rename one of them")
		}
	}
	ps.next()
	a := &Array{Name: nt.text, Type: ct.elem, Space: SpaceShared, Align: int64(ct.elem.Size())}
	a.Line, a.Col = ps.pos(nt.line, nt.col)
	a.Dims = ps.extents(fmt.Sprintf("__shared__ %s %s", ct.name, a.Name), a.Name, blockConst, "the size of a __shared__ array must be an expression of constants, params and blockDim",
		"shared memory is allocated when the block is launched, before any thread runs: size it with a param, a #define or blockDim.x, .y, .z")
	ps.prog.Shared = append(ps.prog.Shared, a)
	sc := ps.cuda.scopes[len(ps.cuda.scopes)-1]
	sc.shared = append(sc.shared, a)
	ps.arrays[a.Name] = a
}

// cType is a C type of a declaration, a parameter or a cast.
type cType struct {
	name  string   // normalised, without const: "unsigned int"
	elem  ElemType // the element type it names; 0 for bool
	int   bool
	konst bool
}

func (c cType) String() string {
	if c.konst {
		return "const " + c.name
	}
	return c.name
}

func (c cType) elemName() string {
	if c.elem == 0 {
		return "u8"
	}
	return c.elem.String()
}

// cTypeWords are the words C types are made of here.
var cTypeWords = map[string]bool{"const": true, "unsigned": true, "signed": true, "char": true, "short": true,
	"int": true, "long": true, "float": true, "double": true, "bool": true, "size_t": true}

// cTypes are the C types read, by their normalised names.
var cTypes = map[string]struct {
	elem ElemType
	int  bool
}{
	"char": {I8, true}, "unsigned char": {U8, true}, "short": {I16, true}, "unsigned short": {U16, true},
	"int": {I32, true}, "unsigned int": {U32, true}, "long": {I64, true}, "unsigned long": {U64, true},
	"long long": {I64, true}, "unsigned long long": {U64, true}, "size_t": {U64, true},
	"bool": {0, true}, "float": {F32, false}, "double": {F64, false},
}

// CName is the C name of the element type ("float", "unsigned int").
func (t ElemType) CName() string { return cTypeName(t) }

// cTypeName is the C name of an element type, as Format writes it.
func cTypeName(t ElemType) string {
	for _, n := range []string{"float", "double", "int", "unsigned int", "char", "unsigned char", "short", "unsigned short", "long long", "unsigned long long"} {
		if cTypes[n].elem == t {
			return n
		}
	}
	return t.String()
}

// cType reads the words of a C type.
func (ps *parser) cType() cType {
	start := ps.peek()
	n := map[string]int{}
	var words []string
	for ps.peek().kind == tIdent && cTypeWords[ps.peek().text] {
		w := ps.next().text
		n[w]++
		words = append(words, w)
	}
	name, ok := normalType(n)
	info, known := cTypes[name]
	if !ok || !known {
		ps.fail(start, fmt.Sprintf("unsupported type %q", strings.Join(words, " ")),
			"the types are char, short, int, long, long long (each also unsigned), size_t, bool, float and double, optionally const")
	}
	return cType{name: name, elem: info.elem, int: info.int, konst: n["const"] > 0}
}

// normalType names the type that the counted words make, or says they
// make none.
func normalType(n map[string]int) (string, bool) {
	sign := n["unsigned"] + n["signed"]
	single := n["float"] + n["double"] + n["bool"] + n["size_t"]
	sized := n["char"] + n["short"] + min(n["long"], 1)
	switch {
	case single > 0:
		if single+sign+sized+n["int"] > 1 {
			return "", false
		}
		for _, w := range []string{"float", "double", "bool", "size_t"} {
			if n[w] > 0 {
				return w, true
			}
		}
	case sign > 1 || sized > 1 || n["int"] > 1 || n["long"] > 2 || n["char"] > 0 && n["int"] > 0:
		return "", false
	case sign+sized+n["int"] == 0:
		return "", false // const alone
	}
	base := "int"
	switch {
	case n["char"] > 0:
		base = "char"
	case n["short"] > 0:
		base = "short"
	case n["long"] == 1:
		base = "long"
	case n["long"] == 2:
		base = "long long"
	}
	if n["unsigned"] > 0 {
		return "unsigned " + base, true
	}
	return base, true
}
