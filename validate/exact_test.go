package validate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// exactCase is one launch of a kernel: parameter overrides, a mapping
// ("" for the kernel's) and a block (zero for the kernel's).
type exactCase struct {
	params  map[string]int64
	mapping string
	block   arch.Dim3
	layout  string // of the struct arrays; "": the file's first
}

func (c exactCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", c.params)
	if c.mapping != "" {
		fmt.Fprintf(&b, " map %s", c.mapping)
	}
	if c.block != (arch.Dim3{}) {
		fmt.Fprintf(&b, " block %s", c.block)
	}
	return b.String()
}

func exactBlock(x, y, z int) arch.Dim3 { return arch.Dim3{X: x, Y: y, Z: z} }

// exactExampleCases shrinks every shipped example to a size the simulator
// streams in milliseconds, with odd sizes (partial warps and edge blocks),
// other mappings and block shapes whose warps straddle rows or hold lanes
// past the extents.
func exactExampleCases() map[string][]exactCase {
	mm := []exactCase{
		{params: map[string]int64{"M": 64, "N": 64, "P": 64}},
		{params: map[string]int64{"M": 128, "N": 128, "P": 32}},
		{params: map[string]int64{"M": 72, "N": 88, "P": 40}},
		{params: map[string]int64{"M": 72, "N": 88, "P": 40}, mapping: "i1=tx,i2=ty"},
		{params: map[string]int64{"M": 128, "N": 96, "P": 16}, block: exactBlock(32, 8, 1)},
		{params: map[string]int64{"M": 100, "N": 70, "P": 9}, block: exactBlock(8, 32, 1)},
		{params: map[string]int64{"M": 100, "N": 70, "P": 9}, mapping: "i1=tx,i2=ty", block: exactBlock(32, 8, 1)},
		{params: map[string]int64{"M": 50, "N": 45, "P": 7}, block: exactBlock(24, 5, 1)},
		{params: map[string]int64{"M": 40, "N": 33, "P": 5}, block: exactBlock(16, 4, 2)},
		{params: map[string]int64{"M": 40, "N": 33, "P": 5}, mapping: "i1=tz,i2=tx", block: exactBlock(16, 2, 4)},
	}
	var stride []exactCase
	for _, s := range []int64{1, 2, 3, 4, 7, 8, 16, 32, 33, 64} {
		for _, o := range []int64{0, 1, 5, 31} {
			stride = append(stride, exactCase{params: map[string]int64{"N": 4096 + 3, "S": s, "O": o}})
		}
	}
	stride = append(stride,
		exactCase{params: map[string]int64{"N": 1000, "S": 2, "O": 3}, block: exactBlock(96, 1, 1)},
		exactCase{params: map[string]int64{"N": 1000, "S": 1, "O": 7}, block: exactBlock(40, 1, 1)},
	)
	copies := []exactCase{
		{params: map[string]int64{"rows": 1003, "cols": 7}},
		{params: map[string]int64{"rows": 300, "cols": 16}, block: exactBlock(64, 1, 1)},
		{params: map[string]int64{"rows": 77, "cols": 3}, block: exactBlock(48, 1, 1)},
	}
	var peng []exactCase
	for _, layout := range []string{"aos", "soa"} {
		peng = append(peng, exactCase{params: map[string]int64{"N": 1000}, layout: layout},
			exactCase{params: map[string]int64{"N": 777}, block: exactBlock(48, 1, 1), layout: layout})
	}
	kmeansPeng := []exactCase{{params: map[string]int64{"np": 1000, "nf": 5, "nc": 3}}}
	for _, layout := range []string{"soa", "soaos"} {
		kmeansPeng = append(kmeansPeng, exactCase{params: map[string]int64{"np": 300, "nf": 3, "nc": 2}, layout: layout, block: exactBlock(64, 1, 1)})
	}
	var nbody []exactCase
	for _, layout := range []string{"aos", "soa", "soaos1", "soaos2"} {
		nbody = append(nbody, exactCase{params: map[string]int64{"N": 200}, layout: layout, block: exactBlock(96, 1, 1)})
	}
	return map[string][]exactCase{
		"vecadd-peng":  peng,
		"kmeans-peng":  kmeansPeng,
		"nbody-peng":   nbody,
		"matmul":       mm,
		"matmul-naive": mm,
		"vecadd": {
			{params: map[string]int64{"N": 1<<16 + 13}},
			{params: map[string]int64{"N": 1000}, block: exactBlock(48, 1, 1)},
			{params: map[string]int64{"N": 999}, block: exactBlock(16, 2, 2)},
		},
		"matvec": {
			{params: map[string]int64{"N": 200}},
			{params: map[string]int64{"N": 200}, block: exactBlock(64, 1, 1)},
			{params: map[string]int64{"N": 77}, block: exactBlock(96, 1, 1)},
			{params: map[string]int64{"N": 77}, mapping: "i2=tx"},
		},
		"transpose": {
			{params: map[string]int64{"N": 96}},
			{params: map[string]int64{"N": 100}, block: exactBlock(32, 8, 1)},
			{params: map[string]int64{"N": 50}, mapping: "i1=tx,i2=ty"},
			{params: map[string]int64{"N": 45}, block: exactBlock(8, 8, 1)},
		},
		"stride":        stride,
		"copy-rowmajor": copies,
		"copy-colmajor": copies,
		"copy": {
			{params: map[string]int64{"N": 5000}},
			{params: map[string]int64{"N": 1000}, block: exactBlock(48, 1, 1)},
		},
		"kmeans": {
			{params: map[string]int64{"npoints": 5000, "nfeatures": 16, "nclusters": 5}},
			{params: map[string]int64{"npoints": 1003, "nfeatures": 3, "nclusters": 2}, block: exactBlock(96, 1, 1)},
		},
		"latency-probe": {
			{params: map[string]int64{"F": 4096, "S": 128, "R": 2}},
			{params: map[string]int64{"F": 1000, "S": 4, "R": 1}},
		},
	}
}

