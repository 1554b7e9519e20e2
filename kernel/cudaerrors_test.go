package kernel

import (
	"fmt"
	"strings"
	"testing"
)

// cudaError is a kernel file that must fail to parse: at line line of
// its source (counted from 1), in the column where the first mark of
// that line starts, with a message that starts with msg and a hint.
type cudaError struct {
	src   string
	line  int
	mark  string
	msg   string
	extra string // YAML after the source
}

// check parses the file that yaml builds and compares the error; first
// is the file's line of the source's first line.
func (tc cudaError) check(t *testing.T, yaml func(src, extra string) string, first int) {
	t.Helper()
	lines := strings.Split(tc.src, "\n")
	col := strings.Index(lines[tc.line-1], tc.mark)
	if col < 0 {
		t.Fatalf("%q: no %q on line %d", tc.src, tc.mark, tc.line)
	}
	// The source is indented 2 spaces in the file.
	want := fmt.Sprintf("t.yaml:%d:%d: %s", first+tc.line-1, 2+col+1, tc.msg)
	tc.checkErr(t, yaml(tc.src, tc.extra), want)
}

func (tc cudaError) checkErr(t *testing.T, file, want string) {
	t.Helper()
	_, err := Parse("t.yaml", []byte(file))
	switch {
	case err == nil:
		t.Errorf("Parse succeeded; want %s\n%s", want, file)
	case !strings.HasPrefix(err.Error(), want):
		t.Errorf("Parse error\n%v\nwant\n%s...\n%s", err, want, file)
	case !strings.Contains(err.Error(), "; hint: ") || strings.HasSuffix(err.Error(), "; hint: "):
		t.Errorf("Parse error %v; want a hint", err)
	}
}

