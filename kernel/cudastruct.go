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

// argType reads a parameter's type: a struct of the kernel file's
// arrays, [const] [struct] S (returned with a cType that names it), or a
// C type.
func (ps *parser) argType(start token) (*Struct, cType) {
	if st, n := ps.structAhead(); st != nil {
		for range n {
			ps.next()
		}
		return st, cType{name: st.Name, konst: start.text == "const"}
	}
	if start.kind != tIdent || !cTypeWords[start.text] {
		ps.fail(start, fmt.Sprintf("expected a parameter's type, found %s", describe(start)), "parameters are pointers to the kernel file's arrays (float *A) and int or float scalars (int N)")
	}
	return nil, ps.cType()
}

// structArg checks a pointer parameter to struct s against the array of
// the same name, whose elements must be of struct s.
func (ps *parser) structArg(a *Arg, s *Struct, start, nt token) {
	arr := ps.arrays[a.Name]
	switch {
	case arr == nil:
		ps.fail(nt, fmt.Sprintf("pointer parameter %s is not an array of the kernel file", a.Name), "declare it under arrays: with type: "+s.Name+" and its dims")
	case arr.Struct != s:
		ps.fail(start, fmt.Sprintf("parameter %s is declared %s *, but array %s has type %s", a.Name, s.Name, a.Name, arr.TypeName()),
			fmt.Sprintf("declare it %s *%s", cArrayType(arr), a.Name))
	}
	a.Array = arr
}

// cArrayType is the C type of an array's elements: its struct's name or
// the element type's C name.
func cArrayType(a *Array) string {
	if a.Struct != nil {
		return a.Struct.Name
	}
	return cTypeName(a.Type)
}
