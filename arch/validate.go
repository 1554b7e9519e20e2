package arch

import (
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"strings"
)

// FieldError is a problem with one field of a Device, named by its YAML
// key path ("l1.size").
type FieldError struct {
	Path string
	Err  error
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

var ccPattern = regexp.MustCompile(`^[1-9]\.[0-9]$`)

// Upper bounds of a config's numbers. Each is above what any GPU this
// simulator serves has (the largest current value in parentheses), so a
// config of a real or plausible GPU loads, while a typo such as sms:
// 100000 is refused before it exhausts memory or overflows time. Together
// they bound the simulator's memory: at most 256 × 64 resident warps, 1
// GiB of L2 tags and data, 256 × 1 MiB of L1.
const (
	maxSMs        = 256      // SMs (H100: 132)
	maxWarps      = 64       // resident warps per SM (64 since Kepler)
	maxBlocks     = 64       // resident blocks per SM (32)
	maxRegisters  = 1 << 20  // 32-bit registers per SM (65,536)
	maxSMem       = 4 * MiB  // shared memory per SM (228 KiB)
	maxThreads    = 4096     // threads per block (1,024)
	maxBlockDim   = 1 << 16  // block extent along an axis (1,024)
	maxLatency    = 10_000   // any latency, in core cycles (DRAM: about 500)
	maxL1         = MiB      // an SM's cache (256 KiB)
	maxL2         = GiB      // the L2 (50 MiB; 256 MiB of Infinity Cache)
	maxLine       = 4 * KiB  // a cache line (128 B)
	maxWays       = 1024     // associativity (fully associative TLB-like caches)
	maxMSHRs      = 4096     // MSHR entries of one cache or slice (256)
	maxMerges     = 256      // requests one MSHR entry holds (8)
	maxMSHRTokens = 1 << 16  // entries × merges of one table
	maxSlices     = 1024     // L2 slices (about 100)
	maxQueue      = 1 << 16  // requests queued at a slice or DRAM channel
	maxChannels   = 256      // DRAM channels (HBM3: 16 per stack)
	maxBanks      = 1024     // banks per channel (64)
	maxBusBits    = 4096     // data-bus bits of one channel (1,024 for an HBM stack)
	maxBurst      = 256      // burst length (16)
	maxRow        = MiB      // DRAM row (2 KiB)
	maxTiming     = 10_000   // a DRAM timing, in DRAM cycles (about 50)
	maxInterleave = GiB      // channel interleave (256 B)
	maxCoreClock  = 10 * GHz // (2 GHz)
	maxDRAMClock  = 20 * GHz // (GDDR7 command clock: 2.3 GHz)
	maxDataRate   = 32       // transfers per pin per DRAM clock (GDDR7: 8)
)

// Validate reports every problem with the device at once, joined with
// errors.Join; each is a *FieldError.
func (d *Device) Validate() error {
	v := &validator{}
	v.required("name", d.Name)
	v.required("board", d.Board)
	if !ccPattern.MatchString(d.ComputeCapability) {
		v.add("compute_capability", "want major.minor, e.g. \"2.0\"; got %q", d.ComputeCapability)
	}
	v.count("clocks.core", int64(d.Clocks.Core), int64(maxCoreClock))
	v.count("clocks.dram", int64(d.Clocks.DRAM), int64(maxDRAMClock))
	v.count("clocks.dram_data_rate", int64(d.Clocks.DRAMDataRate), maxDataRate)
	v.count("sms", int64(d.SMs), maxSMs)
	if d.WarpSize != 32 {
		v.add("warp_size", "must be 32 (every NVIDIA GPU this simulator models has 32-thread warps); got %d", d.WarpSize)
	}
	v.sm(d)
	given(v, "scheduler.policy", d.Scheduler.Policy, policies)
	v.count("scheduler.schedulers_per_sm", int64(d.Scheduler.PerSM), 16)
	v.count("scheduler.issue_per_cycle", int64(d.Scheduler.IssuePerCycle), 16)
	v.latency("scheduler.block_launch_latency", d.Scheduler.BlockLaunchLatency, true)
	given(v, "coalescer.rule", d.Coalescer.Rule, rules)
	if d.Coalescer.CacheGlobalLoads && !d.L1.Present() {
		v.add("coalescer.cache_global_loads", "is true but the device has no L1 (l1.size is 0)")
	}
	v.caches(d)
	v.l1Shared(d)
	v.latency("interconnect.latency", d.Interconnect.Latency, false)
	v.dram(d)
	return errors.Join(v.errs...)
}

// sm checks the SM's limits, which the occupancy calculator reads.
func (v *validator) sm(d *Device) {
	s := d.SM
	v.count("sm.max_threads", int64(s.MaxThreads), maxWarps*32)
	v.count("sm.max_warps", int64(s.MaxWarps), maxWarps)
	v.count("sm.max_blocks", int64(s.MaxBlocks), maxBlocks)
	v.count("sm.registers", int64(s.Registers), maxRegisters)
	v.count("sm.register_alloc_unit", int64(s.RegisterAllocUnit), maxRegisters)
	given(v, "sm.register_alloc_granularity", s.RegisterAllocGranularity, allocations)
	v.count("sm.warp_alloc_granularity", int64(s.WarpAllocGranularity), maxWarps)
	v.count("sm.max_registers_per_thread", int64(s.MaxRegistersPerThread), 1024)
	v.size("sm.shared_memory", s.SharedMemory, maxSMem)
	v.size("sm.shared_memory_alloc_unit", s.SharedMemoryAllocUnit, maxSMem)
	v.size("sm.max_shared_memory_per_block", s.MaxSharedMemoryPerBlock, maxSMem)
	v.count("sm.max_threads_per_block", int64(s.MaxThreadsPerBlock), maxThreads)
	if md := s.MaxBlockDim; md.X <= 0 || md.Y <= 0 || md.Z <= 0 {
		v.add("sm.max_block_dim", "required: the largest block extents [x, y, z], e.g. [1024, 1024, 64]")
	} else if md.X > maxBlockDim || md.Y > maxBlockDim || md.Z > maxBlockDim {
		v.add("sm.max_block_dim", "%v: an extent is above %d, more than any GPU allows (1024)", md, maxBlockDim)
	}
	v.count("sm.shared_memory_banks", int64(s.SharedMemoryBanks), 64)
	v.size("sm.bank_width", s.BankWidth, 16)
	v.count("sm.shared_latency", int64(s.SharedLatency), 10000)
	if d.WarpSize > 0 && s.MaxWarps > 0 && s.MaxThreads > 0 && s.MaxThreads != s.MaxWarps*d.WarpSize {
		v.add("sm.max_threads", "%d is not sm.max_warps × warp_size = %d × %d", s.MaxThreads, s.MaxWarps, d.WarpSize)
	}
	if s.MaxSharedMemoryPerBlock > s.SharedMemory && s.SharedMemory > 0 {
		v.add("sm.max_shared_memory_per_block", "%v exceeds sm.shared_memory %v", s.MaxSharedMemoryPerBlock, s.SharedMemory)
	}
}

// caches checks the L1, texture, constant and L2 caches, and the
// geometry the simulator models: the L1 and L2 serve the coalescer's
// 128-byte blocks of 32-byte sectors, so their lines are at least 128
// bytes (the L1's exactly 128) and their sectors at least 32; the
// constant cache's lines are at most 128 bytes.
func (v *validator) caches(d *Device) {
	v.cache("l1", d.L1, d.L1.Sets(), true, maxL1)
	if d.L1.Present() && d.L1.Line > 0 && d.L1.Line != 128 {
		v.add("l1.line", "%v: the simulator's L1 takes 128-byte lines, the blocks the coalescer's transactions lie in (every NVIDIA L1 since Fermi has them); set l1.sector for a finer fill", d.L1.Line)
	}
	v.cache("texture", d.Texture.Cache, d.Texture.Sets(), false, maxL1)
	v.cache("constant", d.Constant, d.Constant.Sets(), false, maxL1)
	v.readOnly("texture", d.Texture.Cache)
	v.readOnly("constant", d.Constant)
	v.textureSharing(d)
	l2 := d.L2
	if !l2.Present() {
		if l2.Slices != 0 || l2.QueueDepth != 0 || l2.TextureOnly {
			v.add("l2", "slices, queue_depth and texture_only describe an L2 that is absent (size 0B); remove them")
		}
		return
	}
	if l2.TextureOnly && !d.Texture.Present() {
		v.add("l2.texture_only", "is true but the device has no texture cache (texture.size is 0B), so the L2 would cache nothing")
	}
	v.count("l2.slices", int64(l2.Slices), maxSlices)
	v.count("l2.queue_depth", int64(l2.QueueDepth), maxQueue)
	if l2.Slices > 0 && d.DRAM.Channels > 0 && l2.Slices%d.DRAM.Channels != 0 {
		v.add("l2.slices", "%d is not a multiple of dram.channels = %d (each channel has the same number of slices)", l2.Slices, d.DRAM.Channels)
	}
	if l2.Line > 0 && d.DRAM.Interleave > 0 && l2.Line > d.DRAM.Interleave {
		v.add("l2.line", "%v is larger than dram.interleave %v: a line would span channels", l2.Line, d.DRAM.Interleave)
	}
	if l2.Line > 0 && l2.Line < 128 {
		v.add("l2.line", "%v: the simulator's L2 takes lines of at least 128 bytes, the blocks the coalescer's transactions lie in (every NVIDIA L2 has 128-byte lines); set l2.sector for a finer fill", l2.Line)
	}
	if l2.Size > maxL2 {
		v.add("l2.size", "%v is more than the simulator allows (at most %v; the largest GPU caches have 256 MiB)", l2.Size, Bytes(maxL2))
	}
	if l2.Slices > 0 && l2.Size%Bytes(l2.Slices) != 0 {
		v.add("l2.size", "%v is not divisible by l2.slices = %d", l2.Size, l2.Slices)
		return
	}
	sliced := l2.Cache
	sliced.Size = l2.SliceSize()
	v.cache("l2", sliced, l2.SetsPerSlice(), true, max(sliced.Size, maxL2)) // the whole L2 was bounded above
}

// textureSharing checks texture.shared_by: the SMs of the device fall
// into whole groups of it (a TPC of G80 or GT200).
func (v *validator) textureSharing(d *Device) {
	n := d.Texture.SharedBy
	switch {
	case n == 0:
	case n < 0:
		v.add("texture.shared_by", "must be positive, got %d", n)
	case !d.Texture.Present() && n > 1:
		v.add("texture.shared_by", "%d SMs share a texture cache that is absent (texture.size is 0B); remove shared_by", n)
	case n > maxSMs:
		v.add("texture.shared_by", "%d is more than the simulator allows (at most %d SMs)", n, maxSMs)
	case d.SMs > 0 && d.SMs%n != 0:
		v.add("texture.shared_by", "%d does not divide sms = %d: every texture cache serves the same number of SMs (e.g. 3 for GT200's 10 TPCs of 3)", n, d.SMs)
	}
}

// dram checks the DRAM, whose largest request, an L2 line (128 bytes
// without an L2), must lie within one interleave chunk and one row.
func (v *validator) dram(d *Device) {
	m := d.DRAM
	v.required("dram.type", m.Type)
	v.count("dram.channels", int64(m.Channels), maxChannels)
	v.count("dram.banks", int64(m.Banks), maxBanks)
	v.count("dram.bank_groups", int64(m.BankGroups), maxBanks)
	if m.Banks > 0 && m.BankGroups > 0 && m.Banks%m.BankGroups != 0 {
		v.add("dram.bank_groups", "%d does not divide dram.banks %d", m.BankGroups, m.Banks)
	}
	v.count("dram.bus_width_bits", int64(m.BusWidthBits), maxBusBits)
	if m.BusWidthBits > 0 && m.BusWidthBits%8 != 0 {
		v.add("dram.bus_width_bits", "%d is not a whole number of bytes", m.BusWidthBits)
	}
	v.count("dram.burst_length", int64(m.BurstLength), maxBurst)
	v.size("dram.row_size", m.RowSize, maxRow)
	tg := m.Timing
	for _, t := range []struct {
		name string
		n    int
	}{{"tCL", tg.CL}, {"tRCD", tg.RCD}, {"tRP", tg.RP}, {"tRAS", tg.RAS}, {"tCCD", tg.CCD}, {"tRRD", tg.RRD},
		{"tWR", tg.WR}, {"tWL", tg.WL}, {"tWTR", tg.WTR}, {"tCCDL", tg.CCDL}} {
		v.count("dram.timing."+t.name, int64(t.n), maxTiming)
	}
	if tg.RTPL < 0 || tg.RTPL > maxTiming {
		v.add("dram.timing.tRTPL", "want 0 to %d DRAM cycles, got %d", maxTiming, tg.RTPL)
	}
	given(v, "dram.scheduler", m.Scheduler, dramSchedulers)
	v.count("dram.queue_depth", int64(m.QueueDepth), maxQueue)
	v.latency("dram.latency", m.Latency, false)
	v.size("dram.interleave", m.Interleave, maxInterleave)
	req := Bytes(128)
	if d.L2.Present() && d.L2.Line > req {
		req = d.L2.Line
	}
	if m.Interleave > 0 && !pow2(int64(m.Interleave)) {
		v.add("dram.interleave", "%v is not a power of two", m.Interleave)
	} else if m.Interleave > 0 && m.Interleave < req {
		v.add("dram.interleave", "%v is smaller than the largest DRAM request, %v (an L2 line, or a 128-byte transaction without an L2)", m.Interleave, req)
	}
	if m.RowSize > 0 && m.RowSize%req != 0 {
		v.add("dram.row_size", "%v is not a multiple of the largest DRAM request, %v, so a request could span rows", m.RowSize, req)
	} else if m.RowSize > 0 && m.Interleave > 0 && m.RowSize%m.Interleave != 0 && m.Interleave%m.RowSize != 0 {
		v.add("dram.row_size", "%v and dram.interleave %v must divide one another", m.RowSize, m.Interleave)
	}
}

type validator struct{ errs []error }

func (v *validator) add(path, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Path: path, Err: fmt.Errorf(format, args...)})
}

