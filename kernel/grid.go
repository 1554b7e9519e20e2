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
			ps.fail(t, fmt.Sprintf("unexpected %s in a grid entry", describe(t)), "write an integer expression, e.g. (N + blockDim.x - 1) / blockDim.x")
		}
		if at := ps.floatIn(e); at != nil {
			ps.failAt(at.Line, at.Col, fmt.Sprintf("a grid entry is an integer; %s is not", e), "use integer params and constants")
		}
	}
	for _, en := range n.Content {
		if en.Kind != yaml.ScalarNode {
			return ld.errAt(en, "a grid entry must be an integer or an expression", "e.g. N / 32")
		}
		e, err := ld.scalarExpr(en, params, setup, check)
		if err != nil {
			return err
		}
		k.Grid = append(k.Grid, e)
	}
	k.Where.Grid = Pos{n.Line, n.Column}
	return nil
}
