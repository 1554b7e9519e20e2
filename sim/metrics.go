package sim

import (
	"fmt"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// Metric is one named number of a run, as a profiler would print it.
type Metric struct {
	Name        string  `json:"name"`
	Value       float64 `json:"value"`
	Unit        string  `json:"unit"`
	Description string  `json:"description"`
	// CI95, for a sampled run, is the half-width of the value's 95%
	// confidence interval; nil when the value is exact.
	CI95 *float64 `json:"ci95,omitempty"`
}

// Metric styles: the names of nvprof (the default), of Nsight Compute,
// and of GPGPU-Sim's statistics output.
const (
	StyleNvprof   = "nvprof"
	StyleNCU      = "ncu"
	StyleGPGPUSim = "gpgpusim"
)

// Styles lists the metric styles.
func Styles() []string { return []string{StyleNvprof, StyleNCU, StyleGPGPUSim} }

// Metrics turns a run's counters into named metrics for the device's
// generation, in the order nvprof users expect. Rates are percentages
// (0 to 100) except achieved_occupancy, a fraction as nvprof prints it.
// Everything no profiler has is named sim_*. A sampled run's extrapolated
// metrics carry their confidence intervals.
func Metrics(dev *arch.Device, r *Result, style string) ([]Metric, error) {
	ms, err := pointMetrics(dev, r, style)
	if err != nil || r.Sampling == nil || len(r.Sampling.replicates) == 0 {
		return ms, err
	}
	return ms, withIntervals(dev, r.Sampling, style, ms)
}

func pointMetrics(dev *arch.Device, r *Result, style string) ([]Metric, error) {
	var ms []Metric
	add := func(name string, v float64, unit, desc string) {
		ms = append(ms, Metric{Name: name, Value: v, Unit: unit, Description: desc})
	}
	rule := dev.Coalescer.Rule
	legacy := rule.Legacy()
	ld, st := &r.Loads, &r.Stores
	// On CC 1.x the profiler had only the legacy counters; the nvprof
	// names follow them there too, so devices can be compared.
	ms = append(ms, legacyMetrics(rule, ld, st)...)
	ms = append(ms, nvprofCountMetrics(ld, st)...)
	if !legacy {
		name, desc := "l1_cache_global_hit_rate", "Hit rate in L1 cache for global loads"
		if rule == arch.RuleCC50 {
			name, desc = "global_hit_rate", "Hit rate for global loads in unified l1/tex cache"
		}
		add(name, 100*ratio(r.L1.Hits, r.L1.Accesses), "%", desc)
	}
	l2 := l2Traffic(dev, r)
	switch l2 {
	case l2All:
		add("l2_read_transactions", float64(r.L2.ReadSectors), "sectors", "Memory read transactions seen at L2 cache for all read requests")
		add("l2_write_transactions", float64(r.L2.WriteSectors), "sectors", "Memory write transactions seen at L2 cache for all write requests")
		name, desc := "l2_l1_read_hit_rate", "Hit rate at L2 cache for all read requests from L1 cache"
		if rule == arch.RuleCC50 {
			name, desc = "l2_tex_read_hit_rate", "Hit rate at L2 cache for all read requests from texture cache"
		}
		add(name, 100*ratio(r.L2.ReadHitSectors, r.L2.ReadSectors), "%", desc)
	case l2Texture:
		add("l2_tex_read_transactions", float64(r.L2.ReadSectors), "sectors", "Memory read transactions seen at L2 cache for read requests from the texture cache (the L2 caches nothing else)")
		add("l2_tex_read_hit_rate", 100*ratio(r.L2.ReadHitSectors, r.L2.ReadSectors), "%", "Hit rate at L2 cache for all read requests from texture cache")
	}
	if r.PerThread {
		ms = append(ms, SharedMetrics(dev, &r.Shared)...)
	}
	add("dram_read_transactions", float64(r.DRAM.ReadSectors), "sectors", "Device memory read transactions")
	add("dram_write_transactions", float64(r.DRAM.WriteSectors), "sectors", "Device memory write transactions")
	add("achieved_occupancy", r.AchievedOccupancy, "", "Ratio of the average active warps per active cycle to the maximum number of warps supported on a multiprocessor")

	add("sim_cycles", float64(r.Cycles), "cycles", fmt.Sprintf("Simulated time in core cycles (%v)", dev.Clocks.Core))
	add("sim_time_ms", r.TimeMS, "ms", "Simulated time at the core clock")
	add("sim_warp_insts", float64(r.WarpInsts), "warp insts", "Warp instructions issued, memory and compute")
	add("sim_ipc", ratio(r.WarpInsts, r.Cycles), "per cycle", "Warp instructions issued per core cycle, all SMs")
	add("sim_theoretical_occupancy", r.Occupancy.Occupancy, "", "Occupancy from the occupancy calculator ("+r.Occupancy.LimitedBy+" limit)")
	add("sim_active_blocks_per_sm", float64(r.Occupancy.ActiveBlocks), "blocks", "Resident blocks per SM allowed by the occupancy calculator")
	add("sim_gld_sectors", float64(ld.Sectors), "sectors", "32-byte sectors spanned by global load transactions (bytes / 32; fewer may be touched)")
	add("sim_gst_sectors", float64(st.Sectors), "sectors", "32-byte sectors spanned by global store transactions (bytes / 32; fewer may be touched)")
	if dev.Coalescer.CacheGlobalLoads {
		add("sim_l1_mshr_merges", float64(r.L1.MSHRMerges), "accesses", "L1 misses merged into a miss already in flight")
		add("sim_l1_mshr_stalls", float64(r.L1.MSHRStalls), "stalls", "Times the load/store unit stopped for lack of an L1 MSHR entry or merge slot (or, on a sectored L1, for a fill in flight without the sectors it needs)")
		add("sim_l1_fill_sectors", float64(r.L1.FillSectors), "sectors", "32-byte sectors the L1's misses read from the L2: the whole line where it is not sectored, else the sectors missing")
	}
	if r.hasSpace(kernel.SpaceConstant) {
		ms = append(ms, ConstantMetrics(&r.Constant, true)...)
	}
	if r.hasSpace(kernel.SpaceTexture) || r.hasSpace(kernel.SpaceReadOnly) {
		ms = append(ms, TextureMetrics(&r.Texture, true)...)
		add("tex_cache_throughput", throughputGBps(r.Texture.Passes*texLine, r.TimeMS), "GB/s", "Texture cache throughput: the bytes of its lookups (32 each) per second of simulated time")
	}
	if l2 != l2None {
		add("sim_l2_mshr_merges", float64(r.L2.MSHRMerges), "accesses", "L2 read misses merged into a DRAM read in flight")
		add("sim_l2_mshr_waits", float64(r.L2.MSHRWaits), "accesses", "L2 accesses that waited at the slice for a free MSHR entry or merge slot")
		add("sim_l2_queue_full_cycles", float64(r.L2.QueueFullCycles), "cycles", "Cycles accesses waited in the interconnect for room in a full L2 slice queue")
	}
	if l2 == l2All {
		add("sim_l2_write_back_sectors", float64(r.L2.WriteBackSectors), "sectors", "Dirty L2 sectors written back to DRAM on eviction")
		add("sim_l2_dirty_sectors_at_end", float64(r.L2.DirtySectorsAtEnd), "sectors", "Dirty L2 sectors left unwritten when the kernel ends")
	}
	add("sim_dram_row_hit_rate", 100*ratio(r.DRAM.RowHits, r.DRAM.RowHits+r.DRAM.RowMisses), "%", "DRAM accesses that found their row open")
	add("sim_dram_bandwidth_gbps", r.DRAMBandwidth/1e9, "GB/s", "DRAM bytes read and written per second of simulated time")
	add("sim_dram_bandwidth_utilization", 100*r.DRAMBandwidth/dev.PeakDRAMBandwidth(), "%", "Achieved DRAM bandwidth over the peak")
	add("sim_stall_memory", float64(r.Stalls.Memory), "warp-cycles", "Warp cycles waiting for loads")
	add("sim_stall_issue", float64(r.Stalls.Issue), "warp-cycles", "Warp cycles ready but not issued (another warp issued, or the load/store unit was busy)")
	if r.PerThread {
		add("sim_stall_barrier", float64(r.Stalls.Barrier), "warp-cycles", "Warp cycles waiting at __syncthreads() for the other warps of the block")
	}
	add("sim_sm_idle_cycles", float64(r.Stalls.Idle), "SM-cycles", "SM cycles with no resident warp")

	switch style {
	case StyleNvprof, "":
		return ms, nil
	case StyleNCU:
		return restyle(ms, ncuNames, r), nil
	case StyleGPGPUSim:
		return gpgpusimMetrics(r), nil
	}
	return nil, fmt.Errorf("unknown metric style %q; want %s", style, strings.Join(Styles(), ", "))
}

// CountMetrics names the coalescer's counts as the profiler of the rule's
// devices did: the CUDA Visual Profiler's legacy counters on CC 1.x, nvprof
// on CC 2.0 and later.
func CountMetrics(rule arch.CoalescingRule, ld, st *RefCounts) []Metric {
	if rule.Legacy() {
		return legacyMetrics(rule, ld, st)
	}
	return nvprofCountMetrics(ld, st)
}

func legacyMetrics(rule arch.CoalescingRule, ld, st *RefCounts) []Metric {
	n := func(v int64) float64 { return float64(v) }
	switch rule {
	case arch.RuleCC10:
		return []Metric{
			{Name: "gld_coherent", Value: n(ld.Coalesced), Unit: "half-warps", Description: "Global load half-warps coalesced into 64- or 128-byte transactions (CC 1.0/1.1 counter)"},
			{Name: "gld_incoherent", Value: n(ld.HalfWarps - ld.Coalesced), Unit: "half-warps", Description: "Global load half-warps served by one 32-byte transaction per thread"},
			{Name: "gst_coherent", Value: n(st.Coalesced), Unit: "half-warps", Description: "Global store half-warps coalesced into 64- or 128-byte transactions"},
			{Name: "gst_incoherent", Value: n(st.HalfWarps - st.Coalesced), Unit: "half-warps", Description: "Global store half-warps served by one 32-byte transaction per thread"},
		}
	case arch.RuleCC13:
		return []Metric{
			{Name: "gld_request", Value: n(ld.Requests), Unit: "warp insts", Description: "Global memory loads (increments per warp)"},
			{Name: "gld_32b", Value: n(ld.Txn32), Unit: "transactions", Description: "32-byte global memory load transactions"},
			{Name: "gld_64b", Value: n(ld.Txn64), Unit: "transactions", Description: "64-byte global memory load transactions"},
			{Name: "gld_128b", Value: n(ld.Txn128), Unit: "transactions", Description: "128-byte global memory load transactions"},
			{Name: "gst_request", Value: n(st.Requests), Unit: "warp insts", Description: "Global memory stores (increments per warp)"},
			{Name: "gst_32b", Value: n(st.Txn32), Unit: "transactions", Description: "32-byte global memory store transactions"},
			{Name: "gst_64b", Value: n(st.Txn64), Unit: "transactions", Description: "64-byte global memory store transactions"},
			{Name: "gst_128b", Value: n(st.Txn128), Unit: "transactions", Description: "128-byte global memory store transactions"},
		}
	}
	return nil
}

func nvprofCountMetrics(ld, st *RefCounts) []Metric {
	n := func(v int64) float64 { return float64(v) }
	return []Metric{
		{Name: "inst_executed_global_loads", Value: n(ld.Requests), Unit: "warp insts", Description: "Warp level instructions for global loads"},
		{Name: "inst_executed_global_stores", Value: n(st.Requests), Unit: "warp insts", Description: "Warp level instructions for global stores"},
		{Name: "gld_transactions", Value: n(ld.Transactions), Unit: "transactions", Description: "Number of global memory load transactions"},
		{Name: "gst_transactions", Value: n(st.Transactions), Unit: "transactions", Description: "Number of global memory store transactions"},
		{Name: "gld_transactions_per_request", Value: ld.TransactionsPerRequest(), Unit: "per request", Description: "Average number of global memory load transactions performed for each global memory load."},
		{Name: "gst_transactions_per_request", Value: st.TransactionsPerRequest(), Unit: "per request", Description: "Average number of global memory store transactions performed for each global memory store"},
		{Name: "gld_efficiency", Value: ld.Efficiency(), Unit: "%", Description: "Ratio of requested global memory load throughput to required global memory load throughput expressed as percentage (every lane's bytes count, so broadcasts exceed 100%)."},
		{Name: "gst_efficiency", Value: st.Efficiency(), Unit: "%", Description: "Ratio of requested global memory store throughput to required global memory store throughput expressed as percentage."},
	}
}

// What a run's L2 metrics describe.
const (
	l2None    = iota // no L2, or a texture-only one and no texture fetch: no L2 metrics
	l2All            // an L2 every space goes through
	l2Texture        // a texture-only L2 (G80, GT200) and a kernel that fetches textures
)

// l2Traffic says which L2 metrics a run on dev has: a texture-only L2
// saw no global or constant traffic, so it gets the texture metrics only,
// and only for a kernel with texture references (the others' metrics are
// those of a device without an L2).
func l2Traffic(dev *arch.Device, r *Result) int {
	switch {
	case dev.L2.CachesGlobal():
		return l2All
	case dev.L2.Present() && r.hasSpace(kernel.SpaceTexture):
		return l2Texture
	}
	return l2None
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// SharedMetrics are nvprof's shared-memory metrics: requests are warp
// instructions, transactions passes through the banks, efficiency the
// bytes asked for over the bytes the passes could carry.
func SharedMetrics(dev *arch.Device, sh *SharedStats) []Metric {
	var ms []Metric
	add := func(name string, v float64, unit, desc string) {
		ms = append(ms, Metric{Name: name, Value: v, Unit: unit, Description: desc})
	}
	add("shared_load_transactions", float64(sh.LoadTransactions), "transactions", "Number of shared memory load transactions")
	add("shared_store_transactions", float64(sh.StoreTransactions), "transactions", "Number of shared memory store transactions")
	add("shared_load_transactions_per_request", ratio(sh.LoadTransactions, sh.LoadRequests), "per request", "Average number of shared memory load transactions performed for each shared memory load")
	add("shared_store_transactions_per_request", ratio(sh.StoreTransactions, sh.StoreRequests), "per request", "Average number of shared memory store transactions performed for each shared memory store")
	pass := int64(dev.SM.SharedMemoryBanks) * int64(dev.SM.BankWidth)
	if dev.Coalescer.Rule == arch.RuleCC30 {
		pass = int64(dev.SM.SharedMemoryBanks) * 8 // 64-bit banks in either mode (PG42 F.5.3)
	}
	add("shared_efficiency", 100*ratio(sh.LoadBytes+sh.StoreBytes, (sh.LoadTransactions+sh.StoreTransactions)*pass), "%", "Ratio of requested shared memory throughput to required shared memory throughput")
	if dev.Coalescer.Rule == arch.RuleCC20 {
		add("l1_shared_bank_conflict", float64(sh.LoadTransactions-sh.LoadRequests+sh.StoreTransactions-sh.StoreRequests), "conflicts", "Number of shared memory bank conflicts (passes beyond the first of each request)")
	}
	return ms
}

// ConstantMetrics name the constant-memory counts; no profiler counts the
// constant cache's passes, so they are all sim_*. With cache, the cache's
// hits, misses and fills too (a simulated run; the coalescer-only counts
// of Count have none).
func ConstantMetrics(c *ReadOnlyStats, cache bool) []Metric {
	ms := []Metric{
		{Name: "sim_const_requests", Value: float64(c.Requests), Unit: "warp insts", Description: "Warp level instructions that read constant memory"},
		{Name: "sim_const_passes", Value: float64(c.Passes), Unit: "passes", Description: "Passes through the constant cache: one per distinct address of a request (a warp, or a half-warp on CC 1.x)"},
		{Name: "sim_const_passes_per_request", Value: ratio(c.Passes, c.Requests), Unit: "per request", Description: "Average passes through the constant cache per constant-memory instruction (1 when every lane reads one address)"},
	}
	if !cache {
		return ms
	}
	return append(ms,
		Metric{Name: "sim_const_hits", Value: float64(c.Cache.Hits), Unit: "passes", Description: "Constant-cache passes that found their line"},
		Metric{Name: "sim_const_misses", Value: float64(c.Cache.Misses), Unit: "passes", Description: "Constant-cache passes that missed (those merged into a miss in flight included)"},
		Metric{Name: "sim_const_hit_rate", Value: 100 * ratio(c.Cache.Hits, c.Cache.Accesses), Unit: "%", Description: "Hit rate of the constant-cache passes"},
		Metric{Name: "sim_const_fill_sectors", Value: float64(c.Cache.FillSectors), Unit: "sectors", Description: "32-byte sectors the constant caches' misses read from the L2 (or DRAM without one)"})
}

// TextureMetrics name the texture-fetch counts: tex_cache_transactions
// and tex_cache_hit_rate (a percent) as nvprof names them, the rest
// sim_tex_*. With cache, the cache's hits, misses and fills too (a
// simulated run; the coalescer-only counts of Count have none).
func TextureMetrics(c *ReadOnlyStats, cache bool) []Metric {
	ms := []Metric{
		{Name: "sim_tex_requests", Value: float64(c.Requests), Unit: "warp insts", Description: "Warp level instructions that fetch from texture memory"},
		{Name: "tex_cache_transactions", Value: float64(c.Passes), Unit: "lookups", Description: "Texture cache read transactions: one per distinct 32-byte line a fetch's active lanes touch"},
		{Name: "sim_tex_transactions_per_request", Value: ratio(c.Passes, c.Requests), Unit: "per request", Description: "Average texture-cache lookups per texture fetch (4 for 32 consecutive floats)"},
	}
	if !cache {
		return ms
	}
	return append(ms,
		Metric{Name: "tex_cache_hit_rate", Value: 100 * ratio(c.Cache.Hits, c.Cache.Accesses), Unit: "%", Description: "Texture cache hit rate"},
		Metric{Name: "sim_tex_hits", Value: float64(c.Cache.Hits), Unit: "lookups", Description: "Texture-cache lookups that found their line"},
		Metric{Name: "sim_tex_misses", Value: float64(c.Cache.Misses), Unit: "lookups", Description: "Texture-cache lookups that missed (those merged into a miss in flight included)"},
		Metric{Name: "sim_tex_fill_sectors", Value: float64(c.Cache.FillSectors), Unit: "sectors", Description: "32-byte sectors the texture caches' misses read from the L2 (or DRAM without one)"})
}

// throughputGBps is bytes per ms of simulated time in GB/s (0 for no
// time).
func throughputGBps(bytes int64, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return float64(bytes) / ms / 1e6
}

// hasSpace says some reference of r is in space sp.
func (r *Result) hasSpace(sp kernel.Space) bool {
	for i := range r.Refs {
		if r.Refs[i].Space == sp.String() {
			return true
		}
	}
	return false
}

// ncuMetric is the Nsight Compute spelling of an nvprof metric, with its
// own description and unit.
type ncuMetric struct {
	name, desc, unit string
}

// ncuNames are the Nsight Compute spellings of nvprof metrics
// (conventions.md §1.2, Accel-Sim's correl_mappings.py). ncu counts
// 32-byte sectors where nvprof counted transactions, and rates in percent;
// an empty description or unit keeps nvprof's.
var ncuNames = map[string]ncuMetric{
	"inst_executed_global_loads":   {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "Requests (warp level instructions) for global loads", "requests"},
	"inst_executed_global_stores":  {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "Requests (warp level instructions) for global stores", "requests"},
	"gld_transactions":             {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "32-byte sectors of global loads at the L1/texture unit", "sectors"},
	"gst_transactions":             {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "32-byte sectors of global stores at the L1/texture unit", "sectors"},
	"gld_transactions_per_request": {"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", "Average sectors per global load request", "per request"},
	"gst_transactions_per_request": {"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", "Average sectors per global store request", "per request"},
	"gld_efficiency":               {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "", ""},
	"gst_efficiency":               {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "", ""},
	"l1_cache_global_hit_rate":     {"l1tex__t_sector_hit_rate.pct", "", ""},
	"global_hit_rate":              {"l1tex__t_sector_hit_rate.pct", "", ""},
	"l2_read_transactions":         {"lts__t_sectors_op_read.sum", "32-byte sectors read at the L2 (lts)", "sectors"},
	"l2_write_transactions":        {"lts__t_sectors_op_write.sum", "32-byte sectors written at the L2 (lts)", "sectors"},
	"l2_l1_read_hit_rate":          {"lts__t_sector_op_read_hit_rate.pct", "Hit rate of the sectors read at the L2", ""},
	"l2_tex_read_hit_rate":         {"lts__t_sector_op_read_hit_rate.pct", "Hit rate of the sectors read at the L2", ""},
	"l2_tex_read_transactions":     {"lts__t_sectors_srcunit_tex_op_read.sum", "32-byte sectors read at the L2 (lts) for the texture unit", "sectors"},
	"dram_read_transactions":       {"dram__sectors_read.sum", "32-byte sectors read from device memory", "sectors"},
	"dram_write_transactions":      {"dram__sectors_write.sum", "32-byte sectors written to device memory", "sectors"},
	"achieved_occupancy":           {"sm__warps_active.avg.pct_of_peak_sustained_active", "", "%"},
	"shared_load_transactions":     {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "Shared memory load wavefronts (passes through the banks)", "wavefronts"},
	"shared_store_transactions":    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "Shared memory store wavefronts (passes through the banks)", "wavefronts"},
	"shared_efficiency":            {"smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct", "", ""},
	"l1_shared_bank_conflict":      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "Shared memory bank conflicts", ""},
}

