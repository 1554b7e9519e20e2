package kernel

import "fmt"

// cudaParser is the state of the per-thread form's parser beyond what the
// loop-nest parser keeps.
type cudaParser struct {
	args    map[string]*Arg
	defines map[string]*Define
	// scopes are the C scopes open, innermost last.
	scopes []*scope
	// loops are the loops being parsed, innermost last.
	loops []*loopCtx
	// nesting is how deep if, loop and block statements nest; whiles
	// counts the loops.
	nesting, whiles int
	// floatCast marks the operands of casts to a float type: float data,
	// though the IR drops the cast.
	floatCast map[*Expr]bool
	// grid says an expression the host evaluates is being parsed (a grid
	// entry, a value of launches): params, constants and blockDim only;
	// hostNames says which names it may use, for its errors.
	grid      bool
	hostNames string
}

// loopCtx is a loop being parsed.
type loopCtx struct {
	unroll bool
	// v is the variable of an unrolled loop; body says its body is being
	// parsed (where v must not change).
	v    *Local
	body bool
}

func newCUDAParser() *cudaParser {
	return &cudaParser{args: map[string]*Arg{}, defines: map[string]*Define{}, floatCast: map[*Expr]bool{}}
}

// unrolled says the innermost loop being parsed is unrolled.
func (c *cudaParser) unrolled() bool {
	return len(c.loops) > 0 && c.loops[len(c.loops)-1].unroll
}

// hasGlobal says the source has a __global__ function: it is a
// per-thread kernel.
func hasGlobal(toks []token) bool {
	for _, t := range toks {
		if t.kind == tIdent && t.text == "__global__" {
			return true
		}
	}
	return false
}

// perThread parses a per-thread kernel's source: #define and #include
// lines and one __global__ function.
func (ps *parser) perThread(arrays []*Array) {
	ps.prog.Form = PerThread
	ps.cuda = newCUDAParser()
	for ps.peek().kind != tEOF {
		t := ps.peek()
		switch {
		case t.kind == tPunct && t.text == "#":
			ps.topDirective()
		case t.kind == tIdent && t.text == "__constant__":
			if ps.prog.Func != "" {
				ps.fail(t, "a __constant__ declaration after the function", "declare __constant__ arrays before the __global__ function that reads them")
			}
			ps.constantDecl()
		case t.kind == tIdent && t.text == "__global__":
			if ps.prog.Func != "" {
				ps.fail(t, "a second __global__ function", "a kernel file holds one kernel; put each in a file of its own")
			}
			ps.function()
		default:
			ps.failTop(t)
		}
	}
	if ps.prog.Func == "" {
		ps.fail(ps.peek(), "no __global__ function", "write __global__ void NAME(...) { ... } after the #define lines")
	}
	ps.checkCUDAArrays()
	for _, a := range arrays {
		if ps.cuda.args[a.Name] == nil && ps.constantOf(a.Name) == nil {
			ps.failAt(a.Line, a.Col, fmt.Sprintf("array %s is not a parameter of %s", a.Name, ps.prog.Func),
				fmt.Sprintf("add %s *%s to the function's parameters, declare __constant__ %s %s[...] before the function, or remove %s from arrays:", cArrayType(a), a.Name, cArrayType(a), a.Name, a.Name))
		}
	}
}

// failTop fails at a token outside the function that is no directive.
func (ps *parser) failTop(t token) {
	switch {
	case t.text == "__device__" || t.text == "__host__" || t.text == "inline" || t.text == "static":
		ps.fail(t, "only the __global__ function is read", "inline the body of a __device__ function into the __global__ function")
	case t.text == "template":
		ps.fail(t, "templates are not supported", "write template parameters as params or #define constants")
	case t.text == "extern":
		ps.fail(t, "extern is not supported", `drop extern "C": the function is read by its name`)
	case cTypeWords[t.text]:
		ps.fail(t, "only #define lines and one __global__ function may be outside the function", "write a constant as #define NAME value, and declare arrays under arrays:")
	}
	ps.fail(t, fmt.Sprintf("expected the __global__ function, found %s", describe(t)), "a per-thread kernel's source is #define lines and one __global__ void NAME(...) { ... } function")
}

// function parses __global__ void NAME(params) { body }.
func (ps *parser) function() {
	ps.next()
	if !ps.is("void") {
		ps.fail(ps.peek(), fmt.Sprintf("expected void, found %s", describe(ps.peek())), "a __global__ function returns nothing: write __global__ void NAME(...)")
	}
	ps.next()
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected the function's name, found %s", describe(nt)), "write __global__ void NAME(float *A, int N)")
	}
	ps.next()
	ps.prog.Func = nt.text
	ps.expect("(", "write __global__ void NAME(float *A, int N)")
	ps.signature()
	open := ps.expect("{", "the function's body is a { } block")
	ps.cuda.push(true)
	ps.prog.Body = ps.cudaList(open)
	ps.popScope()
	if len(ps.prog.Body) == 0 {
		ps.fail(open, "the kernel has no statements", "write at least one statement, such as C[i] = A[i] + B[i];")
	}
}

