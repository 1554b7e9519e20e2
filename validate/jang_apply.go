package validate

import (
	"fmt"
	"slices"
	"strings"

	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// JangApplied is a serial loop nest rewritten as the CUDA-form kernel
// that J14's Algorithm 1 selects for it (models.md §1.1.3): each array in
// the space the model chose, and each array selected for local-memory
// prefetch staged in a __shared__ tile, strip by strip, along the loop
// its intra-thread pattern walks (see ApplyJang).
type JangApplied struct {
	// Model is the static model whose selection was applied.
	Model *JangModel
	// Arrays say, per array of the model, what the kernel does with
	// Algorithm 1's choice.
	Arrays []JangPlacement
	// File is the rewritten kernel file (the loop nest's params and
	// arrays, each array in its space, and a __global__ source), which
	// kernel.Parse reads; Kernel is File parsed.
	File   []byte
	Kernel *kernel.Kernel
}

// JangPlacement is what the rewritten kernel does with one array.
type JangPlacement struct {
	Array string `json:"array"`
	// Selected is Algorithm 1's choice ("texture with local prefetch").
	Selected string `json:"selected"`
	// Space is where the kernel reads and writes the array in device
	// memory: global, texture or constant.
	Space string `json:"space"`
	// Tile is the __shared__ tile the array is staged in and Strip the
	// strip-mined loop; both empty when it is not prefetched.
	Tile  string `json:"tile,omitempty"`
	Strip string `json:"strip,omitempty"`
	// NotApplied says why part of the selection was not applied (a
	// prefetch the tile rule cannot stage, texture for a written array).
	NotApplied string `json:"not_applied,omitempty"`
}

// JangSpaceLabel is an array's selection as estimate prints it: its
// space, "with local prefetch" when local memory was selected too.
func JangSpaceLabel(a *JangArray) string {
	if a.Prefetch {
		return a.Space + " with local prefetch"
	}
	return a.Space
}

// ApplyJang rewrites l's loop nest under l's mapping as the kernel J14's
// Algorithm 1 selects. Decisions where J14 is silent:
//
//   - The mapped loops must be the outermost loops, each alone in its
//     parent's body; each becomes its thread's index, blockIdx × blockDim
//   - threadIdx (times its step, plus its lower bound).
//   - An array selected for prefetch is staged in a tile of shared memory
//     along its strip loop: the innermost unmapped loop its subscripts
//     use. The loop is strip-mined with J14's strip length SL, the
//     smallest work-group dimension (JangStripLength): per strip the
//     block's threads load the tile together, one element per thread per
//     step, in the order that reads consecutive addresses; a barrier; the
//     SL iterations read the tile; a barrier; a tile the loop writes is
//     stored back, and a barrier. The tile has one dimension per array
//     dimension that a mapped loop (extent: the block's) or the strip
//     loop (extent SL) indexes; a row a warp's threads walk down is padded
//     by one element so that they fall in different banks.
//   - A prefetch is applied only where that tile serves every reference of
//     the array: the same subscripts everywhere, all inside the strip
//     loop, each mapped or strip variable with coefficient 1 in one
//     subscript of its own, other loop variables only those of loops
//     around the strip loop, the strip loop's bounds params alone and its
//     step 1. Elsewhere the array stays in its backing space and the
//     placement says why.
//   - With a prefetch, the barriers need every thread of a block: the
//     kernel requires the mapped extents to be multiples of the block's,
//     and the strip loops' trip counts multiples of SL. Without one, the
//     threads past an extent are masked off, as in the loop nest.
//   - Texture selected for a written array (J14's write-only rule) is
//     not applied: a kernel cannot store through a texture. A 1-D array
//     in texture memory is read with tex1Dfetch.
func ApplyJang(l *traces.Launch) (*JangApplied, error) {
	k := l.Kernel
	if l.Info().PerThread {
		return nil, fmt.Errorf("Algorithm 1 is applied to a serial loop nest, and %s is a per-thread (__global__) kernel; hint: give its arrays' spaces with -spaces A=texture,x=constant", k.Name)
	}
	for _, a := range k.Arrays {
		if a.Struct != nil {
			return nil, fmt.Errorf("the rewrite declares each array as a scalar array in its space, and %s's %s holds structs %s; hint: estimate prints Algorithm 1's selection for it; choose spaces with -spaces A=...", k.Name, a.Name, a.Struct.Name)
		}
	}
	m, err := NewJangModel(l)
	if err != nil {
		return nil, err
	}
	g, err := newJangGen(l, m)
	if err != nil {
		return nil, err
	}
	for i := range m.Arrays {
		g.place(&m.Arrays[i])
	}
	file := g.file()
	kk, err := kernel.Parse(jangFile(k), file)
	if err != nil {
		return nil, fmt.Errorf("validate: the rewritten %s does not parse (a bug; the kernel follows): %w\n%s", k.Name, err, file)
	}
	return &JangApplied{Model: m, Arrays: g.placed, File: file, Kernel: kk}, nil
}

// jangFile is the name the rewrite of k goes by in error positions.
func jangFile(k *kernel.Kernel) string {
	return k.Name + "-jang (the -spaces jang rewrite of " + k.File + "; -show-kernel prints it)"
}

// jangGen holds what the rewrite of one loop nest needs.
type jangGen struct {
	l      *traces.Launch
	m      *JangModel
	prog   *kernel.Program
	nest   []*kernel.Loop         // the mapped loops, outermost first
	mapped map[string]kernel.Axis // mapped loop variable -> axis
	// around lists, per reference ID, the loops around it, outermost
	// first.
	around map[int][]*kernel.Loop
	spaces map[string]kernel.Space
	tiles  []*jangTile
	placed []JangPlacement
	names  map[string]bool // identifiers taken
	// tid, nthreads, sl and elem name the locals of a kernel with tiles:
	// the thread's number in its block, the block's threads, the strip
	// length and the copy loops' element.
	tid, nthreads, sl, elem string
}

// jangTile is an array staged in shared memory along a strip loop.
type jangTile struct {
	array  *kernel.Array
	name   string
	strip  *kernel.Loop
	start  string // the strip's first iteration variable
	ref    *kernel.MemRef
	dims   []tileDim // per array dimension
	stored bool
	pad    bool
}

// tileDim is what indexes one array dimension in a tile: the strip loop,
// a mapped loop (its axis), or neither (fixed within a strip: the
// dimension is not in the tile).
type tileDim struct {
	strip, thread bool
	axis          kernel.Axis
}

func newJangGen(l *traces.Launch, m *JangModel) (*jangGen, error) {
	g := &jangGen{l: l, m: m, prog: l.Kernel.Program, mapped: map[string]kernel.Axis{},
		around: map[int][]*kernel.Loop{}, spaces: map[string]kernel.Space{}, names: map[string]bool{}}
	for _, e := range l.Mapping {
		g.mapped[e.Loop] = e.Axis
	}
	body := g.prog.Body
	for range l.Mapping {
		lp, ok := soleLoop(body)
		if !ok || !g.isMapped(lp.Var) {
			return nil, g.nestError(body)
		}
		g.nest = append(g.nest, lp)
		body = lp.Body
	}
	g.walk(g.prog.Body, nil)
	for _, p := range l.Kernel.Params {
		g.names[p.Name] = true
	}
	for _, a := range l.Kernel.Arrays {
		g.names[a.Name] = true
		g.spaces[a.Name] = a.Space
	}
	for _, lp := range g.prog.Loops {
		g.names[lp.Var] = true
	}
	for _, s := range g.prog.Stmts {
		if s.Scalar != "" {
			g.names[s.Scalar] = true
		}
	}
	return g, nil
}

func soleLoop(body []kernel.Node) (*kernel.Loop, bool) {
	if len(body) != 1 {
		return nil, false
	}
	lp, ok := body[0].(*kernel.Loop)
	return lp, ok
}

func (g *jangGen) isMapped(v string) bool { _, ok := g.mapped[v]; return ok }

// nestError says where the loop nest stops being the perfect nest of
// mapped loops ApplyJang needs.
func (g *jangGen) nestError(body []kernel.Node) error {
	line, col := 0, 0
	if len(body) > 0 {
		line, col = body[0].Pos()
	}
	return fmt.Errorf("%s:%d:%d: -spaces jang needs the mapped loops (%s) outermost, each alone in the body of the one around it; hint: move the other statements inside the innermost mapped loop, or map other loops with -map",
		g.l.Kernel.File, line, col, g.l.Mapping)
}

// walk records the loops around every reference of body.
func (g *jangGen) walk(body []kernel.Node, loops []*kernel.Loop) {
	for _, n := range body {
		switch n := n.(type) {
		case *kernel.Loop:
			g.walk(n.Body, append(slices.Clone(loops), n))
		case *kernel.Stmt:
			for _, r := range n.Loads {
				g.around[r.ID] = loops
			}
			if n.Store != nil {
				g.around[n.Store.ID] = loops
			}
		}
	}
}

// fresh returns an identifier based on want that no name of the kernel
// or of the rewrite uses yet, and takes it.
func (g *jangGen) fresh(want string) string {
	name := want
	for i := 2; g.names[name]; i++ {
		name = fmt.Sprintf("%s%d", want, i)
	}
	g.names[name] = true
	return name
}

// place applies the model's selection to array a.
func (g *jangGen) place(a *JangArray) {
	p := JangPlacement{Array: a.Name, Selected: JangSpaceLabel(a), Space: a.Space}
	space := map[string]kernel.Space{JangGlobal: kernel.SpaceGlobal, JangTexture: kernel.SpaceTexture, JangConstant: kernel.SpaceConstant}[a.Space]
	if space == kernel.SpaceTexture && a.Access != JangReadOnly {
		space, p.Space = kernel.SpaceGlobal, JangGlobal
		p.NotApplied = "texture for a written array: a kernel cannot store through a texture (its cache is not coherent with stores); kept in global memory"
	}
	g.spaces[a.Name] = space
	if a.Prefetch {
		t, err := g.tile(a.Name)
		if err != nil {
			p.NotApplied = "local prefetch: " + err.Error()
		} else {
			g.tiles = append(g.tiles, t)
			p.Tile, p.Strip = t.decl(g.stripLength()), t.strip.Var
		}
	}
	g.placed = append(g.placed, p)
}

// tile plans the shared tile of array name, or says why none serves it.
func (g *jangGen) tile(name string) (*jangTile, error) {
	var refs []*kernel.MemRef
	for _, r := range g.prog.Refs {
		if r.Array.Name == name {
			refs = append(refs, r)
		}
	}
	first := refs[0]
	key := indexText(first)
	t := &jangTile{array: first.Array, ref: first}
	for _, r := range refs {
		if indexText(r) != key {
			return nil, fmt.Errorf("%s and %s differ in their subscripts, and one tile serves one", first.Text, r.Text)
		}
		t.stored = t.stored || r.Store
	}
	strip, err := g.stripLoop(first)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if !slices.Contains(g.around[r.ID], strip) {
			return nil, fmt.Errorf("%s is outside the loop over %s that the tile is staged along", r.Text, strip.Var)
		}
	}
	if t.dims, err = g.tileDims(first, strip); err != nil {
		return nil, err
	}
	t.strip = strip
	t.name = g.fresh(name + "_s")
	t.pad = t.padded()
	return t, nil
}

