package validate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// pengTestDevice is a device literal with round numbers, so the latency
// arithmetic is checked apart from the shipped configs' calibrations.
func pengTestDevice(l1, cacheGlobal, l2 bool) *arch.Device {
	d := &arch.Device{Name: "test", ComputeCapability: "3.0"}
	d.Clocks = arch.Clocks{Core: 600 * arch.MHz, DRAM: 900 * arch.MHz, DRAMDataRate: 4}
	d.Interconnect.Latency = 20
	d.DRAM.Latency = 50
	d.DRAM.BurstLength = 8
	d.DRAM.Timing = arch.DRAMTiming{RP: 10, RCD: 12, CL: 14}
	if l1 {
		d.L1 = arch.Cache{Size: 16 * arch.KiB, HitLatency: 30}
	}
	d.Coalescer.CacheGlobalLoads = cacheGlobal
	if l2 {
		d.L2.Cache = arch.Cache{Size: 512 * arch.KiB, HitLatency: 100}
	}
	return d
}

func TestPengDeviceLatencies(t *testing.T) {
	// Row miss: 10 + 12 + 14 + 8/4 = 38 DRAM cycles × 600/900 = 25.333…
	// core cycles. L2 hit: 2·20 + 100 = 140. DRAM: 140 + 50 + 38·2/3.
	rowMiss := 38 * 600.0 / 900
	tests := []struct {
		name                string
		l1, cacheGlobal, l2 bool
		want                PengLatencies
	}{
		{"L1 caching global loads", true, true, true, PengLatencies{30, 140, 190 + rowMiss}},
		// An L1 that does not cache global loads (Kepler) costs what L2 costs.
		{"L1 not caching global loads", true, false, true, PengLatencies{140, 140, 190 + rowMiss}},
		{"no L1", false, true, true, PengLatencies{140, 140, 190 + rowMiss}},
		// No L1, no L2 (CC 1.x): every level costs the DRAM access
		// 2·20 + 50 + row miss.
		{"no L1, no L2", false, false, false, PengLatencies{90 + rowMiss, 90 + rowMiss, 90 + rowMiss}},
	}
	for _, tc := range tests {
		d := pengTestDevice(tc.l1, tc.cacheGlobal, tc.l2)
		lat, err := PengDeviceLatencies(d)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !compareClose(lat.L1, tc.want.L1, 1e-9) || !compareClose(lat.L2, tc.want.L2, 1e-9) || !compareClose(lat.DRAM, tc.want.DRAM, 1e-9) {
			t.Errorf("%s: latencies %+v; want %+v", tc.name, lat, tc.want)
		}
		w, err := PengDerivedWeights(d)
		if err != nil {
			t.Fatal(err)
		}
		if w.L1 != 1 || !compareClose(w.L2, tc.want.L2/tc.want.L1, 1e-12) || !compareClose(w.DRAM, tc.want.DRAM/tc.want.L1, 1e-12) {
			t.Errorf("%s: weights %g/%g/%g; want 1/%g/%g", tc.name, w.L1, w.L2, w.DRAM, tc.want.L2/tc.want.L1, tc.want.DRAM/tc.want.L1)
		}
	}
	bad := pengTestDevice(true, true, true)
	bad.Clocks.DRAM = 0
	if _, err := PengDeviceLatencies(bad); err == nil {
		t.Error("DRAM clock 0: no error")
	}
	bad = pengTestDevice(true, true, true)
	bad.L1.HitLatency = 0
	if _, err := PengDerivedWeights(bad); err == nil {
		t.Error("L1 hit latency 0: no error")
	}
}

