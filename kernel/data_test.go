package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gpumemsim/kernel"
)

// indirectYAML is a per-thread kernel file whose arrays take index data;
// matrix and data are the YAML of its matrix: and of COL's data:.
func indirectYAML(matrix, data string) string {
	return `name: t
params: {P: 64}
` + matrix + `arrays:
  ROW: {type: i32, dims: [P]}
  COL: {type: i32, dims: [P], data: ` + data + `}
  V: {type: f32, dims: [P]}
source: |
  __global__ void k(const int *ROW, const int *COL, float *V) {
    int i = threadIdx.x;
    V[COL[i]] = 0;
  }
grid: [1]
`
}

func TestDataKeys(t *testing.T) {
	k, err := kernel.Parse("t.yaml", []byte(indirectYAML("", "{gen: uniform, lo: 1, hi: P - 1, seed: 9}")))
	if err != nil {
		t.Fatal(err)
	}
	d := k.Arrays[1].Data
	if d == nil || d.Gen != "uniform" || len(d.Args) != 3 || d.Arg("hi").Value.String() != "P - 1" || fmt.Sprintf("t.yaml:%d:%d", d.Line, d.Col) != posOf(indirectYAML("", "{gen: uniform"), "{gen: uniform") {
		t.Fatalf("COL's data = %+v; want uniform with lo, hi = P - 1, seed, at its {", d)
	}
	if _, err := roundTrip(k); err != nil {
		t.Error(err)
	}
	mat := "matrix:\n  gen: powerlaw\n  rows: P\n  avg: 2.5\n  exponent: 2.2\n  params: {rows: M, nnz: NNZ}\n"
	if k, err = kernel.Parse("t.yaml", []byte(indirectYAML(mat, "{matrix: col}"))); err != nil {
		t.Fatal(err)
	}
	m := k.Matrix
	if m == nil || m.Gen != "powerlaw" || m.Arg("avg").Num != 2.5 || m.Arg("exponent").Num != 2.2 || !slices.Equal(m.Params(), []string{"M", "NNZ"}) {
		t.Fatalf("matrix = %+v; want powerlaw, avg 2.5, exponent 2.2, params M and NNZ", m)
	}
	if _, err := roundTrip(k); err != nil {
		t.Error(err)
	}
}

