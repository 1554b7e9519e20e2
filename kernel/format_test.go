package kernel_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/kernel"
)

// roundTrip formats k, parses the text back and formats that again: the
// two texts must be equal (Format is idempotent) and the two kernels the
// same (sameKernel). It returns the first text.
func roundTrip(k *kernel.Kernel) ([]byte, error) {
	out := kernel.Format(k)
	k2, err := kernel.Parse("formatted.yaml", out)
	if err != nil {
		return out, fmt.Errorf("Parse(Format(k)): %v\n%s", err, out)
	}
	if out2 := kernel.Format(k2); !bytes.Equal(out, out2) {
		return out, fmt.Errorf("Format is not idempotent:\n%s\nthen\n%s", out, out2)
	}
	if err := sameKernel(k, k2); err != nil {
		return out, fmt.Errorf("Parse(Format(k)) differs from k: %v\n%s", err, out)
	}
	return out, nil
}

// sameKernel compares what the IR says of two kernels: everything but
// positions and the source's own text.
func sameKernel(a, b *kernel.Kernel) error {
	type arr struct {
		Name, Type, Dims, Layout, Space string
		Align                           int64
		Base                            uint64
		HasBase                         bool
		Data, Remap                     string
	}
	arrays := func(k *kernel.Kernel) []arr {
		var out []arr
		for _, x := range k.Arrays {
			remap := ""
			if x.Remap != nil {
				remap = x.Remap.Text()
			}
			out = append(out, arr{x.Name, x.Type.String(), exprs(x.Dims), x.Layout.String(), x.Space.String(), x.Align, x.Base, x.HasBase, dataText(x.Data), remap})
		}
		return out
	}
	head := func(k *kernel.Kernel) string {
		m := "none"
		if k.Matrix != nil {
			m = fmt.Sprintf("%s params %q %q %q", dataText(&k.Matrix.Data), k.Matrix.Rows, k.Matrix.Cols, k.Matrix.NNZ)
		}
		return fmt.Sprintf("name %q desc %q params %v mapping %s block %v grid [%s] regs %d smem %d dependent %v matrix %s",
			k.Name, k.Description, k.Params, k.Mapping, k.Block, exprs(k.Grid), k.Regs, k.Smem, k.Dependent, m)
	}
	if ha, hb := head(a), head(b); ha != hb {
		return fmt.Errorf("%s\nagainst %s", ha, hb)
	}
	if aa, ab := arrays(a), arrays(b); !reflect.DeepEqual(aa, ab) {
		return fmt.Errorf("arrays %v against %v", aa, ab)
	}
	if pa, pb := program(a.Program), program(b.Program); pa != pb {
		return fmt.Errorf("program\n%s\nagainst\n%s", pa, pb)
	}
	if la, lb := launches(a), launches(b); la != lb {
		return fmt.Errorf("launches\n%s\nagainst\n%s", la, lb)
	}
	return nil
}

// dataText writes where contents come from fully.
func dataText(d *kernel.Data) string {
	if d == nil {
		return ""
	}
	out := fmt.Sprintf("gen %q file %q part %q", d.Gen, d.File, d.Part)
	for _, a := range d.Args {
		if a.Value != nil {
			out += fmt.Sprintf(" %s=%s", a.Key, exprTree(a.Value))
		} else {
			out += fmt.Sprintf(" %s=%v", a.Key, a.Num)
		}
	}
	return out
}

