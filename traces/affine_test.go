package traces

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// TestAffineViewMatchesLoopNest: the affine view of each stream case's
// hand-lowered per-thread kernel (lowerToThreads) has the loop nest's
// access matrices, computed by the loop nest's own path (IndexForms from
// Bind's linear forms). The lowered mapped variable is lower +
// (blockIdx·blockDim + threadIdx)·step, so a mapped loop's column is
// threadIdx of its axis times its step and the offset (work group 0)
// moves by the lower bound; an in-thread loop becomes a while loop whose
// induction variable is its column.
func TestAffineViewMatchesLoopNest(t *testing.T) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			nest := bindCase(t, tc)
			pt, err := BindGrid(lowerToThreads(t, nest), nil, nest.Block, nest.Grid(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			colOf := matchColumns(t, nest, pt.AccessColumns())
			for i := range nest.Refs {
				nf, err := nest.IndexForms(i)
				if err != nil {
					t.Fatal(err)
				}
				pf, err := pt.IndexForms(i)
				if err != nil {
					t.Fatalf("%s: %v", pt.Refs[i].Text, err)
				}
				for d := range nf {
					if want := liftForm(nest, nf[d], colOf, len(pf[d].Coef)); !sameForm(pf[d], want) {
						t.Errorf("%s: subscript %d: %v; want %v", pt.Refs[i].Text, d, pf[d], want)
					}
				}
				addr, err := pt.AddrForm(i)
				if want := liftForm(nest, nest.Refs[i].Addr, colOf, len(addr.Coef)); err != nil || !sameForm(addr, want) {
					t.Errorf("%s: address %v, %v; want %v", pt.Refs[i].Text, addr, err, want)
				}
				nl, _ := nest.EnclosingLoops(i)
				pl, _ := pt.EnclosingLoops(i)
				if want := inThreadColumns(nest, nl, colOf); !slices.Equal(inThreadColumns(nil, pl, nil), want) {
					t.Errorf("%s: in-thread loops around it %v; want %v", pt.Refs[i].Text, pl, want)
				}
			}
		})
	}
}

// matchColumns maps each loop of nest to its column in the lowered
// kernel's view, checking that the loops' columns keep their steps and
// problem-size marks.
func matchColumns(t *testing.T, nest *Launch, cols []AccessColumn) []int {
	t.Helper()
	colOf := make([]int, len(nest.Loops))
	next := slices.IndexFunc(cols, func(c AccessColumn) bool { return !c.Thread })
	if next < 0 {
		next = len(cols)
	}
	problem := problemSizeLoops(nest.Kernel.Program)
	for v, bl := range nest.Loops {
		if bl.Mapped {
			colOf[v] = slices.IndexFunc(cols, func(c AccessColumn) bool { return c.Thread && c.Axis == bl.Axis })
			continue
		}
		if next >= len(cols) {
			t.Fatalf("columns %v: none for loop %s", cols, bl.Var)
		}
		c := cols[next]
		if c.Thread || c.Var != bl.Var || c.Step != bl.Step || c.ProblemSize != problem[v] {
			t.Errorf("column %d %+v; want loop %s, step %d, problem size %v", next, c, bl.Var, bl.Step, problem[v])
		}
		colOf[v] = next
		next++
	}
	return colOf
}

// liftForm writes a loop nest's form over the lowered kernel's n columns.
func liftForm(nest *Launch, f Linear, colOf []int, n int) Linear {
	g := Linear{Const: f.Const, Coef: make([]int64, n)}
	for v, c := range f.Coef {
		if bl := nest.Loops[v]; bl.Mapped {
			g.Coef[colOf[v]] += c * bl.Step
			g.Const += c * bl.Lower.Const
			continue
		}
		g.Coef[colOf[v]] += c
	}
	return g
}

// inThreadColumns keeps the in-thread loops of a list of enclosing
// columns, mapped through colOf (nil: as they are; nest nil: the thread
// columns are those below the first loop column, which follow them).
func inThreadColumns(nest *Launch, cols []int, colOf []int) []int {
	var out []int
	for _, v := range cols {
		switch {
		case nest == nil:
			out = append(out, v)
		case !nest.Loops[v].Mapped:
			out = append(out, colOf[v])
		}
	}
	if nest == nil {
		out = slices.DeleteFunc(out, func(v int) bool { return v < 3 }) // the lowered kernel reads all three threadIdx
	}
	return out
}

func sameForm(a, b Linear) bool { return a.Const == b.Const && slices.Equal(a.Coef, b.Coef) }

