package validate

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// pengLayout estimates a shipped kernel under one of its layouts.
func pengLayout(t *testing.T, device, name, layout string, block arch.Dim3, params map[string]int64) PengResult {
	t.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SelectLayout(layout); err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, block, params, jangLoad(t, device))
	if err != nil {
		t.Fatal(err)
	}
	r, err := PengEstimate(jangLoad(t, device), l)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPengVecAddLayouts: PEN's worked example, vector add over struct
// MyAoS {float x, y} on a Tesla M2050, N = 4096 in blocks of 128 (128
// warps). By hand: as an array of structures in[i].x and in[i].y are 8
// bytes apart from thread to thread, a warp spans 256 bytes: 2
// transactions each (PEN's table, stride 4·2); in[i].y reads the struct
// in[i].x just brought in (same index, (0+2)·8 ≤ 128: L1-beneficial,
// within 8 blocks · 128 threads · 8 bytes = 8 KiB of the 16 KiB L1), so
// it hits L1. As a structure of arrays both are arrays of floats, stride
// 4: 1 transaction each, and x's array is not y's: both miss to DRAM.
// Costs (weights 1/30/100): AoS 256·100 + 256·1 + 128·100 = 38656; SoA
// 128·100·3 = 38400.
func TestPengVecAddLayouts(t *testing.T) {
	block, params := arch.Dim3{X: 128, Y: 1, Z: 1}, map[string]int64{"N": 4096}
	for _, c := range []struct {
		layout            string
		txn, stride, elem int64
		yOffset, yL1Hits  int64
		cost              float64
	}{
		{"aos", 2, 8, 8, 4, 1, 38656},
		{"soa", 1, 4, 4, 0, 0, 38400},
	} {
		r := pengLayout(t, "fermi-m2050", "vecadd-peng", c.layout, block, params)
		x, y := r.Accesses[0], r.Accesses[1]
		for _, a := range []PengAccess{x, y} {
			if int64(a.Transactions) != c.txn || a.Stride != c.stride || a.ElemSize != c.elem || a.Width != 4 {
				t.Errorf("%s %s: %d transactions, stride %d, element %d, width %d; want %d, %d, %d, 4", c.layout, a.Text, a.Transactions, a.Stride, a.ElemSize, a.Width, c.txn, c.stride, c.elem)
			}
		}
		if y.FieldOffset != c.yOffset || y.L1Hits != c.yL1Hits || x.L1Hits != 0 {
			t.Errorf("%s: in[i].y at offset %d, %d L1 hits (x %d); want %d, %d (0)", c.layout, y.FieldOffset, y.L1Hits, x.L1Hits, c.yOffset, c.yL1Hits)
		}
		if r.Cost != c.cost {
			t.Errorf("%s: cost %g; want %g", c.layout, r.Cost, c.cost)
		}
	}
}

// TestPengStruct12: a warp reading one field of PEN's 12-byte struct
// {char w; int x; char y; short z;} strides 12 bytes from thread to
// thread: 32 lanes span 384 bytes of a 256-byte aligned array, 3
// transactions of 128 bytes (PEN's table: stride 4·3), whatever the
// field's width.
func TestPengStruct12(t *testing.T) {
	src := `name: s
params: {N: 4096}
structs:
  Peng: {w: i8, x: i32, y: i8, z: i16}
arrays:
  P: {type: Peng, dims: [N]}
  R: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++)
    R[i] = P[i].w + P[i].x + P[i].z;
mapping: {i: tx}
block: [128]
`
	r, err := PengEstimate(jangLoad(t, "fermi-m2050"), jangBind(t, src, "", arch.Dim3{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ offset, width int64 }{{0, 1}, {4, 4}, {10, 2}} {
		a := r.Accesses[i]
		if a.Transactions != 3 || a.Stride != 12 || a.ElemSize != 12 || a.FieldOffset != want.offset || a.Width != want.width {
			t.Errorf("%s: %d transactions, stride %d, element %d, offset %d, width %d; want 3, 12, 12, %d, %d",
				a.Text, a.Transactions, a.Stride, a.ElemSize, a.FieldOffset, a.Width, want.offset, want.width)
		}
	}
}
