package kernel

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
)

// The command line's forms of data: and matrix:, as -data NAME=SPEC and
// -matrix SPEC. A SPEC is GEN:KEY=VALUE,... (the generator and its
// arguments, as the kernel file gives them: -data COL=uniform:hi=N,seed=2),
// file:PATH or matrix:PART for -data, and a .mtx PATH for -matrix; a path
// is relative to the working directory. Errors give the column in SPEC.

// SetData gives array name the contents spec describes (-data
// NAME=SPEC); errors start with -data NAME.
func (k *Kernel) SetData(name, spec string) error {
	what := "-data " + name
	i := slices.IndexFunc(k.Arrays, func(a *Array) bool { return a.Name == name })
	if i < 0 {
		names := make([]string, len(k.Arrays))
		for j, a := range k.Arrays {
			names[j] = a.Name
		}
		return fmt.Errorf("%s: unknown array %s; hint: the arrays of %s are %s", what, name, k.Name, strings.Join(names, ", "))
	}
	ld := &loader{}
	d, err := ld.flagData(what, spec, false, k)
	if err != nil {
		return err
	}
	d.Flag = "-data " + name + "=" + spec
	a := k.Arrays[i]
	old := a.Data
	a.Data = d
	if err := ld.checkData(k); err != nil {
		a.Data = old
		return flagError(what, spec, err)
	}
	if d.File != "" {
		if err := readValues(d, openHere); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// SetMatrix replaces the source of the kernel's matrix by the one spec
// describes (-matrix SPEC); the params and arrays it feeds stay. Errors
// start with -matrix.
func (k *Kernel) SetMatrix(spec string) error {
	const what = "-matrix"
	if k.Matrix == nil {
		return fmt.Errorf("%s: kernel %s has no matrix; hint: -matrix replaces the matrix: of a kernel file that has one", what, k.Name)
	}
	if !strings.Contains(spec, ":") {
		spec = "mtx:" + spec
	}
	d, err := (&loader{}).flagData(what, spec, true, k)
	if err != nil {
		return err
	}
	d.Flag = what + " " + spec
	m := *k.Matrix
	m.Data, m.CSR = *d, nil
	if d.File != "" {
		if err := readCSR(&m, openHere); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	k.Matrix = &m
	return nil
}

// flagError turns an error positioned in spec into one that names the
// flag (what) and the column.
func flagError(what, spec string, err error) error {
	var pe *arch.PosError
	if !errors.As(err, &pe) || pe.Line == 0 {
		return fmt.Errorf("%s: %w", what, err)
	}
	msg := strings.TrimPrefix(strings.TrimPrefix(pe.Err.Error(), what), ": ")
	return fmt.Errorf("%s (column %d of %s): %s", what, pe.Column, spec, msg)
}

// openHere opens a path relative to the working directory.
func openHere(p string) (io.ReadCloser, string, error) {
	f, err := os.Open(p)
	return f, p, err
}

// flagData reads SPEC as the mapping it stands for, with the nodes'
// columns in SPEC, and reads it as data: (matrix false) or matrix:; what
// names the flag in errors.
func (ld *loader) flagData(what, spec string, matrix bool, k *Kernel) (*Data, error) {
	kind, rest, ok := strings.Cut(spec, ":")
	hint := "write GEN:KEY=VALUE,..., file:PATH or matrix:rowptr|col, e.g. permutation:seed=3"
	if matrix {
		hint = "write a .mtx path, or GEN:KEY=VALUE,..., e.g. banded:rows=4096,width=5"
	}
	if kind == "" {
		return nil, flagError(what, spec, posError("", 1, 1, "no contents", hint))
	}
	scalar := func(v string, col int) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: 1, Column: col}
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}
	col := len(kind) + 2 // where rest starts
	switch {
	case kind == "file" || kind == "mtx" || kind == "matrix":
		if strings.TrimSpace(rest) == "" {
			return nil, flagError(what, spec, posError("", 1, col, kind+": nothing after the colon", hint))
		}
		n.Content = append(n.Content, scalar(kind, 1), scalar(rest, col))
	default:
		n.Content = append(n.Content, scalar("gen", 1), scalar(kind, 1))
		for kv := range strings.SplitSeq(rest, ",") {
			name, value, found := strings.Cut(kv, "=")
			if !ok || rest == "" {
				break
			}
			if !found {
				return nil, flagError(what, spec, posError("", 1, col, fmt.Sprintf("%q is not KEY=VALUE", kv), hint))
			}
			n.Content = append(n.Content, scalar(name, col), scalar(value, col+len(name)+1))
			col += len(kv) + 1
		}
	}
	params := map[string]bool{}
	for _, p := range k.Params {
		params[p.Name] = true
	}
	if !matrix && k.Matrix != nil {
		for _, p := range k.Matrix.Params() {
			params[p] = true
		}
	}
	d, err := ld.data(n, what, matrix, params)
	if err != nil {
		return nil, flagError(what, spec, err)
	}
	// Positions in a flag are not the kernel file's: errors found when
	// the launch binds are not placed.
	d.Line, d.Col = 0, 0
	for i := range d.Args {
		d.Args[i].Line, d.Args[i].Col = 0, 0
		if d.Args[i].Value != nil {
			unplace(d.Args[i].Value)
		}
	}
	return d, nil
}

// unplace clears the positions of e's nodes.
func unplace(e *Expr) {
	e.Line, e.Col = 0, 0
	for _, a := range e.Args {
		unplace(a)
	}
}
