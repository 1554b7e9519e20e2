// Package constmem splits a warp's read of constant memory into the
// passes the constant cache serves it in: one per distinct address, per
// half-warp on CC 1.x. It is pure: no state, no allocation,
// deterministic.
//
// # The rule
//
// The CUDA C Programming Guide v4.2, §5.3.2.4 "Constant Memory" (PG42 in
// shared/reference/hardware.md, read in a public copy of its English
// text): "For devices of compute capability 1.x, a constant memory
// request for a warp is first split into two requests, one for each
// half-warp, that are issued independently. A request is then split into
// as many separate requests as there are different memory addresses in
// the initial request, decreasing throughput by a factor equal to the
// number of separate requests. The resulting requests are then serviced
// at the throughput of the constant cache in case of a cache hit, or at
// the throughput of device memory otherwise." The current guide keeps
// the second and third sentences for every later compute capability, so
// from CC 2.0 on the warp is one request. A pass is one of the separate
// requests: every lane that reads its address gets the value (a
// broadcast); Ryoo et al. 2008 (models.md §1.3) put it as the constant
// cache being single-ported, so that simultaneous requests must hit the
// same address or be serialised.
//
// An address is a lane's byte address: two lanes reading one element
// share a pass, two reading different elements of one cache line do not
// (the guide counts addresses, not lines). A request with no active lane
// costs nothing.
//
// Passes takes the lanes' addresses written out; HalvesPasses takes a
// full warp whose half-warps each read one address (a uniform read, or
// one that differs by half-warp) from the two addresses alone, as the
// per-thread cursor gives such a warp without writing its lanes.
//
// # GPGPU-Sim
//
// GPGPU-Sim (gpgpu-sim/gpgpu-sim_distribution at 90ec3399) splits a
// constant read differently: warp_inst_t::generate_mem_accesses
// (src/abstract_hardware_model.cc, case const_space) makes one access
// per distinct cache line of -gpgpu_const_cache:l1's line size (64 bytes
// in its configs) for the whole warp, whatever the compute capability,
// and ldst_unit::constant_cycle (src/gpgpu-sim/shader.cc) sends one of
// them per cycle to the constant cache (process_memory_access_queue).
// Lanes reading different words of one line share an access there; here
// they take a pass each, as the guide says.
package constmem
