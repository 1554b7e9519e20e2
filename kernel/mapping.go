package kernel

import (
	"fmt"
	"strings"
)

// Axis is a thread dimension a loop can be mapped to.
type Axis uint8

// Thread axes; x varies fastest.
const (
	AxisX Axis = iota
	AxisY
	AxisZ
)

func (a Axis) String() string {
	switch a {
	case AxisX:
		return "tx"
	case AxisY:
		return "ty"
	case AxisZ:
		return "tz"
	}
	return fmt.Sprintf("Axis(%d)", uint8(a))
}

// ParseAxis reads "tx", "ty" or "tz" (also "x", "y", "z").
func ParseAxis(s string) (Axis, error) {
	switch strings.TrimSpace(s) {
	case "tx", "x":
		return AxisX, nil
	case "ty", "y":
		return AxisY, nil
	case "tz", "z":
		return AxisZ, nil
	}
	return 0, fmt.Errorf("unknown thread dimension %q; want tx, ty or tz", s)
}

// LoopMap maps one loop variable to a thread axis.
type LoopMap struct {
	Loop string
	Axis Axis
}

// Mapping assigns loops to thread axes; loops not named stay inside each
// thread.
type Mapping []LoopMap

// ParseMapping reads a mapping written "i1=ty,i2=tx".
func ParseMapping(s string) (Mapping, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty mapping; want loop=axis pairs such as i1=ty,i2=tx")
	}
	var m Mapping
	for _, part := range strings.Split(s, ",") {
		loop, axis, ok := strings.Cut(part, "=")
		loop = strings.TrimSpace(loop)
		if !ok || loop == "" {
			return nil, fmt.Errorf("mapping %q: want loop=axis pairs such as i1=ty,i2=tx; got %q", s, part)
		}
		a, err := ParseAxis(axis)
		if err != nil {
			return nil, fmt.Errorf("mapping %q: %v", s, err)
		}
		m = append(m, LoopMap{Loop: loop, Axis: a})
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("mapping %q: %v", s, err)
	}
	return m, nil
}

// String writes the mapping as ParseMapping reads it.
func (m Mapping) String() string {
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = e.Loop + "=" + e.Axis.String()
	}
	return strings.Join(parts, ",")
}

// Axis returns the axis loop v is mapped to.
func (m Mapping) Axis(v string) (Axis, bool) {
	for _, e := range m {
		if e.Loop == v {
			return e.Axis, true
		}
	}
	return 0, false
}

// check finds a loop mapped twice or two loops on one axis.
func (m Mapping) check() error {
	for i, e := range m {
		for _, f := range m[:i] {
			if f.Loop == e.Loop {
				return fmt.Errorf("loop %s mapped twice (to %s and %s)", e.Loop, f.Axis, e.Axis)
			}
			if f.Axis == e.Axis {
				return fmt.Errorf("loops %s and %s both mapped to %s; map at most one loop per thread dimension", f.Loop, e.Loop, e.Axis)
			}
		}
	}
	return nil
}

// Check checks m against the program: no loop is mapped twice, no two
// loops share an axis, and every mapped loop exists and has bounds that
// depend on params only.
func (m Mapping) Check(p *Program) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("mapping %s: %v", m, err)
	}
	for i := range m {
		if err := m.checkEntry(p, i); err != nil {
			return err
		}
	}
	return nil
}

// checkEntry checks entry i of m against the program: the loop exists
// and its bounds do not depend on other loop variables.
func (m Mapping) checkEntry(p *Program, i int) error {
	e := m[i]
	l := p.Loop(e.Loop)
	if l == nil {
		var names []string
		for _, l := range p.Loops {
			names = append(names, l.Var)
		}
		return &hintError{fmt.Sprintf("mapping names unknown loop %s", e.Loop), "the loops of the source are " + strings.Join(names, ", ")}
	}
	for _, b := range []*Expr{l.Lower, l.Upper} {
		if v := loopVarIn(b); v != "" {
			return &hintError{fmt.Sprintf("loop %s is mapped to %s, so its bounds must depend on params only; they use loop variable %s", e.Loop, e.Axis, v),
				fmt.Sprintf("leave %s inside the thread or make its bounds constant", e.Loop)}
		}
	}
	return nil
}

// hintError is a message with a hint on how to fix it.
type hintError struct{ msg, hint string }

func (e *hintError) Error() string { return e.msg + "; hint: " + e.hint }

func loopVarIn(e *Expr) string {
	if e.Kind == ExprLoop {
		return e.Name
	}
	for _, a := range e.Args {
		if v := loopVarIn(a); v != "" {
			return v
		}
	}
	return ""
}