// TestCUDAErrors: every construct's errors, in a function body (the
// source's line 2 on), positioned at what is at fault.
func TestCUDAErrors(t *testing.T) {
	body := func(src, extra string) string { return cudaYAML(sig+src+"\n}", extra) }
	for _, tc := range []cudaError{
		// Builtins and names.
		{src: "A[0] = tanhf(alpha);", line: 1, mark: "tanhf", msg: "unknown function tanhf; hint: the supported builtins are __cosf, __expf, __fdividef, __logf, __mul24, __powf, __sinf, __umul24, abs, ceil"},
		{src: "atomicAdd(A, 1);", line: 1, mark: "atomicAdd", msg: "unknown function atomicAdd"},
		{src: "sqrtf(1.0f);", line: 1, mark: "sqrtf", msg: "a call to sqrtf is not a statement"},
		{src: "A[0] = zz;", line: 1, mark: "zz", msg: "unknown name zz"},
		{src: "{ int q = 1; }\nA[q] = 0;", line: 2, mark: "q", msg: "local q is not in scope here"},
		{src: "A[threadIdx] = 0;", line: 1, mark: "threadIdx", msg: "threadIdx needs a component"},
		{src: "A[threadIdx.w] = 0;", line: 1, mark: "w]", msg: `threadIdx has no component "w"`},
		{src: "int x = ~1;", line: 1, mark: "~", msg: "~ is not supported"},
		// Type rules.
		{src: "float f = 1;\nA[f] = 0;", line: 2, mark: "f", msg: "index of A depends on float data (float local f)"},
		{src: "A[1.5f] = 0;", line: 1, mark: "1.5f", msg: "index of A depends on float data (float literal 1.5f)"},
		{src: "A[sqrtf(N)] = 0;", line: 1, mark: "sqrtf", msg: "index of A depends on float data (the float function sqrtf)"},
		{src: "A[(float)N] = 0;", line: 1, mark: "N", msg: "index of A depends on float data (a cast to float)"},
		{src: "C[A[0]][0] = 1;", line: 1, mark: "A", msg: "index of C depends on float data (array A)"},
		{src: "__shared__ int s[4];\nA[s[0]] = 1;", line: 2, mark: "s", msg: "index of A reads __shared__ s, whose values the kernel writes"},
		{src: "if (threadIdx.x < N && B[threadIdx.x] > 0) A[0] = 1;", line: 1, mark: "B", msg: "the if condition reads B where C reads it for some threads only (after &&)"},
		{src: "A[threadIdx.x < N ? B[threadIdx.x] : 0] = 1;", line: 1, mark: "B", msg: "index of A reads B where C reads it for some threads only (in a branch of ?:)"},
		{src: "while (alpha > 0) A[0] = 1;", line: 1, mark: "alpha", msg: "the while condition depends on float data (float parameter alpha)"},
		{src: "A[0] = alpha ? 1 : 2;", line: 1, mark: "alpha", msg: "the condition of ?: depends on float data (float parameter alpha)"},
		{src: "for (int i = 0; i < A[0]; i++) ;", line: 1, mark: "A[0]", msg: "the for condition depends on float data (array A)"},
		{src: "int j = 2 * alpha;", line: 1, mark: "alpha", msg: "int local j gets a value that depends on float data (float parameter alpha)"},
		{src: "int j = 0;\nj += 0.5f;", line: 2, mark: "0.5f", msg: "int local j gets a value that depends on float data (float literal 0.5f)"},
		{src: "int j = A[0];", line: 1, mark: "A", msg: "int local j gets a value that depends on float data (array A)"},
		{src: "float f = 1;\nA[(int)f] = 0;", line: 2, mark: "f]", msg: "value depends on float data (float local f): a cast to int of a float value is not supported"},
		{src: "B[0] = (unsigned int)A[1];", line: 1, mark: "A[1]", msg: "value depends on float data (array A): a cast to unsigned int of a float value is not supported"},
		// Statements C has and the subset has not.
		{src: "for (int i = 0; i < N; i++) break;", line: 1, mark: "break", msg: "break is not supported yet"},
		{src: "while (N > 0) continue;", line: 1, mark: "continue", msg: "continue is not supported yet"},
		{src: "goto end;", line: 1, mark: "goto", msg: "goto is not supported"},
		{src: "switch (N) { }", line: 1, mark: "switch", msg: "switch is not supported"},
		{src: "do { } while (N);", line: 1, mark: "do", msg: "do-while loops are not supported"},
		{src: "else A[0] = 1;", line: 1, mark: "else", msg: "else without if"},
		{src: "return 1;", line: 1, mark: "1", msg: `expected ";", found "1"`},
		{src: "__syncthreads(1);", line: 1, mark: "1", msg: `expected ")", found "1"`},
		{src: "A[0] == 1;", line: 1, mark: "==", msg: `expected an assignment operator, found "=="`},
		{src: "int x = 0;\nA[x++] = 0;", line: 2, mark: "++", msg: "x++ inside an expression is not supported"},
		{src: "int r[4];", line: 1, mark: "[", msg: "local arrays are not supported yet"},
		{src: "float *p;", line: 1, mark: "*", msg: "pointer locals are not supported"},
		{src: "for (int i = 0; ; i++) A[i] = 0;", line: 1, mark: "; i++", msg: "a for loop needs a condition"},
		{src: "for (int i = 0, float f = 0; i < N; i++) A[i] = 0;", line: 1, mark: "float", msg: "the locals of one declaration share its type"},
		{src: "if (N > 0) else A[0] = 1;", line: 1, mark: "else", msg: "missing body"},
		{src: "A[0] = (N + );", line: 1, mark: ")", msg: `expected an expression, found ")"`},
		{src: "A[0] = min(N);", line: 1, mark: "min", msg: "min takes 2 arguments, got 1"},
		// Declarations and scopes.
		{src: "int i = 0;\nif (i < N) { int i = 1; }", line: 2, mark: "i = 1", msg: "local i shadows the local i declared at line 9"},
		{src: "int i = 0;\nint i = 1;", line: 2, mark: "i = 1", msg: "local i is already declared at line 9"},
		{src: "{ int i = 0; }\n{ int i = 1; }", line: 2, mark: "i = 1", msg: "local i is declared again in this body (first at line 9, in a { } block)"},
		{src: "int N = 1;", line: 1, mark: "N", msg: "local N has the name of a parameter of k"},
		{src: "int M = 1;", line: 1, mark: "M", msg: "local M has the name of a param"},
		{src: "int min = 1;", line: 1, mark: "min", msg: "min is a builtin function"},
		{src: "int warpSize = 1;", line: 1, mark: "warpSize", msg: "warpSize is a builtin name"},
		{src: "const int c = 1;\nc = 2;", line: 2, mark: "c", msg: "cannot assign to const local c"},
		{src: "N = 1;", line: 1, mark: "N", msg: "cannot assign to parameter N"},
		{src: "threadIdx.x = 1;", line: 1, mark: "threadIdx", msg: "cannot assign to threadIdx"},
		{src: "unsigned float u = 1;", line: 1, mark: "unsigned", msg: `unsupported type "unsigned float"`},
		// Arrays.
		{src: "C[0][1][2] = 0;", line: 1, mark: "C", msg: "array C has 2 dimensions; got 3 subscripts"},
		{src: "A = 0;", line: 1, mark: "=", msg: "array A needs a subscript"},
		{src: "__shared__ float s[threadIdx.x];", line: 1, mark: "threadIdx", msg: "the size of a __shared__ array must be an expression of constants, params and blockDim"},
		{src: "__shared__ float s[gridDim.x];", line: 1, mark: "gridDim", msg: "the size of a __shared__ array must be an expression of constants, params and blockDim"},
		{src: "int n = 4;\n__shared__ float s[n];", line: 2, mark: "n]", msg: "the size of a __shared__ array must be an expression of constants, params and blockDim"},
		{src: "extern __shared__ float s[];", line: 1, mark: "extern", msg: "dynamic shared memory (extern __shared__) is not supported"},
		{src: "__constant__ float s[4];", line: 1, mark: "__constant__", msg: "a __constant__ array is declared outside the function"},
		{src: "__shared__ float s;", line: 1, mark: ";", msg: "__shared__ scalars are not supported"},
		{src: "__shared__ float s[];", line: 1, mark: "[", msg: "a __shared__ array needs its size"},
		{src: "int s = 0;\n__shared__ float s[4];", line: 2, mark: "s[", msg: "__shared__ array s has the name of the local declared at line 9"},
		{src: "{ __shared__ float s[4]; }\nA[0] = s[0];", line: 2, mark: "s[", msg: "__shared__ array s is not in scope here"},
		// Preprocessor lines in the body.
		{src: "#pragma unroll\nfor (int u = 0; u < 4; u++) u = 2;", line: 2, mark: "u = 2", msg: "cannot assign to u, the variable of an unrolled loop"},
		{src: "#pragma unroll\nfor (int u = 0; u < threadIdx.x; u++) A[u] = 0;", line: 2, mark: "threadIdx", msg: "#pragma unroll: the loop's trip count is not known at launch (its bound is not constant)"},
		{src: "int v = threadIdx.x;\n#pragma unroll\nfor (int u = v; u < 4; u++) A[u] = 0;", line: 3, mark: "v;", msg: "#pragma unroll: the loop's trip count is not known at launch (its start is not constant)"},
		{src: "#pragma unroll\nfor (int u = 0; u < 4; u += threadIdx.x) A[u] = 0;", line: 2, mark: "threadIdx", msg: "#pragma unroll: the loop's trip count is not known at launch (its step is not constant)"},
		{src: "#pragma unroll 4\nfor (int u = 0; u < 4; u++) A[u] = 0;", line: 1, mark: "4", msg: "partial unrolling is not supported"},
		{src: "#pragma unroll\nA[0] = 1;", line: 2, mark: "A", msg: "#pragma unroll must come right before a for loop"},
		{src: "#pragma once", line: 1, mark: "once", msg: "unknown #pragma"},
		{src: "#define X 1", line: 1, mark: "define", msg: "#define inside the function"},
		{src: "#if 1", line: 1, mark: "if", msg: "#if is not supported"},
		{src: "A[0] = 1; #pragma unroll", line: 1, mark: "#", msg: "# must start a line"},
		// Grid.
		{src: "A[0] = 1;", extra: "grid: [threadIdx.x]\n", line: 4, mark: "", msg: "threadIdx is not known when the grid is set"},
	} {
		if tc.extra != "" {
			// The grid's entry: line 4 of source sig, body, } and the
			// key's line; column 8, after "grid: [".
			tc.checkErr(t, body(tc.src, tc.extra), "t.yaml:11:8: "+tc.msg)
			continue
		}
		// The body starts on the source's line 2.
		tc.line++
		tc.src = sig + tc.src
		tc.check(t, cudaYAML, 8)
	}
}