func TestDataErrors(t *testing.T) {
	mat := "matrix: {mtx: m.mtx, params: {rows: M}}\n"
	// Each error is at the first place its mark occurs in the file.
	for _, tc := range []struct{ matrix, data, mark, want string }{
		{"", "{gen: shuffle}", "shuffle", `array COL: data: unknown generator "shuffle"; hint: the generators are permutation, strided, uniform`},
		{"", "{gen: uniform, lo: 0}", "uniform", "array COL: data: uniform needs hi; hint:"},
		{"", "{gen: uniform, hi: Q}", "Q}", "unknown param Q; hint:"},
		{"", "{gen: permutation, hi: 3}", "hi:", `array COL: data: permutation takes no "hi"; hint: permutation takes seed`},
		{"", "{gen: permutation, file: x.txt}", "file:", "array COL: data: both gen and file; hint:"},
		{"", "{seed: 3}", "{seed", "array COL: data: no source of contents; hint:"},
		{"", "{file: a.txt, seed: 3}", "seed", `array COL: data: unknown key "seed" with file; hint:`},
		{"", "{matrix: diag}", "diag", `array COL: data: unknown matrix part "diag"; hint:`},
		{"", "{matrix: col}", "{matrix", "array COL: data: {matrix: col} but the kernel file has no matrix:; hint:"},
		{"", "{gen: banded, rows: 3, width: 1}", "banded", `array COL: data: unknown generator "banded"; hint: the generators are permutation, strided, uniform`},
		{"matrix: {gen: permutation}\n", "{matrix: col}", "permutation", `matrix: unknown generator "permutation"; hint: the generators are banded, boxes, powerlaw`},
		{"matrix: {gen: boxes, rows: 8}\n", "{matrix: col}", "rows", `matrix: boxes takes no "rows"; hint: boxes takes boxes1d`},
		{"matrix: {gen: boxes}\n", "{matrix: col}", "boxes", "matrix: boxes needs boxes1d; hint:"},
		{"matrix: {gen: powerlaw, rows: 8, avg: many, exponent: 2}\n", "{matrix: col}", "many", `matrix: avg must be a number, got "many"; hint:`},
		{"matrix: {mtx: m.mtx, params: {rows: P}}\n", "{matrix: col}", "P}}", "matrix: params: P is a param already; hint:"},
		{"matrix: {mtx: m.mtx, params: {diag: D}}\n", "{matrix: col}", "diag", `unknown key "diag" in matrix: params; hint: known keys are rows, cols, nnz`},
		{mat, "{matrix: col}", "", ""},
	} {
		file := indirectYAML(tc.matrix, tc.data)
		_, err := kernel.Parse("t.yaml", []byte(file))
		want := posOf(file, tc.mark) + ": " + tc.want
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("data %s: %v", tc.data, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)):
			t.Errorf("data %s, %q: %v\nwant %s...", tc.data, tc.matrix, err, want)
		}
	}
	// data: gives integers, and only a per-thread kernel reads them.
	f32 := strings.Replace(indirectYAML("", "{gen: permutation}"), "COL: {type: i32", "COL: {type: f32", 1)
	f32 = strings.Replace(f32, "const int *COL", "const float *COL", 1)
	f32 = strings.Replace(f32, "V[COL[i]] = 0", "V[i] = COL[i]", 1)
	if _, err := kernel.Parse("t.yaml", []byte(f32)); err == nil || !strings.HasPrefix(err.Error(), posOf(f32, "{gen")+": array COL: data gives integers, and COL holds f32") {
		t.Errorf("data on a float array: %v", err)
	}
	nest := "name: t\nparams: {N: 8}\narrays:\n  A: {type: i32, dims: [N], data: {gen: permutation}}\nsource: |\n  for (i = 0; i < N; i++)\n    A[i] = 0;\nmapping: {i: tx}\n"
	if _, err := kernel.Parse("t.yaml", []byte(nest)); err == nil || !strings.HasPrefix(err.Error(), posOf(nest, "{gen")+": array A: data: a loop-nest kernel cannot read an index array; hint:") {
		t.Errorf("data in a loop nest: %v", err)
	}
}

// TestLoadReadsDataFiles: a kernel file's data files are read relative to
// it, and their errors name the file, line and column.
func TestLoadReadsDataFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("m.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n2 3\n1 1\n")
	write("cols.txt", "3 1\n2 0\n")
	mat := "matrix: {mtx: m.mtx, params: {rows: M, cols: N, nnz: NNZ}}\n"
	write("k.yaml", strings.Replace(indirectYAML(mat, "{file: cols.txt}"), "ROW: {type: i32, dims: [P]}", "ROW: {type: i32, dims: [M + 1], data: {matrix: rowptr}}", 1))
	k, err := kernel.Load(filepath.Join(dir, "k.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if v := k.Arrays[1].Data.Values; v == nil || v.Len() != 4 || v.At(0) != 3 || v.At(3) != 0 {
		t.Errorf("cols.txt read as %v; want 3 1 2 0", v)
	}
	if m := k.Matrix.CSR; m == nil || m.Rows != 2 || m.Cols != 3 || m.NNZ != 2 || m.Col.At(0) != 0 || m.Col.At(1) != 2 {
		t.Errorf("m.mtx read as %+v; want 2×3, columns 0 | 2", m)
	}
	write("m.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n2 4\n1 1\n")
	_, err = kernel.Load(filepath.Join(dir, "k.yaml"))
	want := filepath.Join(dir, "k.yaml") + ":3:9: matrix: " + filepath.Join(dir, "m.mtx") + ":3:3: column index 4 outside [1, 3]"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load with a bad m.mtx: %v\nwant %s...", err, want)
	}
}

