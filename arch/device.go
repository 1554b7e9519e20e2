package arch

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Device describes one GPU: what the simulator needs to know about its SMs,
// caches, interconnect and DRAM. It is a plain value loaded from YAML; the
// running components are built from it elsewhere.
type Device struct {
	// Name is the short name a config is known by ("fermi").
	Name string `yaml:"name" json:"name"`
	// Board is the product the numbers describe ("GeForce GTX 480").
	Board string `yaml:"board" json:"board"`
	// ComputeCapability is "major.minor", e.g. "2.0".
	ComputeCapability string `yaml:"compute_capability" json:"compute_capability"`
	// Sources lists, in free text, where the numbers come from.
	Sources []string `yaml:"sources,omitempty" json:"sources,omitempty"`

	Clocks Clocks `yaml:"clocks" json:"clocks"`
	// SMs is the number of streaming multiprocessors.
	SMs int `yaml:"sms" json:"sms"`
	// WarpSize is the number of threads in a warp (always 32).
	WarpSize int `yaml:"warp_size" json:"warp_size"`

	SM           SMLimits     `yaml:"sm" json:"sm"`
	Scheduler    Scheduler    `yaml:"scheduler" json:"scheduler"`
	Coalescer    Coalescer    `yaml:"coalescer" json:"coalescer"`
	L1           Cache        `yaml:"l1" json:"l1"`
	L1Shared     L1Shared     `yaml:"l1_shared,omitempty" json:"l1_shared,omitzero"` // zero where the split is fixed
	L2           L2Cache      `yaml:"l2" json:"l2"`
	Texture      TextureCache `yaml:"texture" json:"texture"`
	Constant     Cache        `yaml:"constant" json:"constant"`
	Interconnect Interconnect `yaml:"interconnect" json:"interconnect"`
	DRAM         DRAM         `yaml:"dram" json:"dram"`

	// CacheConfig is the split WithCacheConfig chose; zero for the config
	// as loaded, whichever split it describes. It is not part of the YAML.
	CacheConfig CacheConfig `yaml:"-" json:"cache_config,omitempty"`
}

// Clocks are the device's clock domains. Simulated time is counted in
// cycles of Core; every other domain is converted to it.
type Clocks struct {
	// Core is the clock that simulated cycles count: the rate at which a
	// warp scheduler can issue one warp instruction (GPGPU-Sim's "core"
	// clock: shader clock / 4 on CC 1.x, / 2 on Fermi, the SM clock on
	// Kepler and Maxwell).
	Core Hz `yaml:"core" json:"core"`
	// DRAM is the DRAM command clock.
	DRAM Hz `yaml:"dram" json:"dram"`
	// DRAMDataRate is the number of data transfers per pin per DRAM clock
	// (2 for GDDR3, 4 for GDDR5 against its command clock).
	DRAMDataRate int `yaml:"dram_data_rate" json:"dram_data_rate"`
}

// SMLimits are the per-SM resources of the occupancy calculator and the
// shared-memory geometry.
type SMLimits struct {
	MaxThreads int `yaml:"max_threads" json:"max_threads"`
	MaxWarps   int `yaml:"max_warps" json:"max_warps"`
	MaxBlocks  int `yaml:"max_blocks" json:"max_blocks"`
	// Registers is the number of 32-bit registers per SM.
	Registers int `yaml:"registers" json:"registers"`
	// RegisterAllocUnit is the register allocation unit size.
	RegisterAllocUnit int `yaml:"register_alloc_unit" json:"register_alloc_unit"`
	// RegisterAllocGranularity is AllocPerBlock or AllocPerWarp.
	RegisterAllocGranularity RegisterAllocation `yaml:"register_alloc_granularity" json:"register_alloc_granularity"`
	// WarpAllocGranularity rounds a block's warp count up before its
	// registers are allocated (per-block allocation only).
	WarpAllocGranularity  int `yaml:"warp_alloc_granularity" json:"warp_alloc_granularity"`
	MaxRegistersPerThread int `yaml:"max_registers_per_thread" json:"max_registers_per_thread"`
	// SharedMemory is the shared memory per SM available to blocks.
	SharedMemory            Bytes `yaml:"shared_memory" json:"shared_memory"`
	SharedMemoryAllocUnit   Bytes `yaml:"shared_memory_alloc_unit" json:"shared_memory_alloc_unit"`
	MaxSharedMemoryPerBlock Bytes `yaml:"max_shared_memory_per_block" json:"max_shared_memory_per_block"`
	MaxThreadsPerBlock      int   `yaml:"max_threads_per_block" json:"max_threads_per_block"`
	// MaxBlockDim is the largest block extent in x, y and z.
	MaxBlockDim       Dim3  `yaml:"max_block_dim" json:"max_block_dim"`
	SharedMemoryBanks int   `yaml:"shared_memory_banks" json:"shared_memory_banks"`
	BankWidth         Bytes `yaml:"bank_width" json:"bank_width"`
	// SharedLatency is the core cycles from a conflict-free shared-memory
	// load's issue to its data; each extra pass of a bank conflict adds
	// one.
	SharedLatency int `yaml:"shared_latency" json:"shared_latency"`
}

