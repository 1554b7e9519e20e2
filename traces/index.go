package traces

import (
	"errors"
	"fmt"

	"gpumemsim/kernel"
)

// IndexForms returns the subscripts of reference ref (an index of l.Refs)
// as affine forms of the loop variables with the params substituted,
// outermost array dimension first: row d of J14's memory access matrix is
// IndexForms(ref)[d].Coef (one column per loop of l.Loops) and entry d of
// its offset vector is IndexForms(ref)[d].Const. The forms are in elements
// of the array, before the layout turns them into a byte address
// (Ref.Addr).
func (l *Launch) IndexForms(ref int) ([]Linear, error) {
	r, err := l.memRef(ref)
	if err != nil {
		return nil, err
	}
	env := make(map[string]int64, len(l.Params))
	for _, p := range l.Params {
		env[p.Name] = p.Value
	}
	forms := make([]Linear, len(r.Index))
	for d, ix := range r.Index {
		if forms[d], err = linear(ix, env, len(l.Loops)); err != nil {
			return nil, fmt.Errorf("%s: %s: subscript %d: %v", l.Kernel.Name, r.Text, d, err)
		}
	}
	return forms, nil
}

// EnclosingLoops returns the loops (indices of l.Loops) whose bodies hold
// reference ref, outermost first. Mapped loops are included: they enclose
// the reference in the source even though they run across threads.
func (l *Launch) EnclosingLoops(ref int) ([]int, error) {
	r, err := l.memRef(ref)
	if err != nil {
		return nil, err
	}
	var found []int
	var walk func(nodes []kernel.Node, stack []int) bool
	walk = func(nodes []kernel.Node, stack []int) bool {
		for _, n := range nodes {
			switch n := n.(type) {
			case *kernel.Stmt:
				hit := n.Store == r
				for _, ld := range n.Loads {
					hit = hit || ld == r
				}
				if hit {
					found = append([]int{}, stack...)
					return true
				}
			case *kernel.Loop:
				if walk(n.Body, append(stack, n.Index)) {
					return true
				}
			}
		}
		return false
	}
	if !walk(l.Kernel.Program.Body, nil) {
		panic(fmt.Sprintf("traces: reference %s of %s is in no statement", r.Text, l.Kernel.Name))
	}
	return found, nil
}

// ErrPerThread says a per-thread kernel has no loop nest for the static
// models to read.
var ErrPerThread = errors.New("a per-thread (__global__) kernel has no loop nest: Jang's and Peng's models read the access matrices of a loop nest, which are not derived from per-thread kernels yet; hint: simulate it with run or trace")

// memRef finds the parsed reference behind l.Refs[ref].
func (l *Launch) memRef(ref int) (*kernel.MemRef, error) {
	if l.pt != nil {
		return nil, ErrPerThread
	}
	if ref < 0 || ref >= len(l.Refs) {
		return nil, fmt.Errorf("%s: reference %d out of range (the launch has %d)", l.Kernel.Name, ref, len(l.Refs))
	}
	id := l.Refs[ref].ID
	for _, r := range l.Kernel.Program.Refs {
		if r.ID == id {
			return r, nil
		}
	}
	panic(fmt.Sprintf("traces: reference %d of %s has no parsed reference", id, l.Kernel.Name))
}