// TestCUDAFileErrors: errors of the signature, of what is outside the
// function, and of the kernel file's keys.
func TestCUDAFileErrors(t *testing.T) {
	for _, tc := range []cudaError{
		{src: "__global__ void k(float *Q) { }", line: 1, mark: "Q", msg: "pointer parameter Q is not an array of the kernel file"},
		{src: "__global__ void k(int *A, int *B, float *C, int N) { }", line: 1, mark: "int *A", msg: "parameter A is declared int *, but array A has type f32"},
		{src: "__global__ void k(float *A, int *B, float *C, int Q) { }", line: 1, mark: "Q", msg: "int parameter Q is not a param of the kernel file"},
		{src: "__global__ void k(float *A, int *B, float *C, float N) { }", line: 1, mark: "N", msg: "float parameter N has the name of a param; params are integers"},
		{src: "__global__ void k(float **A) { }", line: 1, mark: "*A", msg: "unsupported parameter type float * *"},
		{src: "__global__ void k(float A[], int *B, float *C) { }", line: 1, mark: "[", msg: "array parameters are not supported"},
		{src: "__global__ void k(float *A, float *A) { }", line: 1, mark: "A)", msg: "parameter A is declared twice"},
		{src: "__global__ int k() { }", line: 1, mark: "int", msg: `expected void, found "int"`},
		{src: "const int T = 32;\n__global__ void k() { }", line: 1, mark: "const", msg: "only #define lines and one __global__ function may be outside the function"},
		{src: "__device__ float f(float x) { return x; }\n__global__ void k() { }", line: 1, mark: "__device__", msg: "only the __global__ function is read"},
		{src: sig + "A[0] = 1;\n}\n__global__ void k2() { }", line: 4, mark: "__global__", msg: "a second __global__ function"},
		{src: sig + "}", line: 1, mark: "{", msg: "the kernel has no statements"},
		{src: "#define SQ(x) ((x) * (x))\n" + sig + "A[0] = 1;\n}", line: 1, mark: "(x) (", msg: "function-like macros are not supported"},
		{src: "#define W2 (M * 2)\n" + sig + "A[0] = 1;\n}", line: 1, mark: "M", msg: "#define W2 uses param M"},
		{src: "#define T 1\n#define T 2\n" + sig + "A[0] = 1;\n}", line: 2, mark: "T", msg: "#define T has the name of the #define at line 8"},
		{src: "#define EPS 1e-5f\n" + sig + "A[0] = 1;\n}", line: 1, mark: "1e-5f", msg: "#define EPS is not an integer constant"},
		{src: "#define T2 4 + 1\n" + sig + "A[0] = 1;\n}", line: 1, mark: "4", msg: "the value of #define T2 must be one token or in parentheses"},
		{src: "#define Z (1 / (2 - 2))\n" + sig + "A[0] = 1;\n}", line: 1, mark: "/ (", msg: "1 / (2 - 2) has no 64-bit value"},
		{src: "#ifdef X\n" + sig + "A[0] = 1;\n}", line: 1, mark: "ifdef", msg: "#ifdef is not supported"},
		{src: "#pragma unroll\n" + sig + "A[0] = 1;\n}", line: 1, mark: "pragma", msg: "#pragma outside the function"},
		// __constant__ declarations of the file's arrays.
		{src: "__constant__ float Q[4];\n" + sigB + "B[0] = 1;\n}", line: 1, mark: "Q", msg: "__constant__ array Q is not an array of the kernel file"},
		{src: "__constant__ int A[N];\n" + sigB + "B[0] = 1;\n}", line: 1, mark: "int", msg: "__constant__ array A is declared int, but array A has type f32"},
		{src: "__constant__ float A[N][M];\n" + sigB + "B[0] = 1;\n}", line: 1, mark: "A", msg: "__constant__ array A has 2 extents; arrays: gives it 1"},
		{src: "__constant__ float A[threadIdx.x];\n" + sigB + "B[0] = 1;\n}", line: 1, mark: "threadIdx", msg: "the size of a __constant__ array must be an expression of constants, params and #defines"},
		{src: "__constant__ float A[N] = {1};\n" + sigB + "B[0] = 1;\n}", line: 1, mark: "=", msg: "a __constant__ array cannot have an initialiser here"},
		{src: "__constant__ float A;\n" + sigB + "B[0] = 1;\n}", line: 1, mark: ";", msg: "__constant__ scalars are not supported"},
		{src: "__constant__ float A[N];\n__constant__ float A[N];\n" + sigB + "B[0] = 1;\n}", line: 2, mark: "A", msg: "__constant__ array A is declared twice"},
		{src: sigB + "B[0] = 1;\n}\n__constant__ float A[N];", line: 4, mark: "__constant__", msg: "a __constant__ declaration after the function"},
		{src: "__constant__ float A[N];\n" + sig + "B[0] = 1;\n}", line: 2, mark: "A,", msg: "parameter A has the name of the __constant__ array declared at line 8; hint: a kernel reads a __constant__ array by its name"},
		{src: "__constant__ float A[N];\n" + sigB + "int A = 1;\n}", line: 3, mark: "A", msg: "local A has the name of the __constant__ array declared at line 8"},
		{src: "__constant__ float A[N];\n" + sigB + "A[0] = 1;\n}", line: 3, mark: "A", msg: "store to constant array A (A[0])"},
	} {
		tc.check(t, cudaYAML, 8)
	}
	// An array declared __constant__ must not say another space.
	cudaError{}.checkErr(t, strings.Replace(cudaYAML("__constant__ float A[N];\n"+sigB+"B[0] = 1;\n}", ""), "A: {type: f32, dims: [N]}", "A: {type: f32, dims: [N], space: global}", 1),
		"t.yaml:4:36: array A is declared __constant__ at line 8, but its space is global")
	// Array C is not in the signature: the error is at its declaration.
	notArg := cudaError{}
	notArg.checkErr(t, cudaYAML("__global__ void k(float *A, int *B) { A[0] = 1; }", ""), "t.yaml:6:3: array C is not a parameter of k")
	// Keys: mapping in a per-thread file, at the key on the line after
	// the source's 3; grid's shape and entries.
	for _, tc := range []struct{ extra, want string }{
		{"mapping: {i: tx}\n", "t.yaml:11:1: mapping is for loop-nest kernels"},
		{"grid: [1, 2, 3, 4]\n", "t.yaml:11:7: grid must be a list of one to three extents"},
		{"grid: [1.5]\n", "t.yaml:11:8: a grid entry is an integer; 1.5 is not"},
		{"grid: [Q]\n", "t.yaml:11:8: unknown param Q"},
		{"grid: [N,\n  M M]\n", "t.yaml:12:5: unexpected \"M\" in a grid entry"},
		{"requires: N % 32 == 0\n", "t.yaml:11:11: requires must be a list of conditions"},
		{"requires: [threadIdx.x < N]\n", "t.yaml:11:12: threadIdx is not known when the grid is set"},
		{"requires: [N % 32 == 0 M]\n", "t.yaml:11:24: unexpected \"M\" in a requires entry"},
	} {
		cudaError{}.checkErr(t, cudaYAML(sig+"A[0] = 1;\n}", tc.extra), tc.want)
	}
}