// launches writes a kernel file's launches fully, one entry a line.
func launches(k *kernel.Kernel) string {
	var b strings.Builder
	for _, h := range k.Launches {
		if h.Var != "" {
			fmt.Fprintf(&b, "for %s from %s to %s step %d; ", h.Var, exprTree(h.From), exprTree(h.To), h.Step)
		}
		fmt.Fprintf(&b, "grid [%s] set", exprs(h.Grid))
		for _, p := range h.Set {
			fmt.Fprintf(&b, " %s=%s", p.Name, exprTree(p.Value))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// exprs writes expressions fully: what String leaves out (the local an
// ExprScalar is, the value of a named constant) included.
func exprs(es []*kernel.Expr) string {
	var s []string
	for _, e := range es {
		s = append(s, exprTree(e))
	}
	return strings.Join(s, ", ")
}

func exprTree(e *kernel.Expr) string {
	switch e.Kind {
	case kernel.ExprConst:
		if e.Name != "" {
			return fmt.Sprintf("%s=%d", e.Name, e.Val)
		}
		return fmt.Sprint(e.Val)
	case kernel.ExprScalar, kernel.ExprLoop:
		return fmt.Sprintf("%s#%d", e.Name, e.Index)
	case kernel.ExprFloat, kernel.ExprParam:
		return fmt.Sprintf("%d:%s", e.Kind, e.Name)
	case kernel.ExprSpecial:
		return kernel.Special(e.Index).String()
	case kernel.ExprLoad:
		return fmt.Sprintf("%s@%d[%s]", e.Name, e.Index, exprs(e.Args))
	}
	return fmt.Sprintf("%d%s(%s)", e.Kind, e.Name, exprs(e.Args))
}

// program writes the structure of a program: each loop with its index,
// depth, parent and bounds, each statement with its references (array,
// store or load, subscripts), its scalar and value, and its instruction
// count.
func program(p *kernel.Program) string {
	var b strings.Builder
	for _, l := range p.Loops {
		parent := -1
		if l.Parent != nil {
			parent = l.Parent.Index
		}
		fmt.Fprintf(&b, "loop %d %s depth %d parent %d: %s to %s by %s\n", l.Index, l.Var, l.Depth, parent, l.Lower, l.Upper, l.Step)
	}
	for _, s := range p.Stmts {
		fmt.Fprintf(&b, "stmt %d: scalar %q decl %v %q", s.Index, s.Scalar, s.Decl, s.Assign)
		if s.Value != nil {
			fmt.Fprintf(&b, " %s", exprTree(s.Value))
		}
		fmt.Fprintf(&b, " compute %d refs", s.Compute)
		refs := s.Loads
		if s.Store != nil {
			refs = append(refs[:len(refs):len(refs)], s.Store)
		}
		for _, r := range refs {
			fmt.Fprintf(&b, " %d:%s[%s] store=%v", r.ID, r.Array.Name, exprs(r.Index), r.Store)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d refs\n", len(p.Refs))
	if p.Form == kernel.PerThread {
		perThread(&b, p)
	}
	return b.String()
}

// perThread writes what a per-thread program adds: its signature,
// defines, locals, shared arrays, __constant__ declarations and the tree
// of its body.
func perThread(b *strings.Builder, p *kernel.Program) {
	fmt.Fprintf(b, "func %s\n", p.Func)
	for _, a := range p.Args {
		array := ""
		if a.Array != nil {
			array = a.Array.Name
		}
		fmt.Fprintf(b, "arg %s %q int %v array %q\n", a.Name, a.Type, a.Int, array)
	}
	for _, d := range p.Defines {
		fmt.Fprintf(b, "define %s %s = %d\n", d.Name, exprTree(d.Value), d.Val)
	}
	for _, l := range p.Locals {
		fmt.Fprintf(b, "local %d %s %q int %v\n", l.Index, l.Name, l.Type, l.Int)
	}
	for _, a := range p.Shared {
		fmt.Fprintf(b, "shared %s %s [%s] %s align %d\n", a.Name, a.Type, exprs(a.Dims), a.Space, a.Align)
	}
	for _, d := range p.Constants {
		fmt.Fprintf(b, "constant %s %s [%s] %s\n", d.Array.Name, d.Array.Type, exprs(d.Dims), d.Array.Space)
	}
	tree(b, p.Body, "")
}

// tree writes a body: statements by index and local, the other nodes
// with their conditions and counts.
func tree(b *strings.Builder, nodes []kernel.Node, indent string) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *kernel.Stmt:
			local := -1
			if n.Local != nil {
				local = n.Local.Index
			}
			fmt.Fprintf(b, "%sstmt %d local %d\n", indent, n.Index, local)
		case *kernel.If:
			fmt.Fprintf(b, "%sif %s compute %d\n", indent, exprTree(n.Cond), n.Compute)
			tree(b, n.Then, indent+"  ")
			fmt.Fprintf(b, "%selse\n", indent)
			tree(b, n.Else, indent+"  ")
		case *kernel.While:
			fmt.Fprintf(b, "%swhile %s init %d compute %d unroll %v\n", indent, exprTree(n.Cond), n.Init, n.Compute, n.Unroll)
			tree(b, n.Body, indent+"  ")
			fmt.Fprintf(b, "%spost\n", indent)
			tree(b, n.Post, indent+"  ")
		case *kernel.Barrier:
			fmt.Fprintf(b, "%sbarrier\n", indent)
		case *kernel.Return:
			fmt.Fprintf(b, "%sreturn\n", indent)
		default:
			fmt.Fprintf(b, "%s%T\n", indent, n)
		}
	}
}

// TestFormatRoundTrip formats every shipped example (loop nests and
// per-thread kernels), every kernel of testdata/bind (they parse; binding
// is what fails) and kernels written to use every form the printer must
// get right, in both source forms.
func TestFormatRoundTrip(t *testing.T) {
	var ks []*kernel.Kernel
	for _, n := range kernel.Examples() {
		k, err := kernel.Load(n)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	files, _ := filepath.Glob("testdata/bind/*.yaml")
	for _, f := range append(files, "testdata/fuzz/seed-forms.yaml", "testdata/fuzz/seed-cuda-forms.yaml", "testdata/fuzz/seed-launches.yaml") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	for _, k := range ks {
		if _, err := roundTrip(k); err != nil {
			t.Errorf("%s: %v", k.File, err)
		}
	}
}

// Format prints a kernel from its IR: the keys in a fixed order, the
// source one statement per line with braces, the block in full.
func ExampleFormat() {
	k, err := kernel.Parse("vecadd.yaml", []byte(`name: vecadd
params: {N: 1000}
arrays:
  A: {type: f32, dims: [N]}   # the inputs
  B: {type: f32, dims: [N]}
  C: {type: f32, dims: ["min(N, 2*N)"], layout: col-major}
source: |
  for (i = 0; i <= N-1; i++) C[i] = ((A[i])) + -(-B[i]);
mapping: {i: tx}
`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", kernel.Format(k))
	// Output:
	// name: vecadd
	// params: {N: 1000}
	// arrays:
	//   A: {type: f32, dims: [N]}
	//   B: {type: f32, dims: [N]}
	//   C: {type: f32, dims: ['min(N, 2 * N)'], layout: col-major}
	// source: |
	//   for (i = 0; i < N - 1 + 1; i++) {
	//     C[i] = A[i] + -(-B[i]);
	//   }
	// mapping: {i: tx}
	// block: [128, 1, 1]
}

// Format prints a per-thread kernel as its __global__ function: #define
// values in parentheses, __shared__ arrays at the top, for loops with
// braces and their init in the header, x += 1 as x++, casts and comments
// dropped; then the grid after the block.
func ExampleFormat_perThread() {
	k, err := kernel.Parse("sum.yaml", []byte(`name: sum
params: {N: 4096}
arrays:
  in: {type: f32, dims: [N]}
  out: {type: f32, dims: [N / 256]}
source: |
  #define BS 256
  #define HALF (BS/2)
  __global__ void sum(const float *in, float *out) {
    __shared__ float s[BS];
    unsigned int t = threadIdx.x;
    s[t] = in[blockIdx.x * BS + t];
    __syncthreads();
    for (int k = HALF; k > 0; k >>= 1) {   // a tree
      if (t < k) s[t] += s[t + k];
      __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = (float)s[0];
  }
block: [256]
grid: [N / BS]
`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", kernel.Format(k))
	// Output:
	// name: sum
	// params: {N: 4096}
	// arrays:
	//   in: {type: f32, dims: [N]}
	//   out: {type: f32, dims: [N / 256]}
	// source: |
	//   #define BS 256
	//   #define HALF (BS / 2)
	//
	//   __global__ void sum(const float *in, float *out) {
	//     __shared__ float s[BS];
	//     unsigned int t = threadIdx.x;
	//     s[t] = in[blockIdx.x * BS + t];
	//     __syncthreads();
	//     for (int k = HALF; k > 0; k >>= 1) {
	//       if (t < k) {
	//         s[t] += s[t + k];
	//       }
	//       __syncthreads();
	//     }
	//     if (t == 0) {
	//       out[blockIdx.x] = s[0];
	//     }
	//   }
	// block: [256, 1, 1]
	// grid: [N / BS]
}
