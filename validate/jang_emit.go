package validate

import (
	"fmt"
	"slices"
	"strings"

	"gpumemsim/kernel"
)

// This file writes the kernel ApplyJang plans (jang_apply.go) as a
// kernel file with a __global__ source.

// file is the rewritten kernel file.
func (g *jangGen) file() []byte {
	k := g.l.Kernel
	out := &kernel.Kernel{Name: k.Name + "-jang", Description: g.description(), Params: k.Params,
		Block: g.l.Block, Grid: textExprs(g.grid()), Requires: textExprs(g.requires()), Regs: k.Regs, Dependent: k.Dependent}
	for _, a := range k.Arrays {
		c := *a
		c.Space = g.spaces[a.Name]
		out.Arrays = append(out.Arrays, &c)
	}
	return kernel.FormatWith(out, g.source())
}

// textExprs are expressions kept as the text the rewrite wrote them in:
// kernel.Parse reads them.
func textExprs(ss []string) []*kernel.Expr {
	var es []*kernel.Expr
	for _, s := range ss {
		es = append(es, &kernel.Expr{Kind: kernel.ExprScalar, Name: s})
	}
	return es
}

func (g *jangGen) description() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s with the memory spaces J14's Algorithm 1 selects (Jang et al. 2014; models.md 1.1.3), under mapping %s, as gpumemsim's -spaces jang rewrites it:", g.l.Kernel.Name, g.l.Mapping)
	for _, p := range g.placed {
		fmt.Fprintf(&b, " %s %s", p.Array, p.Space)
		if p.Tile != "" {
			fmt.Fprintf(&b, ", staged in %s along %s", p.Tile, p.Strip)
		}
		if p.NotApplied != "" {
			fmt.Fprintf(&b, " (selected %s; not applied: %s)", p.Selected, p.NotApplied)
		}
		b.WriteByte(';')
	}
	if len(g.tiles) > 0 {
		fmt.Fprintf(&b, " strip length SL = %s, the smallest work-group dimension.", g.stripLength())
	}
	return strings.TrimSuffix(b.String(), ";")
}

// stripLength is J14's SL as a launch-time expression: the smallest
// dimension of the work group over the mapping's axes.
func (g *jangGen) stripLength() string {
	switch g.m.Dims {
	case 1:
		return "blockDim.x"
	case 2:
		return "min(blockDim.x, blockDim.y)"
	}
	return "min(min(blockDim.x, blockDim.y), blockDim.z)"
}

func axisLetter(a kernel.Axis) string { return string("xyz"[a]) }

// par parenthesises s unless it is one token.
func par(s string) string {
	if strings.ContainsAny(s, " ") {
		return "(" + s + ")"
	}
	return s
}

// trips is the trip count of loop lp as an expression.
func trips(lp *kernel.Loop) string {
	n := lp.Upper.String()
	if lp.Lower.Kind != kernel.ExprConst || lp.Lower.Val != 0 {
		n = par(n) + " - " + par(lp.Lower.String())
	}
	if lp.Step.Kind == kernel.ExprConst && lp.Step.Val == 1 {
		return n
	}
	return fmt.Sprintf("(%s + %s - 1) / %s", n, par(lp.Step.String()), par(lp.Step.String()))
}

// grid is the grid's extents, x first: each mapped axis's trip count in
// blocks.
func (g *jangGen) grid() []string {
	ext := []string{"1"}
	for _, lp := range g.nest {
		ax := int(g.mapped[lp.Var])
		for len(ext) <= ax {
			ext = append(ext, "1")
		}
		bd := "blockDim." + axisLetter(kernel.Axis(ax))
		if len(g.tiles) > 0 {
			ext[ax] = par(trips(lp)) + " / " + bd
		} else {
			ext[ax] = fmt.Sprintf("(%s + %s - 1) / %s", trips(lp), bd, bd)
		}
	}
	return ext
}