func indexText(r *kernel.MemRef) string {
	parts := make([]string, len(r.Index))
	for i, e := range r.Index {
		parts[i] = e.String()
	}
	return strings.Join(parts, "][")
}

// stripLoop is the loop r's tile is staged along: the innermost loop
// around r that is not mapped and whose variable r's subscripts use,
// checked for strip-mining.
func (g *jangGen) stripLoop(r *kernel.MemRef) (*kernel.Loop, error) {
	used := map[string]bool{}
	for _, e := range r.Index {
		loopVars(e, used)
	}
	var strip *kernel.Loop
	for _, lp := range g.around[r.ID] {
		if used[lp.Var] && !g.isMapped(lp.Var) {
			strip = lp
		}
	}
	if strip == nil {
		return nil, fmt.Errorf("%s walks no loop inside a thread", r.Text)
	}
	if strip.Step.Kind != kernel.ExprConst || strip.Step.Val != 1 {
		return nil, fmt.Errorf("the loop over %s steps by %s; strip-mining needs step 1", strip.Var, strip.Step)
	}
	bounds := map[string]bool{}
	loopVars(strip.Lower, bounds)
	loopVars(strip.Upper, bounds)
	if len(bounds) > 0 {
		return nil, fmt.Errorf("the bounds of the loop over %s use loop variables; the strips must be the same for every thread", strip.Var)
	}
	for _, lp := range g.around[r.ID] {
		if lp == strip {
			break
		}
		vs := map[string]bool{}
		loopVars(lp.Lower, vs)
		loopVars(lp.Upper, vs)
		for v := range vs {
			if g.isMapped(v) {
				return nil, fmt.Errorf("the bounds of the loop over %s use the mapped %s: threads would reach the barriers a different number of times", lp.Var, v)
			}
		}
	}
	return strip, nil
}

