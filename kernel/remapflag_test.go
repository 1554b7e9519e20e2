package kernel_test

import (
	"strings"
	"testing"

	"gpumemsim/kernel"
)

// remapBase is a kernel with a 2-D square array, a 1-D one read through
// an index array, and the index array.
const remapBase = `name: remap-flag
params: {N: 64}
arrays:
  COL: {type: i32, dims: [N], data: {gen: permutation}}
  V: {type: f32, dims: [N]}
  S: {type: f32, dims: [N, N]}
  R: {type: f32, dims: [N]}
source: |
  __global__ void k(const int *COL, const float *V, const float *S, float *R)
  {
    int i = threadIdx.x;
    R[i] = V[COL[i]] + S[i][i];
  }
block: [64]
grid: [1]
`

// TestSetRemap: each kind -remap takes, as the file would declare it, and
// what it refuses.
func TestSetRemap(t *testing.T) {
	for _, c := range []struct{ name, spec, want string }{
		{"S", "row2col", "row2col"},
		{"S", "col2row", "col2row"},
		{"S", "diagonal", "diagonal"},
		{"S", "tile:16x8", "{tile: [16, 8]}"},
		{"V", "gather:COL", "{gather: COL}"},
		{"S", "none", ""},
	} {
		k, err := kernel.Parse("k.yaml", []byte(remapBase))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SetRemap(c.name, c.spec); err != nil {
			t.Errorf("%s=%s: %v", c.name, c.spec, err)
			continue
		}
		got := ""
		if r := k.ArrayNamed(c.name).Remap; r != nil {
			got = r.Text()
		}
		if got != c.want {
			t.Errorf("%s=%s: remap %q; want %q", c.name, c.spec, got, c.want)
		}
		if _, err := roundTrip(k); err != nil {
			t.Errorf("%s=%s: %v", c.name, c.spec, err)
		}
	}
	for _, c := range []struct{ name, spec, want string }{
		{"S", "transpose", `unknown remap "transpose"`},
		{"S", "row2col:2", "row2col takes no argument"},
		{"S", "tile:16", "a tile is tile:HEIGHTxWIDTH"},
		{"S", "gather:", "a gather names its index array"},
		{"V", "diagonal", "the array is 1-D"},
		{"V", "gather:R", "array R is not an index array"},
		{"S", "gather:COL", "every reference must read S[COL[e]]"},
		{"X", "row2col", "unknown array X"},
	} {
		k, _ := kernel.Parse("k.yaml", []byte(remapBase))
		err := k.SetRemap(c.name, c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "-remap "+c.name+"="+c.spec+": ") {
			t.Errorf("%s=%s: %v; want -remap %s=%s: ... %s", c.name, c.spec, err, c.name, c.spec, c.want)
		}
		if k.ArrayNamed("S") != nil && k.ArrayNamed("S").Remap != nil {
			t.Errorf("%s=%s: refused, but S is remapped", c.name, c.spec)
		}
	}
}

// FuzzSetRemap: any -remap spec is accepted or refused with an error,
// never a panic, and an accepted one formats as a file that parses back
// to the same kernel.
func FuzzSetRemap(f *testing.F) {
	for _, s := range []string{"S=row2col", "S=diagonal", "S=tile:16x8", "V=gather:COL", "S=none", "S=tile:0x-1", "V=gather:V", "R=tile:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := kernel.Parse("k.yaml", []byte(remapBase))
		if err != nil {
			t.Fatal(err)
		}
		name, spec, _ := strings.Cut(s, "=")
		if k.SetRemap(name, spec) != nil {
			return
		}
		if _, err := roundTrip(k); err != nil {
			t.Fatal(err)
		}
	})
}