// exactDevices are the shipped devices plus the load paths they do not
// ship: Fermi with -dlcm=cg, Kepler and Maxwell with -dlcm=ca.
func exactDevices(t testing.TB) []*arch.Device {
	var devs []*arch.Device
	for _, name := range configs.Names() {
		d, err := configs.Load(name)
		if err != nil {
			t.Fatalf("configs.Load(%q): %v", name, err)
		}
		devs = append(devs, d)
	}
	for _, v := range []struct {
		name string
		l1   bool
	}{{"fermi", false}, {"kepler", true}, {"maxwell", true}} {
		d, err := configs.Load(v.name)
		if err != nil {
			t.Fatalf("configs.Load(%q): %v", v.name, err)
		}
		c := *d
		c.Coalescer.CacheGlobalLoads = v.l1
		c.Name = fmt.Sprintf("%s(l1=%t)", d.Name, v.l1)
		devs = append(devs, &c)
	}
	return devs
}

// exactKernelFiles are kernels beyond the shipped examples that exercise
// 1-, 2- and 8-byte words, misaligned words that straddle 32-B sectors,
// negative strides, loops with lower bounds and steps, and stores of
// several widths.
var exactKernelFiles = map[string]string{
	"widths.yaml": `
name: widths
params: {N: 1000, S: 1}
arrays:
  b: {type: u8, dims: [2*S*N + 64]}
  h: {type: i16, dims: [2*S*N + 64]}
  d: {type: f64, dims: [2*S*N + 64]}
  r: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++) {
    d[S*i] = b[S*i + 3] + h[S*i + 1];
    r[N - 1 - i] = d[2*i];
    b[S*i] = h[N - i];
    h[2*i + 1] = r[i];
  }
mapping: {i: tx}
block: [64]
`,
	"misaligned.yaml": `
name: misaligned
params: {N: 500, S: 1}
arrays:
  d: {type: f64, dims: [S*N + 8], base: 536870916}
  w: {type: i16, dims: [S*N + 8], base: 805306369}
source: |
  for (i = 0; i < N; i++) {
    d[S*i] = d[S*i + 1] + w[S*i];
    w[S*i + 2] = 0;
  }
mapping: {i: tx}
block: [128]
`,
	"steps.yaml": `
name: steps
params: {N: 300, M: 23}
arrays:
  a: {type: f32, dims: [N, M]}
  c: {type: f64, dims: [8, N + 2*M]}   # i + 2j reaches 299 + 2·21 = 341
source: |
  for (i = 2; i < N; i += 3)
    for (j = 1; j < M; j += 2)
      for (k = 0; k < 5; k++)
        a[i][j] += c[k][j] * c[k][i + 2*j];
mapping: {i: tx}
block: [32]
`,
	"grid3d.yaml": `
name: grid3d
params: {X: 37, Y: 9, Z: 5, T: 3}
arrays:
  u: {type: f32, dims: [Z, Y, X]}
  v: {type: f32, dims: [X, Y, Z], layout: col-major}
source: |
  for (z = 0; z < Z; z++)
    for (y = 0; y < Y; y++)
      for (x = 0; x < X; x++)
        for (t = 0; t < T; t++)
          u[z][y][x] += v[x][y][z] * v[t][y][z];
mapping: {x: tx, y: ty, z: tz}
block: [16, 4, 2]
`,
}

