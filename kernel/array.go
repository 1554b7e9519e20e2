package kernel

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The arrays: key, and the YAML scalars that hold expressions of params
// (dims, a data generator's bounds).

var arrayKeys = []string{"type", "dims", "layout", "align", "base", "space", "data", "remap"}

// array reads the declaration n of the array named by key kn; its type
// is an element type or one of structs.
func (ld *loader) array(kn, n *yaml.Node, params map[string]bool, structs []*Struct) (*Array, error) {
	name := kn.Value
	if !isIdent(name) {
		return nil, ld.errAt(kn, fmt.Sprintf("array name %q is not an identifier", name), "")
	}
	f, _, err := ld.fields(n, "array "+name, arrayKeys)
	if err != nil {
		return nil, err
	}
	a := &Array{Name: name, Align: DefaultAlign, Line: kn.Line, Col: kn.Column}
	tn := f["type"]
	if tn == nil {
		return nil, ld.errAt(n, "array "+name+": missing type", "add type: f32 (or i8 u8 i16 u16 i32 u32 i64 u64 f64)")
	}
	if a.Struct = structNamed(structs, tn.Value); a.Struct == nil {
		if a.Type, err = ParseElemType(tn.Value); err != nil || tn.Kind != yaml.ScalarNode {
			return nil, ld.errAt(tn, fmt.Sprintf("array %s: unknown element type %q", name, tn.Value), "want one of i8 u8 i16 u16 i32 u32 f32 i64 u64 f64, or a struct declared under structs:")
		}
	}
	dn := f["dims"]
	if dn == nil || dn.Kind != yaml.SequenceNode || len(dn.Content) == 0 {
		at := n
		if dn != nil {
			at = dn
		}
		return nil, ld.errAt(at, "array "+name+": dims must be a list of one or more extents", "e.g. dims: [M, N]")
	}
	for _, d := range dn.Content {
		e, err := ld.dimExpr(d, params)
		if err != nil {
			return nil, err
		}
		a.Dims = append(a.Dims, e)
	}
	if ln := f["layout"]; ln != nil {
		switch ln.Value {
		case "row-major":
			a.Layout = RowMajor
		case "col-major":
			a.Layout = ColMajor
		default:
			return nil, ld.errAt(ln, fmt.Sprintf("array %s: unknown layout %q", name, ln.Value), "want row-major or col-major")
		}
	}
	if an := f["align"]; an != nil {
		v, err := ld.integer(an, "align")
		if err != nil || v <= 0 || v&(v-1) != 0 {
			return nil, ld.errAt(an, fmt.Sprintf("array %s: align must be a positive power of two (bytes)", name), "")
		}
		a.Align = v
	}
	if sn := f["space"]; sn != nil {
		if a.Space, err = ParseSpace(sn.Value); err != nil {
			return nil, ld.errAt(sn, fmt.Sprintf("array %s: %v", name, err), "")
		}
		ld.spaces[name] = sn
	}
	if bn := f["base"]; bn != nil {
		v, err := ld.integer(bn, "base")
		if err != nil || v < 0 {
			return nil, ld.errAt(bn, fmt.Sprintf("array %s: base must be a non-negative integer address", name), "")
		}
		a.Base, a.HasBase = uint64(v), true
	}
	if rn := f["remap"]; rn != nil {
		if a.Remap, err = ld.remap(rn, name, params); err != nil {
			return nil, err
		}
	}
	if dn := f["data"]; dn != nil {
		if a.Data, err = ld.data(dn, "array "+name+": data", false, params); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// dimExpr parses one entry of dims: an expression of params.
func (ld *loader) dimExpr(n *yaml.Node, params map[string]bool) (*Expr, error) {
	return ld.paramExpr(n, params, "dims")
}

// paramExpr parses an expression of params, the value of what (dims, a
// generator's argument).
func (ld *loader) paramExpr(n *yaml.Node, params map[string]bool, what string) (*Expr, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, ld.errAt(n, "a "+what+" entry must be an expression of params", "e.g. M or 2*N+1")
	}
	return ld.scalarExpr(n, params, func(ps *parser) { ps.dims = true }, func(ps *parser, e *Expr) {
		if t := ps.peek(); t.kind != tEOF {
			ps.fail(t, fmt.Sprintf("unexpected %s in a %s expression", describe(t), what), "write an arithmetic expression of params, e.g. 2*N+1")
		}
		ps.degree(e, what)
		if e.Kind == ExprCall && e.Name != "min" && e.Name != "max" {
			ps.failAt(e.Line, e.Col, what+" may call only min and max", "")
		}
	})
}

// scalarExpr parses the expression that the YAML scalar n holds with a
// parser that setup prepares, and checks it with check; positions are
// the file's.
func (ld *loader) scalarExpr(n *yaml.Node, params map[string]bool, setup func(*parser), check func(*parser, *Expr)) (*Expr, error) {
	shift := 0
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		shift = 1
	}
	pos := func(line, col int) (int, int) { return n.Line + line - 1, n.Column + shift + col - 1 }
	toks, lerr := lex(n.Value)
	if lerr != nil {
		l, c := pos(lerr.line, lerr.col)
		return nil, posError(ld.file, l, c, lerr.msg, lerr.hint)
	}
	ps := &parser{src: n.Value, toks: toks, file: ld.file, pos: pos, params: params, arrays: map[string]*Array{},
		prog: &Program{}, loops: map[string]*Loop{}, scalars: map[string]bool{}, refTexts: map[*Expr]string{}}
	setup(ps)
	var e *Expr
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				b, ok := r.(bailout)
				if !ok {
					panic(r)
				}
				err = b.err
			}
		}()
		e = ps.expr()
		check(ps, e)
		return nil
	}()
	if err != nil {
		return nil, err
	}
	return e, nil
}
