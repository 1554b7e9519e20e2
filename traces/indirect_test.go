package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// loadFiles writes files (name → text) into a temporary directory and
// loads the kernel file k.yaml from it.
func loadFiles(t *testing.T, files map[string]string) (*kernel.Kernel, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "k.yaml")
	k, err := kernel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return k, path
}

// memTrace is a warp's memory instructions: reference, mask and the
// element index of each active lane.
func memTrace(t *testing.T, l *Launch, b, w int) []string {
	t.Helper()
	c := l.NewWarp()
	c.Reset(b, w)
	var in WarpInst
	var out []string
	for c.NextTo(&in, &in.Addr) {
		if in.Op != OpLoad && in.Op != OpStore {
			continue
		}
		r := l.Refs[in.Ref]
		ba := l.arrayNamed(r.Array, r.Space)
		var elems []string
		for i := range WarpSize {
			if in.Active>>i&1 != 0 {
				elems = append(elems, fmt.Sprint((in.Addr[i]-ba.Base)/uint64(r.Width)))
			}
		}
		out = append(out, fmt.Sprintf("%s %s %04b %s", r.Text, in.Op, in.Active, strings.Join(elems, ",")))
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tinyCSR is a 4×6 matrix whose rows hold 3, 0, 1 and 5 nonzeros:
// columns (1-based) 1 2 3 | - | 6 | 1 2 4 5 6, given out of order. So
// ROW = 0 3 3 4 9 and COL = 0 1 2 | 5 | 0 1 3 4 5 (0-based).
const tinyCSR = `%%MatrixMarket matrix coordinate pattern general
4 6 9
4 6
1 1
3 6
1 2
4 1
4 2
1 3
4 4
4 5
`

// TestDataDependentTripCount: the scalar CSR kernel's loop runs each
// lane's row length, so a warp of the four rows runs 5 iterations with
// the lanes whose rows are longer than the iteration: 0, 2, 3 (lengths
// 3, 1, 5), then 0 and 3 twice, then 3 twice; V's elements are the
// rows' columns in order.
func TestDataDependentTripCount(t *testing.T) {
	k, err := kernel.Load("spmv-csr-scalar")
	if err != nil {
		t.Fatal(err)
	}
	mtx := filepath.Join(t.TempDir(), "tiny.mtx")
	if err := os.WriteFile(mtx, []byte(tinyCSR), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := k.SetMatrix(mtx); err != nil {
		t.Fatal(err)
	}
	l, err := BindGrid(k, nil, arch.Dim3{X: 4, Y: 1, Z: 1}, arch.Dim3{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ROW[row] load 1111 0,1,2,3", "ROW[row+1] load 1111 1,2,3,4"}
	iters := []struct {
		mask     string
		nz, cols string
	}{{"1101", "0,3,4", "0,5,0"}, {"1001", "1,5", "1,1"}, {"1001", "2,6", "2,3"}, {"1000", "7", "4"}, {"1000", "8", "5"}}
	for _, it := range iters {
		want = append(want, "DATA[jj] load "+it.mask+" "+it.nz, "COL[jj] load "+it.mask+" "+it.nz, "V[COL[jj]] load "+it.mask+" "+it.cols)
	}
	want = append(want, "Y[row] load 1111 0,1,2,3", "Y[row] store 1111 0,1,2,3")
	if got := memTrace(t, l, 0, 0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the warp's memory instructions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// indexKernel is a per-thread kernel of 8 threads over COL (of type
// colType, its contents cols.txt unless data says otherwise) and V, with
// body as its statements.
func indexKernel(t *testing.T, colType, data, cols, body string) (*Launch, error) {
	t.Helper()
	if data == "" {
		data = ", data: {file: cols.txt}"
	}
	ctype := map[string]string{"i32": "int", "u8": "unsigned char", "i64": "long"}[colType]
	k, _ := loadFiles(t, map[string]string{
		"cols.txt": cols,
		"k.yaml": `name: t
arrays:
  COL: {type: ` + colType + `, dims: [8]` + data + `}
  V: {type: f32, dims: [8]}
source: |
  __global__ void k(` + ctype + ` *COL, float *V) {
    int i = threadIdx.x;
    ` + body + `
  }
block: [8]
grid: [1]
`})
	return BindGrid(k, nil, arch.Dim3{}, arch.Dim3{}, nil, nil)
}

// TestDataDependentBranch: COL = 3 1 2 0 7 5 6 4, so COL[i] > 1 holds in
// lanes 0, 2, 4, 5, 6, 7 (mask 11110101), which store V[i]; lanes 1 and
// 3 store V[COL[i]], elements 1 and 0. The condition's read of COL comes
// first, with every lane.
func TestDataDependentBranch(t *testing.T) {
	l, err := indexKernel(t, "i32", "", "3 1 2 0 7 5 6 4", "if (COL[i] > 1) V[i] = 1; else V[COL[i]] = 2;")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"COL[i] load 11111111 0,1,2,3,4,5,6,7",
		"V[i] store 11110101 0,2,4,5,6,7",
		"COL[i] load 1010 1,3",
		"V[COL[i]] store 1010 1,0",
	}
	if got := memTrace(t, l, 0, 0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the warp's memory instructions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestIndexOutsideItsArray: COL[2] = 9 indexes V of 8 elements: the
// error names the reference, the thread, the index element and its value.
func TestIndexOutsideItsArray(t *testing.T) {
	l, err := indexKernel(t, "i32", "", "3 1 9 0 7 5 6 4", "V[COL[i]] = 0;")
	if err != nil {
		t.Fatal(err)
	}
	for range l.Stream() {
	}
	want := "k.yaml:8:5: V[COL[i]]: thread (2,0,0) of block (0,0,0) reads COL[2] = 9, which makes index 9, outside [0, 8) of V; hint: the contents of COL (its data:) must index V"
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Err() = %v\nwant ...%s...", err, want)
	}
}

// TestIndexDataErrors: contents that do not fit their array, a store
// to an array with contents, and an index read of an array without any.
// The file's line 3 is COL's declaration, whose data: mapping starts in
// column 37 (36 for u8, one letter shorter); line 8 is the body.
func TestIndexDataErrors(t *testing.T) {
	for _, tc := range []struct{ typ, data, cols, body, want string }{
		{"i32", "", "1 2 3 4 5 6 7", "V[COL[i]] = 0;", "k.yaml:3:37: array COL: data: 7 values for the 8 elements of COL; hint:"},
		{"u8", "", "1 2 3 4 5 6 7 300", "V[COL[i]] = 0;", "k.yaml:3:36: array COL: data: values from 1 to 300, which COL (u8) cannot hold; hint:"},
		{"i32", "", "0 1 2 3 4 5 6 7", "COL[i] = 0;", "k.yaml:8:5: COL[i] stores to COL, whose contents data: gives: the simulator does not follow the values a kernel writes; hint:"},
		{"i32", " ", "", "V[COL[i]] = 0;", "k.yaml:8:7: COL[i] is read as an integer, and array COL has no contents; hint:"},
		{"i32", ", data: {gen: uniform, lo: 0, hi: 9}", "", "if (COL[i] < 0) V[i] = 0;", ""},
	} {
		_, err := indexKernel(t, tc.typ, tc.data, tc.cols, tc.body)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s with %q: %v\nwant ...%s", tc.body, tc.cols, err, tc.want)
		}
	}
}
