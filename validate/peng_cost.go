package validate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// PengLatencies are the unloaded latencies, in core cycles, of a global
// load served by L1, by L2 and by DRAM.
type PengLatencies struct {
	L1, L2, DRAM float64
}

// PengWeights are the coefficients W̃_L1, W̃_L2 and W̃_DRAM of Peng et al.'s
// cost function: each level's latency divided by the latency of an L1 hit.
type PengWeights struct {
	L1, L2, DRAM float64
	// Latencies are the latencies the weights were normalised from, in
	// core cycles (Peng's Table I cycles for PengTableIWeights).
	Latencies PengLatencies
	// Source says where the latencies come from, for printing.
	Source string
}

// String writes the weights and their source on one line.
func (w PengWeights) String() string {
	return fmt.Sprintf("W_L1 %.4g, W_L2 %.4g, W_DRAM %.4g (%s)", w.L1, w.L2, w.DRAM, w.Source)
}

// PengTableIWeights are Peng et al.'s Fermi coefficients 1, 30 and 100:
// their Table I latencies L1 10, L2 300 and DRAM 1000 cycles normalised to
// the L1 hit.
func PengTableIWeights() PengWeights {
	lat := PengLatencies{L1: 10, L2: 300, DRAM: 1000}
	return PengWeights{L1: 1, L2: 30, DRAM: 100, Latencies: lat,
		Source: "PEN Table I, Fermi: L1 10, L2 300, DRAM 1000 cycles"}
}

// PengWeightsFor returns the weights Peng's model uses on device d: Table I
// on Fermi (compute capability 2.x), where Peng et al. measured them, and
// PengDerivedWeights elsewhere ("other architectures … in a similar way").
func PengWeightsFor(d *arch.Device) (PengWeights, error) {
	if strings.HasPrefix(d.ComputeCapability, "2.") {
		return PengTableIWeights(), nil
	}
	return PengDerivedWeights(d)
}

// PengDeviceLatencies derives the unloaded latency of each level from the
// device config, with the round trip the shipped configs document:
//
//	L1   = l1.hit_latency
//	L2   = 2·interconnect.latency + l2.hit_latency
//	DRAM = 2·interconnect.latency + l2.hit_latency (0 without an L2)
//	       + dram.latency + row miss
//	row miss = (tRP + tRCD + tCL + burst_length / dram_data_rate) DRAM cycles
//	           × clocks.core / clocks.dram
//
// A level that global loads cannot hit costs what the next level costs: L1
// when the device has none or does not cache global loads in it (Peng sets
// the L1 size to 0 "if L1 is not enabled", as on Kepler), L2 when it is
// absent (CC 1.x). The row miss is a fractional number of core cycles;
// these are static estimates, not simulated time.
func PengDeviceLatencies(d *arch.Device) (PengLatencies, error) {
	c := d.Clocks
	if c.Core <= 0 || c.DRAM <= 0 || c.DRAMDataRate <= 0 {
		return PengLatencies{}, fmt.Errorf("%s: clocks core %v, dram %v, dram_data_rate %d: want positive values",
			d.Name, c.Core, c.DRAM, c.DRAMDataRate)
	}
	t := d.DRAM.Timing
	rowMiss := float64(t.RP+t.RCD+t.CL) + float64(d.DRAM.BurstLength)/float64(c.DRAMDataRate)
	rowMissCore := rowMiss * float64(c.Core) / float64(c.DRAM)
	trip := 2 * float64(d.Interconnect.Latency)

	var lat PengLatencies
	lat.DRAM = trip + float64(d.DRAM.Latency) + rowMissCore
	lat.L2 = lat.DRAM
	if d.L2.CachesGlobal() {
		lat.L2 = trip + float64(d.L2.HitLatency)
		lat.DRAM += float64(d.L2.HitLatency)
	}
	lat.L1 = lat.L2
	if d.L1.Present() && d.Coalescer.CacheGlobalLoads {
		lat.L1 = float64(d.L1.HitLatency)
	}
	if lat.L1 <= 0 {
		return lat, fmt.Errorf("%s: the fastest level a global load can hit has latency %g core cycles; want a positive latency", d.Name, lat.L1)
	}
	return lat, nil
}

// PengDerivedWeights normalises PengDeviceLatencies to the L1 hit (to the
// L2 hit on a device whose L1 does not serve global loads, to the DRAM
// access on one without either: then every weight is 1 and the cost counts
// transactions).
func PengDerivedWeights(d *arch.Device) (PengWeights, error) {
	lat, err := PengDeviceLatencies(d)
	if err != nil {
		return PengWeights{}, err
	}
	return PengWeights{
		L1: 1, L2: lat.L2 / lat.L1, DRAM: lat.DRAM / lat.L1, Latencies: lat,
		Source: fmt.Sprintf("derived from %s's config: L1 %.4g, L2 %.4g, DRAM %.4g core cycles",
			d.Name, lat.L1, lat.L2, lat.DRAM),
	}, nil
}