func (v *validator) required(path, s string) {
	if strings.TrimSpace(s) == "" {
		v.add(path, "required")
	}
}

// count checks a positive number with an upper bound.
func (v *validator) count(path string, n, most int64) {
	switch {
	case n == 0:
		v.add(path, "required: must be a positive number")
	case n < 0:
		v.add(path, "must be positive, got %d", n)
	case n > most:
		v.add(path, "%d is more than the simulator allows (at most %d, above any GPU it models)", n, most)
	}
}

// size checks a positive size with an upper bound.
func (v *validator) size(path string, b, most Bytes) {
	if b > most {
		v.add(path, "%v is more than the simulator allows (at most %v, above any GPU it models)", b, most)
		return
	}
	v.count(path, int64(b), int64(most))
}

// latency checks a latency in core cycles; zero is allowed where said.
func (v *validator) latency(path string, n int, zero bool) {
	if zero && n == 0 {
		return
	}
	if n > maxLatency {
		v.add(path, "%d cycles is more than the simulator allows (at most %d; no GPU memory level takes more than a few thousand)", n, maxLatency)
		return
	}
	v.count(path, int64(n), maxLatency)
}

// given checks that an enumeration was given; its spelling was checked
// when it was read.
func given[T ~uint8](v *validator, path string, x T, e enum[T]) {
	if x == 0 {
		v.add(path, "required: one of %s", e.list())
	}
}

