package kernel

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// HostLoop is one entry of a kernel file's launches: a single launch, or
// the host's for loop of launches, Var from From to To inclusive by Step,
// each launched when the one before it has finished.
type HostLoop struct {
	// Var is the loop variable, "" for a single launch (From and To are
	// then nil).
	Var      string
	From, To *Expr
	// Step is a nonzero integer: 1 counts up, -1 down.
	Step int64
	// Grid is the grid of the entry's launches, expressions of params,
	// #define constants, blockDim and Var; nil takes the file's grid
	// (evaluated with the launch's params).
	Grid []*Expr
	// Set gives params their values per launch, in file order.
	Set []ParamSet
	// Pos is where the entry starts.
	Pos Pos
}

// ParamSet gives a param its value in each launch of a HostLoop.
type ParamSet struct {
	Name  string
	Value *Expr
}

var (
	launchKeys = []string{"for", "grid", "set"}
	forKeys    = []string{"var", "from", "to", "step"}
)

// launchNames says what the values of launches may name: var is the
// entry's loop variable, "" when it has none.
func launchNames(hostVar string) string {
	s := "the values of launches are expressions of params, #define constants and blockDim.x, .y, .z"
	if hostVar != "" {
		s = "the values of launches are expressions of params, #define constants, blockDim.x, .y, .z and the loop variable " + hostVar
	}
	return s
}

// launches reads the host loop of launches n.
func (ld *loader) launches(k *Kernel, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return ld.errAt(n, "launches must be a list of one or more launches", "e.g. launches: [{for: {var: i, from: 1, to: 8}, grid: [i], set: {D: i}}]; a file without launches is one launch")
	}
	if len(n.Content) > MaxHostLoops {
		return ld.errAt(n.Content[MaxHostLoops], fmt.Sprintf("more than %d entries in launches", MaxHostLoops), "write repeated launches as one entry with for: {var: i, from: 1, to: N}")
	}
	for _, en := range n.Content {
		h, err := ld.hostLoop(k, en)
		if err != nil {
			return err
		}
		k.Launches = append(k.Launches, h)
	}
	return nil
}

// hostLoop reads one entry of launches.
func (ld *loader) hostLoop(k *Kernel, n *yaml.Node) (HostLoop, error) {
	h := HostLoop{Step: 1, Pos: Pos{n.Line, n.Column}}
	f, keys, err := ld.fields(n, "a launch", launchKeys)
	if err != nil {
		return h, err
	}
	if fn := f["for"]; fn != nil {
		if err := ld.hostFor(k, fn, &h); err != nil {
			return h, err
		}
	}
	names := launchNames(h.Var)
	if gn := f["grid"]; gn != nil {
		if k.Program.Form != PerThread {
			return h, ld.errAt(keyNode(keys, "grid"), "grid is for __global__ kernels", "a loop-nest kernel's grid follows from the extents of its mapped loops and the block; drop the launch's grid:")
		}
		if h.Grid, err = ld.gridExprs(k, gn, names, h.Var); err != nil {
			return h, err
		}
	} else if k.Program.Form == PerThread && len(k.Grid) == 0 {
		return h, ld.errAt(n, "this launch has no grid, and the file gives none", "add grid: [...] to the launch, or to the file for every launch")
	}
	if sn := f["set"]; sn != nil {
		if h.Set, err = ld.hostSet(k, sn, names, h.Var); err != nil {
			return h, err
		}
	}
	return h, nil
}

// hostFor reads for: {var, from, to, step} into h.
func (ld *loader) hostFor(k *Kernel, n *yaml.Node, h *HostLoop) error {
	f, _, err := ld.fields(n, "for", forKeys)
	if err != nil {
		return err
	}
	for _, req := range []string{"var", "from", "to"} {
		if f[req] == nil {
			return ld.errAt(n, "for: missing "+req, "a launch loop is for: {var: i, from: 1, to: N}, to inclusive, with step: -1 to count down")
		}
	}
	if h.Var, err = ld.hostVar(k, f["var"]); err != nil {
		return err
	}
	names := launchNames("") // the bounds come before the variable has a value
	if h.From, err = ld.hostExpr(k, f["from"], "from", names, ""); err != nil {
		return err
	}
	if h.To, err = ld.hostExpr(k, f["to"], "to", names, ""); err != nil {
		return err
	}
	if sn := f["step"]; sn != nil {
		if h.Step, err = ld.integer(sn, "step"); err != nil {
			return err
		}
		if h.Step == 0 {
			return ld.errAt(sn, "step must not be 0", "count up with step: 1 (the default) or down with step: -1")
		}
	}
	return nil
}

// hostVar reads the name of a launch loop's variable: a name that means
// nothing else where the values of launches are read.
func (ld *loader) hostVar(k *Kernel, n *yaml.Node) (string, error) {
	name := n.Value
	if n.Kind != yaml.ScalarNode || !isIdent(name) {
		return "", ld.errAt(n, fmt.Sprintf("the loop variable %q is not a name", name), "e.g. var: i")
	}
	for _, p := range k.Params {
		if p.Name == name {
			return "", ld.errAt(n, fmt.Sprintf("the loop variable %s has the name of a param", name), fmt.Sprintf("rename it, and give the param its value per launch with set: {%s: VAR}", name))
		}
	}
	for _, d := range k.Program.Defines {
		if d.Name == name {
			return "", ld.errAt(n, fmt.Sprintf("the loop variable %s has the name of the #define at line %d", name, d.Line), "rename one of them")
		}
	}
	if keywords[name] || cTypeWords[name] || builtinNames[name] || cudaCalls[name] != 0 {
		return "", ld.errAt(n, fmt.Sprintf("the loop variable %s has a name C or CUDA gives a meaning", name), "give it another name, e.g. i")
	}
	return name, nil
}

// paramNames lists a kernel's params for a hint.
func paramNames(k *Kernel) string {
	if len(k.Params) == 0 {
		return "(none)"
	}
	names := make([]string, len(k.Params))
	for i, p := range k.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// hostSet reads set: {PARAM: expression, ...}.
func (ld *loader) hostSet(k *Kernel, n *yaml.Node, names, hostVar string) ([]ParamSet, error) {
	f, keys, err := ld.fields(n, "set", nil)
	if err != nil {
		return nil, err
	}
	var out []ParamSet
	for _, kn := range keys {
		known := false
		for _, p := range k.Params {
			known = known || p.Name == kn.Value
		}
		if !known {
			return nil, ld.errAt(kn, fmt.Sprintf("set: %s is not a param of the kernel file", kn.Value), "set gives params their value per launch; the params are "+paramNames(k))
		}
		vn := f[kn.Value]
		if vn.Kind != yaml.ScalarNode {
			return nil, ld.errAt(vn, "set: the value of "+kn.Value+" must be an integer or an expression", "e.g. set: {D: i + 1}")
		}
		e, err := ld.hostExpr(k, vn, "the value of "+kn.Value, names, hostVar)
		if err != nil {
			return nil, err
		}
		out = append(out, ParamSet{kn.Value, e})
	}
	return out, nil
}
