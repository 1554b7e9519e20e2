package kernel

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format writes k as a kernel file that Parse reads back to the same
// kernel: the keys in a fixed order, the source printed from the program
// (one statement per line, loops with braces, indented two spaces per
// level, expressions with the parentheses their precedence needs), and
// what the file left out written with its default value (block) or left
// out (description, params, regs, smem, dependent when empty or zero).
// Comments and the source's own layout are not kept. Format is
// idempotent: formatting what Parse reads of Format's output gives the
// same bytes.
func Format(k *Kernel) []byte { return FormatWith(k, FormatSource(k.Program)) }

// FormatWith writes k as Format does, with source as the file's source
// text in place of the one printed from k.Program (which may be nil): for
// a kernel generated as text, whose comments the file keeps.
func FormatWith(k *Kernel, source string) []byte {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) { root.Content = append(root.Content, str(key), v) }
	add("name", str(k.Name))
	if k.Description != "" {
		add("description", str(k.Description))
	}
	if len(k.Params) > 0 {
		params := flowMap()
		for _, p := range k.Params {
			params.Content = append(params.Content, str(p.Name), integer(p.Value))
		}
		add("params", params)
	}
	if len(k.Structs) > 0 {
		add("structs", structsNode(k.Structs))
	}
	if k.Matrix != nil {
		add("matrix", k.Matrix.node())
	}
	arrays := &yaml.Node{Kind: yaml.MappingNode}
	for _, a := range k.Arrays {
		arrays.Content = append(arrays.Content, str(a.Name), arrayNode(a, k.Program != nil && declaredConstant(k.Program, a)))
	}
	add("arrays", arrays)
	if len(k.Layouts) > 0 {
		add("layouts", layoutsNode(k.Layouts))
	}
	add("source", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: source})
	if len(k.Mapping) > 0 {
		m := flowMap()
		for _, e := range k.Mapping {
			m.Content = append(m.Content, str(e.Loop), str(e.Axis.String()))
		}
		add("mapping", m)
	}
	add("block", &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle,
		Content: []*yaml.Node{integer(int64(k.Block.X)), integer(int64(k.Block.Y)), integer(int64(k.Block.Z))}})
	if len(k.Grid) > 0 {
		add("grid", exprList(k.Grid))
	}
	if len(k.Requires) > 0 {
		add("requires", exprList(k.Requires))
	}
	if k.Regs != 0 {
		add("regs", integer(int64(k.Regs)))
	}
	if k.Smem != 0 {
		add("smem", str(k.Smem.String()))
	}
	if k.Dependent {
		add("dependent", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if len(k.Launches) > 0 {
		add("launches", launchesNode(k.Launches))
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		panic(fmt.Sprintf("kernel: formatting %s: %v", k.Name, err)) // the nodes are well formed
	}
	enc.Close()
	return b.Bytes()
}

// arrayNode writes an array's declaration, giving layout, align, space
// and base only where they are not the defaults (space neither where the
// source declares the array __constant__: declared).
func arrayNode(a *Array, declared bool) *yaml.Node {
	n := flowMap()
	n.Content = append(n.Content, str("type"), str(a.TypeName()), str("dims"), exprList(a.Dims))
	if a.Layout != RowMajor {
		n.Content = append(n.Content, str("layout"), str(a.Layout.String()))
	}
	if a.Align != DefaultAlign {
		n.Content = append(n.Content, str("align"), integer(a.Align))
	}
	if a.Space != SpaceGlobal && !declared {
		n.Content = append(n.Content, str("space"), str(a.Space.String()))
	}
	if a.HasBase {
		n.Content = append(n.Content, str("base"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprintf("%#x", a.Base)})
	}
	if a.Data != nil {
		n.Content = append(n.Content, str("data"), a.Data.node())
	}
	if a.Remap != nil {
		n.Content = append(n.Content, str("remap"), remapNode(a.Remap))
	}
	return n
}

// declaredConstant says the source declares a __constant__.
func declaredConstant(p *Program, a *Array) bool {
	for _, d := range p.Constants {
		if d.Array == a {
			return true
		}
	}
	return false
}

// launchesNode writes launches as a list of one mapping per entry, with
// step only where it is not 1.
func launchesNode(hs []HostLoop) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, h := range hs {
		en := &yaml.Node{Kind: yaml.MappingNode}
		if h.Var != "" {
			f := flowMap()
			f.Content = append(f.Content, str("var"), str(h.Var), str("from"), exprNode(h.From), str("to"), exprNode(h.To))
			if h.Step != 1 {
				f.Content = append(f.Content, str("step"), integer(h.Step))
			}
			en.Content = append(en.Content, str("for"), f)
		}
		if len(h.Grid) > 0 {
			en.Content = append(en.Content, str("grid"), exprList(h.Grid))
		}
		if len(h.Set) > 0 {
			f := flowMap()
			for _, p := range h.Set {
				f.Content = append(f.Content, str(p.Name), exprNode(p.Value))
			}
			en.Content = append(en.Content, str("set"), f)
		}
		n.Content = append(n.Content, en)
	}
	return n
}

// exprList writes expressions as a flow sequence, as dims and grid are.
func exprList(es []*Expr) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, e := range es {
		n.Content = append(n.Content, exprNode(e))
	}
	return n
}

// exprNode writes an expression untagged: it is read as text whatever
// YAML makes of it, and the encoder quotes what would not read back
// (commas).
func exprNode(e *Expr) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: e.String()} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func integer(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

func flowMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle} }

// FormatSource writes a program as source text that parses back to it.
func FormatSource(p *Program) string {
	if p.Form == PerThread {
		return formatPerThread(p)
	}
	var b strings.Builder
	formatNodes(&b, p.Body, 0)
	return b.String()
}

func formatNodes(b *strings.Builder, nodes []Node, depth int) {
	indent := strings.Repeat("  ", depth)
	for _, n := range nodes {
		switch n := n.(type) {
		case *Loop:
			step := n.Var + "++"
			if n.Step.Kind != ExprConst || n.Step.Val != 1 {
				step = n.Var + " += " + n.Step.String()
			}
			fmt.Fprintf(b, "%sfor (%s = %s; %s < %s; %s) {\n", indent, n.Var, n.Lower, n.Var, n.Upper, step)
			formatNodes(b, n.Body, depth+1)
			b.WriteString(indent + "}\n")
		case *Stmt:
			b.WriteString(indent + formatStmt(n) + "\n")
		}
	}
}

// formatStmt writes a statement: a declaration, or a target, its
// assignment operator and its value.
func formatStmt(s *Stmt) string {
	var target string
	switch {
	case s.Store != nil:
		target = s.Store.element()
	case s.Decl:
		target = "float " + s.Scalar
	default:
		target = s.Scalar
	}
	if s.Value == nil {
		return target + ";"
	}
	return target + " " + s.Assign + " " + s.Value.String() + ";"
}