// threadKernel is an inline per-thread kernel file: f32 arrays A, B, C of
// dims, the body of a __global__ function over them and params N, P.
func threadKernel(t *testing.T, dims, body string, block arch.Dim3, params map[string]int64) *Launch {
	t.Helper()
	src := "name: k\nparams: {N: 64, P: 32}\narrays:\n"
	for _, a := range []string{"A", "B", "C"} {
		src += fmt.Sprintf("  %s: {type: f32, dims: %s}\n", a, dims)
	}
	src += "source: |\n  __global__ void k(float *C, float *A, float *B, int N, int P)\n  {\n"
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		src += "    " + line + "\n"
	}
	src += "  }\ngrid: [2, 2]\n"
	k, err := kernel.Parse("inline.yaml", []byte(src))
	if err != nil {
		t.Fatalf("kernel: %v\n%s", err, src)
	}
	l, err := BindGrid(k, nil, block, arch.Dim3{}, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestAffineViewByHand checks views worked out by hand: columns
// (outermost first, thread indices before loops), and per reference its
// subscripts as rows of (offset, coefficient per column).
func TestAffineViewByHand(t *testing.T) {
	tests := []struct {
		name, dims, body string
		block            arch.Dim3
		cols             []string // var, step and problem size: "k:1:p"
		refs             map[string][][]int64
	}{
		{"vecadd", "[N]", `
int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i < N)
  C[i] = A[i] + B[i];`, arch.Dim3{X: 32, Y: 1, Z: 1},
			[]string{"threadIdx.x:1"},
			map[string][][]int64{"A[i]": {{0, 1}}, "C[i]": {{0, 1}}}},
		// J14's mapping β written by hand: row from ty, col from tx, flat
		// subscripts split into A[ty][k], B[k][tx], C[ty][tx] (Listing 1's
		// matrices over i1→ty, i2→tx, i3).
		{"matmul flat", "[N, N]", `
int row = blockIdx.y * blockDim.y + threadIdx.y;
int col = blockIdx.x * blockDim.x + threadIdx.x;
float acc = 0;
for (int k = 0; k < N; k++)
  acc += A[row * N + k] * B[k * N + col];
C[row * N + col] = acc;`, arch.Dim3{X: 16, Y: 4, Z: 1},
			[]string{"threadIdx.y:1", "threadIdx.x:1", "k:1:p"},
			map[string][][]int64{
				"A[row*N+k]":   {{0, 1, 0, 0}, {0, 0, 0, 1}},
				"B[k*N+col]":   {{0, 0, 0, 1}, {0, 0, 1, 0}},
				"C[row*N+col]": {{0, 1, 0, 0}, {0, 0, 1, 0}}}},
		// Transpose: out[x][y] = in[y][x]; blockIdx terms left out.
		{"transpose", "[N, N]", `
int x = blockIdx.x * 16 + threadIdx.x;
int y = blockIdx.y * 16 + threadIdx.y;
C[x * N + y] = A[y * N + x];`, arch.Dim3{X: 16, Y: 16, Z: 1},
			[]string{"threadIdx.y:1", "threadIdx.x:1"},
			map[string][][]int64{"A[y*N+x]": {{0, 1, 0}, {0, 0, 1}}, "C[x*N+y]": {{0, 0, 1}, {0, 1, 0}}}},
		// Two induction variables: b follows a, b = (N/4)·a; a blockDim
		// term becomes a number; the offset is work group 0's.
		{"two variables", "[N, N]", `
int a0 = blockIdx.y * N + 1;
for (int a = a0, b = 2; a < a0 + N; a += 4, b += N) {
  C[a + blockDim.x * threadIdx.y + threadIdx.x] = A[b + threadIdx.x];
}`, arch.Dim3{X: 8, Y: 2, Z: 1},
			[]string{"threadIdx.y:1", "threadIdx.x:1", "a:4:p"},
			map[string][][]int64{
				// b + tx = 2 + 16(a − a0) + tx = 16a + tx − 14 in work
				// group 0 (a0 = 1); split by the strides (64, 1): row 0
				// gets −1, row 1 the rest, 50 + tx + 16a.
				"A[b+threadIdx.x]":                        {{-1, 0, 0, 0}, {50, 0, 1, 16}},
				"C[a+blockDim.x*threadIdx.y+threadIdx.x]": {{0, 0, 0, 0}, {0, 8, 1, 1}}}},
		// An induction variable stepped in the body (Ryoo's indexA++,
		// indexB += N) and a loop counting down.
		{"body induction", "[N, N]", `
int indexA = threadIdx.y * N;
int indexB = threadIdx.x;
for (int i = 0; i < N; i++) {
  C[indexA] = A[indexB];
  indexA++;
  indexB += N;
}
for (int j = N - 1; j >= 0; j -= 2)
  B[j * N + threadIdx.x] = 0;`, arch.Dim3{X: 16, Y: 4, Z: 1},
			[]string{"threadIdx.y:1", "threadIdx.x:1", "i:1:p", "j:-2:p"},
			map[string][][]int64{
				"C[indexA]":          {{0, 1, 0, 0, 0}, {0, 0, 0, 1, 0}},
				"A[indexB]":          {{0, 0, 0, 1, 0}, {0, 0, 1, 0, 0}},
				"B[j*N+threadIdx.x]": {{0, 0, 0, 0, 1}, {0, 0, 1, 0, 0}}}},
	}
	for _, tc := range tests {
		l := threadKernel(t, tc.dims, tc.body, tc.block, nil)
		var cols []string
		for _, c := range l.AccessColumns() {
			s := fmt.Sprintf("%s:%d", c.Var, c.Step)
			if c.ProblemSize {
				s += ":p"
			}
			cols = append(cols, s)
		}
		if !slices.Equal(cols, tc.cols) {
			t.Errorf("%s: columns %v; want %v", tc.name, cols, tc.cols)
		}
		for i, r := range l.Refs {
			want, ok := tc.refs[r.Text]
			if !ok {
				continue
			}
			forms, err := l.IndexForms(i)
			if err != nil {
				t.Errorf("%s: %s: %v", tc.name, r.Text, err)
				continue
			}
			var got [][]int64
			for _, f := range forms {
				got = append(got, append([]int64{f.Const}, f.Coef...))
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s: %s: forms %v; want %v", tc.name, r.Text, got, want)
			}
		}
	}
}

// TestAffineViewNotAffine: a subscript that is not affine in thread and
// block indices is an error at the reference that says why; the view
// does not guess.
func TestAffineViewNotAffine(t *testing.T) {
	tests := []struct {
		name, body, why string
	}{
		{"product", "C[threadIdx.x * threadIdx.y] = 0;", "threadIdx.x * threadIdx.y multiplies two terms that are not constants"},
		{"block times thread", "C[blockIdx.x * threadIdx.x] = 0;", "multiplies two terms that are not constants (blockIdx.x and threadIdx.x)"},
		{"division", "C[threadIdx.x / 2] = 0;", "threadIdx.x / 2 divides a term that is not a constant"},
		{"remainder", "int t = threadIdx.x;\nC[t % 8] = 0;", "t % 8 takes the remainder of a term that is not a constant"},
		{"min", "C[min(threadIdx.x, 5)] = 0;", "takes the min of a term that is not a constant"},
		{"conditional", "C[threadIdx.x < 4 ? threadIdx.x : 0] = 0;", "is a conditional expression whose condition is not a constant"},
		{"under an if", "int j = threadIdx.x;\nif (threadIdx.y > 0)\n  j = j + 1;\nC[j] = 0;", "j is assigned under the condition at"},
		{"accumulator", "int s = 1;\nfor (int k = 0; k < 4; k++) {\n  C[s + threadIdx.x] = 0;\n  s = s * 2;\n}", "s is assigned at 13:7 inside the loop at 11:5 (s = s * 2), so it changes from iteration to iteration"},
		{"stepped by a loop variable", "int s = 0;\nfor (int k = 0; k < 4; k++) {\n  s += k;\n  C[s] = 0;\n}", "s steps by k at 12:7, which changes inside the loop, so it is not an induction variable of the loop at 11:5"},
		{"step not constant", "for (int i = threadIdx.x; i < N; i += blockIdx.x + 1)\n  C[i] = 0;", "i steps by blockIdx.x + 1 at 10:38, which is not a constant"},
		{"halving", "for (int s = 16; s > 0; s >>= 1)\n  C[s + threadIdx.x] = 0;", "s is assigned at 10:29 inside the loop at 10:5 (s >>= 1)"},
		{"after the loop", "int j = 0;\nfor (int k = 0; k < 4; k++)\n  j += 2;\nC[j + threadIdx.x] = 0;", "j is read after the loop at 11:5 that changes it"},
		{"no value", "int j;\nC[j] = 0;", "j has no value yet"},
	}
	for _, tc := range tests {
		l := threadKernel(t, "[N]", tc.body, arch.Dim3{X: 32, Y: 2, Z: 1}, nil)
		i := slices.IndexFunc(l.Refs, func(r Ref) bool { return r.Array == "C" })
		r := l.Refs[i]
		_, err := l.IndexForms(i)
		want := fmt.Sprintf("inline.yaml:%d:%d: %s: not affine in thread and block indices: ", r.Line, r.Col, r.Text)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: IndexForms(%s) error %v; want %q…%q", tc.name, r.Text, err, want, tc.why)
		}
		if _, err2 := l.EnclosingLoops(i); err2 == nil || err2.Error() != fmt.Sprint(err) {
			t.Errorf("%s: EnclosingLoops error %v; want IndexForms' %v", tc.name, err2, err)
		}
	}
}

// TestAffineViewShared: shared-memory references are not part of the
// models, and say so.
func TestAffineViewShared(t *testing.T) {
	l := threadKernel(t, "[N]", "__shared__ float s[32];\ns[threadIdx.x] = A[threadIdx.x];\nC[threadIdx.x] = s[threadIdx.x];",
		arch.Dim3{X: 32, Y: 1, Z: 1}, nil)
	for i, r := range l.Refs {
		_, err := l.IndexForms(i)
		if shared := r.Space == kernel.SpaceShared; shared != (err != nil) || shared && !strings.Contains(err.Error(), "shared memory") {
			t.Errorf("%s (%v): IndexForms error %v", r.Text, r.Space, err)
		}
	}
}