// PengTraffic is what Peng's cost function weighs: global transaction
// requests and the hit ratios (0 to 1) they meet, from profiler-style
// counters of a simulation or from the static hit estimate.
type PengTraffic struct {
	// ReadRequests and WriteRequests are N_read and N_write.
	ReadRequests, WriteRequests int64
	// L1ReadHit, L2ReadHit and L2WriteHit are R_L1_read, R_L2_read and
	// R_L2_write. Stores are not cached in L1.
	L1ReadHit, L2ReadHit, L2WriteHit float64
}

// PengCost evaluates Peng et al.'s weighted cost:
//
//	read  = W_L1·N_r·R_L1 + W_L2·N_r·(1−R_L1)·R_L2 + W_DRAM·N_r·(1−R_L1)·(1−R_L2)
//	write = W_L2·N_w·R_L2w + W_DRAM·N_w·(1−R_L2w)
//
// The total cost is read + write. A hit ratio outside [0, 1] or a negative
// count is an error.
func PengCost(w PengWeights, t PengTraffic) (read, write float64, err error) {
	var errs []error
	for _, r := range []struct {
		name string
		v    float64
	}{{"L1 read hit ratio", t.L1ReadHit}, {"L2 read hit ratio", t.L2ReadHit}, {"L2 write hit ratio", t.L2WriteHit}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %g: want 0 to 1", r.name, r.v))
		}
	}
	if t.ReadRequests < 0 || t.WriteRequests < 0 {
		errs = append(errs, fmt.Errorf("requests %d read, %d write: want counts ≥ 0", t.ReadRequests, t.WriteRequests))
	}
	if len(errs) > 0 {
		return 0, 0, fmt.Errorf("peng cost: %w", errors.Join(errs...))
	}
	nr, nw := float64(t.ReadRequests), float64(t.WriteRequests)
	missL1 := 1 - t.L1ReadHit
	read = w.L1*nr*t.L1ReadHit + w.L2*nr*missL1*t.L2ReadHit + w.DRAM*nr*missL1*(1-t.L2ReadHit)
	write = w.L2*nw*t.L2WriteHit + w.DRAM*nw*(1-t.L2WriteHit)
	return read, write, nil
}

// PengBlocksPerSM is Peng et al.'s estimate of resident blocks per SM:
//
//	max(1, min(max blocks, max threads / block size,
//	           registers / registers per thread / block size))
//
// with integer division. It ignores the allocation granularities of the
// occupancy calculator, so it can differ from (*arch.Device).Occupancy:
// 512 threads with 21 registers give 3 on a Tesla M2050 here and 2 in the
// calculator. That is intended: it is the paper's model. regsPerThread 0
// leaves the register term out.
func PengBlocksPerSM(d *arch.Device, blockSize, regsPerThread int) (int, error) {
	if blockSize <= 0 || regsPerThread < 0 {
		return 0, fmt.Errorf("blocks per SM: block size %d, %d registers per thread: want a positive size and registers ≥ 0",
			blockSize, regsPerThread)
	}
	n := min(d.SM.MaxBlocks, d.SM.MaxThreads/blockSize)
	if regsPerThread > 0 {
		n = min(n, d.SM.Registers/regsPerThread/blockSize)
	}
	return max(1, n), nil
}

// PengL1Distance is the L1 instruction distance between two accesses: the
// bytes all threads sharing one L1 touch between them, inclusive,
// blocksPerSM · blockSize · uniqueBytesPerThread (8 · 256 · 4·4 = 32768 in
// Peng's example). No reuse is expected when it exceeds the L1 size.
func PengL1Distance(blocksPerSM, blockSize int, uniqueBytesPerThread arch.Bytes) arch.Bytes {
	return arch.Bytes(blocksPerSM) * arch.Bytes(blockSize) * uniqueBytesPerThread
}

// PengL2Distance is the L2 instruction distance: gridSize · blockSize ·
// uniqueBytesPerThread, all threads of the kernel sharing the L2
// (1024 · 256 · 4·4 = 4194304 in Peng's example).
func PengL2Distance(gridSize, blockSize int, uniqueBytesPerThread arch.Bytes) arch.Bytes {
	return arch.Bytes(gridSize) * arch.Bytes(blockSize) * uniqueBytesPerThread
}

// PengIndexAccordant reports Peng's index accordance of Arr[i].x and
// Arr[j].y for a compile-time index difference i − j: (|i − j| + 2) ·
// elemSize ≤ line, with elemSize the size of Arr's element (the struct for
// an array of structures) and line the L1 or L2 line size. A difference
// that is not known at compile time is never accordant; the caller does not
// ask.
func PengIndexAccordant(indexDiff int64, elemSize, line arch.Bytes) bool {
	if indexDiff < 0 {
		indexDiff = -indexDiff
	}
	return arch.Bytes(indexDiff+2)*elemSize <= line
}

// PengStride is the byte stride between adjacent threads: |index(tid+1) −
// index(tid)| · elemSize, with elemSize the struct size for an array of
// structures (Arr[i].x) and the field size for a structure of arrays
// (Arr.x[i]).
func PengStride(indexDiff int64, elemSize arch.Bytes) arch.Bytes {
	if indexDiff < 0 {
		indexDiff = -indexDiff
	}
	return arch.Bytes(indexDiff) * elemSize
}