func TestPengWeightsFor(t *testing.T) {
	if w := PengTableIWeights(); w.L1 != 1 || w.L2 != 30 || w.DRAM != 100 ||
		w.Latencies.L2/w.Latencies.L1 != 30 || w.Latencies.DRAM/w.Latencies.L1 != 100 {
		t.Errorf("PengTableIWeights = %+v; want 1/30/100 from 10/300/1000 cycles", w)
	}
	// Fermi boards (CC 2.x) get Peng's Table I; the others weights derived
	// from their configs. The checks here are structural, so that a
	// recalibrated latency does not break them: Kepler and Maxwell do not
	// cache global loads in L1 (W_L2 = 1); GT200 has neither L1 nor L2
	// for global memory (every weight 1).
	for _, tc := range []struct {
		device string
		check  func(PengWeights) bool
		want   string
	}{
		{"fermi", func(w PengWeights) bool { return w == PengTableIWeights() }, "Table I"},
		{"fermi-m2050", func(w PengWeights) bool { return w == PengTableIWeights() }, "Table I"},
		{"kepler", func(w PengWeights) bool { return w.L1 == 1 && w.L2 == 1 && w.DRAM > 1 }, "derived, 1/1/>1"},
		{"maxwell", func(w PengWeights) bool { return w.L1 == 1 && w.L2 == 1 && w.DRAM > 1 }, "derived, 1/1/>1"},
		{"gt200", func(w PengWeights) bool { return w.L1 == 1 && w.L2 == 1 && w.DRAM == 1 }, "derived, 1/1/1"},
		{"g80", func(w PengWeights) bool { return w.L1 == 1 && w.L2 == 1 && w.DRAM == 1 }, "derived, 1/1/1"},
	} {
		w, err := PengWeightsFor(jangLoad(t, tc.device))
		if err != nil {
			t.Fatalf("%s: %v", tc.device, err)
		}
		if !tc.check(w) {
			t.Errorf("PengWeightsFor(%s) = %s; want %s", tc.device, w, tc.want)
		}
		if !strings.Contains(w.String(), "PEN Table I") && !strings.Contains(w.String(), "derived from "+tc.device+"'s config") {
			t.Errorf("PengWeightsFor(%s).String() = %q; want its source named", tc.device, w)
		}
	}
	// The derived Fermi weights, for comparison with Table I, are much
	// flatter than 1/30/100.
	fermi := jangLoad(t, "fermi")
	w, err := PengDerivedWeights(fermi)
	if err != nil || w.Latencies.L1 != float64(fermi.L1.HitLatency) || w.L2 <= 1 || w.DRAM <= w.L2 {
		t.Errorf("PengDerivedWeights(fermi) = %s, %v; want L1 = l1.hit_latency and 1 < W_L2 < W_DRAM", w, err)
	}
}

func TestPengCost(t *testing.T) {
	// Fermi weights, 1000 read requests, half hitting L1 and 60% of the
	// rest hitting L2: 1·1000·0.5 + 30·1000·0.5·0.6 + 100·1000·0.5·0.4 =
	// 500 + 9000 + 20000 = 29500. 200 writes, a quarter hitting L2:
	// 30·200·0.25 + 100·200·0.75 = 1500 + 15000 = 16500.
	read, write, err := PengCost(PengTableIWeights(), PengTraffic{
		ReadRequests: 1000, WriteRequests: 200, L1ReadHit: 0.5, L2ReadHit: 0.6, L2WriteHit: 0.25,
	})
	if err != nil || !compareClose(read, 29500, 1e-9) || !compareClose(write, 16500, 1e-9) {
		t.Errorf("PengCost = %g read, %g write, %v; want 29500, 16500, nil", read, write, err)
	}
	for _, bad := range []PengTraffic{
		{ReadRequests: 1, L1ReadHit: 1.5},
		{ReadRequests: 1, L2WriteHit: math.NaN()},
		{ReadRequests: -1},
	} {
		if _, _, err := PengCost(PengTableIWeights(), bad); err == nil {
			t.Errorf("PengCost(%+v): no error", bad)
		}
	}
}

func TestPengBlocksPerSM(t *testing.T) {
	// models.md §1.4's table: M2050 (8 blocks, 1536 threads, 32768
	// registers), K20c (16, 2048, 65536).
	tests := []struct {
		device          string
		blockSize, regs int
		want            int
	}{
		{"fermi-m2050", 256, 20, 6},  // min(8, 6, 32768/20/256 = 6)
		{"fermi-m2050", 256, 32, 4},  // 32768/32/256 = 4
		{"fermi-m2050", 128, 63, 4},  // 32768/63 = 520, /128 = 4
		{"fermi-m2050", 512, 21, 3},  // 1536/512 = 3, 32768/21/512 = 3
		{"kepler", 256, 20, 8},       // 2048/256 = 8
		{"kepler", 256, 32, 8},       // 65536/32/256 = 8
		{"kepler", 512, 21, 4},       // 2048/512 = 4
		{"kepler", 1024, 32, 2},      // 2048/1024 = 2
		{"kepler", 1024, 0, 2},       // registers unknown: left out
		{"fermi-m2050", 1024, 63, 1}, // 32768/63/1024 = 0, raised to 1
	}
	for _, tc := range tests {
		got, err := PengBlocksPerSM(jangLoad(t, tc.device), tc.blockSize, tc.regs)
		if err != nil || got != tc.want {
			t.Errorf("PengBlocksPerSM(%s, %d threads, %d regs) = %d, %v; want %d", tc.device, tc.blockSize, tc.regs, got, err, tc.want)
		}
	}
	// The occupancy calculator allocates registers per warp in units of
	// 64: 21·32 = 672 → 704, 32768/704 = 46 warps = 2 blocks of 16 warps.
	m2050 := jangLoad(t, "fermi-m2050")
	o, err := m2050.Occupancy(arch.Dim3{X: 512, Y: 1, Z: 1}, 21, 0)
	if err != nil || o.ActiveBlocks != 2 {
		t.Errorf("M2050 occupancy calculator at 512/21: %d blocks, %v; want 2 (Peng's formula gives 3)", o.ActiveBlocks, err)
	}
	if _, err := PengBlocksPerSM(m2050, 0, 10); err == nil {
		t.Error("PengBlocksPerSM with block size 0: no error")
	}
}

