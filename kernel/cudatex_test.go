package kernel

import (
	"strings"
	"testing"
)

// texYAML is cudaYAML with array A in texture memory.
func texYAML(src, extra string) string {
	return strings.Replace(cudaYAML(src, extra), "A: {type: f32, dims: [N]}", "A: {type: f32, dims: [N], space: texture}", 1)
}

// TestTexFetch: tex1Dfetch(A, i) reads element i of A, a texture array,
// as a load of A marked Fetch; A[i] of a texture array is a plain read
// of the same space; both print back as written.
func TestTexFetch(t *testing.T) {
	src := sig + "int i = threadIdx.x;\nC[i] = tex1Dfetch(A, i + 1) + A[i];\n}"
	k, err := Parse("t.yaml", []byte(texYAML(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	refs := k.Program.Refs
	if len(refs) != 3 || refs[0].Fetch != FetchTex1D || refs[0].Text != "tex1Dfetch(A,i+1)" || refs[1].Fetch != NoFetch || refs[0].Array.Space != SpaceTexture {
		t.Fatalf("refs %+v %+v; want tex1Dfetch(A,i+1) marked Fetch and A[i] not, A in texture memory", refs[0], refs[1])
	}
	if got := FormatSource(k.Program); !strings.Contains(got, "tex1Dfetch(A, i + 1) + A[i]") {
		t.Errorf("FormatSource:\n%s\nwant tex1Dfetch(A, i + 1) + A[i]", got)
	}
	if err := k.SetSpaces(map[string]Space{"A": SpaceGlobal}); err == nil || !strings.Contains(err.Error(), "t.yaml:10:10: tex1Dfetch reads a texture, and array A is in global memory") {
		t.Errorf("SetSpaces(A=global) = %v; want an error at the fetch", err)
	}
}

// TestTexFetchErrors: what tex1Dfetch refuses, at its position.
func TestTexFetchErrors(t *testing.T) {
	for _, tc := range []cudaError{
		{src: sig + "C[0] = tex1Dfetch(B, 0);\n}", line: 2, mark: "B,", msg: "tex1Dfetch reads a texture, and array B is in global memory; hint: bind it to a texture: give B space: texture"},
		{src: sig + "C[0] = tex1Dfetch(C, 0);\n}", line: 2, mark: "C,", msg: "tex1Dfetch reads a 1-D array; C has 2 dimensions"},
		{src: sig + "C[0] = tex1Dfetch(alpha, 0);\n}", line: 2, mark: "alpha", msg: "tex1Dfetch reads an array of the kernel file; found"},
		{src: sig + "C[0] = tex2D(A, 0, 0);\n}", line: 2, mark: "A,", msg: "tex2D reads a 2-D array; A has 1 dimensions; hint: declare A with two dimensions"},
		{src: sig + "C[0] = tex3D(A, 0, 0, 0);\n}", line: 2, mark: "tex3D", msg: "tex3D is not simulated: only tex1Dfetch of linear memory and tex2D of a cudaArray are"},
		{src: sig + "A[0] = 1;\n}", line: 2, mark: "A", msg: "store to texture array A (A[0]); hint: a kernel only reads through a texture"},
	} {
		tc.check(t, texYAML, 8)
	}
}

// tex2DYAML is cudaYAML with a 2-D texture array I of M rows and N
// columns, the parameter const float *I (sigI), so the source starts on
// the file's line 9.
func tex2DYAML(src, extra string) string {
	return strings.Replace(cudaYAML(src, extra), "  C: {type: f32, dims: [N, M]}\n", "  C: {type: f32, dims: [N, M]}\n  I: {type: f32, dims: [M, N], space: texture}\n", 1)
}

const sigI = "__global__ void k(float *A, int *B, float *C, const float *I, int N, float alpha) {\n"

// TestTex2D: tex2D(I, x, y) reads element I[y][x] of a 2-D texture array
// (subscripts [y, x], outermost first), marks I a cudaArray, and prints
// back as written; -spaces moving I out of texture memory is an error at
// the fetch.
func TestTex2D(t *testing.T) {
	src := sigI + "int i = threadIdx.x;\nC[i][0] = tex2D(I, i + 1, 2 * i) + A[i];\n}"
	k, err := Parse("t.yaml", []byte(tex2DYAML(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	r := k.Program.Refs[0]
	if r.Fetch != FetchTex2D || r.Text != "tex2D(I,i+1,2*i)" || r.Index[0].String() != "2 * i" || r.Index[1].String() != "i + 1" {
		t.Fatalf("ref %+v (index %v); want tex2D(I,i+1,2*i) with subscripts [2 * i, i + 1]", r, r.Index)
	}
	if !k.Program.CUDAArray("I") || k.Program.CUDAArray("A") {
		t.Errorf("CUDAArray(I), CUDAArray(A) = %v, %v; want true, false", k.Program.CUDAArray("I"), k.Program.CUDAArray("A"))
	}
	if got := FormatSource(k.Program); !strings.Contains(got, "tex2D(I, i + 1, 2 * i) + A[i]") {
		t.Errorf("FormatSource:\n%s\nwant tex2D(I, i + 1, 2 * i) + A[i]", got)
	}
	if err := k.SetSpaces(map[string]Space{"I": SpaceGlobal}); err == nil || !strings.Contains(err.Error(), "t.yaml:11:13: tex2D reads a texture, and array I is in global memory") {
		t.Errorf("SetSpaces(I=global) = %v; want an error at the fetch", err)
	}
}

// TestTex2DErrors: what tex2D refuses, at its position.
func TestTex2DErrors(t *testing.T) {
	colMajor := func(src, extra string) string {
		return strings.Replace(tex2DYAML(src, extra), "space: texture}", "space: texture, layout: col-major}", 1)
	}
	for _, tc := range []struct {
		cudaError
		yaml func(src, extra string) string
	}{
		{cudaError{src: sigI + "C[0][0] = tex2D(C, 0, 0);\n}", line: 2, mark: "C,", msg: "tex2D reads a texture, and array C is in global memory; hint: bind it to a texture"}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0.5f, 0);\n}", line: 2, mark: "0.5f", msg: "coordinate x of tex2D(I, ...) depends on float data (float literal 0.5f); coordinates are integer texel indices here"}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0, B[0]);\n}", line: 2, mark: "B[", msg: "indirect coordinates are not supported yet: coordinate y of tex2D(I, ...) reads B"}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0);\n}", line: 2, mark: ")", msg: `expected ",", found ")"; hint: write tex2D(A, x, y)`}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0, 0) +\n  I[0][1];\n}", line: 3, mark: "I[", msg: "I[0][1] reads array I as linear memory, and the tex2D at 10:13 makes it a cudaArray, laid out block-linear; hint: read I with tex2D(I, x, y) everywhere"}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0, 0);\nI[0][0] = 1;\n}", line: 3, mark: "I[", msg: "store through const pointer I (I[0][0])"}, tex2DYAML},
		{cudaError{src: sigI + "C[0][0] = tex2D(I, 0, 0);\n}", line: 2, mark: "I,", msg: "tex2D reads a cudaArray, laid out block-linear, and array I has layout: col-major"}, colMajor},
	} {
		tc.check(t, tc.yaml, 9)
	}
}
