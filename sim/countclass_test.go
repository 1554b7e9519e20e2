package sim_test

import (
	"reflect"
	"testing"

	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
)

// A count through the block classes equals a count of every block, one
// by one, on grids with edge blocks, several classes per reference,
// partial warps, columns, strides, constant and texture spaces, on every
// coalescing rule. The simulator's own counts are held to Count by
// TestRunMatchesCount; this holds the classes to the plain count.
func TestBlockClasses(t *testing.T) {
	cases := []struct {
		kernel, mapping, block string
		params                 map[string]int64
		spaces                 map[string]kernel.Space
	}{
		{"matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 100, "N": 72, "P": 20}, nil},
		{"matmul", "i1=tx,i2=ty", "16x8", map[string]int64{"M": 72, "N": 100, "P": 12}, nil},
		{"matmul", "i1=ty,i2=tx", "8x4", map[string]int64{"M": 60, "N": 44, "P": 9}, map[string]kernel.Space{"B": kernel.SpaceTexture}},
		{"transpose", "", "", map[string]int64{"N": 100}, nil},
		{"vecadd", "", "16", map[string]int64{"N": 1000}, nil},
		{"stride", "", "", map[string]int64{"N": 5000, "S": 3, "O": 1}, nil},
		{"copy-colmajor", "", "", map[string]int64{"rows": 1000, "cols": 8}, nil},
		{"matvec", "", "", map[string]int64{"N": 300}, map[string]kernel.Space{"x": kernel.SpaceConstant}},
	}
	for _, device := range []string{"g80", "gt200", "fermi", "kepler"} {
		dev, err := configs.Load(device)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			k, err := kernel.Load(c.kernel)
			if err != nil {
				t.Fatal(err)
			}
			for i := range k.Arrays {
				if sp, ok := c.spaces[k.Arrays[i].Name]; ok {
					k.Arrays[i].Space = sp
				}
			}
			l := bindKernel(t, dev, k, c.mapping, c.block, c.params)
			name := device + " " + c.kernel + " " + l.Mapping.String() + " " + l.Block.String()
			classed, plain, classes, err := sim.CountByClasses(dev, l)
			if err != nil {
				t.Fatal(err)
			}
			if classes == 0 {
				t.Errorf("%s: no block counted through a class", name)
			}
			if !reflect.DeepEqual(classed, plain) {
				t.Errorf("%s: through %d classes %+v; block by block %+v", name, classes, classed, plain)
			}
		}
	}
}