// TestLoopNestCUDAErrors: a loop nest that uses what only a __global__
// kernel has gets a hint to write one.
func TestLoopNestCUDAErrors(t *testing.T) {
	// kernelYAML's source starts on line 6 with one array.
	nest := func(src, extra string) string { return kernelYAML("N: 16", "A=N", src, extra) }
	for _, tc := range []cudaError{
		{src: "for (i = 0; i < N; i++) A[threadIdx.x] = 0;", line: 1, mark: "threadIdx",
			msg: "threadIdx is only available in a __global__ kernel; hint: write the kernel as a __global__ function, or map the loop to tx with mapping:"},
		{src: "for (i = 0; i < N; i++) A[i] = blockDim.x;", line: 1, mark: "blockDim", msg: "blockDim is only available in a __global__ kernel"},
		{src: "for (i = 0; i < N; i++) {\n  A[i] = 0;\n  __syncthreads();\n}", line: 3, mark: "__syncthreads", msg: "__syncthreads is only available in a __global__ kernel"},
		{src: "__shared__ float s[4];", line: 1, mark: "__shared__", msg: "__shared__ is only available in a __global__ kernel"},
		{src: "while (1) A[0] = 0;", line: 1, mark: "while",
			msg: `"while" is outside the supported C subset; hint: write the loop as for (v = lo; v < hi; v++), or write the kernel as a __global__ function`},
		{src: "#define T 4\nfor (i = 0; i < N; i++) A[i] = 0;", line: 1, mark: "#", msg: "preprocessor lines are only read in a __global__ kernel"},
		{src: "__constant__ float c[4];", line: 1, mark: "__constant__", msg: `"__constant__" is outside the supported C subset; hint: in a loop nest, give the array space: constant under arrays:`},
	} {
		tc.check(t, nest, 6)
	}
	cudaError{}.checkErr(t, nest("for (i = 0; i < N; i++) A[i] = 0;", "mapping: {i: tx}\ngrid: [4]\n"), "t.yaml:8:1: grid is for __global__ kernels")
	cudaError{}.checkErr(t, nest("for (i = 0; i < N; i++) A[i] = 0;", "mapping: {i: tx}\nrequires: [N % 32 == 0]\n"), "t.yaml:8:1: requires is for __global__ kernels")
}

