package kernel

import "fmt"

// structAhead says whether the tokens at the parser's position name a
// struct type of the kernel file's arrays: [const] [struct] NAME, and
// returns it and the number of tokens it takes.
func (ps *parser) structAhead() (*Struct, int) {
	i := ps.p
	if ps.toks[i].text == "const" {
		i++
	}
	if ps.toks[i].text == "struct" {
		i++
	}
	t := ps.toks[i]
	if t.kind != tIdent {
		return nil, 0
	}
	for _, a := range ps.arrays {
		if a.Struct != nil && a.Struct.Name == t.text {
			return a.Struct, i + 1 - ps.p
		}
	}
	if ps.toks[ps.p].text == "struct" {
		ps.fail(t, fmt.Sprintf("struct %s is not the type of an array of the kernel file", t.text), "declare it under structs: and give an array type: "+t.text)
	}
	return nil, 0
}

// structArg parses a pointer parameter to a struct array, [const]
// [struct] S *[__restrict__] NAME, whose array must have elements of
// struct S.
func (ps *parser) structArg(s *Struct, n int) {
	start := ps.peek()
	konst := start.text == "const"
	for range n {
		ps.next()
	}
	a := &Arg{Type: s.Name + " *", Const: konst}
	if konst {
		a.Type = "const " + a.Type
	}
	ps.expect("*", "a struct parameter is a pointer to the struct array: "+s.Name+" *P")
	if ps.is("__restrict__") {
		ps.next()
		a.Type += "__restrict__"
		a.Restrict = true
	}
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected the parameter's name, found %s", describe(nt)), "write "+s.Name+" *NAME")
	}
	ps.next()
	a.Name = nt.text
	a.Line, a.Col = ps.pos(nt.line, nt.col)
	if prev := ps.cuda.args[a.Name]; prev != nil {
		ps.fail(nt, fmt.Sprintf("parameter %s is declared twice", a.Name), "rename one of them")
	}
	ps.checkReserved(nt, "parameter")
	arr := ps.arrays[a.Name]
	switch {
	case arr == nil:
		ps.fail(nt, fmt.Sprintf("pointer parameter %s is not an array of the kernel file", a.Name), "declare it under arrays: with type: "+s.Name+" and its dims")
	case arr.Struct != s:
		ps.fail(start, fmt.Sprintf("parameter %s is declared %s *, but array %s has type %s", a.Name, s.Name, a.Name, arr.TypeName()),
			fmt.Sprintf("declare it %s *%s", cArrayType(arr), a.Name))
	}
	a.Array = arr
	ps.cuda.args[a.Name] = a
	ps.prog.Args = append(ps.prog.Args, a)
}

// cArrayType is the C type of an array's elements: its struct's name or
// the element type's C name.
func cArrayType(a *Array) string {
	if a.Struct != nil {
		return a.Struct.Name
	}
	return cTypeName(a.Type)
}
