package kernel

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// grid reads a per-thread kernel's grid: one to three extents, x first,
// each an integer or an expression of params, #define constants and
// blockDim.x, .y and .z.
func (ld *loader) grid(k *Kernel, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > 3 {
		return ld.errAt(n, "grid must be a list of one to three extents", `e.g. grid: [64, 64] or grid: ["(N + blockDim.x - 1) / blockDim.x"]`)
	}
	es, err := ld.launchExprs(k, n, "grid entry", "(N + blockDim.x - 1) / blockDim.x")
	k.Grid, k.Where.Grid = es, Pos{n.Line, n.Column}
	return err
}

// requires reads a per-thread kernel's conditions on its launch: each an
// expression of params, #define constants and blockDim that the block and
// the params must make non-zero.
func (ld *loader) requires(k *Kernel, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return ld.errAt(n, "requires must be a list of conditions", `e.g. requires: ["N % blockDim.x == 0"]`)
	}
	es, err := ld.launchExprs(k, n, "requires entry", "N % blockDim.x == 0")
	k.Requires = es
	return err
}

// launchExprs reads the entries of list n: integer expressions of params,
// #define constants and blockDim, what is known when a block is launched.
func (ld *loader) launchExprs(k *Kernel, n *yaml.Node, what, example string) ([]*Expr, error) {
	params := map[string]bool{}
	for _, p := range k.Params {
		params[p.Name] = true
	}
	setup := func(ps *parser) {
		ps.cuda = newCUDAParser()
		ps.cuda.grid = true
		for _, d := range k.Program.Defines {
			ps.cuda.defines[d.Name] = d
		}
	}
	check := func(ps *parser, e *Expr) {
		if t := ps.peek(); t.kind != tEOF {
			ps.fail(t, fmt.Sprintf("unexpected %s in a %s", describe(t), what), "write an integer expression, e.g. "+example)
		}
		if at := ps.floatIn(e); at != nil {
			ps.failAt(at.Line, at.Col, fmt.Sprintf("a %s is an integer; %s is not", what, e), "use integer params and constants")
		}
	}
	var es []*Expr
	for _, en := range n.Content {
		if en.Kind != yaml.ScalarNode {
			return nil, ld.errAt(en, fmt.Sprintf("a %s must be an integer or an expression", what), "e.g. "+example)
		}
		e, err := ld.scalarExpr(en, params, setup, check)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}