// exactLaunches binds every case: the shipped examples and the extra
// kernels, each under each device.
func exactLaunches(t *testing.T, dev *arch.Device) []*traces.Launch {
	t.Helper()
	cases := exactExampleCases()
	var ls []*traces.Launch
	for _, name := range kernel.Examples() {
		k, err := kernel.Load(name)
		if err != nil {
			t.Fatalf("kernel.Load(%q): %v", name, err)
		}
		if k.Program.Form == kernel.PerThread {
			continue // the closed form is of loop nests (TestExactRefusesPerThread)
		}
		cs, ok := cases[name]
		if !ok {
			t.Errorf("no test sizes for shipped example %s: add it to exactExampleCases", name)
			continue
		}
		for _, c := range cs {
			var m kernel.Mapping
			if c.mapping != "" {
				if m, err = kernel.ParseMapping(c.mapping); err != nil {
					t.Fatalf("ParseMapping(%q): %v", c.mapping, err)
				}
			}
			k := *k
			if c.layout != "" {
				if err := k.SelectLayout(c.layout); err != nil {
					t.Fatal(err)
				}
			}
			l, err := traces.Bind(&k, m, c.block, c.params, dev)
			if err != nil {
				t.Fatalf("Bind(%s %s) on %s: %v", name, c, dev.Name, err)
			}
			ls = append(ls, l)
		}
	}
	for _, file := range []string{"widths.yaml", "misaligned.yaml", "steps.yaml", "grid3d.yaml"} {
		k, err := kernel.Parse(file, []byte(exactKernelFiles[file]))
		if err != nil {
			t.Fatalf("kernel.Parse(%s): %v", file, err)
		}
		for _, p := range []map[string]int64{nil, {"N": 777, "S": 3}} {
			if p != nil && k.Name != "widths" && k.Name != "misaligned" {
				continue
			}
			l, err := traces.Bind(k, nil, arch.Dim3{}, p, dev)
			if err != nil {
				t.Fatalf("Bind(%s %v) on %s: %v", file, p, dev.Name, err)
			}
			ls = append(ls, l)
		}
	}
	return ls
}

// TestExactCountsMatchSimulator: the closed form equals the simulator's
// streamed counts for every shipped example on every device, per
// reference.
func TestExactCountsMatchSimulator(t *testing.T) {
	ctx := context.Background()
	for _, dev := range exactDevices(t) {
		t.Run(dev.Name, func(t *testing.T) {
			for _, l := range exactLaunches(t, dev) {
				desc := fmt.Sprintf("%s %v map %s block %s", l.Kernel.Name, l.Params, l.Mapping, l.Block)
				got, err := ExactCounts(dev, l)
				if err != nil {
					t.Errorf("ExactCounts(%s): %v", desc, err)
					continue
				}
				want, err := sim.Count(ctx, dev, l, nil)
				if err != nil {
					t.Fatalf("sim.Count(%s): %v", desc, err)
				}
				if len(got) != len(want.Refs) {
					t.Fatalf("ExactCounts(%s) has %d references; the simulator %d", desc, len(got), len(want.Refs))
				}
				for i, e := range got {
					s := want.Refs[i]
					for _, f := range []struct {
						what      string
						got, want int64
					}{
						{"requests", e.Requests, s.Requests},
						{"transactions", e.Transactions, s.Transactions},
						{"32-B transactions", e.Txn32, s.Txn32},
						{"64-B transactions", e.Txn64, s.Txn64},
						{"128-B transactions", e.Txn128, s.Txn128},
						{"bytes", e.Bytes, s.Bytes},
						{"active lanes", e.ActiveLanes, s.ActiveLanes},
						{"half-warps", e.HalfWarps, s.HalfWarps},
					} {
						if f.got != f.want {
							t.Errorf("ExactCounts(%s) %s %s = %d %s; simulator %d", desc, e.Text, e.Op, f.got, f.what, f.want)
						}
					}
					if dev.Coalescer.Rule == arch.RuleCC10 && e.CoalescedHalfWarps != s.Coalesced {
						t.Errorf("ExactCounts(%s) %s %s = %d coalesced half-warps; simulator %d", desc, e.Text, e.Op, e.CoalescedHalfWarps, s.Coalesced)
					}
				}
			}
		})
	}
}

