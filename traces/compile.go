package traces

import "gpumemsim/kernel"

// pcode is one step of the compiled per-thread program: a statement is
// its loads, its OpCompute and its store, in order.
type pcode struct {
	kind uint8
	op   Op    // pMem
	div  bool  // pMem: the address has divergent terms
	wid  uint8 // pMem: bytes per lane
	ref  int32 // pMem
	// count is a pCompute's instructions, before pending loop control.
	count int32
	loop  int32 // pLoopBegin, pLoopEnd
	jump  int32 // pLoopBegin: pc after the matching end; pLoopEnd: pc of the body
	// A pLoopEnd of a uniform loop adds step to the loop's value and
	// Launch.steps[d0:d1] to the references' offsets.
	step   int64
	d0, d1 int32
}

const (
	pMem uint8 = iota
	pCompute
	pUniformEnd // end of a loop whose bounds are the same in every lane
	pLoopEnd
	pLoopBegin
)

// term is one nonzero coefficient of a linear form.
type term struct {
	loop int
	coef int64
}

// refGen is a reference's address form split by the kind of variable.
type refGen struct {
	konst     int64
	mapped    []term // folded into per-lane offsets and a per-block scalar
	uniform   []term // same value in every lane
	divergent []term // per-lane values
	width     uint8
	// base is konst plus the mapped terms at the mapped loops' lower
	// bounds; blockCoef[ax] is the address step per thread along axis
	// ax (Σ coef·step of the mapped terms on that axis).
	base      uint64
	blockCoef [3]uint64
}

// dep is a reference whose uniform offset moves with a loop variable.
type dep struct {
	ref  int
	coef int64
}

// refStep is the change of a reference's offset per loop iteration.
type refStep struct {
	ref   int
	delta int64
}

type loopGen struct {
	lower, upper []term // nonzero terms
	lo, up       int64  // constants
	step         int64
	divergent    bool
	// deps are the references with a uniform term in this loop.
	deps []dep
}

func terms(f Linear) []term {
	var ts []term
	for v, c := range f.Coef {
		if c != 0 {
			ts = append(ts, term{v, c})
		}
	}
	return ts
}

// opOf is the warp instruction kind of a reference.
func opOf(r *kernel.MemRef) Op {
	if r.Store {
		return OpStore
	}
	return OpLoad
}

// compile flattens the per-thread program: mapped loops vanish (their
// bodies run once per thread), other loops become begin/end pairs, and
// each statement becomes its loads, its compute and its store. It also
// splits each reference's mapped terms into a per-lane table and a
// per-block scalar, and lists the references each loop moves.
func (l *Launch) compile() {
	var emit func(nodes []kernel.Node)
	emit = func(nodes []kernel.Node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				for _, r := range n.Loads {
					l.code = append(l.code, l.memCode(r.ID))
				}
				l.code = append(l.code, pcode{kind: pCompute, count: int32(n.Compute)})
				if n.Store != nil {
					l.code = append(l.code, l.memCode(n.Store.ID))
				}
			case *kernel.Loop:
				if l.Loops[n.Index].Mapped {
					emit(n.Body)
					continue
				}
				begin := len(l.code)
				l.code = append(l.code, pcode{kind: pLoopBegin, loop: int32(n.Index)})
				emit(n.Body)
				end := pcode{kind: pLoopEnd, loop: int32(n.Index), jump: int32(begin + 1), step: l.Loops[n.Index].Step}
				if !l.Loops[n.Index].Divergent {
					end.kind, end.d0 = pUniformEnd, int32(len(l.steps))
					for _, d := range l.bounds[n.Index].deps {
						l.steps = append(l.steps, refStep{d.ref, d.coef * end.step})
					}
					end.d1 = int32(len(l.steps))
				}
				l.code = append(l.code, end)
				l.code[begin].jump = int32(len(l.code))
			}
		}
	}
	for _, lp := range l.Loops {
		l.divergent = l.divergent || lp.Divergent
	}
	for r := range l.refs {
		g := &l.refs[r]
		g.base = uint64(g.konst)
		for _, t := range g.mapped {
			lp := &l.Loops[t.loop]
			g.base += uint64(t.coef) * uint64(lp.Lower.Const)
			g.blockCoef[lp.Axis] += uint64(t.coef) * uint64(lp.Step)
		}
		for _, t := range g.uniform {
			l.bounds[t.loop].deps = append(l.bounds[t.loop].deps, dep{ref: r, coef: t.coef})
		}
	}
	emit(l.Kernel.Program.Body)

	nw, nr := l.WarpsPerBlock(), len(l.refs)
	l.warpMask = make([]uint32, nw)
	threads := l.Block.Threads()
	for w := range nw {
		n := min(threads-w*WarpSize, WarpSize)
		l.warpMask[w] = uint32(1<<n - 1)
	}
	if nw*nr <= maxLaneTab {
		l.laneTab = make([][WarpSize]uint64, nw*nr)
		l.laneStride = make([]laneShape, nw*nr)
		for w := range nw {
			l.laneOffsets(w, l.laneTab[w*nr:(w+1)*nr])
		}
		for i := range l.laneTab {
			l.laneStride[i] = shapeOf(&l.laneTab[i])
		}
	}
}

// laneShape says whether a table of lane offsets has each half-warp step
// by one common stride, and which.
type laneShape struct {
	halves bool
	stride uint64
}

// shapeOf finds the shape of lane offsets tab: lane l at tab[0] + l·d and
// lane 16+l at tab[16] + l·d for one d (mod 2^64). Adding one offset to
// every lane keeps the shape, so a warp's addresses share its table's.
func shapeOf(tab *[WarpSize]uint64) laneShape {
	d := tab[1] - tab[0]
	for l := range uint64(WarpSize / 2) {
		if tab[l] != tab[0]+l*d || tab[16+l] != tab[16]+l*d {
			return laneShape{}
		}
	}
	return laneShape{halves: true, stride: d}
}

// maxLaneTab bounds Launch.laneTab (256 bytes an entry); launches with
// larger blocks compute each warp's lane offsets at Reset instead.
const maxLaneTab = 1 << 12

// laneOffsets sets tab[r][i] to the address offset of reference r for
// lane i of warp w of a block, from the lane's thread coordinates within
// the block (0 for lanes past the block's threads).
func (l *Launch) laneOffsets(w int, tab [][WarpSize]uint64) {
	bx, by := l.Block.X, l.Block.Y
	threads := l.Block.Threads()
	for i := range WarpSize {
		t := w*WarpSize + i
		if t >= threads {
			for r := range tab {
				tab[r][i] = 0
			}
			continue
		}
		coord := [3]uint64{uint64(t % bx), uint64(t / bx % by), uint64(t / (bx * by))}
		for r := range tab {
			bc := &l.refs[r].blockCoef
			tab[r][i] = bc[0]*coord[0] + bc[1]*coord[1] + bc[2]*coord[2]
		}
	}
}

// memCode is the program step of reference r.
func (l *Launch) memCode(r int) pcode {
	return pcode{kind: pMem, op: l.Refs[r].Op, div: len(l.refs[r].divergent) > 0, wid: l.refs[r].width, ref: int32(r)}
}
