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
	if len(refs) != 3 || !refs[0].Fetch || refs[0].Text != "tex1Dfetch(A,i+1)" || refs[1].Fetch || refs[0].Array.Space != SpaceTexture {
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
		{src: sig + "C[0] = tex2D(A, 0, 0);\n}", line: 2, mark: "tex2D", msg: "tex2D is not simulated: only 1-D fetches of linear memory (tex1Dfetch) are"},
		{src: sig + "A[0] = 1;\n}", line: 2, mark: "A", msg: "store to texture array A (A[0]); hint: a kernel only reads through a texture"},
	} {
		tc.check(t, texYAML, 8)
	}
}
