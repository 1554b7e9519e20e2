package kernel

import (
	"fmt"
	"strings"
)

// formatPerThread writes a per-thread program as its source: the
// #define lines and __constant__ declarations, then the __global__
// function with every __shared__
// array declared at its top, statements one per line, bodies in braces,
// for loops with their init in the header, casts and comments gone.
func formatPerThread(p *Program) string {
	var b strings.Builder
	for _, d := range p.Defines {
		v := d.Value.String()
		if len(d.Value.Args) > 0 {
			v = "(" + v + ")" // C pastes the text: only parentheses make it one value
		}
		fmt.Fprintf(&b, "#define %s %s\n", d.Name, v)
	}
	for _, d := range p.Constants {
		fmt.Fprintf(&b, "__constant__ %s %s", cTypeName(d.Array.Type), d.Array.Name)
		for _, e := range d.Dims {
			b.WriteString("[" + e.String() + "]")
		}
		b.WriteString(";\n")
	}
	if len(p.Defines)+len(p.Constants) > 0 {
		b.WriteByte('\n')
	}
	args := make([]string, len(p.Args))
	for i, a := range p.Args {
		sep := " "
		if strings.HasSuffix(a.Type, "*") {
			sep = ""
		}
		args[i] = a.Type + sep + a.Name
	}
	fmt.Fprintf(&b, "__global__ void %s(%s) {\n", p.Func, strings.Join(args, ", "))
	for _, a := range p.Shared {
		fmt.Fprintf(&b, "  __shared__ %s %s", cTypeName(a.Type), a.Name)
		for _, d := range a.Dims {
			b.WriteString("[" + d.String() + "]")
		}
		b.WriteString(";\n")
	}
	formatCUDANodes(&b, p.Body, 1)
	b.WriteString("}\n")
	return b.String()
}

func formatCUDANodes(b *strings.Builder, nodes []Node, depth int) {
	indent := strings.Repeat("  ", depth)
	// A for loop's init statements are printed in its header.
	inHeader := make([]bool, len(nodes))
	for i, n := range nodes {
		if w, ok := n.(*While); ok {
			for j := max(0, i-w.Init); j < i; j++ {
				inHeader[j] = true
			}
		}
	}
	for i, n := range nodes {
		if inHeader[i] {
			continue
		}
		switch n := n.(type) {
		case *Stmt:
			b.WriteString(indent + cudaStmtText(n) + ";\n")
		case *If:
			b.WriteString(indent)
			formatIf(b, n, depth)
		case *While:
			formatWhile(b, n, nodes[max(0, i-n.Init):i], depth)
		case *Barrier:
			b.WriteString(indent + "__syncthreads();\n")
		case *Return:
			b.WriteString(indent + "return;\n")
		}
	}
}

// formatIf writes an if statement from where its line's indent ends; an
// else holding just an if is written else if.
func formatIf(b *strings.Builder, n *If, depth int) {
	indent := strings.Repeat("  ", depth)
	fmt.Fprintf(b, "if (%s) {\n", n.Cond)
	formatCUDANodes(b, n.Then, depth+1)
	b.WriteString(indent + "}")
	if len(n.Else) == 1 {
		if elif, ok := n.Else[0].(*If); ok {
			b.WriteString(" else ")
			formatIf(b, elif, depth)
			return
		}
	}
	if len(n.Else) > 0 {
		b.WriteString(" else {\n")
		formatCUDANodes(b, n.Else, depth+1)
		b.WriteString(indent + "}")
	}
	b.WriteByte('\n')
}

// formatWhile writes a loop: a for when it has init statements, a post
// or #pragma unroll, else a while.
func formatWhile(b *strings.Builder, w *While, init []Node, depth int) {
	indent := strings.Repeat("  ", depth)
	if w.Unroll {
		b.WriteString(indent + "#pragma unroll\n")
	}
	if w.Init == 0 && len(w.Post) == 0 && !w.Unroll {
		fmt.Fprintf(b, "%swhile (%s) {\n", indent, w.Cond)
	} else {
		post := make([]string, len(w.Post))
		for i, p := range w.Post {
			post[i] = cudaStmtText(p.(*Stmt))
		}
		fmt.Fprintf(b, "%sfor (%s; %s; %s) {\n", indent, initText(init), w.Cond, strings.Join(post, ", "))
	}
	formatCUDANodes(b, w.Body, depth+1)
	b.WriteString(indent + "}\n")
}

// initText writes a for loop's init: one declaration of all its locals,
// or its assignments separated by commas.
func initText(init []Node) string {
	parts := make([]string, len(init))
	decl := len(init) > 0
	for i, n := range init {
		s := n.(*Stmt)
		parts[i] = cudaStmtText(s)
		decl = decl && s.Decl && s.Local.Type == init[0].(*Stmt).Local.Type
	}
	if decl {
		for i, n := range init[1:] {
			parts[i+1] = strings.TrimPrefix(parts[i+1], n.(*Stmt).Local.Type+" ")
		}
	}
	return strings.Join(parts, ", ")
}

// cudaStmtText writes a statement without its ;: a declaration with its
// type, x++ and x-- for += 1 and -= 1.
func cudaStmtText(s *Stmt) string {
	target := s.Scalar
	if s.Store != nil {
		target = s.Store.element()
	}
	if s.Decl {
		target = s.Local.Type + " " + target
	}
	v := s.Value
	switch {
	case v == nil:
		return target
	case !s.Decl && v.Kind == ExprConst && v.Name == "" && v.Val == 1 && (s.Assign == "+=" || s.Assign == "-="):
		return target + s.Assign[:1] + s.Assign[:1]
	}
	return target + " " + s.Assign + " " + v.String()
}