// TestCUDALimits checks the per-thread caps at their value (accepted)
// and one past it (refused at the first thing past it).
func TestCUDALimits(t *testing.T) {
	decls := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "int v%d = 0;\n", i)
		}
		return b.String() + "A[0] = 1;"
	}
	ifs := func(n int) string { return strings.Repeat("if (N > 0)\n", n) + "A[0] = 1;" }
	whiles := func(n int) string { return strings.Repeat("while (N < 0) ;\n", n) + "A[0] = 1;" }
	for _, tc := range []struct {
		name, body string
		want       string // "" when accepted; else the error's prefix
	}{
		// The body's line l is the file's 8 + l.
		{"locals", decls(MaxLocals), ""},
		{"locals+1", decls(MaxLocals + 1), fmt.Sprintf("t.yaml:%d:7: more than 256 locals", 8+MaxLocals+1)},
		{"nesting", ifs(MaxNesting), ""},
		{"nesting+1", ifs(MaxNesting + 1), fmt.Sprintf("t.yaml:%d:3: statements nest more than 64 deep", 8+MaxNesting+1)},
		{"loops", whiles(MaxLoops), ""},
		{"loops+1", whiles(MaxLoops + 1), fmt.Sprintf("t.yaml:%d:3: more than 64 loops", 8+MaxLoops+1)},
		// A[0] = is 7 characters after the indent of 2; the 256th ! opens
		// the 257th level (the right-hand side is the first).
		{"not", "A[0] = " + strings.Repeat("!", MaxExprDepth-1) + "1;", ""},
		{"not+1", "A[0] = " + strings.Repeat("!", MaxExprDepth) + "1;", fmt.Sprintf("t.yaml:9:%d: expression nests more than 256 deep", 2+7+MaxExprDepth)},
	} {
		_, err := Parse("t.yaml", []byte(cudaYAML(sig+tc.body+"\n}", "")))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Parse: %v; want it accepted", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "hint: ")):
			t.Errorf("%s: Parse error = %v; want %q... with a hint", tc.name, err, tc.want)
		}
	}
}