// requires are the launch's conditions when the kernel has barriers:
// whole blocks along every mapped axis and whole strips.
func (g *jangGen) requires() []string {
	if len(g.tiles) == 0 {
		return nil
	}
	var rs []string
	add := func(r string) {
		if !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	for _, lp := range g.nest {
		add(fmt.Sprintf("%s %% blockDim.%s == 0", par(trips(lp)), axisLetter(g.mapped[lp.Var])))
	}
	for _, t := range g.tiles {
		add(fmt.Sprintf("%s %% %s == 0", par(trips(t.strip)), g.stripLength()))
	}
	return rs
}

// source is the __global__ function and the __constant__ declarations.
func (g *jangGen) source() string {
	var b strings.Builder
	k := g.l.Kernel
	var args []string
	for _, a := range k.Arrays {
		decl := fmt.Sprintf("%s %s", a.Type.CName(), a.Name)
		if g.spaces[a.Name] == kernel.SpaceConstant {
			fmt.Fprintf(&b, "__constant__ %s[%s];\n", decl, exprsText(a.Dims, "]["))
			continue
		}
		args = append(args, fmt.Sprintf("%s *%s", a.Type.CName(), a.Name))
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	fn := strings.ReplaceAll(k.Name, "-", "_") + "_jang"
	fmt.Fprintf(&b, "__global__ void %s(%s)\n{\n", fn, strings.Join(args, ", "))
	for _, lp := range g.nest {
		ax := axisLetter(g.mapped[lp.Var])
		idx := fmt.Sprintf("blockIdx.%s * blockDim.%s + threadIdx.%s", ax, ax, ax)
		if lp.Step.Kind != kernel.ExprConst || lp.Step.Val != 1 {
			idx = "(" + idx + ") * " + par(lp.Step.String())
		}
		if lp.Lower.Kind != kernel.ExprConst || lp.Lower.Val != 0 {
			idx = par(lp.Lower.String()) + " + " + idx
		}
		fmt.Fprintf(&b, "  int %s = %s;  // %s -> %s\n", lp.Var, idx, lp.Var, g.mapped[lp.Var])
	}
	body := g.nest[len(g.nest)-1].Body
	if len(g.tiles) == 0 {
		var conds []string
		for _, lp := range g.nest {
			conds = append(conds, lp.Var+" < "+par(lp.Upper.String()))
		}
		fmt.Fprintf(&b, "  if (%s) {\n", strings.Join(conds, " && "))
		g.emitBody(&b, body, 2)
		b.WriteString("  }\n}\n")
		return b.String()
	}
	g.emitTiles(&b)
	g.emitBody(&b, body, 1)
	b.WriteString("}\n")
	return b.String()
}

func exprsText(es []*kernel.Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}

// emitTiles declares the block's thread index, thread count, SL and the
// tiles.
func (g *jangGen) emitTiles(b *strings.Builder) {
	g.tid, g.nthreads, g.sl, g.elem = g.fresh("tid"), g.fresh("nthreads"), g.fresh("SL"), g.fresh("e")
	fmt.Fprintf(b, "  int %s = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);  // the thread's number in its block\n", g.tid)
	fmt.Fprintf(b, "  int %s = blockDim.x * blockDim.y * blockDim.z;\n", g.nthreads)
	fmt.Fprintf(b, "  int %s = %s;  // J14's strip length: the smallest work-group dimension\n", g.sl, g.stripLength())
	for _, t := range g.tiles {
		fmt.Fprintf(b, "  __shared__ %s %s;", t.array.Type.CName(), t.decl(g.stripLength()))
		if t.pad {
			b.WriteString("  // + 1: a warp's threads walk down a column, one row apart; the padding puts them in different banks")
		}
		b.WriteByte('\n')
	}
}

// emitBody writes the loop nest's body inside the mapped loops, loops
// with tiles strip-mined.
func (g *jangGen) emitBody(b *strings.Builder, body []kernel.Node, depth int) {
	for _, n := range body {
		switch n := n.(type) {
		case *kernel.Loop:
			if ts := g.tilesAlong(n); len(ts) > 0 {
				g.emitStrip(b, n, ts, depth)
				continue
			}
			line(b, depth, fmt.Sprintf("for (int %s = %s; %s < %s; %s) {", n.Var, n.Lower, n.Var, n.Upper, stepText(n)))
			g.emitBody(b, n.Body, depth+1)
			line(b, depth, "}")
		case *kernel.Stmt:
			line(b, depth, g.stmt(n))
		}
	}
}

func line(b *strings.Builder, depth int, s string) {
	b.WriteString(strings.Repeat("  ", depth) + s + "\n")
}

func stepText(lp *kernel.Loop) string {
	if lp.Step.Kind == kernel.ExprConst && lp.Step.Val == 1 {
		return lp.Var + "++"
	}
	return lp.Var + " += " + lp.Step.String()
}

func (g *jangGen) tilesAlong(lp *kernel.Loop) []*jangTile {
	var ts []*jangTile
	for _, t := range g.tiles {
		if t.strip == lp {
			ts = append(ts, t)
		}
	}
	return ts
}

// emitStrip writes loop lp strip-mined: per strip, the tiles loaded, a
// barrier, the strip's iterations, a barrier, and the written tiles
// stored back with a barrier after them.
func (g *jangGen) emitStrip(b *strings.Builder, lp *kernel.Loop, ts []*jangTile, depth int) {
	start := g.fresh(lp.Var + "s")
	for _, t := range ts {
		t.start = start
	}
	line(b, depth, fmt.Sprintf("for (int %s = %s; %s < %s; %s += %s) {", start, lp.Lower, start, lp.Upper, start, g.sl))
	for _, t := range ts {
		g.emitCopy(b, t, depth+1, true)
	}
	line(b, depth+1, "__syncthreads();")
	line(b, depth+1, fmt.Sprintf("for (int %s = %s; %s < %s + %s; %s++) {", lp.Var, start, lp.Var, start, g.sl, lp.Var))
	g.emitBody(b, lp.Body, depth+2)
	line(b, depth+1, "}")
	line(b, depth+1, "__syncthreads();")
	stored := false
	for _, t := range ts {
		if t.stored {
			g.emitCopy(b, t, depth+1, false)
			stored = true
		}
	}
	if stored {
		line(b, depth+1, "__syncthreads();")
	}
	line(b, depth, "}")
}

// emitCopy writes the loop in which the block's threads copy tile t from
// device memory (load) or back to it, one element per thread per step,
// consecutive threads on consecutive addresses.
func (g *jangGen) emitCopy(b *strings.Builder, t *jangTile, depth int, load bool) {
	coord := g.coords(t)
	subs := make([]string, len(t.ref.Index))
	vi := 0
	for d, e := range t.ref.Index {
		dim := t.dims[d]
		if !dim.strip && !dim.thread {
			subs[d] = e.String()
			continue
		}
		c := coord[vi]
		vi++
		v, value := t.strip.Var, t.start+" + "+c
		if dim.thread {
			v, value = g.nest[g.nestIndex(dim.axis)].Var, g.threadBase(dim.axis, c)
		}
		if e.Kind == kernel.ExprLoop {
			subs[d] = value // the subscript is the variable: no parentheses
		} else {
			subs[d] = substitute(e, v, "("+value+")").String()
		}
	}
	tile := t.name + "[" + strings.Join(coord, "][") + "]"
	mem := g.memText(t.array, subs)
	what := "stage " + t.array.Name + "'s tile"
	stmt := tile + " = " + mem + ";"
	if !load {
		what, stmt = "store "+t.array.Name+"'s tile back", mem+" = "+tile+";"
	}
	line(b, depth, fmt.Sprintf("for (int %s = %s; %s < %s; %s += %s)  // %s", g.elem, g.tid, g.elem, t.elements(g.sl), g.elem, g.nthreads, what))
	line(b, depth+1, stmt)
}

// coords are the tile coordinates of element g.elem of t's copy loop,
// one per varying dimension: the dimension contiguous in device memory
// (the last for row-major arrays, the first for column-major ones) varies
// fastest.
func (g *jangGen) coords(t *jangTile) []string {
	ext := t.extents(g.sl)
	n := len(ext)
	order := make([]int, n) // fastest first
	for i := range order {
		order[i] = n - 1 - i
		if t.array.Layout == kernel.ColMajor {
			order[i] = i
		}
	}
	out := make([]string, n)
	div := ""
	for i, d := range order {
		c := g.elem
		if div != "" {
			c += " / " + par(div)
		}
		if i < n-1 {
			c += " % " + ext[d]
			if div == "" {
				div = ext[d]
			} else {
				div += " * " + ext[d]
			}
		}
		out[d] = c
	}
	return out
}

func (g *jangGen) nestIndex(ax kernel.Axis) int {
	for i, lp := range g.nest {
		if g.mapped[lp.Var] == ax {
			return i
		}
	}
	panic("validate: no mapped loop on axis " + ax.String())
}

// threadBase is the value of the mapped variable of axis ax for the
// thread c along the axis in the block, unparenthesised.
func (g *jangGen) threadBase(ax kernel.Axis, c string) string {
	lp := g.nest[g.nestIndex(ax)]
	a := axisLetter(ax)
	s := fmt.Sprintf("blockIdx.%s * blockDim.%s + %s", a, a, c)
	if lp.Lower.Kind != kernel.ExprConst || lp.Lower.Val != 0 {
		s = par(lp.Lower.String()) + " + " + s
	}
	return s
}

// memText is the read of array a at subs in its space: tex1Dfetch for a
// 1-D texture.
func (g *jangGen) memText(a *kernel.Array, subs []string) string {
	if g.spaces[a.Name] == kernel.SpaceTexture && len(subs) == 1 {
		return "tex1Dfetch(" + a.Name + ", " + subs[0] + ")"
	}
	return a.Name + "[" + strings.Join(subs, "][") + "]"
}

// substitute is e with loop variable v written as the text with.
func substitute(e *kernel.Expr, v, with string) *kernel.Expr {
	return rewrite(e, func(n *kernel.Expr) *kernel.Expr {
		if n.Kind == kernel.ExprLoop && n.Name == v {
			return &kernel.Expr{Kind: kernel.ExprScalar, Name: with}
		}
		return nil
	})
}

// rewrite copies e, replacing each node for which f returns a node.
func rewrite(e *kernel.Expr, f func(*kernel.Expr) *kernel.Expr) *kernel.Expr {
	if r := f(e); r != nil {
		return r
	}
	c := *e
	c.Args = make([]*kernel.Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = rewrite(a, f)
	}
	return &c
}

// stmt is statement s of the loop nest with its references rewritten.
func (g *jangGen) stmt(s *kernel.Stmt) string {
	target := s.Scalar
	switch {
	case s.Store != nil:
		target = g.refText(s.Store)
	case s.Decl:
		target = "float " + s.Scalar
	}
	if s.Value == nil {
		return target + ";"
	}
	v := rewrite(s.Value, func(n *kernel.Expr) *kernel.Expr {
		if n.Kind == kernel.ExprLoad {
			return &kernel.Expr{Kind: kernel.ExprScalar, Name: g.refText(g.refByID(n.Index))}
		}
		return nil
	})
	return target + " " + s.Assign + " " + v.String() + ";"
}

func (g *jangGen) refByID(id int) *kernel.MemRef {
	for _, r := range g.prog.Refs {
		if r.ID == id {
			return r
		}
	}
	panic(fmt.Sprintf("validate: no reference %d", id))
}

// refText is reference r as the rewritten kernel reads or writes it: in
// its tile, through a texture, or as written.
func (g *jangGen) refText(r *kernel.MemRef) string {
	for _, t := range g.tiles {
		if t.array == r.Array {
			return t.name + "[" + strings.Join(t.computeCoords(), "][") + "]"
		}
	}
	return g.memText(r.Array, strings.Split(indexText(r), "]["))
}

// computeCoords are the tile coordinates of the element the thread's
// reference reads inside a strip.
func (t *jangTile) computeCoords() []string {
	var cs []string
	for _, d := range t.dims {
		switch {
		case d.strip:
			cs = append(cs, t.strip.Var+" - "+t.start)
		case d.thread:
			cs = append(cs, "threadIdx."+axisLetter(d.axis))
		}
	}
	return cs
}

// extents are the tile's dimensions, outermost first, as launch-time
// expressions; sl is the strip length.
func (t *jangTile) extents(sl string) []string {
	var ex []string
	for _, d := range t.dims {
		switch {
		case d.strip:
			ex = append(ex, sl)
		case d.thread:
			ex = append(ex, "blockDim."+axisLetter(d.axis))
		}
	}
	return ex
}

// elements is the number of elements the tile holds (without padding).
func (t *jangTile) elements(sl string) string {
	return strings.Join(t.extents(sl), " * ")
}

// decl is the tile's declarator, padding included, for strip length sl.
func (t *jangTile) decl(sl string) string {
	ex := t.extents(sl)
	if t.pad {
		ex[len(ex)-1] += " + 1"
	}
	return t.name + "[" + strings.Join(ex, "][") + "]"
}
