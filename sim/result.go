package sim

import (
	"gpumemsim/arch"
	"gpumemsim/sim/dram"
)

// Result is what one simulated kernel did: raw counters per level and per
// reference, time, occupancy and why warps waited. Metrics turns it into
// the names profilers use.
type Result struct {
	Device  string `json:"device"`
	Kernel  string `json:"kernel"`
	Mapping string `json:"mapping"`
	// PerThread says the kernel is a per-thread (CUDA-style) one: it may
	// use shared memory and barriers.
	PerThread bool      `json:"per_thread,omitzero"`
	Block     arch.Dim3 `json:"block"`
	Grid      arch.Dim3 `json:"grid"`
	// Occupancy is the calculator's (theoretical) answer for the launch.
	Occupancy arch.Occupancy `json:"occupancy"`

	// Cycles is the simulated time in core cycles, from the first block's
	// dispatch until the last warp finished and the last DRAM access
	// completed.
	Cycles int64 `json:"cycles"`
	// TimeMS is Cycles at the core clock, in milliseconds.
	TimeMS float64 `json:"time_ms"`
	// WarpInsts counts issued warp instructions of every kind; MemInsts
	// the loads and stores among them.
	WarpInsts int64 `json:"warp_insts"`
	MemInsts  int64 `json:"mem_insts"`
	// AchievedOccupancy is the average number of resident warps per
	// active SM cycle over the maximum (nvprof's achieved_occupancy).
	AchievedOccupancy float64 `json:"achieved_occupancy"`
	// DRAMBandwidth is the bytes moved by DRAM reads and writes per second
	// of simulated time.
	DRAMBandwidth float64 `json:"dram_bandwidth"`

	// Loads and Stores are the coalescer's counts at the SMs.
	Loads  RefCounts `json:"loads"`
	Stores RefCounts `json:"stores"`
	// L1 counts global loads in the L1 data caches (zero when the device
	// does not cache them there).
	L1 L1Stats `json:"l1"`
	// L2 counts accesses at the L2 slices in 32-byte sectors (zero when
	// the device has no L2 for global memory).
	L2 L2Stats `json:"l2"`
	// Shared counts shared-memory accesses (per-thread kernels).
	Shared SharedStats `json:"shared,omitzero"`
	// Constant counts constant-memory loads, at the SMs and their
	// constant caches.
	Constant ReadOnlyStats `json:"constant,omitzero"`
	// Texture counts texture fetches, at the SMs and their texture
	// caches.
	Texture ReadOnlyStats `json:"texture,omitzero"`
	// DRAM is the memory's own account.
	DRAM dram.ChannelStats `json:"dram"`
	// Stalls says where warps spent the cycles they did not issue.
	Stalls Stalls `json:"stalls"`
	// Refs is indexed like traces.Info.Refs.
	Refs []RefStats `json:"refs"`
	// Sampling, for a sampled run, says what was simulated and how sure
	// the extrapolated counts are; nil when every block was simulated.
	Sampling *Sampling `json:"sampling,omitempty"`
}

// L1Stats count the accesses of one kind of cache level of all SMs:
// global loads at the L1 data caches (Result.L1), or constant-memory
// passes at the constant caches, or texture lookups at the texture
// caches (ReadOnlyStats.Cache).
type L1Stats struct {
	// Accesses are transactions looked up; Hits found their data; Misses
	// did not (MSHRMerges of them joined a miss already in flight).
	Accesses   int64 `json:"accesses"`
	Hits       int64 `json:"hits"`
	Misses     int64 `json:"misses"`
	MSHRMerges int64 `json:"mshr_merges"`
	// Fills are misses sent on to L2; Evictions lines replaced by them.
	Fills     int64 `json:"fills"`
	Evictions int64 `json:"evictions"`
	// FillSectors are the 32-byte sectors the fills read from the level
	// below: a fill's sector where a lookup asks for one (the read-only
	// caches, the L1 of the cc50 rule, an unsectored L1), and where a
	// transaction can span several of the L1's sectors, those it misses.
	FillSectors int64 `json:"fill_sectors,omitempty"`
	// StoreEvictions are lines a global store removed (write-evict).
	StoreEvictions int64 `json:"store_evictions"`
	// MSHRStalls counts the times the load/store unit stopped because no
	// MSHR entry or merge slot was free, or (a sectored L1 under a rule
	// of wider transactions) because the fill in flight for the line does
	// not bring the sectors a lookup needs.
	MSHRStalls int64 `json:"mshr_stalls"`
}

