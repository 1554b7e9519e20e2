package main

import (
	"flag"
	"fmt"
	"strings"

	"gpumemsim/kernel"
)

// dataFlags are -data and -matrix: the contents of index arrays and the
// sparse matrix, instead of the kernel file's.
type dataFlags struct {
	data   dataList
	matrix *string
}

// dataList is -data, given once per array.
type dataList []string

func (d *dataList) String() string { return strings.Join(*d, " ") }

func (d *dataList) Set(s string) error {
	*d = append(*d, s)
	return nil
}

func addDataFlags(fs *flag.FlagSet) *dataFlags {
	d := &dataFlags{}
	fs.Var(&d.data, "data", "contents of an index array `NAME=SPEC`, instead of the kernel file's data: (repeat for more arrays); SPEC is GEN:KEY=VALUE,... (permutation:seed=3, uniform:lo=0,hi=N,seed=1, strided:stride=33), file:PATH (integers) or matrix:rowptr|col")
	d.matrix = fs.String("matrix", "", "the kernel's sparse matrix `SPEC`, instead of the kernel file's matrix: a Matrix Market file (PATH.mtx), banded:rows=R,width=W, powerlaw:rows=R,cols=C,avg=A,exponent=E,seed=S, boxes:boxes1d=B or rays:n=N,width=W,height=H")
	return d
}

// apply gives k the contents and matrix the flags say.
func (d *dataFlags) apply(k *kernel.Kernel) error {
	if *d.matrix != "" {
		if err := k.SetMatrix(*d.matrix); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, s := range d.data {
		name, spec, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-data: want NAME=SPEC, e.g. COL=permutation:seed=3; got %q", s)
		}
		name, spec = strings.TrimSpace(name), strings.TrimSpace(spec) // as -set's names are
		if seen[name] {
			return fmt.Errorf("-data: array %s given twice; hint: give each array one -data", name)
		}
		seen[name] = true
		if err := k.SetData(name, spec); err != nil {
			return err
		}
	}
	return nil
}
