package traces_test

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// pengStructFile has Peng et al.'s 12-byte struct {char w; int x; char
// y; short z;} (w at 0, x at 4, y at 8, z at 10) and three layouts.
const pengStructFile = `name: s
params: {N: 64}
structs:
  Peng: {w: i8, x: i32, y: i8, z: i16}
arrays:
  P: {type: Peng, dims: [N]}
  R: {type: f32, dims: [N]}
layouts:
  aos: {P: aos}
  soa: {P: soa}
  mixed: {P: [[z, w], [x, y]]}
source: |
  for (i = 0; i < N; i++)
    R[i] = P[i].x + P[i].z;
mapping: {i: tx}
block: [64]
`

// TestStructAddresses checks where each layout puts the arrays and the
// address forms of P[i].x and P[i].z, worked out by hand: arrays start at
// DefaultBase B, each on a 256-byte boundary after the one before.
func TestStructAddresses(t *testing.T) {
	const B = traces.DefaultBase
	for _, c := range []struct {
		layout string
		arrays map[string]uint64 // name → base
		x, z   traces.Linear     // P[i].x, P[i].z: const + coef·i
	}{
		// 64 structs of 12 bytes: 768 bytes, R at B+768.
		{"aos", map[string]uint64{"P": B, "R": B + 768},
			traces.Linear{Const: int64(B) + 4, Coef: []int64{12}}, traces.Linear{Const: int64(B) + 10, Coef: []int64{12}}},
		// Four arrays of 64, 256, 64 and 128 bytes, one per 256 bytes.
		{"soa", map[string]uint64{"P.w": B, "P.x": B + 256, "P.y": B + 512, "P.z": B + 768, "R": B + 1024},
			traces.Linear{Const: int64(B) + 256, Coef: []int64{4}}, traces.Linear{Const: int64(B) + 768, Coef: []int64{2}}},
		// {z, w}: z at 0, w at 2, 4 bytes (256 in all); {x, y}: x at 0,
		// y at 4, 8 bytes (512).
		{"mixed", map[string]uint64{"P.{z,w}": B, "P.{x,y}": B + 256, "R": B + 768},
			traces.Linear{Const: int64(B) + 256, Coef: []int64{8}}, traces.Linear{Const: int64(B), Coef: []int64{4}}},
	} {
		k, err := kernel.Parse("s.yaml", []byte(pengStructFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SelectLayout(c.layout); err != nil {
			t.Fatal(err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.layout, err)
		}
		if len(l.Arrays) != len(c.arrays) {
			t.Errorf("%s: %d arrays; want %d", c.layout, len(l.Arrays), len(c.arrays))
		}
		for _, a := range l.Arrays {
			if base, ok := c.arrays[a.Name]; !ok || a.Base != base {
				t.Errorf("%s: array %s at %#x; want %#x (present: %v)", c.layout, a.Name, a.Base, base, ok)
			}
		}
		for _, w := range []struct {
			ref   int
			want  traces.Linear
			width int
		}{{0, c.x, 4}, {1, c.z, 2}} {
			r := l.Refs[w.ref]
			if r.Addr.Const != w.want.Const || r.Addr.Coef[0] != w.want.Coef[0] || r.Width != w.width {
				t.Errorf("%s: %s at %#x + %d·i, %d bytes; want %#x + %d·i, %d bytes", c.layout, r.Text, r.Addr.Const, r.Addr.Coef[0], r.Width,
					w.want.Const, w.want.Coef[0], w.width)
			}
		}
		// The stream's lanes: lane 5 of warp 0 reads P[5].z.
		cur := l.Warp(0, 0)
		var wi traces.WarpInst
		seen := false
		for !seen && cur.Next(&wi) {
			if wi.Ref != 1 {
				continue
			}
			seen = true
			if got, want := wi.Addr[5], uint64(c.z.Const+5*c.z.Coef[0]); got != want || wi.Width != 2 {
				t.Errorf("%s: lane 5 of P[i].z reads %#x, %d bytes; want %#x, 2", c.layout, got, wi.Width, want)
			}
		}
		if !seen {
			t.Errorf("%s: warp 0 never reads P[i].z", c.layout)
		}
	}
}

// TestStructPerThread binds the same struct array in a __global__ kernel
// (a struct parameter, P[i].z): its lanes read where the loop nest's do.
func TestStructPerThread(t *testing.T) {
	src := `name: s
params: {N: 64}
structs:
  Peng: {w: i8, x: i32, y: i8, z: i16}
arrays:
  P: {type: Peng, dims: [N]}
  R: {type: f32, dims: [N]}
layouts:
  aos: {P: aos}
  soa: {P: soa}
source: |
  __global__ void k(const Peng *P, float *R) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    R[i] = P[i].x + P[i].z;
  }
block: [64]
grid: [1]
`
	for layout, z := range map[string]uint64{"aos": traces.DefaultBase + 10 + 5*12, "soa": traces.DefaultBase + 768 + 5*2} {
		k, err := kernel.Parse("s.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SelectLayout(layout); err != nil {
			t.Fatal(err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", layout, err)
		}
		cur := l.NewWarp()
		cur.Reset(0, 0)
		var wi traces.WarpInst
		seen := 0
		for cur.NextTo(&wi, &wi.Addr) {
			if wi.Op == traces.OpLoad && l.Refs[wi.Ref].Text == "P[i].z" {
				seen++
				if wi.Addr[5] != z || wi.Width != 2 {
					t.Errorf("%s: lane 5 reads %#x, %d bytes; want %#x, 2", layout, wi.Addr[5], wi.Width, z)
				}
			}
		}
		if seen != 1 {
			t.Errorf("%s: warp 0 reads P[i].z %d times; want once", layout, seen)
		}
	}
}