// cache checks the geometry and timing of a cache (of one slice, for the
// L2) with the given number of sets, no larger than most. Absent caches
// (size 0) need nothing else.
func (v *validator) cache(path string, c Cache, sets int, writable bool, most Bytes) {
	if c.Size < 0 {
		v.add(path+".size", "must not be negative")
		return
	}
	if c.Size == 0 {
		return
	}
	if c.Size > most {
		v.add(path+".size", "%v is more than the simulator allows (at most %v, above any GPU it models)", c.Size, most)
	}
	v.size(path+".line", c.Line, maxLine)
	v.size(path+".sector", c.Sector, maxLine)
	v.count(path+".associativity", int64(c.Associativity), maxWays)
	v.latency(path+".hit_latency", c.HitLatency, false)
	given(v, path+".replacement", c.Replacement, replacements)
	given(v, path+".set_index", c.SetIndex, setIndexes)
	if writable {
		given(v, path+".write_policy", c.WritePolicy, writePolicies)
		v.mshr(path, c)
	} else if c.WritePolicy != ReadOnly {
		v.add(path+".write_policy", "want read_only (the cache holds no written data); got %q", c.WritePolicy.String())
	}
	if c.WriteAllocate && c.WritePolicy != WriteBack && c.WritePolicy != WriteThrough && c.WritePolicy != 0 {
		v.add(path+".write_allocate", "is true with write_policy %v; only write_back and write_through caches allocate on a write", c.WritePolicy)
	}
	v.geometry(path, c, sets)
}