// tileDims classifies r's subscripts for a tile along strip: one with the
// strip variable, one per mapped variable, the others fixed within a
// strip. Coefficients come from the model's access matrix.
func (g *jangGen) tileDims(r *kernel.MemRef, strip *kernel.Loop) ([]tileDim, error) {
	jr := g.jangRef(r)
	col := func(v string) int { return slices.Index(g.m.Loops, v) }
	dims := make([]tileDim, len(r.Index))
	for d, e := range r.Index {
		vs := map[string]bool{}
		loopVars(e, vs)
		for v := range vs {
			c := jr.M[d][col(v)]
			switch {
			case v == strip.Var || g.isMapped(v):
				if c != 1 || len(vs) > 1 && (vs[strip.Var] || g.countMapped(vs) > 1) {
					return nil, fmt.Errorf("subscript %s of %s: the tile needs %s alone, with coefficient 1", e, r.Text, v)
				}
				dims[d] = tileDim{strip: v == strip.Var, thread: v != strip.Var, axis: g.mapped[v]}
			case !g.encloses(v, strip):
				return nil, fmt.Errorf("subscript %s of %s uses %s, whose loop is inside the loop over %s", e, r.Text, v, strip.Var)
			}
		}
	}
	for _, lp := range g.nest {
		if ax := g.mapped[lp.Var]; g.usesAxis(dims, ax) && (lp.Step.Kind != kernel.ExprConst || lp.Step.Val != 1) {
			return nil, fmt.Errorf("the mapped loop over %s steps by %s; a tile needs step 1", lp.Var, lp.Step)
		}
	}
	return dims, nil
}

