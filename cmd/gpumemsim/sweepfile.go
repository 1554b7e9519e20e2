package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
	"gpumemsim/internal/yamldoc"
)

// A sweep file (sweep -f FILE) gives the axes in YAML, each a list (or
// one scalar) under its key, every key optional:
//
//	devices: [gt200, fermi, kepler]
//	kernels: [vecadd]
//	maps: ["i=tx"]            # each a -map; "" the kernel file's
//	blocks: [64, 128, 16x16]
//	set: {N: [4096, 65536]}   # each parameter's values, the product taken
//	layouts: [aos, soa]
//	spaces: ["", "A=texture"]
//
// Unknown keys, duplicate keys and values of the wrong kind are errors
// at FILE:LINE:COL.

// maxSweepFile is the largest sweep file read.
const maxSweepFile = 1 << 20

var sweepFileKeys = []string{"devices", "kernels", "maps", "blocks", "set", "layouts", "spaces"}

// loadSweepFile reads the sweep file at path.
func loadSweepFile(path string) (sweepAxes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return sweepAxes{}, fmt.Errorf("-f: %v", err)
	}
	return parseSweepFile(path, data)
}

// parseSweepFile reads a sweep file; file names it in errors.
func parseSweepFile(file string, data []byte) (sweepAxes, error) {
	var a sweepAxes
	if len(data) > maxSweepFile {
		return a, fmt.Errorf("%s: larger than %d bytes; a sweep file lists axes", file, maxSweepFile)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return a, fmt.Errorf("%s: %v", file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return a, fmt.Errorf("%s: empty sweep file; want keys such as devices: [fermi] and blocks: [64, 128]", file)
	}
	if line, found := yamldoc.SecondDocument(dec); found {
		return a, &arch.PosError{File: file, Line: line, Column: min(line, 1), Err: errors.New("a second YAML document, which a sweep file does not have; hint: remove the --- and what follows it, or give it a file of its own")}
	}
	root := doc.Content[0]
	at := func(n *yaml.Node, format string, args ...any) error {
		return &arch.PosError{File: file, Line: n.Line, Column: n.Column, Err: fmt.Errorf(format, args...)}
	}
	if root.Kind != yaml.MappingNode {
		return a, at(root, "want a mapping of %s", strings.Join(sweepFileKeys, ", "))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			return a, at(k, "%s: duplicate key (first given on line %d)", k.Value, line)
		}
		seen[k.Value] = k.Line
		var err error
		switch k.Value {
		case "devices":
			a.Devices, err = scalarList(v, at, k.Value, false)
		case "kernels":
			a.Kernels, err = scalarList(v, at, k.Value, false)
		case "maps":
			a.Maps, err = scalarList(v, at, k.Value, true)
		case "blocks":
			a.Blocks, err = scalarList(v, at, k.Value, false)
		case "layouts":
			a.Layouts, err = scalarList(v, at, k.Value, false)
		case "spaces":
			a.Spaces, err = scalarList(v, at, k.Value, true)
		case "set":
			a.Set, err = setAxes(v, at)
		default:
			err = at(k, "unknown key %q; want %s", k.Value, strings.Join(sweepFileKeys, ", "))
		}
		if err != nil {
			return a, err
		}
	}
	return a, nil
}

type atFunc func(n *yaml.Node, format string, args ...any) error

// scalarList reads a list of scalars, or one scalar; emptyOK allows ""
// (the kernel file's own).
func scalarList(n *yaml.Node, at atFunc, key string, emptyOK bool) ([]string, error) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			return nil, at(n, "%s: an empty list; hint: leave the key out for the kernel file's own", key)
		}
	}
	var out []string
	for _, it := range items {
		if it.Kind != yaml.ScalarNode {
			return nil, at(it, "%s: want a list of strings such as [a, b]; got %s", key, nodeKind(it))
		}
		v := strings.TrimSpace(it.Value)
		if it.Tag == "!!null" {
			v = ""
		}
		if v == "" && !emptyOK {
			return nil, at(it, "%s: an empty value", key)
		}
		if slices.Contains(out, v) {
			return nil, at(it, "%s: %q is given twice; a sweep runs each value once", key, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// setAxes reads set: a mapping of parameter names to their values.
func setAxes(n *yaml.Node, at atFunc) ([]setAxis, error) {
	if n.Kind != yaml.MappingNode {
		return nil, at(n, "set: want a mapping of parameters to their values, such as {N: [1024, 4096]}; got %s", nodeKind(n))
	}
	var out []setAxis
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isParamName(k.Value) {
			return nil, at(k, "set: param name %q is not an identifier", k.Value)
		}
		for _, p := range out {
			if p.Name == k.Value {
				return nil, at(k, "set: %s: duplicate key", k.Value)
			}
		}
		vals, err := scalarList(v, at, "set: "+k.Value, false)
		if err != nil {
			return nil, err
		}
		p := setAxis{Name: k.Value}
		for j, s := range vals {
			node := v
			if v.Kind == yaml.SequenceNode {
				node = v.Content[j]
			}
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, at(node, "set: %s: %q is not an integer", k.Value, s)
			}
			if slices.Contains(p.Values, x) {
				return nil, at(node, "set: %s: %d is given twice; a sweep runs each value once", k.Value, x)
			}
			p.Values = append(p.Values, x)
		}
		out = append(out, p)
	}
	return out, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}
