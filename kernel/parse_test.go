package kernel

import (
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// kernelYAML builds a kernel file around a source text; arrays are f32
// with the given dims.
func kernelYAML(params, arrays, source, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: t\nparams: {%s}\narrays:\n", params)
	for _, a := range strings.Split(arrays, ";") {
		name, dims, _ := strings.Cut(a, "=")
		fmt.Fprintf(&b, "  %s: {type: f32, dims: [%s]}\n", strings.TrimSpace(name), dims)
	}
	b.WriteString("source: |\n")
	for _, line := range strings.Split(strings.TrimSpace(source), "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString(extra)
	return b.String()
}

func mustParse(t *testing.T, params, arrays, source, extra string) *Kernel {
	t.Helper()
	k, err := Parse("t.yaml", []byte(kernelYAML(params, arrays, source, extra)))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, kernelYAML(params, arrays, source, extra))
	}
	return k
}

// shape writes an expression tree fully parenthesised, to check
// precedence and associativity.
func shape(e *Expr) string {
	switch e.Kind {
	case ExprConst:
		return fmt.Sprint(e.Val)
	case ExprLoad:
		return e.Name + "[]"
	case ExprNeg:
		return "(-" + shape(e.Args[0]) + ")"
	case ExprCall:
		var args []string
		for _, a := range e.Args {
			args = append(args, shape(a))
		}
		return e.Name + "(" + strings.Join(args, ",") + ")"
	case ExprAdd, ExprSub, ExprMul, ExprDiv, ExprMod:
		return "(" + shape(e.Args[0]) + binOps[e.Kind] + shape(e.Args[1]) + ")"
	}
	return e.Name
}

func TestParsePrecedence(t *testing.T) {
	cases := []struct {
		src, want string
		compute   int
	}{
		// compute: 1 per reference (store included) + operators + calls.
		{"x[i] = a + b * c;", "(a+(b*c))", 1 + 2},
		{"x[i] = (a + b) * c;", "((a+b)*c)", 1 + 2},
		{"x[i] = a - b - c;", "((a-b)-c)", 1 + 2},
		{"x[i] = a / b / c % d;", "(((a/b)/c)%d)", 1 + 3},
		{"x[i] = -a * b;", "((-a)*b)", 1 + 2},
		{"x[i] = a - -b;", "(a-(-b))", 1 + 2},
		{"x[i] = max(a, b * 2) + sqrt(c);", "(max(a,(b*2))+sqrt(c))", 1 + 4},
		{"x[i] = y[i] * 2 + y[i + 1];", "((y[]*2)+y[])", 3 + 2},
		{"x[i] *= y[i] + 1.5f;", "(y[]+1.5f)", 3 + 1 + 1}, // x read, y read, x write; + and *=
	}
	for _, tc := range cases {
		src := "for (i = 0; i < N - 1; i++) {\n  float a = 1;\n  float b = 2;\n  float c = 3;\n  float d = 4;\n  " + tc.src + "\n}"
		k := mustParse(t, "N: 16", "x=N; y=N", src, "")
		s := k.Program.Stmts[4]
		if got := shape(s.Value); got != tc.want {
			t.Errorf("%s parses as %s; want %s", tc.src, got, tc.want)
		}
		if s.Compute != tc.compute {
			t.Errorf("%s counts %d instructions; want %d", tc.src, s.Compute, tc.compute)
		}
	}
}

func TestParseForms(t *testing.T) {
	// Braces optional, <=, += c steps, both comment styles, declarations.
	src := `
// a line comment
for (i = 0; i <= N; i += 4) /* step four */
  for (int j = 1; j < i + 2; ++j) {
    float acc = 0;   // a register
    acc += A[i][j];
    B[j][i] = acc;
  }
`
	k := mustParse(t, "N: 16", "A=N+1, N+2; B=N+2, N+1", src, "")
	p := k.Program
	if len(p.Loops) != 2 || p.Loops[0].Var != "i" || p.Loops[1].Var != "j" {
		t.Fatalf("loops = %v; want i then j", p.Loops)
	}
	i, j := p.Loops[0], p.Loops[1]
	if got := i.Upper.String(); got != "N + 1" {
		t.Errorf("upper bound of i <= N is %q; want N + 1", got)
	}
	if i.Step.Val != 4 || j.Step.Val != 1 {
		t.Errorf("steps = %d, %d; want 4, 1", i.Step.Val, j.Step.Val)
	}
	if j.Parent != i || j.Depth != 1 || len(i.Body) != 1 || len(j.Body) != 3 {
		t.Errorf("nesting: j.Parent=%v depth %d, bodies %d and %d; want j in i, depth 1, bodies 1 and 3", j.Parent, j.Depth, len(i.Body), len(j.Body))
	}
	var texts []string
	for _, r := range p.Refs {
		texts = append(texts, fmt.Sprintf("%s store=%v", r.Text, r.Store))
	}
	if got, want := strings.Join(texts, ", "), "A[i][j] store=false, B[j][i] store=true"; got != want {
		t.Errorf("refs = %s; want %s", got, want)
	}
	wantCompute := []int{1, 1 + 1, 1 + 0} // move; address + "+="; address (store of a register)
	for n, s := range p.Stmts {
		if s.Compute != wantCompute[n] {
			t.Errorf("statement %q counts %d; want %d", s.Text, s.Compute, wantCompute[n])
		}
	}
	// The reference's position must point at it in the file text.
	r := p.Refs[0]
	lines := strings.Split(kernelYAML("N: 16", "A=N+1, N+2; B=N+2, N+1", src, ""), "\n")
	if got := lines[r.Line-1][r.Col-1:]; !strings.HasPrefix(got, "A[i][j]") {
		t.Errorf("ref A at %d:%d points at %q; want A[i][j]", r.Line, r.Col, got)
	}
}

