package arch

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"gpumemsim/internal/yamldoc"
)

// ReadFunc returns the contents of the config called name, together with
// the file name to show in messages. from is the file that asked for it
// (empty for the top-level request), so that a base can be resolved
// relative to its child.
type ReadFunc func(name, from string) (file string, data []byte, err error)

// Load reads the config called name through read, applies its chain of
// bases, checks every key strictly, and validates the result. Errors name
// the file, line and key.
func Load(name string, read ReadFunc) (*Device, error) {
	node, pos, err := loadNode(name, "", read, nil)
	if err != nil {
		return nil, err
	}
	var d Device
	if err := node.Decode(&d); err != nil {
		// The strict walk has checked every scalar already.
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := d.Validate(); err != nil {
		return nil, placeErrors(err, pos)
	}
	return &d, nil
}

// position is where a key was written.
type position struct {
	file         string
	line, column int
}

// loadNode returns the merged document node of name and its bases, and
// the position of every key path in it.
func loadNode(name, from string, read ReadFunc, chain []string) (*yaml.Node, map[string]position, error) {
	file, data, err := read(name, from)
	if err != nil {
		return nil, nil, err
	}
	if slices.Contains(chain, file) {
		return nil, nil, fmt.Errorf("%s: cycle of bases: %s -> %s", chain[0], strings.Join(chain, " -> "), file)
	}
	chain = append(chain, file)

	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, yamlSyntaxError(file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, &PosError{File: file, Line: doc.Line, Err: errors.New("want a mapping of device keys (name, board, clocks, ...)")}
	}
	if line, found := yamldoc.SecondDocument(dec); found {
		return nil, nil, &PosError{File: file, Line: line, Column: min(line, 1), Err: errors.New("a second YAML document, which a device config does not have; hint: remove the --- and what follows it, or give it a file of its own")}
	}
	root := doc.Content[0]

	base, hasBase, err := takeBase(file, root)
	if err != nil {
		return nil, nil, err
	}
	pos := map[string]position{"": {file: file}}
	if errs := checkNode(file, root, reflect.TypeFor[Device](), "", pos); len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if !hasBase {
		return root, pos, nil
	}
	baseNode, basePos, err := loadNode(base.Value, file, read, chain)
	if err != nil {
		var pe *PosError
		if errors.As(err, &pe) || strings.Contains(err.Error(), "cycle of bases") {
			return nil, nil, err
		}
		return nil, nil, &PosError{File: file, Line: base.Line, Column: base.Column,
			Err: fmt.Errorf("base %q: %w", base.Value, err)}
	}
	for k, v := range pos {
		basePos[k] = v
	}
	return mergeMapping(baseNode, root), basePos, nil
}

// takeBase removes the top-level base key from root and returns its value.
func takeBase(file string, root *yaml.Node) (*yaml.Node, bool, error) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "base" {
			continue
		}
		v := root.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			return nil, false, &PosError{File: file, Line: v.Line, Column: v.Column,
				Err: errors.New("base: want the name or path of another device config, e.g. base: fermi")}
		}
		root.Content = slices.Delete(root.Content, i, i+2)
		return v, true, nil
	}
	return nil, false, nil
}

// mergeMapping overlays child on base: keys of child replace those of base,
// nested mappings merge key by key, sequences and scalars replace whole.
func mergeMapping(base, child *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: base.Line, Column: base.Column}
	out.Content = append(out.Content, base.Content...)
	for i := 0; i+1 < len(child.Content); i += 2 {
		k, v := child.Content[i], child.Content[i+1]
		j := mappingIndex(out, k.Value)
		switch {
		case j < 0:
			out.Content = append(out.Content, k, v)
		case v.Kind == yaml.MappingNode && out.Content[j+1].Kind == yaml.MappingNode:
			out.Content[j+1] = mergeMapping(out.Content[j+1], v)
		default:
			out.Content[j+1] = v
		}
	}
	return out
}

func mappingIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// checkNode walks n against type t: unknown and duplicate keys, wrong node
// kinds and bad scalars are reported with their position. It records the
// position of every key path in pos.
func checkNode(file string, n *yaml.Node, t reflect.Type, path string, pos map[string]position) []error {
	at := func(n *yaml.Node, format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if path != "" {
			msg = path + ": " + msg
		}
		return &PosError{File: file, Line: n.Line, Column: n.Column, Err: errors.New(msg)}
	}
	if n.Kind == yaml.AliasNode {
		return []error{at(n, "aliases are not supported in device configs")}
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		v := reflect.New(t).Interface().(yaml.Unmarshaler)
		if err := v.UnmarshalYAML(n); err != nil {
			var pe *PosError
			if errors.As(err, &pe) {
				return []error{&PosError{File: file, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("%s: %w", path, pe.Err)}}
			}
			return []error{at(n, "%v", err)}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return []error{at(n, "want a mapping with keys %s", strings.Join(structKeys(t), ", "))}
		}
		fields := map[string]reflect.Type{}
		collectFields(t, fields)
		var errs []error
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := joinPath(path, k.Value)
			if line, dup := seen[k.Value]; dup {
				errs = append(errs, &PosError{File: file, Line: k.Line, Column: k.Column,
					Err: fmt.Errorf("%s: duplicate key (first given on line %d)", key, line)})
				continue
			}
			seen[k.Value] = k.Line
			ft, ok := fields[k.Value]
			if !ok {
				hint := ""
				if s := closest(k.Value, structKeys(t)); s != "" {
					hint = fmt.Sprintf("; did you mean %q?", s)
				}
				errs = append(errs, &PosError{File: file, Line: k.Line, Column: k.Column,
					Err: fmt.Errorf("%s: unknown key%s (known keys here: %s)", key, hint, strings.Join(structKeys(t), ", "))})
				continue
			}
			pos[key] = position{file, k.Line, k.Column}
			errs = append(errs, checkNode(file, v, ft, key, pos)...)
		}
		return errs
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return []error{at(n, "want a list")}
		}
		var errs []error
		for i, c := range n.Content {
			errs = append(errs, checkNode(file, c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), pos)...)
		}
		return errs
	case reflect.Int, reflect.Int64:
		var x int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			return []error{at(n, "want an integer, got %s", describe(n))}
		}
		// Decoding catches what the tag alone does not (!!int x).
		if _, err := strconv.ParseInt(n.Value, 0, 64); err != nil || n.Decode(&x) != nil {
			return []error{at(n, "want an integer, got %q", n.Value)}
		}
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			return []error{at(n, "want true or false, got %s", describe(n))}
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return []error{at(n, "want a string, got %s", describe(n))}
		}
	default:
		panic("arch: checkNode: unsupported field type " + t.String())
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// collectFields maps the YAML keys of struct t (with inline structs
// flattened) to their types.
func collectFields(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			collectFields(f.Type, into)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		into[name] = f.Type
	}
}

func structKeys(t reflect.Type) []string {
	m := map[string]reflect.Type{}
	collectFields(t, m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// yamlSyntaxError turns a YAML parser error ("yaml: line 3: ...") into a
// positioned error.
func yamlSyntaxError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				return &PosError{File: file, Line: line, Err: errors.New(tail)}
			}
		}
	}
	return &PosError{File: file, Err: fmt.Errorf("not valid YAML: %s", msg)}
}

// placeErrors gives each validation problem the position of its key (or of
// the closest enclosing key that was written).
func placeErrors(err error, pos map[string]position) error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var fe *FieldError
		if !errors.As(e, &fe) {
			out = append(out, e)
			continue
		}
		p, ok := lookupPos(fe.Path, pos)
		if !ok {
			out = append(out, e)
			continue
		}
		out = append(out, &PosError{File: p.file, Line: p.line, Column: p.column, Err: e})
	}
	return errors.Join(out...)
}

func lookupPos(path string, pos map[string]position) (position, bool) {
	for path != "" {
		if p, ok := pos[path]; ok {
			return p, true
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	p, ok := pos[""] // the file itself
	return p, ok
}