// Scheduler describes the warp schedulers of one SM.
type Scheduler struct {
	// Policy is PolicyLRR or PolicyGTO.
	Policy SchedulerPolicy `yaml:"policy" json:"policy"`
	// PerSM is the number of warp schedulers per SM.
	PerSM int `yaml:"schedulers_per_sm" json:"schedulers_per_sm"`
	// IssuePerCycle is the number of warp instructions one scheduler may
	// issue per core cycle.
	IssuePerCycle int `yaml:"issue_per_cycle" json:"issue_per_cycle"`
	// BlockLaunchLatency is the time, in core cycles, from a block slot
	// freeing (or the kernel starting) to the first instruction of the
	// block placed there: the thread-block launch latency of Accel-Sim's
	// kernel_lat microbenchmark. Zero is allowed.
	BlockLaunchLatency int `yaml:"block_launch_latency" json:"block_launch_latency"`
}

// Coalescer selects how a warp's addresses become memory transactions.
type Coalescer struct {
	// Rule is one of RuleCC10 … RuleCC50.
	Rule CoalescingRule `yaml:"rule" json:"rule"`
	// CacheGlobalLoads says whether global loads are cached in L1
	// (Fermi's default -dlcm=ca); it needs an L1.
	CacheGlobalLoads bool `yaml:"cache_global_loads" json:"cache_global_loads"`
}

// Cache is the geometry and timing of one cache. A cache with Size 0 is
// absent.
type Cache struct {
	Size Bytes `yaml:"size" json:"size"`
	// Line is the tag granularity; Sector the fill granularity (equal to
	// Line when the cache is not sectored).
	Line          Bytes       `yaml:"line,omitempty" json:"line,omitempty"`
	Sector        Bytes       `yaml:"sector,omitempty" json:"sector,omitempty"`
	Associativity int         `yaml:"associativity,omitempty" json:"associativity,omitempty"`
	Replacement   Replacement `yaml:"replacement,omitempty" json:"replacement,omitempty"`
	SetIndex      SetIndex    `yaml:"set_index,omitempty" json:"set_index,omitempty"`
	WritePolicy   WritePolicy `yaml:"write_policy,omitempty" json:"write_policy,omitempty"`
	WriteAllocate bool        `yaml:"write_allocate,omitempty" json:"write_allocate,omitempty"`
	// HitLatency is in core cycles, from the request to the data.
	HitLatency int `yaml:"hit_latency,omitempty" json:"hit_latency,omitempty"`
	// MSHREntries is the number of outstanding missed lines; MSHRMerges
	// the number of requests one entry can hold.
	MSHREntries int `yaml:"mshr_entries,omitempty" json:"mshr_entries,omitempty"`
	MSHRMerges  int `yaml:"mshr_merges,omitempty" json:"mshr_merges,omitempty"`
}

// Present reports whether the cache exists.
func (c Cache) Present() bool { return c.Size > 0 }

// Sets returns the number of sets (0 for an absent cache).
func (c Cache) Sets() int {
	if c.Size <= 0 || c.Line <= 0 || c.Associativity <= 0 {
		return 0
	}
	return int(c.Size / (c.Line * Bytes(c.Associativity)))
}