// signature parses the parameter list after its (.
func (ps *parser) signature() {
	if ps.is(")") || ps.is("void") && ps.toks[ps.p+1].text == ")" {
		for !ps.is(")") {
			ps.next()
		}
		ps.next()
		return
	}
	for {
		ps.arg()
		if !ps.is(",") {
			ps.expect(")", "separate the parameters with , and close the list with )")
			return
		}
		ps.next()
	}
}

// arg parses one parameter: a pointer to an array of the kernel file or
// a scalar.
func (ps *parser) arg() {
	start := ps.peek()
	st, ct := ps.argType(start)
	a := &Arg{Type: ct.String()}
	pointer := ps.is("*")
	if st != nil && !pointer {
		ps.fail(ps.peek(), fmt.Sprintf("expected * after %s, found %s", ct, describe(ps.peek())), "a struct parameter is a pointer to the struct array: "+st.Name+" *P")
	}
	if pointer {
		ps.next()
		a.Type += " *"
		a.Const = ct.konst
		if ps.is("__restrict__") {
			ps.next()
			a.Type += "__restrict__"
			a.Restrict = true
		}
		if ps.is("*") || ps.is("const") {
			ps.fail(ps.peek(), fmt.Sprintf("unsupported parameter type %s %s", a.Type, ps.peek().text), "parameters are TYPE *NAME, const TYPE *__restrict__ NAME or a scalar")
		}
	}
	nt := ps.peek()
	if nt.kind != tIdent {
		ps.fail(nt, fmt.Sprintf("expected the parameter's name, found %s", describe(nt)), "write TYPE *NAME for an array, TYPE NAME for a scalar")
	}
	ps.next()
	a.Name = nt.text
	a.Line, a.Col = ps.pos(nt.line, nt.col)
	if ps.is("[") {
		ps.fail(ps.peek(), "array parameters are not supported", fmt.Sprintf("write %s *%s", ct, a.Name))
	}
	if prev := ps.cuda.args[a.Name]; prev != nil {
		ps.fail(nt, fmt.Sprintf("parameter %s is declared twice", a.Name), "rename one of them")
	}
	ps.checkReserved(nt, "parameter")
	switch {
	case st != nil:
		ps.structArg(a, st, start, nt)
	case pointer:
		ps.pointerArg(a, ct, start, nt)
	default:
		ps.scalarArg(a, ct, nt)
	}
	ps.cuda.args[a.Name] = a
	ps.prog.Args = append(ps.prog.Args, a)
}

// pointerArg checks a pointer parameter against the array of the same
// name.
func (ps *parser) pointerArg(a *Arg, ct cType, start, nt token) {
	arr := ps.arrays[a.Name]
	if arr == nil {
		ps.fail(nt, fmt.Sprintf("pointer parameter %s is not an array of the kernel file", a.Name),
			fmt.Sprintf("declare it under arrays: with type: %s and its dims", ct.elemName()))
	}
	if ct.elem == 0 {
		ps.fail(start, "bool arrays are not supported", "declare the array u8 and the parameter unsigned char *"+a.Name)
	}
	if arr.Type != ct.elem {
		ps.fail(start, fmt.Sprintf("parameter %s is declared %s *, but array %s has type %s", a.Name, ct.name, a.Name, arr.TypeName()),
			fmt.Sprintf("declare it %s *%s, or give the array type: %s", cArrayType(arr), a.Name, ct.elem))
	}
	a.Array = arr
}

// scalarArg checks a scalar parameter: an integer is a param of the
// kernel file; a float must not have a param's name.
func (ps *parser) scalarArg(a *Arg, ct cType, nt token) {
	a.Int = ct.int
	switch {
	case ps.arrays[a.Name] != nil:
		ps.fail(nt, fmt.Sprintf("%s is an array of the kernel file", a.Name), fmt.Sprintf("declare the parameter %s *%s", cArrayType(ps.arrays[a.Name]), a.Name))
	case a.Int && !ps.params[a.Name]:
		ps.fail(nt, fmt.Sprintf("%s parameter %s is not a param of the kernel file", ct.name, a.Name), fmt.Sprintf("add %s: VALUE under params: (the launch's value of %s)", a.Name, a.Name))
	case !a.Int && ps.params[a.Name]:
		ps.fail(nt, fmt.Sprintf("%s parameter %s has the name of a param; params are integers", ct.name, a.Name), "declare it int "+a.Name+", or rename it")
	}
}