// exactBind binds a shipped example with parameter overrides.
func exactBind(t testing.TB, name, mapping string, block arch.Dim3, params map[string]int64) *traces.Launch {
	t.Helper()
	k, err := kernel.Load(name)
	if err != nil {
		t.Fatalf("kernel.Load(%q): %v", name, err)
	}
	var m kernel.Mapping
	if mapping != "" {
		if m, err = kernel.ParseMapping(mapping); err != nil {
			t.Fatalf("ParseMapping(%q): %v", mapping, err)
		}
	}
	l, err := traces.Bind(k, m, block, params, nil)
	if err != nil {
		t.Fatalf("Bind(%s): %v", name, err)
	}
	return l
}

func exactLoad(t testing.TB, name string) *arch.Device {
	t.Helper()
	d, err := configs.Load(name)
	if err != nil {
		t.Fatalf("configs.Load(%q): %v", name, err)
	}
	return d
}

// TestExactStrideByHand checks the stride kernel (one f32 load of
// a[S·i + O] per thread, 4096 threads = 128 full warps, a 256-B aligned)
// against counts worked out from the rules' text.
func TestExactStrideByHand(t *testing.T) {
	type txns struct{ t32, t64, t128 int64 }
	const warps = 128
	tests := []struct {
		dev  string
		s, o int64
		want txns
	}{
		// CC 1.0/1.1: unit stride, aligned: each half-warp reads words 0..15
		// of a 64-B segment → one 64-B transaction. Any other pattern is
		// uncoalesced: 16 × 32 B per half-warp.
		{"g80", 1, 0, txns{t64: 2 * warps}},
		{"g80", 2, 0, txns{t32: 32 * warps}},
		{"g80", 1, 1, txns{t32: 32 * warps}},
		// CC 1.3: per half-warp, S=1 uses one half of a 128-B segment (64 B);
		// S=2 a whole segment; S=4, 8, 16 touch both halves of 2, 4, 8
		// segments; S=32 puts each lane alone in a 32-B sector.
		{"gt200", 1, 0, txns{t64: 2 * warps}},
		{"gt200", 2, 0, txns{t128: 2 * warps}},
		{"gt200", 4, 0, txns{t128: 4 * warps}},
		{"gt200", 8, 0, txns{t128: 8 * warps}},
		{"gt200", 16, 0, txns{t128: 16 * warps}},
		{"gt200", 32, 0, txns{t32: 32 * warps}},
		// O=1: half-warp 0 covers bytes 4..67 (both halves → 128 B), half-warp
		// 1 bytes 68..131 (upper half of one segment → 64 B, then 32 B).
		{"gt200", 1, 1, txns{t32: warps, t64: warps, t128: warps}},
		// Fermi through L1: S distinct 128-B lines per warp for S ≤ 32; a
		// misaligned unit-stride warp touches 2 lines.
		{"fermi", 1, 0, txns{t128: warps}},
		{"fermi", 3, 0, txns{t128: 3 * warps}},
		{"fermi", 32, 0, txns{t128: 32 * warps}},
		{"fermi", 1, 1, txns{t128: 2 * warps}},
		// Kepler and Maxwell: min(4S, 32) sectors per warp; misaligned unit
		// stride: bytes 4..131 touch 5 sectors.
		{"kepler", 1, 0, txns{t32: 4 * warps}},
		{"kepler", 3, 0, txns{t32: 12 * warps}},
		{"kepler", 8, 0, txns{t32: 32 * warps}},
		{"kepler", 1, 1, txns{t32: 5 * warps}},
		{"maxwell", 2, 0, txns{t32: 8 * warps}},
		{"maxwell", 64, 0, txns{t32: 32 * warps}},
	}
	for _, tt := range tests {
		l := exactBind(t, "stride", "", arch.Dim3{}, map[string]int64{"N": 32 * warps, "S": tt.s, "O": tt.o})
		got, err := ExactCounts(exactLoad(t, tt.dev), l)
		if err != nil {
			t.Fatalf("ExactCounts(stride S=%d O=%d) on %s: %v", tt.s, tt.o, tt.dev, err)
		}
		g := got[0]
		if g.Requests != warps || (txns{g.Txn32, g.Txn64, g.Txn128}) != tt.want {
			t.Errorf("ExactCounts(stride S=%d O=%d) on %s = %d requests, 32/64/128-B %d/%d/%d; want %d requests, %d/%d/%d",
				tt.s, tt.o, tt.dev, g.Requests, g.Txn32, g.Txn64, g.Txn128, warps, tt.want.t32, tt.want.t64, tt.want.t128)
		}
	}
}

