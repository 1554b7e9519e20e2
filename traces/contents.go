package traces

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
)

// The contents of a launch's index arrays (kernel.Data), which its
// cursors read where the kernel uses an array element as an integer:
// V[COL[j]], j < ROW[i+1], int c = COL[j].

// matrixParams splits a caller's params into those of the kernel file
// (file) and those its matrix sets (fixed), which a caller may give only
// as the matrix has them (as validate does, binding a launch again with
// the params of the first).
func matrixParams(k *kernel.Kernel, over map[string]int64) (file, fixed map[string]int64) {
	if k.Matrix == nil {
		return over, nil
	}
	file, fixed = map[string]int64{}, map[string]int64{}
	for name, v := range over {
		if slices.Contains(k.Matrix.Params(), name) {
			fixed[name] = v
		} else {
			file[name] = v
		}
	}
	return file, fixed
}

// bindMatrix builds the kernel's matrix, if it has one, and appends the
// params it sets to the launch's; fixed are values a caller gave them.
func (l *Launch) bindMatrix(fixed map[string]int64) error {
	m := l.Kernel.Matrix
	if m == nil {
		return nil
	}
	pos := kernel.Pos{Line: m.Line, Col: m.Col}
	csr := m.CSR
	if m.Gen != "" {
		var err error
		if csr, err = buildMatrix(&m.Data, l.ParamValues()); err != nil {
			return dataError(&m.Data, pos, "matrix", err)
		}
	}
	if csr == nil {
		return at(pos, fmt.Errorf("matrix: %s has not been read; hint: load the kernel file with kernel.Load", m.File))
	}
	l.matrix = csr
	for i, name := range []string{m.Rows, m.Cols, m.NNZ} {
		if name == "" {
			continue
		}
		v := [3]int64{csr.Rows, csr.Cols, csr.NNZ}[i]
		if w, ok := fixed[name]; ok && w != v {
			return at(pos, fmt.Errorf("param %s is the matrix's %s, %d, and cannot be set to %d; hint: choose another matrix (-matrix) instead", name, [3]string{"rows", "columns", "nonzeros"}[i], v, w))
		}
		l.Params = append(l.Params, kernel.Param{Name: name, Value: v})
	}
	return nil
}

// genArgs evaluates a generator's integer arguments with env; those it
// leaves out take the defaults in def.
func genArgs(d *kernel.Data, env map[string]int64, def map[string]int64) (map[string]int64, error) {
	out := map[string]int64{}
	for k, v := range def {
		out[k] = v
	}
	for _, a := range d.Args {
		if a.Value == nil {
			continue
		}
		v, err := eval(a.Value, env)
		var pe *arch.PosError
		if err != nil && a.Line == 0 && errors.As(err, &pe) {
			err = pe.Err // a flag's: not a place in the kernel file
		}
		if err != nil {
			return nil, within(a.Key, err)
		}
		out[a.Key] = v
	}
	return out, nil
}

func buildMatrix(d *kernel.Data, env map[string]int64) (*indexdata.CSR, error) {
	v, err := genArgs(d, env, map[string]int64{"seed": 1, "cols": -1})
	if err != nil {
		return nil, err
	}
	switch d.Gen {
	case "boxes":
		return indexdata.Boxes(v["boxes1d"])
	case "banded":
		return indexdata.Banded(v["rows"], v["width"])
	case "rays":
		return indexdata.Rays(v["n"], v["width"], v["height"])
	}
	if v["cols"] < 0 {
		v["cols"] = v["rows"]
	}
	return indexdata.PowerLaw(v["rows"], v["cols"], d.Arg("avg").Num, d.Arg("exponent").Num, uint64(v["seed"]))
}

// bindContents gives each array with data its contents, after checking
// that they have as many values as it has elements and that its element
// type holds them.
func (l *Launch) bindContents(env map[string]int64) error {
	for _, a := range l.Kernel.Arrays {
		d := a.Data
		if d == nil {
			continue
		}
		ba := l.arrayNamed(a.Name, a.Space)
		n := ba.Elements()
		c, preset := l.contents[a.Name]
		var err error
		if !preset {
			c, err = l.contentsOf(d, n, env)
		}
		if err == nil {
			err = fits(c, n, ba)
		}
		if err != nil {
			return dataError(d, kernel.Pos{Line: d.Line, Col: d.Col}, "array "+a.Name+": data", err)
		}
		if l.contents == nil {
			l.contents = map[string]indexdata.Contents{}
		}
		l.contents[a.Name] = c
	}
	return nil
}