// mshr checks the MSHR entries and merges of a cache the simulator runs.
func (v *validator) mshr(path string, c Cache) {
	v.count(path+".mshr_entries", int64(c.MSHREntries), maxMSHRs)
	v.count(path+".mshr_merges", int64(c.MSHRMerges), maxMerges)
	if n := int64(c.MSHREntries) * int64(c.MSHRMerges); n > maxMSHRTokens && c.MSHREntries <= maxMSHRs && c.MSHRMerges <= maxMerges {
		v.add(path+".mshr_merges", "mshr_entries × mshr_merges = %d requests in flight is more than the simulator allows (at most %d)", n, maxMSHRTokens)
	}
}

// readOnly checks what the simulator's constant and texture caches
// (path) need beyond a cache's geometry: MSHRs, and lines of at most 128
// bytes, since a miss reads its line (or sectors) from the L2 or DRAM as
// one request, which they take up to the 128-byte blocks the coalescer
// makes.
func (v *validator) readOnly(path string, c Cache) {
	if !c.Present() {
		return
	}
	v.mshr(path, c)
	if c.Line > 128 {
		v.add(path+".line", "%v: the simulator reads a %s-cache line from below as one request of at most 128 bytes", c.Line, path)
	}
}

// geometry checks the line, sector and set arithmetic of a cache.
func (v *validator) geometry(path string, c Cache, sets int) {
	if c.Line > 0 && !pow2(int64(c.Line)) {
		v.add(path+".line", "%v is not a power of two", c.Line)
	}
	if c.Sector > 0 && c.Line > 0 {
		switch {
		case !pow2(int64(c.Sector)):
			v.add(path+".sector", "%v is not a power of two", c.Sector)
		case c.Sector < 32:
			v.add(path+".sector", "%v is smaller than a 32-byte sector, the unit DRAM moves and the profilers count", c.Sector)
		case c.Sector > c.Line:
			v.add(path+".sector", "%v is larger than the line %v", c.Sector, c.Line)
		case c.Line/c.Sector > 32:
			v.add(path+".sector", "a %v line holds more than 32 sectors of %v", c.Line, c.Sector)
		}
	}
	if c.Line <= 0 || c.Associativity <= 0 {
		return
	}
	way := c.Line * Bytes(c.Associativity)
	if c.Size%way != 0 {
		v.add(path+".size", "%v is not divisible by line × associativity (%v × %d = %v)", c.Size, c.Line, c.Associativity, way)
		return
	}
	switch c.SetIndex {
	case IndexFermiHash:
		if sets != 32 && sets != 64 {
			v.add(path+".set_index", "fermi_hash needs 32 or 64 sets; size / (line × associativity) gives %d", sets)
		}
	case IndexXOR:
		if !pow2(int64(sets)) {
			v.add(path+".set_index", "xor needs a power-of-two number of sets; size / (line × associativity) gives %d", sets)
		}
	}
}

func pow2(n int64) bool { return n > 0 && bits.OnesCount64(uint64(n)) == 1 }
