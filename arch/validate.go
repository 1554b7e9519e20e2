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

// Validate reports every problem with the device at once, joined with
// errors.Join; each is a *FieldError.
func (d *Device) Validate() error {
	v := &validator{}
	v.required("name", d.Name)
	v.required("board", d.Board)
	if !ccPattern.MatchString(d.ComputeCapability) {
		v.add("compute_capability", "want major.minor, e.g. \"2.0\"; got %q", d.ComputeCapability)
	}
	v.positive("clocks.core", int64(d.Clocks.Core))
	v.positive("clocks.dram", int64(d.Clocks.DRAM))
	v.positive("clocks.dram_data_rate", int64(d.Clocks.DRAMDataRate))
	v.positive("sms", int64(d.SMs))
	if d.WarpSize != 32 {
		v.add("warp_size", "must be 32 (every NVIDIA GPU this simulator models has 32-thread warps); got %d", d.WarpSize)
	}

	s := d.SM
	v.positive("sm.max_threads", int64(s.MaxThreads))
	v.positive("sm.max_warps", int64(s.MaxWarps))
	v.positive("sm.max_blocks", int64(s.MaxBlocks))
	v.positive("sm.registers", int64(s.Registers))
	v.positive("sm.register_alloc_unit", int64(s.RegisterAllocUnit))
	given(v, "sm.register_alloc_granularity", s.RegisterAllocGranularity, allocations)
	v.positive("sm.warp_alloc_granularity", int64(s.WarpAllocGranularity))
	v.positive("sm.max_registers_per_thread", int64(s.MaxRegistersPerThread))
	v.positive("sm.shared_memory", int64(s.SharedMemory))
	v.positive("sm.shared_memory_alloc_unit", int64(s.SharedMemoryAllocUnit))
	v.positive("sm.max_shared_memory_per_block", int64(s.MaxSharedMemoryPerBlock))
	v.positive("sm.max_threads_per_block", int64(s.MaxThreadsPerBlock))
	if s.MaxBlockDim.X <= 0 || s.MaxBlockDim.Y <= 0 || s.MaxBlockDim.Z <= 0 {
		v.add("sm.max_block_dim", "required: the largest block extents [x, y, z], e.g. [1024, 1024, 64]")
	}
	v.positive("sm.shared_memory_banks", int64(s.SharedMemoryBanks))
	v.positive("sm.bank_width", int64(s.BankWidth))
	if d.WarpSize > 0 && s.MaxWarps > 0 && s.MaxThreads > 0 && s.MaxThreads != s.MaxWarps*d.WarpSize {
		v.add("sm.max_threads", "%d is not sm.max_warps × warp_size = %d × %d", s.MaxThreads, s.MaxWarps, d.WarpSize)
	}
	if s.MaxSharedMemoryPerBlock > s.SharedMemory && s.SharedMemory > 0 {
		v.add("sm.max_shared_memory_per_block", "%v exceeds sm.shared_memory %v", s.MaxSharedMemoryPerBlock, s.SharedMemory)
	}

	given(v, "scheduler.policy", d.Scheduler.Policy, policies)
	v.positive("scheduler.schedulers_per_sm", int64(d.Scheduler.PerSM))
	v.positive("scheduler.issue_per_cycle", int64(d.Scheduler.IssuePerCycle))
	if d.Scheduler.BlockLaunchLatency < 0 {
		v.add("scheduler.block_launch_latency", "must not be negative, got %d", d.Scheduler.BlockLaunchLatency)
	}

	given(v, "coalescer.rule", d.Coalescer.Rule, rules)
	if d.Coalescer.CacheGlobalLoads && !d.L1.Present() {
		v.add("coalescer.cache_global_loads", "is true but the device has no L1 (l1.size is 0)")
	}

	v.cache("l1", d.L1, d.L1.Sets(), true)
	v.cache("texture", d.Texture, d.Texture.Sets(), false)
	v.cache("constant", d.Constant, d.Constant.Sets(), false)
	if d.L2.Present() {
		v.positive("l2.slices", int64(d.L2.Slices))
		v.positive("l2.queue_depth", int64(d.L2.QueueDepth))
		if d.L2.Slices > 0 && d.DRAM.Channels > 0 && d.L2.Slices%d.DRAM.Channels != 0 {
			v.add("l2.slices", "%d is not a multiple of dram.channels = %d (each channel has the same number of slices)", d.L2.Slices, d.DRAM.Channels)
		}
		if d.L2.Line > 0 && d.DRAM.Interleave > 0 && d.L2.Line > d.DRAM.Interleave {
			v.add("l2.line", "%v is larger than dram.interleave %v: a line would span channels", d.L2.Line, d.DRAM.Interleave)
		}
	} else if d.L2.Slices != 0 || d.L2.QueueDepth != 0 {
		v.add("l2", "slices and queue_depth describe an L2 that is absent (size 0B); remove them")
	}
	if d.L2.Present() && d.L2.Slices > 0 && d.L2.Size%Bytes(d.L2.Slices) != 0 {
		v.add("l2.size", "%v is not divisible by l2.slices = %d", d.L2.Size, d.L2.Slices)
	} else {
		sliced := d.L2.Cache
		sliced.Size = d.L2.SliceSize()
		v.cache("l2", sliced, d.L2.SetsPerSlice(), true)
	}

	v.positive("interconnect.latency", int64(d.Interconnect.Latency))

	m := d.DRAM
	v.required("dram.type", m.Type)
	v.positive("dram.channels", int64(m.Channels))
	v.positive("dram.banks", int64(m.Banks))
	v.positive("dram.bank_groups", int64(m.BankGroups))
	if m.Banks > 0 && m.BankGroups > 0 && m.Banks%m.BankGroups != 0 {
		v.add("dram.bank_groups", "%d does not divide dram.banks %d", m.BankGroups, m.Banks)
	}
	v.positive("dram.bus_width_bits", int64(m.BusWidthBits))
	if m.BusWidthBits > 0 && m.BusWidthBits%8 != 0 {
		v.add("dram.bus_width_bits", "%d is not a whole number of bytes", m.BusWidthBits)
	}
	v.positive("dram.burst_length", int64(m.BurstLength))
	v.positive("dram.row_size", int64(m.RowSize))
	v.positive("dram.timing.tCL", int64(m.Timing.CL))
	v.positive("dram.timing.tRCD", int64(m.Timing.RCD))
	v.positive("dram.timing.tRP", int64(m.Timing.RP))
	v.positive("dram.timing.tRAS", int64(m.Timing.RAS))
	v.positive("dram.timing.tCCD", int64(m.Timing.CCD))
	v.positive("dram.timing.tRRD", int64(m.Timing.RRD))
	v.positive("dram.timing.tWR", int64(m.Timing.WR))
	v.positive("dram.timing.tWL", int64(m.Timing.WL))
	v.positive("dram.timing.tWTR", int64(m.Timing.WTR))
	v.positive("dram.timing.tCCDL", int64(m.Timing.CCDL))
	if m.Timing.RTPL < 0 {
		v.add("dram.timing.tRTPL", "must not be negative, got %d", m.Timing.RTPL)
	}
	given(v, "dram.scheduler", m.Scheduler, dramSchedulers)
	v.positive("dram.queue_depth", int64(m.QueueDepth))
	v.positive("dram.latency", int64(m.Latency))
	v.positive("dram.interleave", int64(m.Interleave))
	if m.Interleave > 0 && !pow2(int64(m.Interleave)) {
		v.add("dram.interleave", "%v is not a power of two", m.Interleave)
	}
	if m.Interleave > 0 && m.Interleave < 32 {
		v.add("dram.interleave", "%v is smaller than a 32-byte sector", m.Interleave)
	}
	if m.RowSize > 0 && m.Interleave > 0 && m.RowSize%m.Interleave != 0 && m.Interleave%m.RowSize != 0 {
		v.add("dram.row_size", "%v and dram.interleave %v must divide one another", m.RowSize, m.Interleave)
	}
	return errors.Join(v.errs...)
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

func (v *validator) positive(path string, n int64) {
	switch {
	case n == 0:
		v.add(path, "required: must be a positive number")
	case n < 0:
		v.add(path, "must be positive, got %d", n)
	}
}

// given checks that an enumeration was given; its spelling was checked
// when it was read.
func given[T ~uint8](v *validator, path string, x T, e enum[T]) {
	if x == 0 {
		v.add(path, "required: one of %s", e.list())
	}
}

// cache checks the geometry of a cache (of one slice, for the L2) with
// the given number of sets. Absent caches (size 0) need nothing else.
func (v *validator) cache(path string, c Cache, sets int, writable bool) {
	if c.Size < 0 {
		v.add(path+".size", "must not be negative")
		return
	}
	if c.Size == 0 {
		return
	}
	v.positive(path+".line", int64(c.Line))
	v.positive(path+".sector", int64(c.Sector))
	v.positive(path+".associativity", int64(c.Associativity))
	v.positive(path+".hit_latency", int64(c.HitLatency))
	given(v, path+".replacement", c.Replacement, replacements)
	given(v, path+".set_index", c.SetIndex, setIndexes)
	if writable {
		given(v, path+".write_policy", c.WritePolicy, writePolicies)
		v.positive(path+".mshr_entries", int64(c.MSHREntries))
		v.positive(path+".mshr_merges", int64(c.MSHRMerges))
	} else if c.WritePolicy != ReadOnly {
		v.add(path+".write_policy", "want read_only (the cache holds no written data); got %q", c.WritePolicy.String())
	}
	if c.Line > 0 && !pow2(int64(c.Line)) {
		v.add(path+".line", "%v is not a power of two", c.Line)
	}
	if c.Sector > 0 && c.Line > 0 {
		switch {
		case !pow2(int64(c.Sector)):
			v.add(path+".sector", "%v is not a power of two", c.Sector)
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