func TestLoadExamples(t *testing.T) {
	want := []string{"convolution-global", "convolution-tex2d", "copy", "copy-colmajor", "copy-rowmajor", "kmeans", "kmeans-peng", "kmeans-rodinia-col", "kmeans-rodinia-row", "latency-probe", "lavamd-peng", "matmul", "matmul-naive",
		"matmul-ryoo-a", "matmul-ryoo-b", "matmul-ryoo-c", "matmul-ryoo-d", "matmul-tiled", "matvec", "mri-q", "mri-q-k-outer",
		"nbody-peng", "nms", "nn", "nw-dymaxion", "nw-rowmajor", "nw-shared", "reduce-interleaved", "reduce-sequential", "siddon", "spmv-csr", "spmv-csr-dymaxion", "spmv-csr-scalar", "stencil-shared", "stride", "transpose",
		"transpose-shared", "transpose-shared-padded", "vecadd", "vecadd-peng"}
	if got := Examples(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Examples() = %v; want %v", got, want)
	}
	for _, n := range want {
		k, err := Load(n)
		if err != nil {
			t.Fatalf("Load(%s): %v", n, err)
		}
		if k.Name != n || k.Description == "" {
			t.Errorf("Load(%s): name %q, description %q; want the name and a description", n, k.Name, k.Description)
		}
		switch {
		case k.Program.Form == LoopNest && len(k.Mapping) == 0:
			t.Errorf("Load(%s): no mapping; every shipped loop nest declares one", n)
		case k.Program.Form == PerThread && len(k.Grid) == 0 && len(k.Launches) == 0:
			t.Errorf("Load(%s): no grid; every shipped per-thread kernel declares one (or its launches do)", n)
		}
	}
	if _, err := Load("no-such-kernel"); err == nil || !strings.Contains(err.Error(), "matmul") {
		t.Errorf("Load(no-such-kernel) = %v; want an error listing the examples", err)
	}
}

func TestKernelKeys(t *testing.T) {
	k, err := Parse("chase.yaml", []byte(chaseYAML))
	if err != nil {
		t.Fatal(err)
	}
	if k.Regs != 20 || k.Smem != 4*arch.KiB || !k.Dependent || k.Block != (arch.Dim3{X: 64, Y: 1, Z: 1}) {
		t.Errorf("regs %d smem %v dependent %v block %v; want 20 4KiB true 64x1x1", k.Regs, k.Smem, k.Dependent, k.Block)
	}
	if a := k.Arrays[0]; a.Align != 4096 || a.HasBase || a.Type.Size() != 8 {
		t.Errorf("array A: align %d, has base %v, element size %d; want 4096, false, 8", a.Align, a.HasBase, a.Type.Size())
	}
	if a := k.Arrays[2]; !a.HasBase || a.Base != 0x20000000 || a.Align != DefaultAlign {
		t.Errorf("array C: has base %v at %#x, align %d; want true, 0x20000000, %d", a.HasBase, a.Base, a.Align, DefaultAlign)
	}
}

// chaseYAML uses every key of a kernel file.
const chaseYAML = `name: chase
description: pointer chase
params: {N: 100}
arrays:
  A: {type: u64, dims: [N], align: 4096}
  B: {type: i8, dims: [N]}
  C: {type: u16, dims: [N], base: 0x20000000}
  D: {type: i32, dims: [N]}
source: |
  for (i = 0; i < N; i++) {
    C[i] = A[i] + B[i];
    D[i] = 1;
  }
mapping: {i: tx}
block: [64]
regs: 20
smem: 4KiB
dependent: true
`