// L2Stats count accesses at the L2 slices, in 32-byte sectors.
type L2Stats struct {
	ReadRequests    int64 `json:"read_requests"`
	ReadSectors     int64 `json:"read_sectors"`
	ReadHitSectors  int64 `json:"read_hit_sectors"`
	ReadMissSectors int64 `json:"read_miss_sectors"`
	// MSHRMerges are read misses that joined a DRAM read in flight;
	// MSHRWaits accesses that found no MSHR entry or merge slot and waited
	// at the slice for a fill.
	MSHRMerges int64 `json:"mshr_merges"`
	MSHRWaits  int64 `json:"mshr_waits"`
	// QueueFullCycles add up the cycles accesses waited in the
	// interconnect because their slice's queue (l2.queue_depth) was full.
	QueueFullCycles int64 `json:"queue_full_cycles"`
	WriteRequests   int64 `json:"write_requests"`
	WriteSectors    int64 `json:"write_sectors"`
	// WriteBackSectors are dirty sectors of evicted lines sent to DRAM.
	WriteBackSectors int64 `json:"write_back_sectors"`
	Evictions        int64 `json:"evictions"`
	// DirtySectorsAtEnd stay in L2 when the kernel ends (not written back;
	// no profiler counts them either).
	DirtySectorsAtEnd int64 `json:"dirty_sectors_at_end"`
}

// Stalls are warp-cycles spent not issuing, by reason, and SM cycles
// without resident work.
type Stalls struct {
	// Memory: a warp's next instruction waited for its loads.
	Memory int64 `json:"memory"`
	// Issue: a warp was ready but its scheduler issued another warp, or
	// the load/store unit was busy.
	Issue int64 `json:"issue"`
	// Idle: SM cycles (of the simulated time) with no resident warp.
	Idle int64 `json:"idle"`
	// Barrier: a warp waited at __syncthreads() for the other warps of
	// its block.
	Barrier int64 `json:"barrier,omitzero"`
}

// RefStats are the counts of one memory reference.
type RefStats struct {
	// Ref is the reference as written ("A[i1][i3]") and Op "load" or
	// "store".
	Ref string `json:"ref"`
	Op  string `json:"op"`
	// Space is "shared" for a shared-memory reference (whose Transactions
	// are passes through the banks), "constant" for a constant-memory one
	// (whose Transactions are passes through the constant cache),
	// "texture" for a texture fetch and "readonly" for a load through the
	// read-only data cache (whose Transactions are lookups of 32-byte
	// lines in the texture cache), empty for global memory.
	Space string `json:"space,omitempty"`
	RefCounts
	L1Hits   int64 `json:"l1_hits"`
	L1Misses int64 `json:"l1_misses"`
	// ConstHits and ConstMisses are a constant reference's passes that
	// hit and missed in the constant cache.
	ConstHits   int64 `json:"const_hits,omitempty"`
	ConstMisses int64 `json:"const_misses,omitempty"`
	// TexHits and TexMisses are a texture or readonly reference's
	// lookups that hit and missed in the texture cache.
	TexHits         int64 `json:"tex_hits,omitempty"`
	TexMisses       int64 `json:"tex_misses,omitempty"`
	L2ReadSectors   int64 `json:"l2_read_sectors"`
	L2HitSectors    int64 `json:"l2_hit_sectors"`
	L2MissSectors   int64 `json:"l2_miss_sectors"`
	DRAMReadSectors int64 `json:"dram_read_sectors"`
}