// restyle renames metrics to ncu's spellings, converting transaction
// counts to sectors and occupancy to percent.
func restyle(ms []Metric, names map[string]ncuMetric, r *Result) []Metric {
	var out []Metric
	for _, m := range ms {
		n, ok := names[m.Name]
		if !ok || n.name == "" {
			out = append(out, m)
			continue
		}
		switch m.Name {
		case "gld_transactions":
			m.Value = float64(r.Loads.Sectors)
		case "gst_transactions":
			m.Value = float64(r.Stores.Sectors)
		case "gld_transactions_per_request":
			m.Value = ratio(r.Loads.Sectors, r.Loads.Requests)
		case "gst_transactions_per_request":
			m.Value = ratio(r.Stores.Sectors, r.Stores.Requests)
		case "achieved_occupancy":
			m.Value = 100 * m.Value
		}
		m.Name = n.name
		if n.desc != "" {
			m.Description = n.desc
		}
		if n.unit != "" {
			m.Unit = n.unit
		}
		out = append(out, m)
	}
	return out
}

// gpgpusimMetrics are the lines of GPGPU-Sim's statistics output that this
// simulator can fill (conventions.md §1.4): miss rates are fractions,
// occupancy a percent, L2 counts in sectors.
func gpgpusimMetrics(r *Result) []Metric {
	var ms []Metric
	add := func(name string, v float64, unit, desc string) {
		ms = append(ms, Metric{Name: name, Value: v, Unit: unit, Description: desc})
	}
	add("gpu_sim_cycle", float64(r.Cycles), "cycles", "Simulated core cycles")
	add("gpgpu_n_tot_w_icount", float64(r.WarpInsts), "warp insts", "Warp instructions issued")
	if r.PerThread {
		sh := &r.Shared
		add("gpgpu_n_shmem_insn", float64(sh.LoadRequests+sh.StoreRequests), "warp insts", "Shared memory warp instructions")
		add("gpgpu_n_shmem_bkconflict", float64(sh.LoadTransactions-sh.LoadRequests+sh.StoreTransactions-sh.StoreRequests), "conflicts", "Shared memory bank conflicts (passes beyond the first of each instruction)")
	}
	add("gpu_occupancy", 100*r.AchievedOccupancy, "%", "Achieved occupancy")
	add("L1D_total_cache_accesses", float64(r.L1.Accesses), "accesses", "L1 data cache accesses (global loads)")
	add("L1D_total_cache_misses", float64(r.L1.Misses), "accesses", "L1 data cache misses")
	add("L1D_total_cache_miss_rate", ratio(r.L1.Misses, r.L1.Accesses), "", "L1 data cache miss rate")
	add("Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]", float64(r.Loads.Transactions), "accesses", "Global load accesses at the SMs")
	add("Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]", float64(r.L1.Hits), "accesses", "Global load hits in L1")
	add("Total_core_cache_stats_breakdown[GLOBAL_ACC_R][MSHR_HIT]", float64(r.L1.MSHRMerges), "accesses", "Global load misses merged in the L1 MSHRs")
	if r.hasSpace(kernel.SpaceTexture) || r.hasSpace(kernel.SpaceReadOnly) {
		tc := &r.Texture.Cache
		add("Total_core_cache_stats_breakdown[TEXTURE_ACC_R][TOTAL_ACCESS]", float64(tc.Accesses), "accesses", "Texture lookups at the SMs' texture caches")
		add("Total_core_cache_stats_breakdown[TEXTURE_ACC_R][HIT]", float64(tc.Hits), "accesses", "Texture lookups that hit")
		add("Total_core_cache_stats_breakdown[TEXTURE_ACC_R][MSHR_HIT]", float64(tc.MSHRMerges), "accesses", "Texture misses merged in the texture caches' MSHRs")
	}
	l2acc := r.L2.ReadSectors + r.L2.WriteSectors
	add("L2_total_cache_accesses", float64(l2acc), "sectors", "L2 accesses")
	add("L2_total_cache_misses", float64(r.L2.ReadMissSectors), "sectors", "L2 read misses")
	add("L2_total_cache_miss_rate", ratio(r.L2.ReadMissSectors, l2acc), "", "L2 miss rate")
	tex, texHits := spaceL2Reads(r, kernel.SpaceTexture)
	add("L2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]", float64(r.L2.ReadSectors-tex), "sectors", "Global reads at L2")
	add("L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]", float64(r.L2.ReadHitSectors-texHits), "sectors", "Global read hits at L2")
	if r.hasSpace(kernel.SpaceTexture) {
		add("L2_cache_stats_breakdown[TEXTURE_ACC_R][TOTAL_ACCESS]", float64(tex), "sectors", "Texture-cache fills read at L2")
		add("L2_cache_stats_breakdown[TEXTURE_ACC_R][HIT]", float64(texHits), "sectors", "Texture-cache fill reads that hit at L2")
	}
	add("L2_cache_stats_breakdown[GLOBAL_ACC_W][TOTAL_ACCESS]", float64(r.L2.WriteSectors), "sectors", "Global writes at L2")
	add("total dram reads", float64(r.DRAM.Reads), "requests", "DRAM read requests")
	add("total dram writes", float64(r.DRAM.Writes), "requests", "DRAM write requests")
	return ms
}

// spaceL2Reads are the sectors the references of space sp read at the L2,
// and those that hit.
func spaceL2Reads(r *Result, sp kernel.Space) (reads, hits int64) {
	for i := range r.Refs {
		if ref := &r.Refs[i]; ref.Space == sp.String() {
			reads += ref.L2ReadSectors
			hits += ref.L2HitSectors
		}
	}
	return reads, hits
}

// MetricValues is the metrics as a name → value map, for JSON.
func MetricValues(ms []Metric) map[string]float64 {
	m := make(map[string]float64, len(ms))
	for _, x := range ms {
		m[x.Name] = x.Value
	}
	return m
}
