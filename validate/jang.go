package validate

import (
	"errors"
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// J14's access-pattern classes (models.md §1.1.2), as JangRef.Class spells
// them. The random classes are those of a reference with a Z entry, a
// data-dependent subscript (traces.IndexUnknowns).
const (
	JangTrueLinear         = "true linear"
	JangFalseLinear        = "false linear"
	JangTrueReverseLinear  = "true reverse linear"
	JangFalseReverseLinear = "false reverse linear"
	JangTrueShifted        = "true shifted"
	JangFalseShifted       = "false shifted"
	JangTrueOverlapping    = "true overlapping"
	JangFalseOverlapping   = "false overlapping"
	JangTrueNonUnitStride  = "true non-unit stride"
	JangFalseNonUnitStride = "false non-unit stride"
	JangTrueRandom         = "true random"
	JangFalseRandom        = "false random"
	// JangIntraThreadOnly: every inter-thread entry is zero, so all threads
	// of a work group access the same address (J10 Table 1's last row).
	JangIntraThreadOnly = "intra-thread only"
	// JangTxNotInvolved: the tx column is zero but another thread
	// dimension indexes the array, a broadcast across tx (B[i3][ty] in
	// mapping α).
	JangTxNotInvolved = "tx not involved"
)

// Memory spaces of J14's Algorithm 1.
const (
	JangGlobal   = "global"
	JangTexture  = "texture"
	JangLocal    = "local"
	JangConstant = "constant"
)

// Array access kinds of Algorithm 1.
const (
	JangReadOnly  = "read-only"
	JangReadWrite = "read-write"
	JangWriteOnly = "write-only"
)

// JangConstantMemory is the constant memory of every CUDA device up to CC
// 5.x (64 KiB, CUDA C Programming Guide, Table 12): Algorithm 1's "Small"
// is an array that fits in it.
const JangConstantMemory arch.Bytes = 64 << 10

// jangPriority is Algorithm 1's final tie-break for an access kind: the
// first space of the list that was selected wins.
func jangPriority(access string) []string {
	switch access {
	case JangReadOnly:
		return []string{JangTexture, JangGlobal, JangLocal, JangConstant}
	case JangReadWrite:
		return []string{JangGlobal, JangLocal}
	}
	return []string{JangTexture, JangGlobal, JangLocal}
}

// JangRef is one memory reference of a kernel under J14's model.
type JangRef struct {
	// Ref is the index in traces.Launch.Refs.
	Ref   int    `json:"ref"`
	Text  string `json:"text"`
	Array string `json:"array"`
	Op    string `json:"op"`
	// M is the memory access matrix: one row per array dimension,
	// outermost first; one column per loop of JangModel.Loops (outermost
	// to innermost, source order). O is the offset vector. m = M·i + O, in
	// elements, params substituted.
	M [][]int64 `json:"m"`
	O []int64   `json:"o"`
	// Z marks the entries of M that are J14's Z, data-dependent and
	// statically unknown (M holds 0 there), and OZ the entries of O that
	// are; both nil for an affine reference.
	Z  [][]bool `json:"z,omitempty"`
	OZ []bool   `json:"oz,omitempty"`
	// Inter is the inter-thread pattern: the columns of the mapped loops,
	// ordered tx, ty, tz (JangModel.InterAxes), each multiplied by its
	// loop's step so that it counts elements per thread index. Intra is
	// the intra-thread pattern: the columns of JangModel.IntraLoops.
	Inter [][]int64 `json:"inter"`
	Intra [][]int64 `json:"intra"`
	// Class is one of the Jang* class names.
	Class string `json:"class"`
	// Coalesced is J14's coalescing verdict: only true (reverse) linear
	// accesses count as coalesced; a tx-not-involved or intra-thread-only
	// access costs nothing either (CostAxes is empty).
	Coalesced bool `json:"coalesced"`
	// SameAddress is Algorithm 1's "same-address read" condition and
	// Prefetch its "data prefetch" condition (see NewJangModel).
	SameAddress bool `json:"same_address"`
	Prefetch    bool `json:"prefetch"`
	// Selected is the memory space Algorithm 1 picks for this reference's
	// instance; Space is the array's final space after the tie-break.
	Selected []string `json:"selected"`
	Space    string   `json:"space"`
	// CostAxes are the thread dimensions whose extents multiply into the
	// cost ("tx" = W, "ty" = H, "tz" = D); empty for a free access.
	CostAxes []string `json:"cost_axes"`
	// Cost is the expected uncoalesced accesses per work group and Gain
	// the elements this reference prefetches into local memory, both at
	// JangModel.Block. Gain is counted once per array, on its first
	// prefetchable reference.
	Cost int64 `json:"cost"`
	Gain int64 `json:"gain"`

	costAxis [3]bool
	instance int // index of the first reference with the same (M, o)
}

// JangArray is one array under Algorithm 1.
type JangArray struct {
	Name string `json:"name"`
	// Access is read-only (never stored), write-only (never loaded) or
	// read-write.
	Access string `json:"access"`
	// Rank is the number of array dimensions; Bytes the array's size.
	Rank  int        `json:"rank"`
	Bytes arch.Bytes `json:"bytes"`
	// Instances is the number of distinct (M, o) pairs (J14's SMA).
	Instances int `json:"instances"`
	// Selected lists the spaces Algorithm 1 selected over the instances,
	// in the tie-break's priority order; Space is the winner.
	Selected []string `json:"selected"`
	Space    string   `json:"space"`
	// Prefetch says local memory was selected: the data are staged in
	// local memory from Space ("texture with local prefetch").
	Prefetch bool `json:"prefetch"`
	// Cost sums the instances' costs and Gain is the array's prefetch
	// gain, at JangModel.Block.
	Cost int64 `json:"cost"`
	Gain int64 `json:"gain"`
}

// JangModel is J14's static model of one kernel under one mapping: the
// access matrices, classes and memory spaces, which do not depend on the
// work-group shape, and the cost and gain, which do (CostGain).
type JangModel struct {
	Kernel  string    `json:"kernel"`
	Mapping string    `json:"mapping"`
	Block   arch.Dim3 `json:"block"`
	// Dims is the number of thread dimensions the mapping uses: 1 + the
	// highest mapped axis.
	Dims int `json:"dims"`
	// Loops names the columns of M. InterAxes and InterLoops name the
	// inter-thread columns (axis and loop), IntraLoops the intra-thread
	// ones. ProblemSize lists the loops whose trip count depends on a
	// kernel param: J14's "loop variable of the input problem size".
	Loops       []string    `json:"loops"`
	InterAxes   []string    `json:"inter_axes"`
	InterLoops  []string    `json:"inter_loops"`
	IntraLoops  []string    `json:"intra_loops"`
	ProblemSize []string    `json:"problem_size_loops"`
	Refs        []JangRef   `json:"refs"`
	Arrays      []JangArray `json:"arrays"`
	// Cost and Gain are the totals at Block (CostGain(Block)).
	Cost int64 `json:"cost"`
	Gain int64 `json:"gain"`
	// ElemSize is the element size Algorithm 2 turns the gain into local
	// memory with: the largest element among the prefetched arrays (among
	// all arrays when none is prefetched).
	ElemSize arch.Bytes `json:"elem_size"`
	// Regs is the kernel's registers per thread (Algorithm 2's Eq. 1).
	Regs int `json:"regs"`
}

// NewJangModel builds J14's model of a bound kernel. Decisions where J14
// is silent or loose:
//
//   - M has one column per loop of the program in source order (outermost
//     to innermost for a perfect nest); a loop that does not enclose the
//     reference has a zero column.
//   - A per-thread (__global__) kernel is read through its affine view
//     (traces.AccessColumns): its thread indices are the inter-thread
//     columns, its loops the intra-thread ones, blockIdx is left out (the
//     matrices are work group 0's, which is what the per-work-group cost
//     and gain are about), flat subscripts are split into the array's
//     dimensions, and shared-memory references are not part of the
//     model. A subscript that depends on data read from an index array
//     has Z entries (which ones: traces.IndexUnknowns). A global
//     reference whose subscript is neither affine in thread indices,
//     block indices and loop variables nor data is an error naming it
//     and why (all of them at once): the model refuses rather than
//     guesses.
//   - Random: a reference with a Z entry in the tx column (J10 Table 1's
//     "Z" inter-thread entry) or in an intra-thread column (J14 calls
//     siddon's volume, Z in i3's column only, random) is true random
//     when the contiguous row holds such a Z, false random otherwise. It
//     is uncoalesced, and Algorithm 1 sends it to texture (read-only or
//     write-only) or keeps it in global (read-write). A Z only in the ty
//     or tz column, or only in the offset, moves whole rows of the work
//     group by data, as a ty term or blockIdx does (A[COL[ty]][tx] reads
//     a contiguous row per ty): the class is the tx column's.
//   - Cost of an array Algorithm 1 places in texture: 0. J10 Table 1
//     prices the classes it sends to texture (shifted, overlapping,
//     non-unit stride, random) "N/A§", § "An uncoalesced memory access
//     is considered only in global memory", and J14 Tables 4 and 5 print
//     cost 0 for kernels that read their random arrays through texture.
//   - The contiguous row ("last row") is the last array dimension for a
//     row-major array and the first for a column-major one.
//   - Classifier (models.md §1.1.2): all inter-thread columns zero →
//     intra-thread only; else tx column zero → tx not involved; else one
//     non-zero entry ±1 → (reverse) linear, another constant → non-unit
//     stride, several non-zero entries → overlapping; "true" when the
//     contiguous row of the tx column is non-zero (for one non-zero entry:
//     when it sits in that row), "false" otherwise. Step 5 ("non-zero o⃗ →
//     shifted") is narrowed to what J10 Table 1 lists as shifted: a linear
//     (+1) pattern whose offset in the contiguous row is non-zero. An
//     offset in an outer row (J[i1-1][i2]) moves whole rows and keeps the
//     access linear, and a reverse linear access always carries an offset
//     (A[N-1-i]) yet J14 prices it as coalesced.
//   - A loop belongs to the input problem size when its lower bound, upper
//     bound or step mentions a param or the variable of such a loop (for a
//     per-thread kernel: see traces.AccessColumns).
//   - Same-address read: every inter-thread entry zero, at least one
//     non-zero intra-thread column, and every non-zero intra-thread column
//     belongs to a loop of fixed trip count.
//   - Data prefetch: a load instance (prefetching stages reads) with an
//     intra-thread column of a problem-size loop whose only non-zero entry
//     is ±1 (a linear intra-thread walk, in any row: both A[i1][i3] and
//     B[i3][i2] are prefetched in J14).
//   - Algorithm 1's "Coalesced" is J10 Table 1's memory-selection column:
//     true or false (reverse) linear, and tx not involved (J10 calls
//     B[i3][ty] false linear), select global; shifted, overlapping,
//     non-unit stride, random and intra-thread only do not.
//   - The data-prefetch branch selects local memory and also the space the
//     rest of the branch would select, the space the strip is copied from:
//     that is how J14 Table 3 gets "x texture with local prefetch" and "A
//     global with local prefetch" for matrix-vector.
//   - A write-only array has no load instance, so it is never prefetched;
//     an uncoalesced write-only instance selects texture as printed (though
//     texture is read-only).
//   - Cost and gain are per array over its distinct (M, o) instances, so
//     a reference that is both read and written (C[i1][i2] += …) counts
//     once, as in J14's per-array numbers.
func NewJangModel(l *traces.Launch) (*JangModel, error) {
	m := &JangModel{Kernel: l.Kernel.Name, Mapping: l.Mapping.String(), Block: l.Block, Regs: l.Regs}
	lp := m.loops(l.AccessColumns())
	var errs []error
	for i := range l.Refs {
		if !l.Refs[i].Modelled() {
			continue
		}
		jr, err := m.ref(l, &lp, i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m.Refs = append(m.Refs, jr)
	}
	if len(errs) > 0 {
		return nil, refErrors(errs)
	}
	m.shareInstances()
	m.selectSpaces(l)
	m.evaluate(l.Block)
	return m, nil
}

// refErrors joins the errors of references the static models cannot
// read, with one hint for all.
func refErrors(errs []error) error {
	return errors.Join(append(errs, errors.New("hint: J14's and Peng's models read global subscripts that are affine in threadIdx, blockIdx and loop variables; simulate the kernel with run instead"))...)
}

// jangLoops is how the columns of a launch (its loops, and a per-thread
// kernel's thread indices) enter J14's matrices.
type jangLoops struct {
	cols      []traces.AccessColumn
	axisLoop  [3]int // per thread axis, the column that runs along it (-1: none)
	intra     []int  // the loops that run inside the threads
	inter     []int  // the thread columns, by axis
	interAxis []int  // their axes
	problem   []bool // per column: it runs over the problem size
}

// loops sorts the columns into inter- and intra-thread ones and records
// their names in m.
func (m *JangModel) loops(cols []traces.AccessColumn) jangLoops {
	lp := jangLoops{cols: cols, axisLoop: [3]int{-1, -1, -1}}
	for v, c := range cols {
		m.Loops = append(m.Loops, c.Var)
		if c.Thread {
			lp.axisLoop[c.Axis] = v
			m.Dims = max(m.Dims, int(c.Axis)+1)
		} else {
			lp.intra = append(lp.intra, v)
			m.IntraLoops = append(m.IntraLoops, c.Var)
		}
	}
	for ax, v := range lp.axisLoop {
		if v >= 0 {
			lp.inter = append(lp.inter, v)
			lp.interAxis = append(lp.interAxis, ax)
			m.InterAxes = append(m.InterAxes, kernel.Axis(ax).String())
			m.InterLoops = append(m.InterLoops, cols[v].Var)
		}
	}
	for _, c := range cols {
		lp.problem = append(lp.problem, c.ProblemSize)
		if c.ProblemSize {
			m.ProblemSize = append(m.ProblemSize, c.Var)
		}
	}
	return lp
}

// ref is reference i under the model: its access matrix and offset, split
// into the inter- and intra-thread parts, its pattern class, and whether it
// reads one address per work group or walks a loop linearly.
func (m *JangModel) ref(l *traces.Launch, lp *jangLoops, i int) (JangRef, error) {
	r := &l.Refs[i]
	forms, err := l.IndexForms(i)
	if err != nil {
		return JangRef{}, err
	}
	unknown, unknownConst, err := l.IndexUnknowns(i)
	if err != nil {
		return JangRef{}, err
	}
	n := len(m.Refs) // the index jr will have
	jr := JangRef{Ref: i, Text: r.Text, Array: r.Array, Op: r.Op.String(), Z: unknown, OZ: unknownConst, instance: n}
	for _, f := range forms {
		jr.M = append(jr.M, slices.Clone(f.Coef))
		jr.O = append(jr.O, f.Const)
	}
	if len(jr.M) == 0 || len(jr.M[0]) != len(lp.cols) {
		panic(fmt.Sprintf("validate: %s: index forms of %s do not match the %d columns", l.Kernel.Name, r.Text, len(lp.cols)))
	}
	for d := range jr.M {
		row := make([]int64, 0, len(lp.inter))
		for j, v := range lp.inter {
			row = append(row, jr.M[d][v]*lp.cols[v].Step)
			if jr.M[d][v] != 0 || jr.unknownAt(d, v) {
				jr.costAxis[lp.interAxis[j]] = true
			}
		}
		jr.Inter = append(jr.Inter, row)
		irow := make([]int64, 0, len(lp.intra))
		for _, v := range lp.intra {
			irow = append(irow, jr.M[d][v])
		}
		jr.Intra = append(jr.Intra, irow)
	}
	contiguous := len(jr.M) - 1
	if jangArrayOf(l, r.Array).Layout == kernel.ColMajor {
		contiguous = 0
	}
	txCol := make([]int64, len(jr.M))
	if v := lp.axisLoop[kernel.AxisX]; v >= 0 {
		for d := range jr.M {
			txCol[d] = jr.M[d][v] * lp.cols[v].Step
		}
	}
	interZero := !slices.Contains(jr.costAxis[:], true)
	jr.Class = jangClassify(txCol, jr.O, contiguous, interZero)
	if random, inLast := jr.random(contiguous, lp); random {
		jr.Class = JangFalseRandom
		if inLast {
			jr.Class = JangTrueRandom
		}
	}
	jr.Coalesced = jr.Class == JangTrueLinear || jr.Class == JangTrueReverseLinear
	if jr.Coalesced || !jangTxInvolved(txCol) && !jangRandom(jr.Class) {
		jr.costAxis = [3]bool{}
	}
	for ax, on := range jr.costAxis {
		if on {
			jr.CostAxes = append(jr.CostAxes, kernel.Axis(ax).String())
		}
	}
	nonZeroIntra, fixedOnly, linearWalk := jangIntraWalk(jr.M, lp)
	jr.SameAddress = interZero && nonZeroIntra && fixedOnly
	jr.Prefetch = r.Op == traces.OpLoad && linearWalk && !jr.SameAddress
	for j := range n {
		p := &m.Refs[j]
		if p.Array == jr.Array && slices.EqualFunc(p.M, jr.M, slices.Equal) && slices.Equal(p.O, jr.O) &&
			slices.EqualFunc(p.Z, jr.Z, slices.Equal) && slices.Equal(p.OZ, jr.OZ) {
			jr.instance = p.instance
			break
		}
	}
	return jr, nil
}

// shareInstances makes the references with one (M, o) one instance: a
// load instance if any of its references loads.
func (m *JangModel) shareInstances() {
	for i := range m.Refs {
		if r := &m.Refs[i]; r.Prefetch {
			m.Refs[r.instance].Prefetch = true
		}
	}
	for i := range m.Refs {
		r := &m.Refs[i]
		r.Prefetch = m.Refs[r.instance].Prefetch
	}
}

// selectSpaces applies Algorithm 1 to every array the kernel accesses and
// sets the element size of the prefetched arrays (of all arrays when none
// is prefetched).
func (m *JangModel) selectSpaces(l *traces.Launch) {
	m.ElemSize = 0
	for _, ba := range l.Arrays {
		a, ok := m.array(l.Kernel.Name, ba)
		if !ok {
			continue
		}
		if a.Prefetch {
			m.ElemSize = max(m.ElemSize, arch.Bytes(ba.ElemSize()))
		}
		m.Arrays = append(m.Arrays, a)
	}
	if m.ElemSize == 0 {
		for _, ba := range l.Arrays {
			m.ElemSize = max(m.ElemSize, arch.Bytes(ba.ElemSize()))
		}
	}
}

// array is array ba under Algorithm 1: its access kind and the spaces its
// instances select, in the order of preference; false when no reference
// touches it.
func (m *JangModel) array(kernelName string, ba traces.BoundArray) (JangArray, bool) {
	a := JangArray{Name: ba.Name, Rank: len(ba.Dims), Bytes: arch.Bytes(ba.Size)}
	loads, stores := false, false
	for _, r := range m.Refs {
		if r.Array == ba.Name {
			loads = loads || r.Op == traces.OpLoad.String()
			stores = stores || r.Op == traces.OpStore.String()
		}
	}
	switch {
	case !loads && !stores:
		return a, false
	case !stores:
		a.Access = JangReadOnly
	case !loads:
		a.Access = JangWriteOnly
	default:
		a.Access = JangReadWrite
	}
	selected := map[string]bool{}
	for i := range m.Refs {
		r := &m.Refs[i]
		if r.Array != ba.Name || r.instance != i {
			continue
		}
		a.Instances++
		r.Selected = jangSelect(a.Access, r, a.Bytes <= JangConstantMemory)
		for _, s := range r.Selected {
			selected[s] = true
		}
	}
	for _, s := range jangPriority(a.Access) {
		if selected[s] {
			a.Selected = append(a.Selected, s)
		}
	}
	if len(a.Selected) != len(selected) {
		panic(fmt.Sprintf("validate: %s: array %s (%s): spaces %v outside the tie-break list", kernelName, a.Name, a.Access, selected))
	}
	a.Space = a.Selected[0]
	a.Prefetch = selected[JangLocal]
	for i := range m.Refs {
		if r := &m.Refs[i]; r.Array == a.Name {
			r.Space = a.Space
			if r.Selected == nil {
				r.Selected = m.Refs[r.instance].Selected
			}
			if r.Space == JangTexture { // J10 Table 1 §: no cost outside global memory
				r.costAxis, r.CostAxes = [3]bool{}, nil
			}
		}
	}
	return a, true
}

// evaluate fills the per-reference and per-array cost and gain at block.
func (m *JangModel) evaluate(block arch.Dim3) {
	m.Block = block
	m.Cost, m.Gain = 0, 0
	for i := range m.Arrays {
		a := &m.Arrays[i]
		a.Cost, a.Gain = 0, 0
		gainDone := false
		for j := range m.Refs {
			r := &m.Refs[j]
			if r.Array != a.Name {
				continue
			}
			r.Cost = jangRefCost(r, block)
			r.Gain = 0
			if r.instance == j {
				a.Cost += r.Cost
			}
			if r.Prefetch && !gainDone {
				r.Gain = JangPrefetchGain(block, m.Dims, a.Rank)
				a.Gain, gainDone = r.Gain, true
			}
		}
		m.Cost += a.Cost
		m.Gain += a.Gain
	}
}

// CostGain is the model's JangCostGain: the kernel's total cost and gain
// for one work-group shape (X = W, Y = H, Z = D). Pass m.CostGain to
// JangSearch.
func (m *JangModel) CostGain(block arch.Dim3) (cost, gain int64) {
	for i := range m.Arrays {
		a := &m.Arrays[i]
		prefetch := false
		for j := range m.Refs {
			r := &m.Refs[j]
			if r.Array != a.Name {
				continue
			}
			if r.instance == j {
				cost += jangRefCost(r, block)
			}
			prefetch = prefetch || r.Prefetch
		}
		if prefetch {
			gain += JangPrefetchGain(block, m.Dims, a.Rank)
		}
	}
	return cost, gain
}

// At returns a copy of the model with its cost and gain fields evaluated
// at another work-group shape.
func (m *JangModel) At(block arch.Dim3) *JangModel {
	c := *m
	c.Refs = slices.Clone(m.Refs)
	c.Arrays = slices.Clone(m.Arrays)
	c.evaluate(block)
	return &c
}
