package traces

import "gpumemsim/kernel"

// A read in an operand of ?: (float v = t < n ? A[t] : 0.0f;) is one C
// performs only in the lanes whose condition picks that operand, and
// only those lanes form its address: a read outside its array in the
// other lanes is no fault. The statement's other reads come first, in
// every active lane; then each such ?: is emitted as the if it is, with
// no instructions of its own (the statement's count has the operator),
// its reads under the lanes that take each operand. A read of index data
// there is refused when the kernel is parsed; these are reads of values
// the trace does not follow.

// condLoads marks, in ids, the reads of e that lie in an operand of a
// ?: that C may leave unevaluated.
func condLoads(e *kernel.Expr, under bool, ids map[int]bool) {
	if e.Kind == kernel.ExprLoad && under {
		ids[e.Index] = true
	}
	for i, a := range e.Args {
		condLoads(a, under || e.Kind == kernel.ExprCond && i > 0, ids)
	}
}

// stmtLoads emits the reads of statement s: those of every lane, then
// those under a ?: (condLoads) as ifs, at control depth d.
func (pc *ptCompiler) stmtLoads(s *kernel.Stmt, d int) error {
	every := everyLaneReads(s)
	pc.loads(every)
	if len(every) == len(s.Loads) {
		return nil
	}
	refs := map[int]*kernel.MemRef{}
	for _, r := range s.Loads {
		refs[r.ID] = r
	}
	return pc.choices(s.Value, refs, d)
}

// choices emits, for each ?: of e with reads in its operands, the if
// that runs each operand's reads under its lanes.
func (pc *ptCompiler) choices(e *kernel.Expr, refs map[int]*kernel.MemRef, d int) error {
	if e.Kind != kernel.ExprCond {
		for _, a := range e.Args {
			if err := pc.choices(a, refs, d); err != nil {
				return err
			}
		}
		return nil
	}
	if err := pc.choices(e.Args[0], refs, d); err != nil {
		return err
	}
	ids := map[int]bool{}
	condLoads(e, false, ids)
	if len(ids) == 0 {
		return nil
	}
	x, err := pc.expr(e.Args[0])
	if err != nil {
		return err
	}
	pc.pt.frames = max(pc.pt.frames, d+1)
	at := pc.emit(tcode{kind: tIf, x: x})
	if err := pc.operand(e.Args[1], refs, d+1); err != nil {
		return err
	}
	el := pc.emit(tcode{kind: tElse})
	pc.pt.code[at].jump = int32(el + 1)
	if err := pc.operand(e.Args[2], refs, d+1); err != nil {
		return err
	}
	end := pc.emit(tcode{kind: tEndIf})
	pc.pt.code[el].jump = int32(end)
	return nil
}

// operand emits the reads of one operand of a ?:: its own, then its
// inner ?:s as ifs.
func (pc *ptCompiler) operand(e *kernel.Expr, refs map[int]*kernel.MemRef, d int) error {
	var own []*kernel.MemRef
	ids := map[int]bool{}
	condLoads(e, false, ids) // the reads under its inner ?:s
	walkExpr(e, func(x *kernel.Expr) {
		if x.Kind == kernel.ExprLoad && !ids[x.Index] && refs[x.Index] != nil {
			own = append(own, refs[x.Index])
		}
	})
	pc.loads(own)
	return pc.choices(e, refs, d)
}

// everyLaneReads is the reads of s that C performs in every lane that
// runs it: those outside the operands of its ?:s (all of s.Loads where
// it has none there).
func everyLaneReads(s *kernel.Stmt) []*kernel.MemRef {
	cond := map[int]bool{}
	if s.Value != nil {
		condLoads(s.Value, false, cond)
	}
	if len(cond) == 0 {
		return s.Loads
	}
	var every []*kernel.MemRef
	for _, r := range s.Loads {
		if !cond[r.ID] {
			every = append(every, r)
		}
	}
	return every
}
