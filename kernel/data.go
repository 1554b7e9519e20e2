package kernel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"gpumemsim/indexdata"
)

// Data says where an index array's contents come from (its data: key, or
// the command's -data): a generator of package indexdata with its
// arguments (Gen, Args), a text file of integers (File), or a part of the
// kernel's matrix (Part: "rowptr" or "col"). A Matrix uses Gen and Args
// or File (a Matrix Market file).
type Data struct {
	Gen  string
	Args []DataArg
	// File is the path as written: relative to the kernel file, or to
	// the working directory for a flag's.
	File string
	Part string
	// Values are File's contents once Load has read them.
	Values    *indexdata.Values
	Line, Col int
	// Flag is the flag and its value (-matrix banded:rows=4096,width=5)
	// for contents a flag gave, which errors found at binding name.
	Flag string
}

// DataArg is an argument of a generator: an integer expression of params
// (Value), or for avg and exponent a decimal number (Num, Text as
// written).
type DataArg struct {
	Key       string
	Value     *Expr
	Num       float64
	Text      string
	Line, Col int
}

// Arg returns the argument called key, or nil.
func (d *Data) Arg(key string) *DataArg {
	for i := range d.Args {
		if d.Args[i].Key == key {
			return &d.Args[i]
		}
	}
	return nil
}

// Matrix is a kernel's sparse matrix (matrix:), in CSR form: a Matrix
// Market file (File) or a generator (banded, powerlaw, boxes, rays). The
// arrays with data {matrix: rowptr} and {matrix: col} hold its row
// pointers and column indices, and the params it names take its sizes.
type Matrix struct {
	Data
	// Rows, Cols and NNZ name the params the matrix sets ("" for none):
	// they are not params of the file, and no caller may set them.
	Rows, Cols, NNZ string
	// CSR is File's structure once Load has read it.
	CSR *indexdata.CSR
}

// Params are the names the matrix sets, in the order rows, cols, nnz.
func (m *Matrix) Params() []string {
	var out []string
	for _, p := range []string{m.Rows, m.Cols, m.NNZ} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// generator is what a generator takes: its keys, those it needs, and
// those that are decimal numbers rather than integer expressions.
type generator struct {
	keys, required, numbers []string
	matrix                  bool
}

// generators are the generators of package indexdata, by name.
var generators = map[string]generator{
	"permutation": {keys: []string{"seed"}},
	"uniform":     {keys: []string{"lo", "hi", "seed"}, required: []string{"hi"}},
	"strided":     {keys: []string{"stride", "mod"}, required: []string{"stride"}},
	"banded":      {keys: []string{"rows", "width"}, required: []string{"rows", "width"}, matrix: true},
	"powerlaw": {keys: []string{"rows", "cols", "avg", "exponent", "seed"}, required: []string{"rows", "avg", "exponent"},
		numbers: []string{"avg", "exponent"}, matrix: true},
	"boxes": {keys: []string{"boxes1d"}, required: []string{"boxes1d"}, matrix: true},
	"rays":  {keys: []string{"n", "width", "height"}, required: []string{"n", "width", "height"}, matrix: true},
}

// generatorNames lists the generators of arrays (matrix false) or of
// matrices.
func generatorNames(matrix bool) string {
	var names []string
	for name, g := range generators {
		if g.matrix == matrix {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

const (
	dataHint   = "e.g. data: {gen: permutation, seed: 7}, {gen: uniform, lo: 0, hi: N, seed: 1}, {gen: strided, stride: 33}, {file: cols.txt} or {matrix: col}"
	matrixHint = "e.g. matrix: {mtx: m.mtx, params: {rows: M, nnz: NNZ}} or {gen: banded, rows: R, width: 5, params: {nnz: NNZ}}"
)

// data reads a data: mapping (matrix false) or the source part of
// matrix: (true, its params key left to the caller). params are the
// names an argument may use.
func (ld *loader) data(n *yaml.Node, what string, matrix bool, params map[string]bool) (*Data, error) {
	hint, srcKeys := dataHint, []string{"gen", "file", "matrix"}
	if matrix {
		hint, srcKeys = matrixHint, []string{"gen", "mtx"}
	}
	f, keys, err := ld.fields(n, what, nil)
	if err != nil {
		return nil, err
	}
	d := &Data{Line: n.Line, Col: n.Column}
	var src *yaml.Node
	for _, kn := range keys {
		if slices.Contains(srcKeys, kn.Value) {
			if src != nil {
				return nil, ld.errAt(kn, fmt.Sprintf("%s: both %s and %s", what, src.Value, kn.Value), "give one source of contents: "+strings.Join(srcKeys, ", "))
			}
			src = kn
		}
	}
	if src == nil {
		return nil, ld.errAt(n, what+": no source of contents", "give one of "+strings.Join(srcKeys, ", ")+"; "+hint)
	}
	vn := f[src.Value]
	v, err := ld.str(vn, what+": "+src.Value)
	if err != nil {
		return nil, err
	}
	switch src.Value {
	case "gen":
		g, ok := generators[v]
		if !ok || g.matrix != matrix {
			return nil, ld.errAt(vn, fmt.Sprintf("%s: unknown generator %q", what, v), "the generators are "+generatorNames(matrix))
		}
		d.Gen = v
		return d, ld.genArgs(d, g, f, keys, what, params)
	case "file", "mtx":
		d.File = v
	case "matrix":
		if v != "rowptr" && v != "col" {
			return nil, ld.errAt(vn, fmt.Sprintf("%s: unknown matrix part %q", what, v), "an array holds the matrix's rowptr (row pointers) or its col (column indices)")
		}
		d.Part = v
	}
	for _, kn := range keys {
		if kn != src && !(matrix && kn.Value == "params") {
			return nil, ld.errAt(kn, fmt.Sprintf("%s: unknown key %q with %s", what, kn.Value, src.Value), "only a generator (gen:) takes arguments")
		}
	}
	return d, nil
}

// genArgs reads a generator's arguments.
func (ld *loader) genArgs(d *Data, g generator, f map[string]*yaml.Node, keys []*yaml.Node, what string, params map[string]bool) error {
	for _, kn := range keys {
		if kn.Value == "gen" || kn.Value == "params" && g.matrix {
			continue
		}
		if !slices.Contains(g.keys, kn.Value) {
			return ld.errAt(kn, fmt.Sprintf("%s: %s takes no %q", what, d.Gen, kn.Value), d.Gen+" takes "+strings.Join(g.keys, ", "))
		}
		vn := f[kn.Value]
		a := DataArg{Key: kn.Value, Line: vn.Line, Col: vn.Column}
		if slices.Contains(g.numbers, kn.Value) {
			x, err := strconv.ParseFloat(vn.Value, 64)
			if vn.Kind != yaml.ScalarNode || err != nil {
				return ld.errAt(vn, fmt.Sprintf("%s: %s must be a number, got %q", what, kn.Value, vn.Value), "write a decimal number, e.g. 2.5")
			}
			a.Num, a.Text = x, vn.Value
		} else {
			e, err := ld.paramExpr(vn, params, what+": "+kn.Value)
			if err != nil {
				return err
			}
			a.Value = e
		}
		d.Args = append(d.Args, a)
	}
	for _, r := range g.required {
		if d.Arg(r) == nil {
			return ld.errAt(f["gen"], fmt.Sprintf("%s: %s needs %s", what, d.Gen, r), d.Gen+" takes "+strings.Join(g.keys, ", ")+"; it needs "+strings.Join(g.required, ", "))
		}
	}
	return nil
}