// TextureCache is the texture L1: a read-only cache of one SM, or one
// shared by the SMs of a cluster, as G80 and GT200 share theirs per TPC.
type TextureCache struct {
	Cache `yaml:",inline"`
	// SharedBy is the number of SMs that share one texture cache: SMs
	// 0 to SharedBy-1 share the first, and so on (GPGPU-Sim numbers the
	// cores of its cluster i i·n to i·n+n-1 the same way). 0 or 1: each SM
	// has its own.
	SharedBy int `yaml:"shared_by,omitempty" json:"shared_by,omitempty"`
}

// SMsPerCache is the number of SMs one texture cache serves (at least 1).
func (t TextureCache) SMsPerCache() int { return max(1, t.SharedBy) }

// L2Cache is the shared L2, split into address-interleaved slices. Size is
// the total over all slices.
type L2Cache struct {
	Cache `yaml:",inline"`
	// Slices is the number of L2 slices (memory sub-partitions).
	Slices int `yaml:"slices" json:"slices"`
	// QueueDepth bounds the requests waiting at one slice.
	QueueDepth int `yaml:"queue_depth" json:"queue_depth"`
	// TextureOnly says the L2 caches the texture caches' misses only:
	// global and constant memory go past it to DRAM, as on G80 and GT200
	// (GPGPU-Sim's -gpgpu_cache:dl2_texture_only 1).
	TextureOnly bool `yaml:"texture_only,omitempty" json:"texture_only,omitempty"`
}

// CachesGlobal reports whether global loads and stores (and constant
// fills) go through the L2: it is present and not texture-only.
func (c L2Cache) CachesGlobal() bool { return c.Present() && !c.TextureOnly }

// SliceSize is the capacity of one slice.
func (c L2Cache) SliceSize() Bytes {
	if c.Slices <= 0 {
		return 0
	}
	return c.Size / Bytes(c.Slices)
}

// SetsPerSlice returns the number of sets in one slice.
func (c L2Cache) SetsPerSlice() int {
	if c.Slices <= 0 || c.Line <= 0 || c.Associativity <= 0 {
		return 0
	}
	return int(c.SliceSize() / (c.Line * Bytes(c.Associativity)))
}

// Interconnect is the SM-to-L2 network.
type Interconnect struct {
	// Latency is the one-way delay in core cycles.
	Latency int `yaml:"latency" json:"latency"`
}

// DRAM is the off-chip memory: channels (memory controllers), each with
// banks that keep one row open.
type DRAM struct {
	// Type is descriptive ("GDDR5").
	Type     string `yaml:"type" json:"type"`
	Channels int    `yaml:"channels" json:"channels"`
	// Banks is the number of banks per channel.
	Banks int `yaml:"banks" json:"banks"`
	// BankGroups is the number of GDDR5 bank groups per channel; banks
	// b·Banks/BankGroups to (b+1)·Banks/BankGroups−1 form group b
	// (GPGPU-Sim's nbkgrp, higher bank bits). 1 for GDDR3.
	BankGroups int `yaml:"bank_groups" json:"bank_groups"`
	// BusWidthBits is the data-bus width of one channel.
	BusWidthBits int `yaml:"bus_width_bits" json:"bus_width_bits"`
	BurstLength  int `yaml:"burst_length" json:"burst_length"`
	// RowSize is the row (page) size of one bank of one channel.
	RowSize Bytes      `yaml:"row_size" json:"row_size"`
	Timing  DRAMTiming `yaml:"timing" json:"timing"`
	// Scheduler is SchedFRFCFS or SchedFCFS.
	Scheduler DRAMScheduler `yaml:"scheduler" json:"scheduler"`
	// QueueDepth bounds the requests waiting at one channel.
	QueueDepth int `yaml:"queue_depth" json:"queue_depth"`
	// Latency is the fixed delay, in core cycles, that a request spends in
	// the memory controller and DRAM pipeline on top of the bank timing
	// (GPGPU-Sim's -dram_latency).
	Latency int `yaml:"latency" json:"latency"`
	// Interleave is the channel interleaving granularity: consecutive
	// chunks of this size go to consecutive channels.
	Interleave Bytes `yaml:"interleave" json:"interleave"`
}

