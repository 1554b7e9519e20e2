package gpgpusim

import (
	"fmt"
	"strings"
)

// unmodelled are the GPGPU-Sim options gpumemsim recognises and does not
// model, by name or by name prefix (ending in '_' or ':'), with the
// reason. Names are those of the tested configs (configs/tested-cfgs) and
// their registrations in src/gpgpu-sim/gpu-sim.cc.
var unmodelled = []struct{ names, why string }{
	{"-gpgpu_ptx_instruction_classification -gpgpu_ptx_sim_mode -gpgpu_ptx_convert_to_ptxplus -gpgpu_ptx_save_converted_ptxplus -gpgpu_stack_size_limit -gpgpu_heap_size_limit -gpgpu_runtime_sync_depth_limit -gpgpu_runtime_pending_launch_count_limit -gpgpu_ignore_resources_limitation -gpgpu_max_concurrent_kernel -gpgpu_kernel_launch_latency -gpgpu_ptx_force_max_capability",
		"functional simulation and the CUDA runtime: gpumemsim replays memory accesses, not PTX"},
	{"-gpgpu_simd_model -gpgpu_pipeline_widths -gpgpu_num_sp_units -gpgpu_num_sfu_units -gpgpu_num_dp_units -gpgpu_num_int_units -gpgpu_tensor_core_avail -gpgpu_num_tensor_core_units -ptx_opcode_ -gpgpu_operand_collector_ -gpgpu_num_reg_banks -gpgpu_reg_file_port_throughput -gpgpu_dual_issue_diff_exec_units -gpgpu_sub_core_model -gpgpu_enable_specialized_operand_collector -gpgpu_clock_gated_lanes -gpgpu_occupancy_sm_number -gpgpu_registers_per_block -trace_opcode_latency_initiation_",
		"the execution pipeline (functional units, operand collectors, register banks) is not modelled"},
	{"-gpgpu_cache:il1 -gpgpu_inst_fetch_throughput -gpgpu_perfect_inst_const_cache",
		"instruction fetch is not modelled"},
	{"-network_mode -inter_config_file -icnt_ -gpgpu_n_cluster_ejection_buffer_size",
		"the interconnect is a fixed latency (interconnect.latency, from the base), not a network"},
	{"-gpgpu_shmem_size_PrefL1 -gpgpu_shmem_size_PrefShared -gpgpu_cache:dl1PrefL1 -gpgpu_cache:dl1PrefShared",
		"an L1/shared split is imported only from all four of -gpgpu_shmem_size_PrefL1, -gpgpu_cache:dl1PrefL1, -gpgpu_shmem_size_PrefShared and -gpgpu_cache:dl1PrefShared"},
	{"-gpgpu_shmem_sizeDefault",
		"the shared memory is -gpgpu_shmem_size's"},
	{"-gpgpu_adaptive_cache_config -gpgpu_shmem_option -gpgpu_unified_l1d_size",
		"the adaptive L1/shared carve-out (Volta) is not modelled: the L1 is the -gpgpu_cache:dl1 string's"},
	{"-gpgpu_l1_banks -gpgpu_l1_cache_write_ratio -gpgpu_flush_l1_cache -gpgpu_shmem_limited_broadcast -gpgpu_shmem_warp_parts",
		"L1 banks and flushes are not modelled; shared-memory conflicts follow the coalescing rule's warp or half-warp"},
	{"-gpgpu_perf_sim_memcpy -gpgpu_mem_address_mask -gpgpu_dram_return_queue_size -dram_dual_bus_interface -Seperate_Write_Queue_Enable -Write_Queue_Size -gpgpu_memory_partition_indexing",
		"memcpy traffic, address masks, the DRAM return queue, a separate write queue and hashed partition indexing are not modelled (gpumemsim interleaves channels linearly)"},
	{"-dram_bnk_indexing_policy -dram_bnkgrp_indexing_policy",
		"gpumemsim's bank groups take the high bank bits (banks b·n/g to (b+1)·n/g−1 form group b)"},
	{"-gpgpu_memlatency_stat -gpgpu_runtime_stat -enable_ptx_file_line_stats -visualizer_enabled -power_simulation_enabled -gpuwattch_xml_file -trace_enabled -trace_components -trace_sampling_core",
		"statistics, power and tracing output"},
}

func whyUnmodelled(name string) string {
	for _, u := range unmodelled {
		for _, n := range strings.Fields(u.names) {
			last := n[len(n)-1]
			if n == name || (last == '_' || last == ':') && strings.HasPrefix(name, n) {
				return u.why
			}
		}
	}
	return ""
}

// ignored lists, in file order, every occurrence the translation did not
// read, and every occurrence a later one overrode.
func (im *importer) ignored() []Ignored {
	lastAt := map[string]int{}
	for i, o := range im.opts.List {
		lastAt[o.Name] = i
	}
	var out []Ignored
	for i, o := range im.opts.List {
		var why string
		switch {
		case lastAt[o.Name] != i:
			why = fmt.Sprintf("overridden by line %d (GPGPU-Sim keeps the last value)", im.opts.List[lastAt[o.Name]].Line)
		case im.skipped[i] != "":
			why = "not used: " + im.skipped[i]
		case im.used[i]:
			continue
		case whyUnmodelled(o.Name) != "":
			why = "recognised, not modelled: " + whyUnmodelled(o.Name)
		default:
			why = "unknown to gpumemsim (not translated)"
		}
		out = append(out, Ignored{Option: o, Why: why})
	}
	return out
}
