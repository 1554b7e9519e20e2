package traces_test

import (
	"fmt"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// Bind vecadd to 64 elements in blocks of 32 threads and walk warp 0 of
// block 1 (i = 32..63). A, B and C are 256 bytes each, placed back to back
// from traces.DefaultBase.
func ExampleLaunch_Warp() {
	k, err := kernel.Load("vecadd")
	if err != nil {
		panic(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{X: 32, Y: 1, Z: 1}, map[string]int64{"N": 64}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("grid", l.Grid(), "warps per block", l.WarpsPerBlock())
	c := l.Warp(1, 0)
	var w traces.WarpInst
	for c.Next(&w) {
		if w.Op == traces.OpCompute {
			fmt.Printf("%-7v count=%d\n", w.Op, w.Count)
			continue
		}
		fmt.Printf("%-7v %s active=%08x lane0=%#x lane31=%#x\n", w.Op, l.Refs[w.Ref].Text, w.Active, w.Addr[0], w.Addr[31])
	}
	// Output:
	// grid 2x1x1 warps per block 1
	// load    A[i] active=ffffffff lane0=0x10000080 lane31=0x100000fc
	// load    B[i] active=ffffffff lane0=0x10000180 lane31=0x100001fc
	// compute count=4
	// store   C[i] active=ffffffff lane0=0x10000280 lane31=0x100002fc
}

// Count the memory instructions of a whole launch; the stream reuses one
// WarpInst, so the memory used does not depend on the launch's size.
func ExampleLaunch_Stream() {
	k, _ := kernel.Load("matmul")
	l, _ := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"M": 32, "N": 32, "P": 32}, nil)
	var loads, stores int
	for w := range l.Stream() {
		switch w.Op {
		case traces.OpLoad:
			loads++
		case traces.OpStore:
			stores++
		}
	}
	// 4 blocks of 8 warps; each warp loads A and B P times, stores C once.
	fmt.Println(loads, stores)
	// Output:
	// 2048 32
}