// DRAMTiming holds the DRAM timing parameters in DRAM clock cycles.
type DRAMTiming struct {
	CL  int `yaml:"tCL" json:"tCL"`   // column access (CAS) latency
	RCD int `yaml:"tRCD" json:"tRCD"` // activate to column command
	RP  int `yaml:"tRP" json:"tRP"`   // precharge
	RAS int `yaml:"tRAS" json:"tRAS"` // activate to precharge
	CCD int `yaml:"tCCD" json:"tCCD"` // column command to column command
	RRD int `yaml:"tRRD" json:"tRRD"` // activate to activate, different banks
	WR  int `yaml:"tWR" json:"tWR"`   // write recovery
	WL  int `yaml:"tWL" json:"tWL"`   // write latency: write command to its first data
	// WTR is the write-to-read turnaround: end of a write's data to the
	// next read command (GDDR datasheets' and GPGPU-Sim's tCDLR).
	WTR int `yaml:"tWTR" json:"tWTR"`
	// CCDL is the column-to-column delay within one bank group (tCCD
	// applies between groups); equal to CCD without bank groups.
	CCDL int `yaml:"tCCDL" json:"tCCDL"`
	// RTPL is the read-to-precharge delay within one bank group; 0 when
	// the DRAM has no such rule (GPGPU-Sim's default).
	RTPL int `yaml:"tRTPL" json:"tRTPL"`
}

// PeakDRAMBandwidth is the theoretical DRAM bandwidth in bytes per second:
// channels × bus width × DRAM clock × transfers per clock.
func (d *Device) PeakDRAMBandwidth() float64 {
	return float64(d.DRAM.Channels) * float64(d.DRAM.BusWidthBits) / 8 *
		float64(d.Clocks.DRAM) * float64(d.Clocks.DRAMDataRate)
}

// Dim3 is a block or grid shape; X varies fastest.
type Dim3 struct {
	X int `yaml:"x" json:"x"`
	Y int `yaml:"y" json:"y"`
	Z int `yaml:"z" json:"z"`
}

// Threads is X·Y·Z.
func (d Dim3) Threads() int { return d.X * d.Y * d.Z }

// String writes the shape as "XxYxZ".
func (d Dim3) String() string { return fmt.Sprintf("%dx%dx%d", d.X, d.Y, d.Z) }

// ParseDim3 reads a shape written "X", "XxY" or "XxYxZ" (missing extents
// are 1), e.g. "16x16".
func ParseDim3(s string) (Dim3, error) {
	parts := strings.Split(s, "x")
	if len(parts) > 3 || s == "" {
		return Dim3{}, fmt.Errorf("want X, XxY or XxYxZ with positive integers, e.g. 16x16; got %q", s)
	}
	v := []int{1, 1, 1}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			return Dim3{}, fmt.Errorf("want X, XxY or XxYxZ with positive integers, e.g. 16x16; got %q", s)
		}
		v[i] = n
	}
	return Dim3{v[0], v[1], v[2]}, nil
}

// UnmarshalYAML reads a shape as a sequence of one to three positive
// integers, x first: [16, 16].
func (d *Dim3) UnmarshalYAML(n *yaml.Node) error {
	bad := &PosError{Line: n.Line, Column: n.Column,
		Err: fmt.Errorf("want a list of one to three positive integers, x first, e.g. [16, 16]")}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > 3 {
		return bad
	}
	v := []int{1, 1, 1}
	for i, c := range n.Content {
		k, err := strconv.Atoi(c.Value)
		if c.Kind != yaml.ScalarNode || err != nil || k <= 0 {
			return &PosError{Line: c.Line, Column: c.Column, Err: bad.Err}
		}
		v[i] = k
	}
	*d = Dim3{v[0], v[1], v[2]}
	return nil
}

// MarshalYAML writes the shape as a flow sequence [x, y, z].
func (d Dim3) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range []int{d.X, d.Y, d.Z} {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)})
	}
	return n, nil
}

// MarshalJSON writes the shape as [x, y, z].
func (d Dim3) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("[%d,%d,%d]", d.X, d.Y, d.Z)), nil
}