func (g *jangGen) countMapped(vs map[string]bool) int {
	n := 0
	for v := range vs {
		if g.isMapped(v) {
			n++
		}
	}
	return n
}

func (g *jangGen) usesAxis(dims []tileDim, ax kernel.Axis) bool {
	return slices.ContainsFunc(dims, func(d tileDim) bool { return d.thread && d.axis == ax })
}

// encloses says v is the variable of a loop around strip.
func (g *jangGen) encloses(v string, strip *kernel.Loop) bool {
	for p := strip.Parent; p != nil; p = p.Parent {
		if p.Var == v {
			return true
		}
	}
	return false
}

func (g *jangGen) jangRef(r *kernel.MemRef) *JangRef {
	for i := range g.m.Refs {
		if g.l.Refs[g.m.Refs[i].Ref].ID == r.ID {
			return &g.m.Refs[i]
		}
	}
	panic(fmt.Sprintf("validate: %s: no model of reference %s", g.l.Kernel.Name, r.Text))
}

// loopVars adds the loop variables e uses to vs.
func loopVars(e *kernel.Expr, vs map[string]bool) {
	if e == nil {
		return
	}
	if e.Kind == kernel.ExprLoop {
		vs[e.Name] = true
	}
	for _, a := range e.Args {
		loopVars(a, vs)
	}
}

// padded says the tile's rows are padded: a warp's threads, along x,
// walk down a dimension that is not the tile's last, so they would be a
// row apart, in one bank when the row is a multiple of the banks.
func (t *jangTile) padded() bool {
	var varying []tileDim
	for _, d := range t.dims {
		if d.strip || d.thread {
			varying = append(varying, d)
		}
	}
	for i, d := range varying {
		if d.thread && d.axis == kernel.AxisX && i < len(varying)-1 {
			return true
		}
	}
	return false
}