// TestExactMatmulByHand: matmul at M=N=P=64, 16×16 blocks, i1→ty, i2→tx:
// 128 warps, each covering two rows (i1, i1+1) of 16 columns, 64 i3
// iterations. A[i1][i3]: one word per row, rows 256 B apart. B[i3][i2]: the
// same 64 aligned bytes in both half-warps. C[i1][i2]: 64 aligned bytes in
// each of two rows.
func TestExactMatmulByHand(t *testing.T) {
	const warps, iters = 128, 64
	type row struct{ requests, t32, t64, t128 int64 }
	tests := []struct {
		dev  string
		want [3]row // A, B, C
	}{
		// Fermi L1: A 2 lines, B 1 line; the C store (segment protocol) is
		// one 64-B half per row.
		{"fermi", [3]row{{warps * iters, 0, 0, 2 * warps * iters}, {warps * iters, 0, 0, warps * iters}, {warps, 0, 2 * warps, 0}}},
		// Kepler: A 2 sectors, B 2 sectors, C 4 sectors.
		{"kepler", [3]row{{warps * iters, 2 * warps * iters, 0, 0}, {warps * iters, 2 * warps * iters, 0, 0}, {warps, 4 * warps, 0, 0}}},
		// GT200: per half-warp, A one word → 32 B; B and C 64 aligned bytes
		// → 64 B.
		{"gt200", [3]row{{warps * iters, 2 * warps * iters, 0, 0}, {warps * iters, 0, 2 * warps * iters, 0}, {warps, 0, 2 * warps, 0}}},
		// G80: A's half-warp lanes all read one word: uncoalesced, 16 × 32 B;
		// B and C are coalesced 64-B transactions.
		{"g80", [3]row{{warps * iters, 32 * warps * iters, 0, 0}, {warps * iters, 0, 2 * warps * iters, 0}, {warps, 0, 2 * warps, 0}}},
	}
	l := exactBind(t, "matmul", "", arch.Dim3{}, map[string]int64{"M": 64, "N": 64, "P": 64})
	for _, tt := range tests {
		got, err := ExactCounts(exactLoad(t, tt.dev), l)
		if err != nil {
			t.Fatalf("ExactCounts(matmul) on %s: %v", tt.dev, err)
		}
		for i, w := range tt.want {
			g := got[i]
			if (row{g.Requests, g.Txn32, g.Txn64, g.Txn128}) != w {
				t.Errorf("ExactCounts(matmul 64) on %s: %s = %d requests, 32/64/128-B %d/%d/%d; want %d, %d/%d/%d",
					tt.dev, g.Text, g.Requests, g.Txn32, g.Txn64, g.Txn128, w.requests, w.t32, w.t64, w.t128)
			}
		}
	}
}

func TestExactProgression(t *testing.T) {
	tests := []struct {
		x0, d uint64
		n     int64
		want  map[int]int64
	}{
		{5, 0, 7, map[int]int64{5: 7}},
		{0, 64, 5, map[int]int64{0: 3, 64: 2}},
		{100, 32, 4, map[int]int64{100: 1, 4: 1, 36: 1, 68: 1}},
		{0, 4, 0, map[int]int64{}},
		{1, 129, 3, map[int]int64{1: 1, 2: 1, 3: 1}},
		{0, ^uint64(0), 2, map[int]int64{0: 1, 127: 1}}, // stride -1
	}
	for _, tt := range tests {
		h := exactProgression(tt.x0, tt.d, tt.n)
		for r, c := range h {
			if c != tt.want[r] {
				t.Errorf("exactProgression(%d, %d, %d)[%d] = %d; want %d", tt.x0, tt.d, tt.n, r, c, tt.want[r])
			}
		}
	}
}