func TestPengDistances(t *testing.T) {
	// Peng's example: 4 unique 4-byte locations per thread, grid 1024,
	// block 256, 8 blocks per SM.
	if got := PengL1Distance(8, 256, 4*4); got != 32768 {
		t.Errorf("PengL1Distance(8, 256, 16 B) = %d; want 32768", got)
	}
	if got := PengL2Distance(1024, 256, 4*4); got != 4194304 {
		t.Errorf("PengL2Distance(1024, 256, 16 B) = %d; want 4194304", got)
	}
	// Against Fermi: 32 KiB fits the 48 KiB L1 but not the 16 KiB one;
	// 4 MiB exceeds the 768 KiB L2.
	l1 := PengL1Distance(8, 256, 16)
	if !(l1 <= 48*arch.KiB && l1 > 16*arch.KiB && PengL2Distance(1024, 256, 16) > 768*arch.KiB) {
		t.Errorf("distances %v and %v against Fermi's caches", l1, PengL2Distance(1024, 256, 16))
	}
}

func TestPengIndexAccordance(t *testing.T) {
	tests := []struct {
		diff       int64
		elem, line arch.Bytes
		want       bool
	}{
		{0, 8, 128, true},  // (0+2)·8 = 16 ≤ 128
		{0, 64, 128, true}, // 128 ≤ 128: the largest struct for L1
		{0, 68, 128, false},
		{0, 16, 32, true},  // L2 line 32 B: structs up to 16 B
		{0, 20, 32, false}, // 40 > 32
		{-3, 4, 32, true},  // (3+2)·4 = 20
		{7, 4, 32, false},  // 36 > 32
	}
	for _, tc := range tests {
		if got := PengIndexAccordant(tc.diff, tc.elem, tc.line); got != tc.want {
			t.Errorf("PengIndexAccordant(diff=%d, elem=%d B, line=%d B) = %v; want %v", tc.diff, tc.elem, tc.line, got, tc.want)
		}
	}
}

func TestPengStride(t *testing.T) {
	// Vector add with MyAoS {float x, y}: AoS stride 1·8 = 8 B, SoA 1·4.
	aos, err := NewStructLayout("MyAoS", StructField{Name: "x", Size: 4}, StructField{Name: "y", Size: 4})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := aos.Field("x")
	if got := PengStride(1, aos.Size); got != 8 {
		t.Errorf("AoS stride = %d; want 8", got)
	}
	if got := PengStride(-1, x.Size); got != 4 {
		t.Errorf("SoA stride = %d; want 4", got)
	}
}

