package kernel

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
	"gpumemsim/internal/yamldoc"
)

// DefaultAlign is the alignment of an array's base address when the
// file gives no align.
const DefaultAlign int64 = 256

// defaultBlock is the block shape of a kernel file without block.
func defaultBlock() arch.Dim3 { return arch.Dim3{X: 128, Y: 1, Z: 1} }

//go:embed examples/*.yaml
var examplesFS embed.FS

// Param is a kernel parameter and its value.
type Param struct {
	Name  string
	Value int64
}

// ParamsText writes params as K=V, joined by sep, in their order.
func ParamsText(ps []Param, sep string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s=%d", p.Name, p.Value)
	}
	return strings.Join(parts, sep)
}

// Kernel is a kernel file: parameters, arrays, the parsed source and the
// default launch configuration.
type Kernel struct {
	Name        string
	Description string
	// File is the path or, for a shipped example, "examples/NAME.yaml".
	File string
	// Params are the defaults, in declaration order.
	Params []Param
	// Arrays are in declaration order.
	Arrays  []*Array
	Source  string
	Program *Program
	// Mapping and Block are the defaults of traces.Bind.
	Mapping Mapping
	Block   arch.Dim3
	// Grid is a per-thread kernel's grid: one to three extents (x first),
	// expressions of params and blockDim.x/y/z; nil when the file gives
	// none (then the launch must).
	Grid []*Expr
	// Requires are a per-thread kernel's conditions on its launch:
	// expressions of params and blockDim that must not be 0 (for tiles
	// that must fit the block, N % blockDim.x == 0).
	Requires []*Expr
	// Regs is the registers per thread (0: not given).
	Regs int
	// Smem is the shared memory per block (0: none).
	Smem arch.Bytes
	// Dependent says every load waits for the previous load to complete
	// (a pointer chase); the simulator serialises the loads.
	Dependent bool
	// Launches is the host loop of launches, run one after the other on
	// one device (traces.BindSequence); nil: the file is one launch.
	Launches []HostLoop
	// Structs are the file's structure types, in declaration order;
	// Layouts its named layouts of the struct arrays, and Layout the one
	// Bind lays them out by: the first, unless SelectLayout chose
	// another (nil: none declared, every struct array an AoS).
	Structs []*Struct
	Layouts []*DataLayout
	Layout  *DataLayout
	// Where locates the file's keys, for errors found after parsing.
	Where Positions
	// Matrix is the sparse matrix whose structure index arrays hold
	// (matrix:); nil when the file has none.
	Matrix *Matrix
}

// Pos is a position in a kernel file, 1-based; zero when the file has no
// such thing.
type Pos struct{ Line, Col int }

// Positions are where a kernel file gives what traces.Bind checks
// against params and devices: the top of the document and the values of
// block, regs, smem and launches. (Dims, bounds and references carry
// their own.)
type Positions struct {
	Top, Block, Grid, Regs, Smem, Launches Pos
}

// Examples returns the names of the shipped example kernels, sorted.
func Examples() []string {
	ents, err := fs.ReadDir(examplesFS, "examples")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Load loads a shipped example by name (see Examples), or else the
// kernel file at the path.
func Load(nameOrPath string) (*Kernel, error) {
	if slices.Contains(Examples(), nameOrPath) {
		file := "examples/" + nameOrPath + ".yaml"
		data, err := examplesFS.ReadFile(file)
		if err != nil {
			return nil, err
		}
		k, err := Parse(file, data)
		if err != nil {
			return nil, err
		}
		return k, k.readData(examplesData)
	}
	data, err := readFile(nameOrPath, MaxFileSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, "/.") {
			return nil, fmt.Errorf("kernel %q: no such file and no shipped example of that name (examples: %s)", nameOrPath, strings.Join(Examples(), ", "))
		}
		return nil, fmt.Errorf("kernel: %w", err)
	}
	k, err := Parse(nameOrPath, data)
	if err != nil {
		return nil, err
	}
	return k, k.readData(nil)
}

// kernelKeys are the keys a kernel file may have.
var kernelKeys = []string{"name", "description", "params", "structs", "arrays", "layouts", "source", "mapping", "block", "grid", "requires", "regs", "smem", "dependent", "launches", "matrix"}

// loader reads one kernel file.
type loader struct {
	file  string
	lines []string
	// spaces are the arrays' space: values, by array name.
	spaces map[string]*yaml.Node
}

func (ld *loader) errAt(n *yaml.Node, msg, hint string) error {
	return posError(ld.file, n.Line, n.Column, msg, hint)
}

// fields checks a mapping node for unknown and duplicate keys and returns
// key → value node and the keys in order.
func (ld *loader) fields(n *yaml.Node, what string, allowed []string) (map[string]*yaml.Node, []*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, ld.errAt(n, what+" must be a mapping", "write key: value pairs")
	}
	m := map[string]*yaml.Node{}
	var keys []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, nil, ld.errAt(k, what+": keys must be plain names", "")
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, nil, ld.errAt(k, fmt.Sprintf("unknown key %q in %s", k.Value, what), "known keys are "+strings.Join(allowed, ", "))
		}
		if _, dup := m[k.Value]; dup {
			if what == "mapping" {
				return nil, nil, ld.errAt(k, fmt.Sprintf("loop %s mapped twice", k.Value), "map each loop to one of tx, ty, tz")
			}
			return nil, nil, ld.errAt(k, fmt.Sprintf("duplicate key %q in %s", k.Value, what), "give each key once")
		}
		m[k.Value] = v
		keys = append(keys, k)
	}
	return m, keys, nil
}