func TestExactCountsNotClosedForm(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"divergent", `
name: divergent
params: {N: 64}
arrays:
  a: {type: f32, dims: [N]}
source: |
  for (i = 0; i < N; i++)
    for (j = 0; j < i; j++)
      a[j] = a[j] + 1;
mapping: {i: tx}
block: [32]
`, "not closed-form: loop j is divergent"},
		{"triangular", `
name: triangular
params: {N: 64}
arrays:
  a: {type: f32, dims: [N, N]}
source: |
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < j; k++)
        a[k][i] = a[k][i] + 1;
mapping: {i: tx}
block: [32]
`, "not closed-form: loop k has bounds that depend on an outer loop"},
	}
	dev := exactLoad(t, "fermi")
	for _, tt := range tests {
		k, err := kernel.Parse(tt.name+".yaml", []byte(tt.src))
		if err != nil {
			t.Fatalf("kernel.Parse(%s): %v", tt.name, err)
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev)
		if err != nil {
			t.Fatalf("Bind(%s): %v", tt.name, err)
		}
		if _, err := ExactCounts(dev, l); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ExactCounts(%s) error = %v; want it to contain %q", tt.name, err, tt.want)
		}
	}
	bad := *dev
	bad.Coalescer.Rule = 0
	l := exactBind(t, "vecadd", "", arch.Dim3{}, map[string]int64{"N": 64})
	if _, err := ExactCounts(&bad, l); err == nil || !strings.Contains(err.Error(), "no coalescing rule") {
		t.Errorf("ExactCounts(no rule) error = %v; want it to say so", err)
	}
}

// BenchmarkExactCountsMatmul4096 counts matmul at M=N=P=4096 (2^31 memory
// warp instructions, over 10^9 of them streamed by sim.Count) in closed
// form; warp-insts/s is the rate at which the instructions are accounted
// for.
func BenchmarkExactCountsMatmul4096(b *testing.B) {
	l := exactBind(b, "matmul", "", arch.Dim3{}, map[string]int64{"M": 4096, "N": 4096, "P": 4096})
	for _, name := range []string{"gt200", "fermi", "kepler"} {
		dev := exactLoad(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var insts int64
			for b.Loop() {
				refs, err := ExactCounts(dev, l)
				if err != nil {
					b.Fatal(err)
				}
				insts = 0
				for _, r := range refs {
					insts += r.Requests
				}
			}
			b.ReportMetric(float64(insts)*float64(b.N)/b.Elapsed().Seconds(), "warp-insts/s")
		})
	}
}

// Vector addition of 1000 elements on a GT200 (CC 1.3), blocks of 128:
// 31 full warps, whose half-warps each read 64 aligned bytes (one 64-B
// transaction), and one warp of 8 active lanes at byte 3968 = 31·128 (one
// 32-B transaction).
func ExampleExactCounts() {
	k, err := kernel.Load("vecadd")
	if err != nil {
		panic(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 1000}, nil)
	if err != nil {
		panic(err)
	}
	dev, err := configs.Load("gt200")
	if err != nil {
		panic(err)
	}
	refs, err := ExactCounts(dev, l)
	if err != nil {
		panic(err)
	}
	for _, r := range refs {
		fmt.Printf("%s %s: %d requests, %d transactions (32 B: %d, 64 B: %d, 128 B: %d)\n",
			r.Text, r.Op, r.Requests, r.Transactions, r.Txn32, r.Txn64, r.Txn128)
	}
	// Output:
	// A[i] load: 32 requests, 63 transactions (32 B: 1, 64 B: 62, 128 B: 0)
	// B[i] load: 32 requests, 63 transactions (32 B: 1, 64 B: 62, 128 B: 0)
	// C[i] store: 32 requests, 63 transactions (32 B: 1, 64 B: 62, 128 B: 0)
}

// TestExactRefusesPerThread: a per-thread kernel has no closed form here;
// ExactCounts says so instead of counting.
func TestExactRefusesPerThread(t *testing.T) {
	dev, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.Load("transpose-shared")
	if err != nil {
		t.Fatal(err)
	}
	l, err := traces.Bind(k, nil, arch.Dim3{}, nil, dev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExactCounts(dev, l); err == nil {
		t.Error("ExactCounts(transpose-shared) = nil error; want a refusal")
	}
}
