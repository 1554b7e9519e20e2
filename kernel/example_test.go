package kernel_test

import (
	"fmt"

	"gpumemsim/kernel"
)

func ExampleParseMapping() {
	m, err := kernel.ParseMapping("i1=ty, i2=tx")
	if err != nil {
		panic(err)
	}
	fmt.Println(m, len(m))
	_, err = kernel.ParseMapping("i1=tx,i2=tx")
	fmt.Println(err)
	// Output:
	// i1=ty,i2=tx 2
	// mapping "i1=tx,i2=tx": loops i1 and i2 both mapped to tx; map at most one loop per thread dimension
}
