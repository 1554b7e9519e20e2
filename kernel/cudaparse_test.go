package kernel

import (
	"fmt"
	"strings"
	"testing"
)

// cudaYAML is a per-thread kernel file around source: params N = 64 and
// M = 8, arrays A (f32, N), B (i32, N) and C (f32, N x M), and extra keys
// after the source. The source starts on line 8, indented 2 spaces: its
// line l, column c is the file's 7+l, 2+c.
func cudaYAML(source, extra string) string {
	var b strings.Builder
	b.WriteString("name: t\nparams: {N: 64, M: 8}\narrays:\n  A: {type: f32, dims: [N]}\n  B: {type: i32, dims: [N]}\n  C: {type: f32, dims: [N, M]}\nsource: |\n")
	for _, line := range strings.Split(strings.TrimRight(source, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString(extra)
	return b.String()
}

// sig is the signature the tests' sources use; sigB is it without A, for
// sources that declare A __constant__.
const (
	sig  = "__global__ void k(float *A, int *B, float *C, int N, float alpha) {\n"
	sigB = "__global__ void k(int *B, float *C, int N, float alpha) {\n"
)

// mustCUDA parses a kernel whose source is sig, the body lines and }.
func mustCUDA(t *testing.T, body string) *Program {
	t.Helper()
	src := sig + body + "\n}"
	k, err := Parse("t.yaml", []byte(cudaYAML(src, "")))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	if k.Program.Form != PerThread || k.Program.Func != "k" {
		t.Fatalf("form %v, function %q; want per-thread, k", k.Program.Form, k.Program.Func)
	}
	return k.Program
}

// cshape writes an expression fully parenthesised, with the parser's
// choices visible: n#i for local i, NAME=v for a named constant.
func cshape(e *Expr) string {
	switch e.Kind {
	case ExprConst:
		if e.Name != "" {
			return fmt.Sprintf("%s=%d", e.Name, e.Val)
		}
		return fmt.Sprint(e.Val)
	case ExprScalar:
		return fmt.Sprintf("%s#%d", e.Name, e.Index)
	case ExprFloat, ExprParam:
		return e.Name
	case ExprSpecial:
		return Special(e.Index).String()
	case ExprLoad:
		var ix []string
		for _, a := range e.Args {
			ix = append(ix, cshape(a))
		}
		return e.Name + "[" + strings.Join(ix, "][") + "]"
	case ExprNeg:
		return "(-" + cshape(e.Args[0]) + ")"
	case ExprNot:
		return "(!" + cshape(e.Args[0]) + ")"
	case ExprCast:
		return "((" + e.Type.String() + ")" + cshape(e.Args[0]) + ")"
	case ExprCond:
		return "(" + cshape(e.Args[0]) + "?" + cshape(e.Args[1]) + ":" + cshape(e.Args[2]) + ")"
	case ExprCall:
		var args []string
		for _, a := range e.Args {
			args = append(args, cshape(a))
		}
		return e.Name + "(" + strings.Join(args, ",") + ")"
	}
	return "(" + cshape(e.Args[0]) + binOps[e.Kind] + cshape(e.Args[1]) + ")"
}

// TestCUDAPrecedence checks C's precedence and associativity and the
// statement's instruction count: 1 per operator and call, 1 per array
// reference, the store included.
func TestCUDAPrecedence(t *testing.T) {
	cases := []struct {
		src, want string
		compute   int
	}{
		{"A[i] = a + b * c;", "(a#0+(b#1*c#2))", 1 + 2},
		{"A[i] = a - b - c;", "((a#0-b#1)-c#2)", 1 + 2},
		{"A[i] = a << 1 + b;", "(a#0<<(1+b#1))", 1 + 2},
		{"A[i] = a < b == c > 1;", "((a#0<b#1)==(c#2>1))", 1 + 3},
		{"A[i] = a & b ^ c | 1;", "(((a#0&b#1)^c#2)|1)", 1 + 3},
		{"A[i] = a || b && !c;", "(a#0||(b#1&&(!c#2)))", 1 + 3},
		{"A[i] = a ? b : c ? 1 : 2;", "(a#0?b#1:(c#2?1:2))", 1 + 2},
		{"A[i] = a > 0 ? b + 1 : -c;", "((a#0>0)?(b#1+1):(-c#2))", 1 + 4},
		{"A[i] = (float)a / (int)b % 3;", "((a#0/((int)b#1))%3)", 1 + 2},      // casts cost nothing
		{"A[i] = a >> 1 >= b >> 2 != 0;", "(((a#0>>1)>=(b#1>>2))!=0)", 1 + 4}, // >> binds tighter than >=, >= than !=
		{"A[i] = min(a, b) * __mul24(c, 2) + sqrtf(alpha);", "((min(a#0,b#1)*__mul24(c#2,2))+sqrtf(alpha))", 1 + 5},
		{"A[i] = B[i] * warpSize + A[i + 1];", "((B[i#3]*warpSize=32)+A[(i#3+1)])", 3 + 2},
		{"A[i] = threadIdx.x + blockDim.y * gridDim.z;", "(threadIdx.x+(blockDim.y*gridDim.z))", 1 + 2},
	}
	for _, tc := range cases {
		p := mustCUDA(t, "int a = 1, b = 2, c = 3, i = threadIdx.x;\n"+tc.src)
		s := p.Stmts[4]
		if got := cshape(s.Value); got != tc.want {
			t.Errorf("%s parses as %s; want %s", tc.src, got, tc.want)
		}
		if s.Compute != tc.compute {
			t.Errorf("%s counts %d instructions; want %d", tc.src, s.Compute, tc.compute)
		}
	}
}

// TestCUDAFor: for (init; cond; post) is the init statement before a
// While; k++ is k += 1 counting 1, and the test costs a compare and a
// branch: 3 per iteration, as a loop nest's loop.
func TestCUDAFor(t *testing.T) {
	p := mustCUDA(t, "for (int k = 0; k < N; k++)\n  A[k] = 0;")
	if len(p.Body) != 2 {
		t.Fatalf("body has %d nodes; want the init statement and the While", len(p.Body))
	}
	init, ok := p.Body[0].(*Stmt)
	w, ok2 := p.Body[1].(*While)
	if !ok || !ok2 {
		t.Fatalf("body is %T, %T; want *Stmt, *While", p.Body[0], p.Body[1])
	}
	if !init.Decl || init.Local != p.Locals[0] || init.Assign != "=" || cshape(init.Value) != "0" || init.Compute != 1 {
		t.Errorf("init: decl %v local %v %q %s compute %d; want the declaration of local 0 = 0, a move counting 1",
			init.Decl, init.Local, init.Assign, cshape(init.Value), init.Compute)
	}
	if w.Init != 1 || cshape(w.Cond) != "(k#0<N)" || w.Compute != 2 || w.Unroll {
		t.Errorf("while: init %d cond %s compute %d unroll %v; want 1, (k#0<N), 2 (compare, branch), false", w.Init, cshape(w.Cond), w.Compute, w.Unroll)
	}
	if len(w.Post) != 1 {
		t.Fatalf("post has %d nodes; want k++", len(w.Post))
	}
	post := w.Post[0].(*Stmt)
	if post.Local != p.Locals[0] || post.Assign != "+=" || post.Value.Kind != ExprConst || post.Value.Val != 1 || post.Value.Name != "" || post.Compute != 1 {
		t.Errorf("post: %q %s compute %d; want k += 1 counting 1", post.Assign, cshape(post.Value), post.Compute)
	}
	body := w.Body[0].(*Stmt)
	if body.Store == nil || body.Compute != 1 || cshape(body.Store.Index[0]) != "k#0" {
		t.Errorf("body: compute %d, store %v; want A[k] = 0 counting its address", body.Compute, body.Store)
	}
}

// TestCUDAIncrements: x++, ++x, x--, --x and compound operators on
// locals and array elements.
func TestCUDAIncrements(t *testing.T) {
	p := mustCUDA(t, "int x = 0;\nx++;\n++x;\nx--;\n--x;\nx <<= 2;\nx ^= N;\nB[x]++;\n--B[x + 1];")
	want := []struct {
		assign, value string
		compute       int
		refs          string
	}{
		{"+=", "1", 1, ""},
		{"+=", "1", 1, ""},
		{"-=", "1", 1, ""},
		{"-=", "1", 1, ""},
		{"<<=", "2", 1, ""},
		{"^=", "N", 1, ""},
		{"+=", "1", 2 + 1, "B[x#0] load, B[x#0] store"},         // read, write, the +
		{"-=", "1", 2 + 1, "B[(x#0+1)] load, B[(x#0+1)] store"}, // the index's + costs nothing beyond the address
	}
	for i, w := range want {
		s := p.Stmts[i+1]
		var refs []string
		for _, r := range append(s.Loads[:len(s.Loads):len(s.Loads)], s.Store) {
			if r != nil {
				refs = append(refs, fmt.Sprintf("%s[%s] %s", r.Array.Name, cshape(r.Index[0]), map[bool]string{true: "store", false: "load"}[r.Store]))
			}
		}
		if s.Assign != w.assign || cshape(s.Value) != w.value || s.Compute != w.compute || strings.Join(refs, ", ") != w.refs {
			t.Errorf("%s: %q %s compute %d refs %q; want %q %s compute %d refs %q", s.Text, s.Assign, cshape(s.Value), s.Compute, strings.Join(refs, ", "), w.assign, w.value, w.compute, w.refs)
		}
	}
}

// TestCUDAIf: nested if / else if / else, its cost, and the nodes it
// holds.
func TestCUDAIf(t *testing.T) {
	p := mustCUDA(t, `int x = threadIdx.x;
if (x < N && x % 2 == 0) {
  A[x] = 1;
} else if (x < N)
  __syncthreads();
else {
  return;
}`)
	n, ok := p.Body[1].(*If)
	if !ok {
		t.Fatalf("body[1] is %T; want *If", p.Body[1])
	}
	// <, &&, %, == and the branch.
	if cshape(n.Cond) != "((x#0<N)&&((x#0%2)==0))" || n.Compute != 5 {
		t.Errorf("if (%s) counts %d; want ((x#0<N)&&((x#0%%2)==0)), 4 operators and the branch: 5", cshape(n.Cond), n.Compute)
	}
	if len(n.Then) != 1 || len(n.Else) != 1 {
		t.Fatalf("then %d nodes, else %d; want 1 and 1 (the else if)", len(n.Then), len(n.Else))
	}
	elif, ok := n.Else[0].(*If)
	if !ok || elif.Compute != 2 || len(elif.Then) != 1 || len(elif.Else) != 1 {
		t.Fatalf("else is %T; want an if counting 2 with one node in each branch", n.Else[0])
	}
	if _, ok := elif.Then[0].(*Barrier); !ok {
		t.Errorf("else if's then is %T; want *Barrier", elif.Then[0])
	}
	if _, ok := elif.Else[0].(*Return); !ok {
		t.Errorf("else's body is %T; want *Return", elif.Else[0])
	}
	if l, c := elif.Pos(); l != 7+5 || c != 2+8 {
		t.Errorf("the else if is at %d:%d; want 12:10 (line 5 of the source, column 8)", l, c)
	}
}

// TestCUDAScopes: sibling loops each declare their own i; a { } block's
// statements join the body; while loops.
func TestCUDAScopes(t *testing.T) {
	p := mustCUDA(t, `for (int i = 0; i < 4; i++) A[i] = 0;
for (int i = 0; i < 4; i++) A[i + 4] = 1;
{
  int j = 2;
  while (j > 0) j -= 1;
}
int i = 7;
A[i] = 2;`)
	var names []string
	for _, l := range p.Locals {
		names = append(names, fmt.Sprintf("%d:%s", l.Index, l.Name))
	}
	if got := strings.Join(names, " "); got != "0:i 1:i 2:j 3:i" {
		t.Fatalf("locals %s; want 0:i 1:i 2:j 3:i", got)
	}
	// init, for, init, for, j's declaration, while, i's declaration, A[i] = 2.
	if len(p.Body) != 8 {
		t.Fatalf("body has %d nodes; want 8", len(p.Body))
	}
	second := p.Body[3].(*While).Body[0].(*Stmt)
	if got := cshape(second.Store.Index[0]); got != "(i#1+4)" {
		t.Errorf("second loop stores A[%s]; want A[(i#1+4)]", got)
	}
	w := p.Body[5].(*While)
	if w.Init != 0 || len(w.Post) != 0 || cshape(w.Cond) != "(j#2>0)" {
		t.Errorf("while: init %d post %d cond %s; want 0, 0, (j#2>0)", w.Init, len(w.Post), cshape(w.Cond))
	}
	if got := cshape(p.Body[7].(*Stmt).Store.Index[0]); got != "i#3" {
		t.Errorf("last statement stores A[%s]; want A[i#3]", got)
	}
}

// TestCUDAUnroll: an unrolled loop counts no loop control and no address
// arithmetic; the same loop rolled counts both.
func TestCUDAUnroll(t *testing.T) {
	for _, tc := range []struct {
		pragma           string
		unroll           bool
		cond, post, stmt int
	}{
		// The statement: * and += always; 2 addresses when rolled.
		{"#pragma unroll\n", true, 0, 0, 2},
		{"#pragma unroll 1\n", false, 2, 1, 4},
		{"", false, 2, 1, 4},
	} {
		p := mustCUDA(t, "__shared__ float S[16][16];\nfloat acc = 0;\n"+tc.pragma+"for (int k = 0; k < 16; k += 1)\n  acc += S[threadIdx.y][k] * S[k][threadIdx.x];")
		w := p.Body[2].(*While)
		post := w.Post[0].(*Stmt)
		s := w.Body[0].(*Stmt)
		if w.Unroll != tc.unroll || w.Compute != tc.cond || post.Compute != tc.post || s.Compute != tc.stmt {
			t.Errorf("%q: unroll %v, test %d, post %d, statement %d; want %v, %d, %d, %d",
				tc.pragma, w.Unroll, w.Compute, post.Compute, s.Compute, tc.unroll, tc.cond, tc.post, tc.stmt)
		}
	}
}

// TestCUDADeclarations: the signature, #defines, local types, shared
// arrays and casts.
func TestCUDADeclarations(t *testing.T) {
	src := `#define BS 16
#define HALF (BS / 2 + warpSize)
__global__ void k(const float * __restrict__ A, int *B, float *C, const int N, float alpha) {
  __shared__ float S[HALF][BS + N];
  unsigned int u = threadIdx.x;
  const long long w = u;
  double d = (double)u * alpha;
  bool b = u < BS;
  S[u][0] = A[u] + C[u];
  C[u * M + 1] = S[0][u] + B[HALF];
}`
	k, err := Parse("t.yaml", []byte(cudaYAML(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	p := k.Program
	var args []string
	for _, a := range p.Args {
		arr := ""
		if a.Array != nil {
			arr = " array " + a.Array.Name
		}
		args = append(args, fmt.Sprintf("%s %q int=%v%s", a.Name, a.Type, a.Int, arr))
	}
	want := `A "const float *__restrict__" int=false array A; B "int *" int=false array B; C "float *" int=false array C; N "const int" int=true; alpha "float" int=false`
	if got := strings.Join(args, "; "); got != want {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
	if d := p.Defines[1]; d.Name != "HALF" || d.Val != 16/2+32 || cshape(d.Value) != "((BS=16/2)+warpSize=32)" {
		t.Errorf("define %s = %s = %d; want HALF = ((BS=16/2)+warpSize=32) = 40", d.Name, cshape(d.Value), d.Val)
	}
	var locals []string
	for _, l := range p.Locals {
		locals = append(locals, fmt.Sprintf("%s %q %v", l.Name, l.Type, l.Int))
	}
	if got, want := strings.Join(locals, "; "), `u "unsigned int" true; w "const long long" true; d "double" false; b "bool" true`; got != want {
		t.Errorf("locals %s; want %s", got, want)
	}
	if len(p.Shared) != 1 {
		t.Fatalf("%d shared arrays; want 1", len(p.Shared))
	}
	s := p.Shared[0]
	if s.Space != SpaceShared || s.Type != F32 || s.Align != 4 || cshape(s.Dims[0]) != "HALF=40" || cshape(s.Dims[1]) != "(BS=16+N)" {
		t.Errorf("shared %s: %v %v align %d dims %s, %s; want shared f32 align 4 dims HALF=40, (BS=16+N)", s.Name, s.Space, s.Type, s.Align, cshape(s.Dims[0]), cshape(s.Dims[1]))
	}
	if got := cshape(p.Stmts[2].Value); got != "(u#0*alpha)" {
		t.Errorf("d's value is %s; want (u#0*alpha): the cast dropped, alpha a float", got)
	}
	// S[u][0] = A[u] + C[u]: loads A, C, store S; then loads S, B, store C.
	var refs []string
	for _, r := range p.Refs {
		refs = append(refs, fmt.Sprintf("%d %s %s %d", r.ID, r.Array.Name, r.Array.Space, len(r.Index)))
	}
	if got, want := strings.Join(refs, "; "), "0 A global 1; 1 C global 1; 2 S shared 2; 3 S shared 2; 4 B global 1; 5 C global 1"; got != want {
		t.Errorf("refs %s; want %s", got, want)
	}
	if p.Refs[2].Array != s {
		t.Errorf("S's reference names array %p; want the shared array %p", p.Refs[2].Array, s)
	}
}

// TestCUDAGrid: the grid key, its expressions and position.
func TestCUDAGrid(t *testing.T) {
	k, err := Parse("t.yaml", []byte(cudaYAML("#define T 4\n"+sig+"A[0] = 1;\n}", "block: [32, 2]\ngrid: [\"(N + blockDim.x - 1) / blockDim.x\", M / T, 3]\n")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range k.Grid {
		got = append(got, cshape(e))
	}
	if strings.Join(got, ", ") != "(((N+blockDim.x)-1)/blockDim.x), (M/T=4), 3" {
		t.Errorf("grid %s; want (((N+blockDim.x)-1)/blockDim.x), (M/T=4), 3", strings.Join(got, ", "))
	}
	// The source has 4 lines (8 to 11); block is on 12, grid on 13.
	if k.Where.Grid != (Pos{13, 7}) {
		t.Errorf("grid at %v; want 13:7", k.Where.Grid)
	}
	if e := k.Grid[0].Args[0].Args[0].Args[1]; e.Line != 13 || e.Col != 8+1+5 {
		t.Errorf("blockDim.x of the first entry at %d:%d; want 13:14 (after the quote, then \"(N + \")", e.Line, e.Col)
	}
}

// census counts the nodes of a body, nested ones included.
type census struct{ ifs, whiles, unrolled, barriers, returns int }

func (c *census) add(nodes []Node) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *If:
			c.ifs++
			c.add(n.Then)
			c.add(n.Else)
		case *While:
			c.whiles++
			if n.Unroll {
				c.unrolled++
			}
			c.add(n.Body)
		case *Barrier:
			c.barriers++
		case *Return:
			c.returns++
		}
	}
}

// dimText writes a dims expression of constants, the file's params and
// + as its value, any other (of blockDim) as written.
func dimText(e *Expr, params []Param) string {
	if v, ok := dimValue(e, params); ok {
		return fmt.Sprint(v)
	}
	return e.String()
}

func dimValue(e *Expr, params []Param) (int64, bool) {
	switch e.Kind {
	case ExprConst:
		return e.Val, true
	case ExprParam:
		for _, p := range params {
			if p.Name == e.Name {
				return p.Value, true
			}
		}
	case ExprAdd:
		a, ok := dimValue(e.Args[0], params)
		b, ok2 := dimValue(e.Args[1], params)
		return a + b, ok && ok2
	}
	return 0, false
}

// TestCUDAKernels parses the shipped per-thread kernels and checks what
// their sources say, counted by hand: references, __shared__ arrays and
// their sizes, ifs, loops (unrolled ones), barriers, and the instructions
// of one statement (the one whose text is given).
func TestCUDAKernels(t *testing.T) {
	for _, tc := range []struct {
		file    string
		refs    int
		shared  string
		c       census
		stmt    string
		compute int
	}{
		// Each loop: a load and a store; the store's 2 addresses.
		{"transpose-shared", 4, "tile[32][32]", census{whiles: 2, barriers: 1}, "tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];", 2},
		{"transpose-shared-padded", 4, "tile[32][33]", census{whiles: 2, barriers: 1}, "x = blockIdx.y * TILE_DIM + threadIdx.x;", 2},
		// sdata = g_idata; sdata += sdata (3); g_odata = sdata. 2 * s * tid: 2 multiplies.
		{"reduce-interleaved", 7, "sdata[blockDim.x]", census{ifs: 2, whiles: 1, barriers: 2}, "int index = 2 * s * tid;", 2},
		// The post s >>= 1 counts its operator.
		{"reduce-sequential", 7, "sdata[blockDim.x]", census{ifs: 2, whiles: 1, barriers: 2}, "s >>= 1", 1},
		// As = A, Bs = B, Csub += As * Bs unrolled (no addresses: * and +=), C = Csub.
		{"matmul-tiled", 7, "As[blockDim.y][min(blockDim.x, blockDim.y)] Bs[min(blockDim.x, blockDim.y)][blockDim.x]", census{ifs: 2, whiles: 2, unrolled: 1, barriers: 2}, "Csub += As[ty][k] * Bs[k][tx];", 2},
		{"matmul-ryoo-a", 3, "", census{whiles: 1}, "Ctemp += A[indexA] * B[indexB];", 2 + 2},
		{"matmul-ryoo-b", 7, "As[16][16] Bs[16][16]", census{whiles: 2, barriers: 2}, "Ctemp += As[ty][i] * Bs[i][tx];", 2 + 2},
		{"matmul-ryoo-c", 7, "As[16][16] Bs[16][16]", census{whiles: 2, unrolled: 1, barriers: 2}, "Ctemp += As[ty][i] * Bs[i][tx];", 2},
		// a = A, b = B before the loop and again under the if.
		{"matmul-ryoo-d", 9, "As[16][16] Bs[16][16]", census{ifs: 1, whiles: 2, unrolled: 1, barriers: 2}, "a = A[indexA];", 1},
		// The centre (2), four halo statements (8), c (1), the update (4 loads, 1 store).
		{"stencil-shared", 16, "t[18][18]", census{ifs: 4, barriers: 1}, "float c = t[ty + 1][tx + 1];", 1},
	} {
		k, err := Load(tc.file)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		p := k.Program
		var shared []string
		for _, a := range p.Shared {
			d := a.Name
			for _, e := range a.Dims {
				d += "[" + dimText(e, k.Params) + "]"
			}
			shared = append(shared, d)
		}
		var c census
		c.add(p.Body)
		if len(p.Refs) != tc.refs || strings.Join(shared, " ") != tc.shared || c != tc.c {
			t.Errorf("%s: %d refs, shared %q, %+v; want %d, %q, %+v", tc.file, len(p.Refs), strings.Join(shared, " "), c, tc.refs, tc.shared, tc.c)
		}
		found := false
		for _, s := range p.Stmts {
			if strings.TrimSuffix(s.Text, ";") == strings.TrimSuffix(tc.stmt, ";") {
				found = true
				if s.Compute != tc.compute {
					t.Errorf("%s: %s counts %d; want %d", tc.file, s.Text, s.Compute, tc.compute)
				}
			}
		}
		if !found {
			t.Errorf("%s: no statement %q", tc.file, tc.stmt)
		}
		if !strings.Contains(k.Description, "Source") && !strings.Contains(k.Description, "Modelled on") {
			t.Errorf("%s: the description cites no source", tc.file)
		}
	}
}

// A local named like an element type (i8, u8, f32, ...) in parentheses is
// that local, not a cast: (i8) % 3 parses as i8 % 3, where it was refused
// as a cast; an undeclared such name in parentheses is still refused.
func TestParenthesizedTypeNamedLocal(t *testing.T) {
	k, err := Parse("t.yaml", []byte(cudaYAML(sig+"int i8 = threadIdx.x;\nA[(i8) % 3] = 1;\n}", "block: [32]\ngrid: [1]\n")))
	if err != nil {
		t.Fatal(err)
	}
	idx := k.Program.Refs[0].Index[0]
	if idx.Kind != ExprMod || idx.Args[0].Kind != ExprScalar || idx.Args[0].Name != "i8" {
		t.Errorf("A[(i8) %% 3]: index %v; want i8 %% 3 on the local", idx)
	}
	_, err = Parse("t.yaml", []byte(cudaYAML(sig+"A[(i8) threadIdx.x] = 1;\n}", "block: [32]\ngrid: [1]\n")))
	if err == nil || !strings.Contains(err.Error(), "casts are outside the subset") {
		t.Errorf("(i8) threadIdx.x: %v; want the cast refused", err)
	}
}