// PengCostVector is a cost vector of Peng et al.: entry k holds the cost of
// the accesses of complexity degree k (enclosed in k variable-length
// loops). The rightmost entry is the most significant.
type PengCostVector []float64

// PengComplexityVector is the complexity vector CV(I) of an access
// enclosed in loops loops, degree of them of variable length: length
// loops+1 with a 1 at position degree (degree 2 in 3 loops: (0, 0, 1, 0)).
// The degree counts a subset of the enclosing loops, so 0 ≤ degree ≤ loops
// is an invariant of the caller; it panics otherwise.
func PengComplexityVector(degree, loops int) PengCostVector {
	if degree < 0 || degree > loops {
		panic(fmt.Sprintf("validate: complexity degree %d of an access in %d loops", degree, loops))
	}
	v := make(PengCostVector, loops+1)
	v[degree] = 1
	return v
}

// Scale returns c · v.
func (v PengCostVector) Scale(c float64) PengCostVector {
	s := make(PengCostVector, len(v))
	for i, x := range v {
		s[i] = c * x
	}
	return s
}

// Add returns v + w component-wise, the shorter one padded with zeros on
// the right (the most significant side).
func (v PengCostVector) Add(w PengCostVector) PengCostVector {
	s := make(PengCostVector, max(len(v), len(w)))
	copy(s, v)
	for i, x := range w {
		s[i] += x
	}
	return s
}

// ComparePengCostVectors orders cost vectors as Peng et al. do: a > b iff
// some entry m has a[m] > b[m] and a[k] = b[k] for every k > m (the
// rightmost entry is the most significant; m = 0 is allowed although the
// paper prints "0 < m"). It returns −1, 0 or +1; the lower-cost layout is
// preferred. Vectors of different lengths compare as if padded with zeros.
func ComparePengCostVectors(a, b PengCostVector) int {
	for m := max(len(a), len(b)) - 1; m >= 0; m-- {
		x, y := pengAt(a, m), pengAt(b, m)
		switch {
		case x > y:
			return 1
		case x < y:
			return -1
		}
	}
	return 0
}

func pengAt(v PengCostVector, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// String writes the vector as "(0, 327680000, 768000000)".
func (v PengCostVector) String() string {
	parts := make([]string, len(v))
	for i, x := range v {
		// Ten significant digits: the sums of weighted counts carry
		// rounding noise in their last bits (87040.00000000001).
		parts[i] = strconv.FormatFloat(x, 'g', 10, 64)
		if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Abs(x) && math.Abs(r) < 1e15 {
			parts[i] = strconv.FormatInt(int64(r), 10)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// StructField is one field of a StructLayout.
type StructField struct {
	Name string
	// Size is 1, 2, 4 or 8 bytes; the field is aligned to its size.
	Size arch.Bytes
	// Offset is the byte offset in the structure, set by NewStructLayout.
	Offset arch.Bytes
}

// StructLayout is the memory layout of a C structure under Peng et al.'s
// rules: fields of 1, 2, 4 or 8 bytes, each starting at a multiple of its
// size, and the structure padded to a multiple of its largest field. An
// array of structures strides by Size, a structure of arrays by a field's
// Size.
type StructLayout struct {
	Name   string
	Fields []StructField
	// Size includes the padding; Align is the largest field size.
	Size, Align arch.Bytes
}

// NewStructLayout lays out the fields in declaration order (their Offset is
// ignored and set): struct {char w; int x; char y; short z;} puts w at 0,
// x at 4, y at 8, z at 10 and has Size 12.
func NewStructLayout(name string, fields ...StructField) (StructLayout, error) {
	if len(fields) == 0 {
		return StructLayout{}, fmt.Errorf("struct %s: no fields", name)
	}
	l := StructLayout{Name: name, Fields: make([]StructField, len(fields)), Align: 1}
	var errs []error
	var off arch.Bytes
	for i, f := range fields {
		switch f.Size {
		case 1, 2, 4, 8:
		default:
			errs = append(errs, fmt.Errorf("struct %s: field %q has size %d B; want 1, 2, 4 or 8", name, f.Name, f.Size))
			continue
		}
		for _, g := range fields[:i] {
			if g.Name == f.Name {
				errs = append(errs, fmt.Errorf("struct %s: field %q declared twice", name, f.Name))
			}
		}
		off = (off + f.Size - 1) / f.Size * f.Size
		f.Offset = off
		l.Fields[i] = f
		off += f.Size
		l.Align = max(l.Align, f.Size)
	}
	if len(errs) > 0 {
		return StructLayout{}, errors.Join(errs...)
	}
	l.Size = (off + l.Align - 1) / l.Align * l.Align
	return l, nil
}

// Field returns the field called name.
func (l StructLayout) Field(name string) (StructField, bool) {
	for _, f := range l.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return StructField{}, false
}
