package kernel

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
	"gpumemsim/indexdata"
)

// The data files of the shipped examples.
//
//go:embed examples/data/*.mtx examples/data/*.txt
var examplesData embed.FS

// matrixParams are the keys of matrix: params:, in order.
var matrixParams = []string{"rows", "cols", "nnz"}

// matrix reads matrix: (nil: none) and adds the params it names to params.
func (ld *loader) matrix(k *Kernel, n *yaml.Node, params map[string]bool) error {
	if n == nil {
		return nil
	}
	d, err := ld.data(n, "matrix", true, params)
	if err != nil {
		return err
	}
	m := &Matrix{Data: *d}
	f, _, _ := ld.fields(n, "matrix", nil)
	if pn := f["params"]; pn != nil {
		pm, keys, err := ld.fields(pn, "matrix: params", matrixParams)
		if err != nil {
			return err
		}
		for _, kn := range keys {
			vn := pm[kn.Value]
			name := vn.Value
			if vn.Kind != yaml.ScalarNode || !isIdent(name) {
				return ld.errAt(vn, fmt.Sprintf("matrix: params: %s must name a param, got %q", kn.Value, name), "e.g. params: {rows: M, cols: N, nnz: NNZ}")
			}
			if params[name] {
				return ld.errAt(vn, fmt.Sprintf("matrix: params: %s is a param already", name),
					"the matrix gives "+name+" its value: leave it out of params:")
			}
			params[name] = true
			switch kn.Value {
			case "rows":
				m.Rows = name
			case "cols":
				m.Cols = name
			default:
				m.NNZ = name
			}
		}
	}
	k.Matrix = m
	return nil
}

// paramNames are the names of the file's params and of the params its
// matrix sets.
func (k *Kernel) paramNames() []string {
	var names []string
	for _, p := range k.Params {
		names = append(names, p.Name)
	}
	if k.Matrix != nil {
		names = append(names, k.Matrix.Params()...)
	}
	return names
}

// checkData checks what the arrays' data and the matrix need: a
// per-thread kernel (the loop nest reads no index array), integer
// element types, and a matrix for the arrays that hold its parts.
func (ld *loader) checkData(k *Kernel) error {
	const hint = "only __global__ kernels read through index arrays (V[COL[j]]); drop the key, or write the kernel as a __global__ function"
	if m := k.Matrix; m != nil && k.Program.Form != PerThread {
		return posError(ld.file, m.Line, m.Col, "matrix: a loop-nest kernel cannot read a matrix's structure", hint)
	}
	for _, a := range k.Arrays {
		d := a.Data
		switch {
		case d == nil:
		case k.Program.Form != PerThread:
			return posError(ld.file, d.Line, d.Col, fmt.Sprintf("array %s: data: a loop-nest kernel cannot read an index array", a.Name), hint)
		case a.Type == F32 || a.Type == F64:
			return posError(ld.file, d.Line, d.Col, fmt.Sprintf("array %s: data gives integers, and %s holds %s", a.Name, a.Name, a.Type),
				"give data: to the integer arrays the kernel indexes with; the values of float arrays do not change addresses")
		case d.Part != "" && k.Matrix == nil:
			return posError(ld.file, d.Line, d.Col, fmt.Sprintf("array %s: data: {matrix: %s} but the kernel file has no matrix:", a.Name, d.Part), matrixHint)
		}
	}
	return nil
}

// readData reads the files the arrays' data and the matrix name: from
// fsys, relative to the directory of the kernel file, for a shipped
// example; from disk otherwise (fsys nil).
func (k *Kernel) readData(fsys fs.FS) error {
	open := func(p string) (io.ReadCloser, string, error) {
		if fsys != nil {
			p = path.Join(path.Dir(k.File), p)
			f, err := fsys.Open(p)
			return f, p, err
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(k.File), p)
		}
		f, err := os.Open(p)
		return f, p, err
	}
	for _, a := range k.Arrays {
		if d := a.Data; d != nil && d.File != "" {
			if err := readValues(d, open); err != nil {
				return &arch.PosError{File: k.File, Line: d.Line, Column: d.Col, Err: fmt.Errorf("array %s: data: %w", a.Name, err)}
			}
		}
	}
	if m := k.Matrix; m != nil && m.File != "" {
		if err := readCSR(m, open); err != nil {
			return &arch.PosError{File: k.File, Line: m.Line, Column: m.Col, Err: fmt.Errorf("matrix: %w", err)}
		}
	}
	return nil
}

type opener func(p string) (io.ReadCloser, string, error)

const pathHint = "; hint: a path in a kernel file is relative to the kernel file's directory, one on the command line to the working directory"

func readValues(d *Data, open opener) (err error) {
	d.Values, err = readWith(open, d.File, indexdata.ReadText)
	return err
}

func readCSR(m *Matrix, open opener) (err error) {
	m.CSR, err = readWith(open, m.File, indexdata.ReadMatrixMarket)
	return err
}

// readWith reads the file at p with read.
func readWith[T any](open opener, p string, read func(name string, r io.Reader) (T, error)) (T, error) {
	var zero T
	f, name, err := open(p)
	if err != nil {
		return zero, fmt.Errorf("%w%s", err, pathHint)
	}
	defer f.Close()
	return read(name, f)
}

// node writes d as the mapping it was read from.
func (d *Data) node() *yaml.Node {
	n := flowMap()
	add := func(k string, v *yaml.Node) { n.Content = append(n.Content, str(k), v) }
	switch {
	case d.Gen != "":
		add("gen", str(d.Gen))
		for _, a := range d.Args {
			if a.Value != nil {
				add(a.Key, exprNode(a.Value))
			} else {
				add(a.Key, &yaml.Node{Kind: yaml.ScalarNode, Value: a.Text})
			}
		}
	case d.Part != "":
		add("matrix", str(d.Part))
	default:
		add("file", str(d.File))
	}
	return n
}

// node writes the matrix as matrix: reads it.
func (m *Matrix) node() *yaml.Node {
	n := m.Data.node()
	if m.File != "" {
		n.Content[0].Value = "mtx"
	}
	ps := flowMap()
	for i, p := range []string{m.Rows, m.Cols, m.NNZ} {
		if p != "" {
			ps.Content = append(ps.Content, str(matrixParams[i]), str(p))
		}
	}
	if len(ps.Content) > 0 {
		n.Content = append(n.Content, str("params"), ps)
	}
	return n
}
