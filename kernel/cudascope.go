package kernel

import (
	"fmt"
	"slices"
)

// scope is a C scope of a per-thread kernel: the function's body, an if
// branch, a loop's header or body, or a { } block.
//
// The IR has no { } blocks: their statements join the body around them.
// So that the printed program reads back to the same locals, a name is
// declared at most once in a body, its { } blocks included, and an inner
// body does not reuse a name of an enclosing one (no shadowing). Sibling
// bodies, such as two for loops that each declare i, may.
type scope struct {
	locals map[string]*Local
	shared []*Array
	// body says the scope is a body of the IR; a { } block's is not.
	body bool
	// declared holds, in a body, every local declared in it or in its
	// { } blocks, even those no longer in scope.
	declared map[string]*Local
}

func (c *cudaParser) push(body bool) {
	c.scopes = append(c.scopes, &scope{locals: map[string]*Local{}, body: body, declared: map[string]*Local{}})
}

// popScope closes the innermost scope; its __shared__ arrays go out of
// sight.
func (ps *parser) popScope() {
	c := ps.cuda
	s := c.scopes[len(c.scopes)-1]
	for _, a := range s.shared {
		delete(ps.arrays, a.Name)
	}
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// lookup finds the local a name refers to, innermost first.
func (c *cudaParser) lookup(name string) *Local {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if l := c.scopes[i].locals[name]; l != nil {
			return l
		}
	}
	return nil
}

// enterNest counts one more level of statement nesting at t; leaveNest
// goes back out.
func (ps *parser) enterNest(t token) {
	if ps.cuda.nesting++; ps.cuda.nesting > MaxNesting {
		ps.fail(t, fmt.Sprintf("statements nest more than %d deep", MaxNesting), "move the inner part into a loop or if of its own at a shallower level, or split the kernel")
	}
}

func (ps *parser) leaveNest() { ps.cuda.nesting-- }

// countLoop counts a loop at its keyword t.
func (ps *parser) countLoop(t token) {
	if ps.cuda.whiles++; ps.cuda.whiles > MaxLoops {
		ps.fail(t, fmt.Sprintf("more than %d loops", MaxLoops), "gpumemsim keeps state per loop in every warp; merge loops or split the kernel into several kernel files")
	}
}

// builtinNames are names a per-thread kernel gives a meaning of its own.
var builtinNames = map[string]bool{"threadIdx": true, "blockIdx": true, "blockDim": true, "gridDim": true,
	"warpSize": true, "true": true, "false": true}

// keywords are C's words that name nothing here.
var keywords = map[string]bool{"if": true, "else": true, "for": true, "while": true, "do": true, "return": true,
	"break": true, "continue": true, "goto": true, "switch": true, "case": true, "default": true, "void": true,
	"struct": true, "sizeof": true, "extern": true, "static": true, "volatile": true, "__global__": true,
	"__device__": true, "__host__": true, "__shared__": true, "__syncthreads": true, "__restrict__": true}

// checkReserved fails when the name at t, about to be declared as what,
// already means something other than a local.
func (ps *parser) checkReserved(t token, what string) {
	name := t.text
	c := ps.cuda
	switch {
	case keywords[name] || cTypeWords[name]:
		ps.fail(t, fmt.Sprintf("%s is a keyword", name), "give the "+what+" another name")
	case builtinNames[name]:
		ps.fail(t, fmt.Sprintf("%s is a builtin name", name), "give the "+what+" another name")
	case cudaCalls[name] != 0:
		ps.fail(t, fmt.Sprintf("%s is a builtin function", name), "give the "+what+" another name")
	case c.defines[name] != nil:
		ps.fail(t, fmt.Sprintf("%s %s has the name of the #define at line %d", what, name, c.defines[name].Line), "rename one of them")
	case what != "parameter" && c.args[name] != nil:
		ps.fail(t, fmt.Sprintf("%s %s has the name of a parameter of %s", what, name, ps.prog.Func), "rename it")
	case what != "parameter" && ps.params[name]:
		ps.fail(t, fmt.Sprintf("%s %s has the name of a param", what, name), "rename it; params are constants of the launch")
	}
	if i := slices.IndexFunc(ps.prog.Shared, func(a *Array) bool { return a.Name == name }); i >= 0 {
		ps.fail(t, fmt.Sprintf("%s %s has the name of the __shared__ array declared at line %d", what, name, ps.prog.Shared[i].Line), "rename one of them")
	}
	if d := ps.constantOf(name); d != nil {
		hint := "rename one of them"
		if what == "parameter" {
			hint = "a kernel reads a __constant__ array by its name: drop the parameter"
		}
		ps.fail(t, fmt.Sprintf("%s %s has the name of the __constant__ array declared at line %d", what, name, d.Line), hint)
	}
}

// checkLocal fails when a local may not be declared with the name at t.
func (ps *parser) checkLocal(t token) {
	ps.checkReserved(t, "local")
	c := ps.cuda
	name := t.text
	for i := len(c.scopes) - 1; i >= 0; i-- {
		s := c.scopes[i]
		if l := s.locals[name]; l != nil {
			if i == len(c.scopes)-1 {
				ps.fail(t, fmt.Sprintf("local %s is already declared at line %d", name, l.Line), "rename one of them")
			}
			ps.fail(t, fmt.Sprintf("local %s shadows the local %s declared at line %d", name, name, l.Line), "rename one of them: shadowing is not supported")
		}
		if l := s.declared[name]; l != nil {
			ps.fail(t, fmt.Sprintf("local %s is declared again in this body (first at line %d, in a { } block)", name, l.Line),
				"rename one of them: the IR keeps no { } blocks, so the names declared in one body must differ")
		}
	}
	if len(ps.prog.Locals) == MaxLocals {
		ps.fail(t, fmt.Sprintf("more than %d locals", MaxLocals), "gpumemsim keeps each int local per lane in every warp; reuse locals or split the kernel")
	}
}

// addLocal declares the local named at t, of type ct, in the innermost
// scope.
func (ps *parser) addLocal(t token, ct cType) *Local {
	l := &Local{Name: t.text, Int: ct.int, Type: ct.String(), Index: len(ps.prog.Locals)}
	l.Line, l.Col = ps.pos(t.line, t.col)
	ps.prog.Locals = append(ps.prog.Locals, l)
	c := ps.cuda
	c.scopes[len(c.scopes)-1].locals[l.Name] = l
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if c.scopes[i].body {
			c.scopes[i].declared[l.Name] = l
			break
		}
	}
	return l
}
