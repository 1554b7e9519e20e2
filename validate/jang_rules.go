package validate

import (
	"fmt"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// jangIntraWalk says how access matrix a moves with the intra-thread
// loops: whether any moves it, whether only loops not over the problem size
// do, and whether a problem-size loop walks one dimension by ±1.
func jangIntraWalk(a [][]int64, lp *jangLoops) (nonZero, fixedOnly, linearWalk bool) {
	fixedOnly = true
	for _, v := range lp.intra {
		nz, ones := 0, 0
		for d := range a {
			if c := a[d][v]; c != 0 {
				nz++
				if c == 1 || c == -1 {
					ones++
				}
			}
		}
		if nz == 0 {
			continue
		}
		nonZero = true
		if lp.problem[v] {
			fixedOnly = false
			if nz == 1 && ones == 1 {
				linearWalk = true
			}
		}
	}
	return nonZero, fixedOnly, linearWalk
}

// jangRefCost is the generalised cost rule of models.md §1.1.4: 0 for true
// (reverse) linear and tx-not-involved accesses, else the product of the
// extents of the thread dimensions whose columns are non-zero.
func jangRefCost(r *JangRef, block arch.Dim3) int64 {
	ext := [3]int{block.X, block.Y, block.Z}
	cost, any := int64(1), false
	for ax, on := range r.costAxis {
		if on {
			cost *= int64(ext[ax])
			any = true
		}
	}
	if !any {
		return 0
	}
	return cost
}

func jangTxInvolved(txCol []int64) bool {
	return slices.ContainsFunc(txCol, func(c int64) bool { return c != 0 })
}

// jangClassify applies the classifier of models.md §1.1.2 to the tx column
// of the inter-thread matrix (in elements per thread index).
func jangClassify(txCol, offset []int64, contiguous int, interZero bool) string {
	if interZero {
		return JangIntraThreadOnly
	}
	if !jangTxInvolved(txCol) {
		return JangTxNotInvolved
	}
	nz, at := 0, -1
	for d, c := range txCol {
		if c != 0 {
			nz++
			at = d
		}
	}
	trueVariant := txCol[contiguous] != 0
	var cls string
	switch {
	case nz > 1:
		cls = "overlapping"
	case txCol[at] == 1:
		cls = "linear"
	case txCol[at] == -1:
		cls = "reverse linear"
	default:
		cls = "non-unit stride"
	}
	if cls == "linear" && offset[contiguous] != 0 {
		cls = "shifted"
	}
	if trueVariant {
		return "true " + cls
	}
	return "false " + cls
}

// jangSelectsGlobal is Algorithm 1's "Coalesced" read as J10 Table 1's
// memory-selection column.
func jangSelectsGlobal(class string) bool {
	switch class {
	case JangTrueLinear, JangFalseLinear, JangTrueReverseLinear, JangFalseReverseLinear, JangTxNotInvolved:
		return true
	}
	return false
}

// jangSelect is Algorithm 1 for one instance of an array.
func jangSelect(access string, r *JangRef, small bool) []string {
	backing := JangTexture
	if jangSelectsGlobal(r.Class) {
		backing = JangGlobal
	}
	if access == JangReadOnly {
		switch {
		case small && r.SameAddress:
			return []string{JangConstant}
		case r.Prefetch:
			return []string{JangLocal, backing}
		}
		return []string{backing}
	}
	if r.Prefetch {
		return []string{JangLocal, JangGlobal}
	}
	if access == JangWriteOnly && !jangSelectsGlobal(r.Class) {
		return []string{JangTexture}
	}
	return []string{JangGlobal}
}

func jangArrayOf(l *traces.Launch, name string) *traces.BoundArray {
	for i := range l.Arrays {
		if l.Arrays[i].Name == name {
			return &l.Arrays[i]
		}
	}
	panic(fmt.Sprintf("validate: %s: reference to undeclared array %s", l.Kernel.Name, name))
}

// unknownAt says entry (d, v) of the reference's M is Z.
func (r *JangRef) unknownAt(d, v int) bool {
	return r.Z != nil && r.Z[d][v]
}

// random says the reference has a Z entry in the tx column or an
// intra-thread column of M, and whether one sits in the contiguous row.
func (r *JangRef) random(contiguous int, lp *jangLoops) (random, inLast bool) {
	cols := slices.Clone(lp.intra)
	if v := lp.axisLoop[kernel.AxisX]; v >= 0 {
		cols = append(cols, v)
	}
	for d := range r.Z {
		for _, v := range cols {
			if r.Z[d][v] {
				random = true
				inLast = inLast || d == contiguous
			}
		}
	}
	return random, inLast
}

func jangRandom(class string) bool {
	return class == JangTrueRandom || class == JangFalseRandom
}