// dataError places an error in contents d at pos in the kernel file, or
// names the flag that gave d (-data COL=uniform:lo=5,hi=2), which is
// where the user fixes it.
func dataError(d *kernel.Data, pos kernel.Pos, what string, err error) error {
	if d.Flag != "" {
		return fmt.Errorf("%s: %s: %w", d.Flag, what, err)
	}
	return at(pos, fmt.Errorf("%s: %w", what, err))
}

// contentsOf builds the contents d describes for an array of n elements.
func (l *Launch) contentsOf(d *kernel.Data, n int64, env map[string]int64) (indexdata.Contents, error) {
	switch {
	case d.Part == "rowptr":
		return l.matrix.RowPtr, nil
	case d.Part == "col":
		return l.matrix.Col, nil
	case d.File != "" && d.Values == nil:
		return nil, fmt.Errorf("%s has not been read; hint: load the kernel file with kernel.Load", d.File)
	case d.File != "":
		return d.Values, nil
	}
	v, err := genArgs(d, env, map[string]int64{"seed": 1, "lo": 0, "mod": n})
	if err != nil {
		return nil, err
	}
	switch d.Gen {
	case "permutation":
		return indexdata.NewPermutation(n, uint64(v["seed"]))
	case "uniform":
		return indexdata.NewUniform(n, v["lo"], v["hi"], uint64(v["seed"]))
	case "strided":
		return indexdata.NewStrided(n, v["stride"], v["mod"])
	}
	return nil, fmt.Errorf("unknown generator %q", d.Gen)
}

// fits checks that contents c have n values, which ba's element type
// holds.
func fits(c indexdata.Contents, n int64, ba *BoundArray) error {
	if c.Len() != n {
		return fmt.Errorf("%d values for the %d elements of %s; hint: make its dims match its contents (a matrix's params give its sizes: dims [ROWS + 1] for rowptr, [NNZ] for col)", c.Len(), n, ba.Name)
	}
	lo, hi := c.Range()
	tlo, thi := typeRange(ba.Type)
	if n > 0 && (lo < tlo || hi > thi) {
		return fmt.Errorf("values from %d to %d, which %s (%s) cannot hold; hint: give it a wider integer type", lo, hi, ba.Name, ba.Type)
	}
	return nil
}

// typeRange is the values an integer element type holds (u64's up to
// 2^63-1: contents are int64).
func typeRange(t kernel.ElemType) (int64, int64) {
	bits := uint(t.Size() * 8)
	if t == kernel.U8 || t == kernel.U16 || t == kernel.U32 || t == kernel.U64 {
		if bits == 64 {
			return 0, math.MaxInt64
		}
		return 0, 1<<bits - 1
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// indexSlots gives each reference whose value the compiled expressions
// read its contents, after checking that it can have them.
func (pc *ptCompiler) indexSlots() error {
	l := pc.l
	for slot, id := range pc.xc.slots {
		r := l.Kernel.Program.Refs[id]
		pr := &pc.pt.refs[id]
		c := l.contents[r.Array.Name]
		switch {
		case r.Fetch == kernel.FetchTex2D:
			return at(pr.pos, fmt.Errorf("%s: the value of a tex2D fetch cannot index, bound or branch; hint: read the index array as A[i]", r.Text))
		case c == nil:
			return at(pr.pos, fmt.Errorf("%s is read as an integer, and array %s has no contents; hint: give it data: in the kernel file, e.g. data: {gen: permutation, seed: 1}, or pass -data %s=permutation:seed=1", r.Text, r.Array.Name, r.Array.Name))
		}
		pr.slot, pr.data = int32(slot), c
	}
	for _, r := range l.Kernel.Program.Refs {
		if r.Store && l.contents[r.Array.Name] != nil {
			return at(kernel.Pos{Line: r.Line, Col: r.Col}, fmt.Errorf("%s stores to %s, whose contents data: gives: the simulator does not follow the values a kernel writes; hint: store to another array", r.Text, r.Array.Name))
		}
	}
	pc.pt.slots = slices.Clone(pc.xc.slots)
	return nil
}