func TestPengCostVectors(t *testing.T) {
	if got := PengComplexityVector(2, 3).String(); got != "(0, 0, 1, 0)" {
		t.Errorf("PengComplexityVector(2, 3) = %s; want (0, 0, 1, 0)", got)
	}
	// Peng's worked example: grid 100, block 256, M = N = 100; A in the
	// fixed 128-trip loop (degree 1), B in the N loop (degree 2), both in
	// 2 loops. Layout 1 costs A 1, B 3 per execution; layout 2 A 3, B 1.
	const threads = 100 * 256
	execA := float64(100 * 128 * threads) // M · 128 · grid · block
	execB := float64(100 * 100 * threads) // M · N · grid · block
	layout := func(costA, costB float64) PengCostVector {
		return PengComplexityVector(1, 2).Scale(execA * costA).Add(PengComplexityVector(2, 2).Scale(execB * costB))
	}
	l1, l2 := layout(1, 3), layout(3, 1)
	if got := l1.String(); got != "(0, 327680000, 768000000)" {
		t.Errorf("layout 1 = %s; want (0, 327680000, 768000000)", got)
	}
	if got := l2.String(); got != "(0, 983040000, 256000000)" {
		t.Errorf("layout 2 = %s; want (0, 983040000, 256000000)", got)
	}
	if ComparePengCostVectors(l1, l2) != 1 || ComparePengCostVectors(l2, l1) != -1 {
		t.Errorf("layout 1 vs layout 2: %d; want 1 (layout 2 preferred)", ComparePengCostVectors(l1, l2))
	}
	tests := []struct {
		a, b PengCostVector
		want int
	}{
		{PengCostVector{5, 0}, PengCostVector{1, 0}, 1},    // m = 0 decides
		{PengCostVector{1, 2}, PengCostVector{1, 2, 0}, 0}, // zero padding
		{PengCostVector{9, 9}, PengCostVector{0, 0, 1}, -1},
	}
	for _, tc := range tests {
		if got := ComparePengCostVectors(tc.a, tc.b); got != tc.want {
			t.Errorf("ComparePengCostVectors(%s, %s) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNewStructLayout(t *testing.T) {
	tests := []struct {
		name    string
		fields  []StructField
		offsets []arch.Bytes
		size    arch.Bytes
	}{
		// Peng: struct {char w; int x; char y; short z;} = 1+3+4+1+1+2 = 12.
		{"wxyz", []StructField{{Name: "w", Size: 1}, {Name: "x", Size: 4}, {Name: "y", Size: 1}, {Name: "z", Size: 2}}, []arch.Bytes{0, 4, 8, 10}, 12},
		// {double d; char c;}: 8 + 1, padded to 16.
		{"dc", []StructField{{Name: "d", Size: 8}, {Name: "c", Size: 1}}, []arch.Bytes{0, 8}, 16},
		{"cc", []StructField{{Name: "a", Size: 1}, {Name: "b", Size: 1}}, []arch.Bytes{0, 1}, 2},
		// {char; short; char; double}: 0, 2, 4, then 8; 16.
		{"cscd", []StructField{{Name: "a", Size: 1}, {Name: "b", Size: 2}, {Name: "c", Size: 1}, {Name: "d", Size: 8}}, []arch.Bytes{0, 2, 4, 8}, 16},
	}
	for _, tc := range tests {
		l, err := NewStructLayout(tc.name, tc.fields...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if l.Size != tc.size {
			t.Errorf("struct %s: size %d; want %d", tc.name, l.Size, tc.size)
		}
		for i, f := range l.Fields {
			if f.Offset != tc.offsets[i] {
				t.Errorf("struct %s: field %s at %d; want %d", tc.name, f.Name, f.Offset, tc.offsets[i])
			}
		}
	}
	for _, tc := range []struct {
		fields []StructField
		want   string
	}{
		{nil, "no fields"},
		{[]StructField{{Name: "a", Size: 3}}, "size 3 B"},
		{[]StructField{{Name: "a", Size: 4}, {Name: "a", Size: 4}}, "declared twice"},
	} {
		if _, err := NewStructLayout("s", tc.fields...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewStructLayout(%v) error %v; want one containing %q", tc.fields, err, tc.want)
		}
	}
	if _, ok := (StructLayout{}).Field("x"); ok {
		t.Error("Field on an empty layout found x")
	}
}

func ExampleNewStructLayout() {
	l, err := NewStructLayout("S",
		StructField{Name: "w", Size: 1}, // char
		StructField{Name: "x", Size: 4}, // int
		StructField{Name: "y", Size: 1}, // char
		StructField{Name: "z", Size: 2}) // short
	if err != nil {
		panic(err)
	}
	for _, f := range l.Fields {
		fmt.Printf("%s@%d ", f.Name, f.Offset)
	}
	fmt.Println("size", int64(l.Size))
	// Output:
	// w@0 x@4 y@8 z@10 size 12
}

func ExampleComparePengCostVectors() {
	layout1 := PengCostVector{0, 327680000, 768000000}
	layout2 := PengCostVector{0, 983040000, 256000000}
	if ComparePengCostVectors(layout2, layout1) < 0 {
		fmt.Println("layout 2 preferred:", layout2)
	}
	// Output:
	// layout 2 preferred: (0, 983040000, 256000000)
}

// TestPengCostVectorString: whole costs print as integers, the rounding
// noise of a sum of weighted counts (0.1+0.2 = 0.30000000000000004)
// included; fractions keep ten significant digits.
func TestPengCostVectorString(t *testing.T) {
	noisy := 87040 + 87040*0x1p-52 // 87040.00000000001
	for _, tc := range []struct {
		v    PengCostVector
		want string
	}{
		{PengCostVector{noisy, 0}, "(87040, 0)"},
		{PengCostVector{0.1 + 0.2, 2.5}, "(0.3, 2.5)"},
		{PengCostVector{1.0 / 3, 1e20}, "(0.3333333333, 1e+20)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q; want %q", []float64(tc.v), got, tc.want)
		}
	}
}
