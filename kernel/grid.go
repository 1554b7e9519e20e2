package kernel

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// gridNames says what a grid entry may name.
const gridNames = "grid entries are expressions of params, #define constants and blockDim.x, .y, .z"

// grid reads a per-thread kernel's grid: one to three extents, x first,
// each an integer or an expression of params, #define constants and
// blockDim.x, .y and .z.
func (ld *loader) grid(k *Kernel, n *yaml.Node) error {
	g, err := ld.gridExprs(k, n, gridNames, "")
	if err != nil {
		return err
	}
	k.Grid = g
	k.Where.Grid = Pos{n.Line, n.Column}
	return nil
}

// gridExprs reads a grid's extents, expressions that may use what names
// says; hostVar, unless empty, is the variable of the launch loop the
// grid belongs to, which they may use too.
func (ld *loader) gridExprs(k *Kernel, n *yaml.Node, names, hostVar string) ([]*Expr, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > 3 {
		return nil, ld.errAt(n, "grid must be a list of one to three extents", `e.g. grid: [64, 64] or grid: ["(N + blockDim.x - 1) / blockDim.x"]`)
	}
	var g []*Expr
	for _, en := range n.Content {
		if en.Kind != yaml.ScalarNode {
			return nil, ld.errAt(en, "a grid entry must be an integer or an expression", "e.g. N / 32")
		}
		e, err := ld.hostExpr(k, en, "a grid entry", names, hostVar)
		if err != nil {
			return nil, err
		}
		g = append(g, e)
	}
	return g, nil
}

// hostExpr reads an integer expression that the host evaluates when it
// launches the kernel (what names it in errors, such as "a grid entry"):
// of params, #define constants, blockDim.x, .y and .z, and hostVar
// unless it is empty; names says so in errors.
func (ld *loader) hostExpr(k *Kernel, n *yaml.Node, what, names, hostVar string) (*Expr, error) {
	params := map[string]bool{}
	for _, p := range k.paramNames() {
		params[p] = true
	}
	if hostVar != "" {
		params[hostVar] = true
	}
	setup := func(ps *parser) {
		ps.cuda = newCUDAParser()
		ps.cuda.grid, ps.cuda.hostNames = true, names
		for _, d := range k.Program.Defines {
			ps.cuda.defines[d.Name] = d
		}
	}
	check := func(ps *parser, e *Expr) {
		if t := ps.peek(); t.kind != tEOF {
			ps.fail(t, fmt.Sprintf("unexpected %s in %s", describe(t), what), "write an integer expression, e.g. (N + blockDim.x - 1) / blockDim.x")
		}
		if at := ps.floatIn(e); at != nil {
			ps.failAt(at.Line, at.Col, fmt.Sprintf("%s is an integer; %s is not", what, e), "use integer params and constants")
		}
	}
	return ld.scalarExpr(n, params, setup, check)
}

// requires reads a per-thread kernel's conditions on its launch: each an
// expression of params, #define constants and blockDim that the block and
// the params must make non-zero.
func (ld *loader) requires(k *Kernel, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return ld.errAt(n, "requires must be a list of conditions", `e.g. requires: ["N % blockDim.x == 0"]`)
	}
	names := "requires entries are expressions of params, #define constants and blockDim.x, .y, .z"
	for _, en := range n.Content {
		if en.Kind != yaml.ScalarNode {
			return ld.errAt(en, "a requires entry must be an expression", "e.g. N % blockDim.x == 0")
		}
		e, err := ld.hostExpr(k, en, "a requires entry", names, "")
		if err != nil {
			return err
		}
		k.Requires = append(k.Requires, e)
	}
	return nil
}
