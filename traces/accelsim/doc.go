// Package accelsim reads Accel-Sim traces: SASS instruction traces of real
// GPU runs recorded with NVBit by Accel-Sim's tracer and post-processed
// into one .traceg file per kernel, listed in a kernelslist.g. A kernel's
// trace is a traces.Source, so the simulator replays it as it replays a
// bound kernel.
//
// # Format
//
// The grammar is that of Accel-Sim's own reader
// (accel-sim/accel-sim-framework, gpu-simulator/trace-parser/trace_parser.cc:
// parse_commandlist_file, parse_kernel_info, get_next_threadblock_traces,
// inst_trace_t::parse_from_string) and its tracer
// (util/tracer_nvbit/tracer_tool/tracer_tool.cu, which writes it). A
// kernelslist.g has a line per command: MemcpyHtoD,ADDR,BYTES for a
// host-to-device copy and the name of a kernel's trace file, relative to
// the list's directory. A .traceg starts with header lines
// "-key = value" (kernel name, grid dim, block dim, shmem, nregs, binary
// version, shmem and local mem base_addr, accelsim tracer version, enable
// lineinfo), then a thread block at a time:
//
//	#BEGIN_TB
//	thread block = X,Y,Z
//	warp = W
//	insts = N
//	[line_num] PC mask dest_num [Rd] opcode src_num [Rs...] mem_width [mode addresses] [immediate]
//	...
//	#END_TB
//
// mask is the lanes that executed (active and predicate true). mem_width
// is the bytes per lane of a memory instruction, 0 for any other; the
// addresses of the active lanes follow in one of three modes: 0 (list_all)
// one hex address per active lane; 1 (base_stride) a base and a stride,
// the active lanes being one run; 2 (base_delta) a base and, for each
// further active lane, its difference from the previous one. Tracer
// version 5 ends every line with an immediate; versions 3 and 4 do not.
//
// # Memory
//
// Open reads each file once, checking every line and recording where each
// warp's instructions start; the cursors read a warp's lines back when the
// simulator dispatches its block, a few kilobytes at a time. Memory is the
// index (32 bytes a warp the file has) and a buffer per resident warp,
// whatever the trace's length.
//
// # Replay
//
// Each warp's instructions keep their order. Consecutive instructions
// without memory traffic become one traces.OpCompute of their count;
// BAR (but BAR.ARV) is a barrier; LDG, STG, ATOM, ATOMG and RED go to global
// memory, the atomics as stores (the simulator has no atomic unit; their
// read-modify-write is done at the L2, which a store reaches too); LDS,
// STS, LDSM and ATOMS to shared memory, at their offset from the shared
// window's base; LDL and STL to local memory, placed in global memory as
// the hardware interleaves it (consecutive threads' words adjacent); LD,
// ST, ATOM and LDGSTS by the window their first active lane's address lies
// in (shared, local or else global); LDC with addresses to constant
// memory; texture fetches with addresses (TEX, TLD, ...) through the
// texture cache. The tracer records addresses only for an instruction's
// memory operand (an NVBit MREF), so LDC and texture fetches usually have
// none and replay as compute instructions. A memory reference is a
// (PC, opcode) pair, named as "LDG.E @0x00a0".
package accelsim