func TestSetDataAndMatrix(t *testing.T) {
	k, err := kernel.Load("spmv-csr")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetData("COL", "strided:stride=5,mod=N"); err != nil {
		t.Fatal(err)
	}
	if d := k.Arrays[1].Data; d.Gen != "strided" || d.Arg("mod").Value.String() != "N" {
		t.Errorf("-data COL=strided:stride=5,mod=N gave %+v", d)
	}
	if err := k.SetMatrix("banded:rows=100,width=3"); err != nil {
		t.Fatal(err)
	}
	if m := k.Matrix; m.Gen != "banded" || m.File != "" || m.CSR != nil || m.NNZ != "NNZ" {
		t.Errorf("-matrix banded:rows=100,width=3 gave %+v", m)
	}
	for _, tc := range []struct{ name, spec, want string }{
		{"COL", "uniform:lo=0,hii=3", `-data COL (column 14 of uniform:lo=0,hii=3): uniform takes no "hii"; hint:`},
		{"COL", "permutation:seed", `-data COL (column 13 of permutation:seed): "seed" is not KEY=VALUE; hint:`},
		{"COL", "uniform:hi=Q", "-data COL (column 12 of uniform:hi=Q): unknown param Q; hint:"},
		{"V", "permutation", "-data V: array V: data gives integers, and V holds f32; hint:"},
		{"W", "permutation", "-data W: unknown array W; hint: the arrays of spmv-csr are DATA, COL, V, R"},
		{"COL", "file:no/such.txt", "-data COL: open no/such.txt: no such file or directory; hint:"},
		{"COL", "file:", "-data COL (column 6 of file:): file: nothing after the colon; hint:"},
		{"", "mtx:", "-matrix (column 5 of mtx:): mtx: nothing after the colon; hint:"},
		{"", "banded:rows=8", "-matrix (column 1 of banded:rows=8): banded needs width; hint:"},
		{"", "no/such.mtx", "-matrix: open no/such.mtx: no such file or directory; hint:"},
	} {
		var err error
		if tc.name == "" {
			err = k.SetMatrix(tc.spec)
		} else {
			err = k.SetData(tc.name, tc.spec)
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s %s: %v\nwant %s...", tc.name, tc.spec, err, tc.want)
		}
	}
}

// FuzzDataFlag: -data's and -matrix's specs never panic, and their
// errors name the flag. (Specs that name files are left out: a fuzzer
// must not open arbitrary paths.)
func FuzzDataFlag(f *testing.F) {
	for _, s := range []string{"permutation:seed=3", "uniform:lo=0,hi=N+1,seed=2", "strided:stride=5", "matrix:col", "banded:rows=8,width=3", "powerlaw:rows=9,avg=2,exponent=2.5", "boxes:boxes1d=3", "rays:n=4,width=3,height=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "file:") || strings.HasPrefix(spec, "mtx:") || !strings.Contains(spec, ":") {
			return
		}
		k, err := kernel.Load("spmv-csr")
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SetData("COL", spec); err != nil && !strings.HasPrefix(err.Error(), "-data COL") {
			t.Fatalf("-data COL=%s: %v", spec, err)
		}
		if err := k.SetMatrix(spec); err != nil && !strings.HasPrefix(err.Error(), "-matrix") {
			t.Fatalf("-matrix %s: %v", spec, err)
		}
	})
}

// posOf is t.yaml:LINE:COL of the first occurrence of mark in file.
func posOf(file, mark string) string {
	i := strings.Index(file, mark)
	line := strings.Count(file[:i], "\n") + 1
	col := i - strings.LastIndex(file[:i], "\n")
	return fmt.Sprintf("t.yaml:%d:%d", line, col)
}
