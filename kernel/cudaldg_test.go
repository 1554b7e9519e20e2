package kernel

import (
	"strings"
	"testing"
)

// TestLDG: __ldg(&A[i]) and __ldg(A + i) read element i of A marked
// FetchLDG (the second prints back in the first form); a const
// __restrict__ pointer parameter is ReadOnlyArg, a const one without
// __restrict__ and a __restrict__ one without const are not.
func TestLDG(t *testing.T) {
	src := "__global__ void k(const float * __restrict__ A, const int *B, float * __restrict__ C, int N, float alpha) {\n" +
		"int i = threadIdx.x;\nC[i][0] = __ldg(&A[i + 1]) + __ldg(A + 2 * i) + A[i] + __ldg(&C[i][1]);\n}"
	k, err := Parse("t.yaml", []byte(cudaYAML(src, "")))
	if err != nil {
		t.Fatal(err)
	}
	refs := k.Program.Refs
	var texts []string
	for _, r := range refs {
		texts = append(texts, r.Fetch.String()+" "+r.Text)
	}
	want := "__ldg __ldg(&A[i+1]); __ldg __ldg(A+2*i); plain A[i]; __ldg __ldg(&C[i][1]); plain C[i][0]"
	if got := strings.Join(texts, "; "); got != want {
		t.Errorf("refs %s; want %s", got, want)
	}
	if got := FormatSource(k.Program); !strings.Contains(got, "C[i][0] = __ldg(&A[i + 1]) + __ldg(&A[2 * i]) + A[i] + __ldg(&C[i][1]);") {
		t.Errorf("FormatSource:\n%s\nwant the reads printed as __ldg(&A[...])", got)
	}
	for _, tc := range []struct {
		name string
		want bool
	}{{"A", true}, {"B", false}, {"C", false}, {"N", false}} {
		if got := k.Program.ReadOnlyArg(tc.name); got != tc.want {
			t.Errorf("ReadOnlyArg(%s) = %v; want %v", tc.name, got, tc.want)
		}
	}
	if err := k.SetSpaces(map[string]Space{"A": SpaceTexture}); err == nil || !strings.Contains(err.Error(), "t.yaml:10:13: __ldg reads global memory through the read-only data cache, and array A is in texture memory (__ldg(&A[i+1]))") {
		t.Errorf("SetSpaces(A=texture) = %v; want an error at the first __ldg", err)
	}
}

// TestLDGErrors: what __ldg and const pointers refuse, at the position.
func TestLDGErrors(t *testing.T) {
	constA := func(src, extra string) string {
		return cudaYAML(strings.Replace(src, "float *A", "const float *A", 1), extra)
	}
	for _, tc := range []struct {
		cudaError
		yaml func(src, extra string) string
	}{
		{cudaError{src: sig + "C[0][0] = __ldg(&alpha);\n}", line: 2, mark: "alpha", msg: `__ldg reads an element of an array of the kernel file; found "alpha"; hint: write __ldg(&A[i]) or __ldg(A + i)`}, cudaYAML},
		{cudaError{src: sig + "C[0][0] = __ldg(A[0]);\n}", line: 2, mark: "[0])", msg: `expected "+", found "["; hint: write __ldg(&A[i]) or __ldg(A + i)`}, cudaYAML},
		{cudaError{src: sig + "C[0][0] = __ldg(&A[0], 1);\n}", line: 2, mark: ", 1", msg: `expected ")", found ","; hint: close __ldg( with ); it takes one address`}, cudaYAML},
		{cudaError{src: sig + "C[0][0] = __ldg(A + alpha);\n}", line: 2, mark: "alpha)", msg: "index of A depends on float data (float parameter alpha)"}, cudaYAML},
		{cudaError{src: sig + "C[0][0] = __ldg(&A[0]);\n}", line: 2, mark: "A[", msg: "__ldg reads global memory through the read-only data cache, and array A is in texture memory; hint: read A as A[i]"}, texYAML},
		{cudaError{src: "__constant__ float A[N];\n" + sigB + "C[0][0] = __ldg(&A[0]);\n}", line: 3, mark: "A[", msg: "__ldg reads global memory, and A is declared __constant__; hint: read A as A[i]: the constant cache serves it"}, cudaYAML},
		{cudaError{src: sig + "A[1] = 2;\n}", line: 2, mark: "A[", msg: "store through const pointer A (A[1]); hint: drop const from the parameter A"}, constA},
		{cudaError{src: sig + "A[1] += 2;\n}", line: 2, mark: "A[", msg: "store through const pointer A (A[1])"}, constA},
	} {
		tc.check(t, tc.yaml, 8)
	}
}
