package traces

import (
	"errors"
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// ErrSequence says a kernel file describes a sequence of launches, which
// Bind, binding one launch, does not take.
var ErrSequence = errors.New("the kernel file describes a sequence of launches (launches:); hint: bind it with BindSequence, which binds each launch")

// BindSequence binds every launch of a kernel file's launches, in the
// order the host makes them, with the mapping, block and param overrides
// that Bind takes; each launch's grid is its entry's, else the file's
// evaluated with the launch's params. A file without launches is one
// launch, the one Bind gives. Overrides may not name a param that the
// launches set per launch.
func BindSequence(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, params map[string]int64, dev *arch.Device) ([]*Launch, error) {
	if len(k.Launches) == 0 {
		l, err := Bind(k, m, block, params, dev)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	if block == (arch.Dim3{}) {
		block = k.Block
	}
	plan, err := planLaunches(k, block, params)
	if err != nil {
		return nil, named(k, err)
	}
	out := make([]*Launch, len(plan))
	for i, p := range plan {
		l, err := bindOne(k, m, block, p.grid, p.params, dev)
		if err != nil {
			return nil, named(k, within(fmt.Sprintf("launch %d of %d (%s)", i+1, len(plan), setText(p.set)), err))
		}
		l.Set = p.set
		out[i] = l
	}
	return out, nil
}

// planned is one launch of a sequence before it is bound.
type planned struct {
	grid   arch.Dim3 // zero: the file's
	set    []kernel.Param
	params map[string]int64
}

// planLaunches evaluates the launches of k with the params that the file
// and the overrides give.
func planLaunches(k *kernel.Kernel, block arch.Dim3, over map[string]int64) ([]planned, error) {
	base := &Launch{Kernel: k}
	if err := base.bindParams(over); err != nil {
		return nil, err
	}
	if err := checkOverrides(k, over); err != nil {
		return nil, err
	}
	env := base.ParamValues()
	loops, err := hostLoops(k, env, block)
	if err != nil {
		return nil, err
	}
	var plan []planned
	for i, h := range k.Launches {
		for n := range loops[i].count {
			penv, where := env, fmt.Sprintf("launch %d", len(plan)+1)
			if h.Var != "" {
				v := loops[i].from + n*h.Step
				penv, where = with(env, kernel.Param{Name: h.Var, Value: v}), fmt.Sprintf("%s, %s=%d", where, h.Var, v)
			}
			p, err := planOne(h, penv, block, over)
			if err != nil {
				return nil, within(where, err)
			}
			plan = append(plan, p)
		}
	}
	return plan, nil
}

// checkOverrides refuses an override of a param that the launches set,
// which every launch would overwrite.
func checkOverrides(k *kernel.Kernel, over map[string]int64) error {
	for _, h := range k.Launches {
		for _, s := range h.Set {
			if _, ok := over[s.Name]; ok {
				return exprError(s.Value, "param %s is set per launch here, so a value given for the whole sequence would be lost; hint: leave %s out of the overrides (-set)", s.Name, s.Name)
			}
		}
	}
	return nil
}

// hostLoop is an entry of launches evaluated: its loop's first value
// and its number of launches.
type hostLoop struct{ from, count int64 }

// hostLoops evaluates each entry of k's launches: one launch for an entry
// without a loop, the trips of its loop otherwise. It refuses sequences
// of no launch and of more than kernel.MaxLaunches.
func hostLoops(k *kernel.Kernel, env map[string]int64, block arch.Dim3) ([]hostLoop, error) {
	loops := make([]hostLoop, len(k.Launches))
	var total int64
	for i, h := range k.Launches {
		lp := hostLoop{count: 1}
		if h.Var != "" {
			var to int64
			var err error
			if lp.from, err = boundValue(h.From, env, block); err != nil {
				return nil, err
			}
			if to, err = boundValue(h.To, env, block); err != nil {
				return nil, err
			}
			lp.count = trips(lp.from, to, h.Step)
		}
		loops[i] = lp
		if total += lp.count; total > kernel.MaxLaunches {
			return nil, at(h.Pos, fmt.Errorf("the launches make more than %d launches with these params; hint: simulate a smaller problem (-set): every launch's results are kept and printed", kernel.MaxLaunches))
		}
	}
	if total == 0 {
		return nil, at(k.Where.Launches, errors.New("the launches make no launch with these params; hint: check each loop's from, to and step (to is inclusive; step: -1 counts down)"))
	}
	return loops, nil
}

// boundValue evaluates a launch loop's from or to.
func boundValue(e *kernel.Expr, env map[string]int64, block arch.Dim3) (int64, error) {
	return launchValue(e, env, block, "with these params (a division by zero); hint: a loop bound is an integer expression of params")
}

// trips is the number of values of a loop from from to to inclusive by
// step (nonzero), computed without overflow; more than MaxLaunches is
// all that matters of a larger number.
func trips(from, to, step int64) int64 {
	lo, hi, by := from, to, uint64(step)
	if step < 0 {
		lo, hi, by = to, from, uint64(-(step+1))+1
	}
	if hi < lo {
		return 0
	}
	q := (uint64(hi) - uint64(lo)) / by // hi ≥ lo: the distance fits in 64 bits unsigned
	if q >= kernel.MaxLaunches {
		return kernel.MaxLaunches + 1
	}
	return int64(q) + 1
}

// with is a copy of env with the values of params.
func with(env map[string]int64, params ...kernel.Param) map[string]int64 {
	out := make(map[string]int64, len(env)+len(params))
	for k, x := range env {
		out[k] = x
	}
	for _, p := range params {
		out[p.Name] = p.Value
	}
	return out
}

// planOne evaluates one launch of entry h: its params (the overrides and
// what h sets) and its grid.
func planOne(h kernel.HostLoop, env map[string]int64, block arch.Dim3, over map[string]int64) (planned, error) {
	p := planned{params: map[string]int64{}}
	for name, v := range over {
		p.params[name] = v
	}
	for _, s := range h.Set {
		v, err := launchValue(s.Value, env, block, "here (a division by zero); hint: set gives each param an integer")
		if err != nil {
			return p, err
		}
		p.params[s.Name] = v
		p.set = append(p.set, kernel.Param{Name: s.Name, Value: v})
	}
	if len(h.Grid) > 0 {
		// The grid sees the params this launch sets.
		g, err := gridExtents(h.Grid, with(env, p.set...), block)
		if err != nil {
			return p, err
		}
		p.grid = g
	}
	return p, nil
}

// setText writes the params a launch's entry set, K=V ..., or "the
// file's params".
func setText(set []kernel.Param) string {
	if len(set) == 0 {
		return "the file's params"
	}
	return kernel.ParamsText(set, " ")
}