// keyNode is the key called name among keys, or nil.
func keyNode(keys []*yaml.Node, name string) *yaml.Node {
	for _, kn := range keys {
		if kn.Value == name {
			return kn
		}
	}
	return nil
}

func (ld *loader) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" && n.Tag != "" {
		return "", ld.errAt(n, key+" must be a string", "")
	}
	return n.Value, nil
}

func (ld *loader) integer(n *yaml.Node, key string) (int64, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return v, nil
		}
	}
	return 0, ld.errAt(n, fmt.Sprintf("%s must be an integer, got %q", key, n.Value), "write a whole number, e.g. 1024")
}

func isIdent(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// Parse reads a kernel file; file names it in errors.
func Parse(file string, data []byte) (*Kernel, error) {
	if len(data) > MaxFileSize {
		return nil, tooLarge(file)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty kernel file", file)
	}
	if line, found := yamldoc.SecondDocument(dec); found {
		return nil, &arch.PosError{File: file, Line: line, Column: min(line, 1), Err: errors.New("a second YAML document, which a kernel file does not have; hint: remove the --- and what follows it, or give it a file of its own")}
	}
	ld := &loader{file: file, lines: strings.Split(string(data), "\n"), spaces: map[string]*yaml.Node{}}
	root := doc.Content[0]
	top, keys, err := ld.fields(root, "the kernel file", kernelKeys)
	if err != nil {
		return nil, err
	}
	for _, req := range []string{"name", "arrays", "source"} {
		if top[req] == nil {
			return nil, posError(file, root.Line, root.Column, "missing key "+req, "a kernel file needs name, arrays and source")
		}
	}
	k := &Kernel{File: file, Block: defaultBlock(), Where: Positions{Top: Pos{root.Line, root.Column}}}
	if k.Name, err = ld.str(top["name"], "name"); err != nil {
		return nil, err
	}
	if n := top["description"]; n != nil {
		if k.Description, err = ld.str(n, "description"); err != nil {
			return nil, err
		}
	}
	if err := ld.program(k, top); err != nil {
		return nil, err
	}
	if err := ld.form(k, top, keys); err != nil {
		return nil, err
	}
	if err := ld.launch(k, top); err != nil {
		return nil, err
	}
	if n := top["launches"]; n != nil {
		if err := ld.launches(k, n); err != nil {
			return nil, err
		}
		k.Where.Launches = Pos{n.Line, n.Column}
	}
	return k, nil
}

// program reads the params, the arrays and the source.
func (ld *loader) program(k *Kernel, top map[string]*yaml.Node) error {
	params := map[string]bool{}
	if n := top["params"]; n != nil {
		pm, keys, err := ld.fields(n, "params", nil)
		if err != nil {
			return err
		}
		for _, kn := range keys {
			if !isIdent(kn.Value) {
				return ld.errAt(kn, fmt.Sprintf("param name %q is not an identifier", kn.Value), "")
			}
			v, err := ld.integer(pm[kn.Value], "param "+kn.Value)
			if err != nil {
				return err
			}
			k.Params = append(k.Params, Param{kn.Value, v})
			params[kn.Value] = true
		}
	}
	if n := top["structs"]; n != nil {
		var err error
		if k.Structs, err = ld.structs(n); err != nil {
			return err
		}
	}
	if err := ld.matrix(k, top["matrix"], params); err != nil {
		return err
	}
	arrays := map[string]*Array{} // to find duplicates
	am, akeys, err := ld.fields(top["arrays"], "arrays", nil)
	if err != nil {
		return err
	}
	for _, kn := range akeys {
		a, err := ld.array(kn, am[kn.Value], params, k.Structs)
		if err != nil {
			return err
		}
		if params[a.Name] {
			return ld.errAt(kn, fmt.Sprintf("array %s has the name of a param", a.Name), "rename one of them")
		}
		arrays[a.Name] = a
		k.Arrays = append(k.Arrays, a)
	}
	if n := top["layouts"]; n != nil {
		if k.Layouts, err = ld.layouts(n, k.Arrays); err != nil {
			return err
		}
		if len(k.Layouts) > 0 {
			k.Layout = k.Layouts[0]
		}
	}
	sn := top["source"]
	if k.Source, err = ld.str(sn, "source"); err != nil {
		return err
	}
	if k.Program, err = parseSource(ld.file, k.Source, ld.sourcePos(sn), params, k.Arrays); err != nil {
		return err
	}
	for _, d := range k.Program.Constants {
		if sn := ld.spaces[d.Array.Name]; sn != nil && sn.Value != SpaceConstant.String() {
			return ld.errAt(sn, fmt.Sprintf("array %s is declared __constant__ at line %d, but its space is %s", d.Array.Name, d.Line, sn.Value),
				"drop space: here (the declaration puts the array in constant memory), or drop the __constant__ declaration")
		}
	}
	if err := ld.checkData(k); err != nil {
		return err
	}
	if err := ld.checkRemaps(k); err != nil {
		return err
	}
	return readOnlyStores(ld.file, k.Program)
}

// form reads the keys that belong to one source form: mapping to a loop
// nest, grid to a per-thread kernel.
func (ld *loader) form(k *Kernel, top map[string]*yaml.Node, keys []*yaml.Node) error {
	if k.Program.Form == PerThread {
		if kn := keyNode(keys, "mapping"); kn != nil {
			return ld.errAt(kn, "mapping is for loop-nest kernels", "the per-thread form computes its own indices from threadIdx and blockIdx; drop mapping:")
		}
		if n := top["grid"]; n != nil {
			if err := ld.grid(k, n); err != nil {
				return err
			}
		}
		if n := top["requires"]; n != nil {
			return ld.requires(k, n)
		}
		return nil
	}
	if kn := keyNode(keys, "grid"); kn != nil {
		return ld.errAt(kn, "grid is for __global__ kernels", "a loop-nest kernel's grid follows from the extents of its mapped loops and the block; drop grid:")
	}
	if kn := keyNode(keys, "requires"); kn != nil {
		return ld.errAt(kn, "requires is for __global__ kernels", "a loop nest covers any block: its mapped loops are guarded by their bounds; drop requires:")
	}
	if n := top["mapping"]; n != nil {
		return ld.mapping(k, n)
	}
	return nil
}

// mapping reads the mapping n of loops to thread dimensions.
func (ld *loader) mapping(k *Kernel, n *yaml.Node) error {
	mm, keys, err := ld.fields(n, "mapping", nil)
	if err != nil {
		return err
	}
	for i, kn := range keys {
		vn := mm[kn.Value]
		ax, err := ParseAxis(vn.Value)
		if err != nil || vn.Kind != yaml.ScalarNode {
			return ld.errAt(vn, fmt.Sprintf("mapping of %s: unknown thread dimension %q", kn.Value, vn.Value), "map loops to tx, ty or tz")
		}
		k.Mapping = append(k.Mapping, LoopMap{kn.Value, ax})
		for _, f := range k.Mapping[:i] {
			if f.Axis == ax {
				return ld.errAt(vn, fmt.Sprintf("loops %s and %s both mapped to %s", f.Loop, kn.Value, ax), "map at most one loop per thread dimension")
			}
		}
		if err := k.Mapping.checkEntry(k.Program, i); err != nil {
			return ld.errAt(kn, err.Error(), "")
		}
	}
	return nil
}

// launch reads block, regs, smem and dependent.
func (ld *loader) launch(k *Kernel, top map[string]*yaml.Node) error {
	if n := top["block"]; n != nil {
		if err := n.Decode(&k.Block); err != nil {
			return withFile(ld.file, err)
		}
		k.Where.Block = Pos{n.Line, n.Column}
	}
	if n := top["regs"]; n != nil {
		v, err := ld.integer(n, "regs")
		if err != nil || v < 0 || v > math.MaxInt32 {
			return ld.errAt(n, "regs must be a non-negative integer (registers per thread)", "")
		}
		k.Regs = int(v)
		k.Where.Regs = Pos{n.Line, n.Column}
	}
	if n := top["smem"]; n != nil {
		if err := n.Decode(&k.Smem); err != nil {
			return withFile(ld.file, err)
		}
		if k.Smem < 0 {
			return ld.errAt(n, "smem must not be negative", "give the shared memory per block, e.g. 4KiB")
		}
		k.Where.Smem = Pos{n.Line, n.Column}
	}
	if n := top["dependent"]; n != nil {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&k.Dependent) != nil {
			return ld.errAt(n, "dependent must be true or false", "")
		}
	}
	return nil
}

// withFile fills in the file name of a positioned error.
func withFile(file string, err error) error {
	var pe *arch.PosError
	if errors.As(err, &pe) {
		e := *pe
		e.File = file
		return &e
	}
	return fmt.Errorf("%s: %w", file, err)
}

// sourcePos maps positions in the source text to the kernel file. A
// block scalar (source: |) starts on the line after the key, indented.
func (ld *loader) sourcePos(n *yaml.Node) srcPos {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		indent := 0
		for i := n.Line; i < len(ld.lines); i++ { // ld.lines[n.Line] is the line after the key
			t := strings.TrimRight(ld.lines[i], " \r")
			if t != "" {
				indent = len(t) - len(strings.TrimLeft(t, " "))
				break
			}
		}
		return func(line, col int) (int, int) { return n.Line + line, indent + col }
	}
	shift := 0
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		shift = 1
	}
	return func(line, col int) (int, int) {
		if line == 1 {
			return n.Line, n.Column + shift + col - 1
		}
		return n.Line + line - 1, col
	}
}
