// Package coalesce turns one warp-level global-memory instruction into the
// memory transactions that a compute-capability family's coalescing rule
// makes of it. It is pure: no state, no allocation, deterministic order.
//
// # Rules
//
// The rules follow the CUDA C Programming Guide as quoted in
// shared/reference/hardware.md §2 (PG42 Appendix F for CC 1.x–2.x, the later
// guide for CC 3.x and 5.x). Each lane's access covers the bytes
// [Addr, Addr+Width); lanes that are not in Warp.Active are never read.
//
//   - CC10 (CC 1.0/1.1, §2.1): the warp is split into two half-warp requests.
//     A half-warp coalesces when its word size is 4, 8 or 16 bytes and every
//     active lane k of the half-warp reads word k of one aligned segment
//     (64 B for 4-byte words, 128 B for 8-byte words, 2×128 B for 16-byte
//     words, the first 8 words in the first 128-B segment). It then makes one
//     64-B, one 128-B or two 128-B transactions; for 16-byte words a 128-B
//     half whose 8 lanes are all inactive is not issued, because no lane
//     reads it. Inactive lanes never break coalescing ("Coalescing is
//     achieved even if the warp is divergent"). An uncoalesced half-warp is
//     served thread by thread: the guide says "16 separate 32-byte memory
//     transactions"; we issue one 32-B transaction per ACTIVE lane (two if a
//     misaligned lane straddles a 32-B boundary), so an uncoalesced
//     half-warp with 5 active lanes costs 5 transactions, not 16. These
//     per-thread transactions need not be distinct: 16 lanes reading one word
//     cost 16 transactions of the same 32-B segment, as on the hardware.
//     Words of 1 or 2 bytes never coalesce.
//   - CC13 (CC 1.2/1.3, §2.2): per half-warp, the five-step segment protocol:
//     segment of 32 B (1-byte words), 64 B (2-byte) or 128 B (4/8/16-byte)
//     around the lowest active unserved lane, all active lanes in the same
//     segment join it, the transaction shrinks 128→64→32 while only one half
//     is used. Because the segments of one half-warp are disjoint, the
//     protocol's result does not depend on the order in which segments are
//     found; we emit them in ascending address order.
//   - CC20 (Fermi, §2.3): a warp with 8-byte words is first split into two
//     half-warp requests, with 16-byte words into four quarter-warp requests;
//     otherwise the whole warp is one request. Loads on path L1
//     (-dlcm=ca, the default) make one 128-B transaction per distinct 128-B
//     line of each request; loads on path L2 (-dlcm=cg) make one 32-B
//     transaction per distinct 32-B segment of each request. Stores (§2.6):
//     global stores bypass L1 on Fermi ("sm_20 does NOT cache global store
//     data in L1 … Global stores bypass L1"), so the L1 line size does not
//     shape them; the guide gives no store granularity for 2.x. We follow
//     GPGPU-Sim (src/abstract_hardware_model.cc, warp_inst_t::
//     memory_coalescing_arch with -gpgpu_coalesce_arch 20 and the
//     SM2_GTX480 default -gpgpu_gmem_skip_L1D 0), which coalesces a store
//     like a load into 128-B segments and then applies the CC 1.3
//     128→64→32 reduction (memory_coalescing_arch_reduce_and_send), so a
//     store transaction is 32, 64 or 128 bytes. We apply that protocol to
//     each of the requests above; the path does not change stores.
//   - CC30 (Kepler, §2.4, §2.6): by default global loads are cached in L2
//     only: one 32-B transaction per distinct 32-B segment touched by the
//     warp (one request per warp). With opt-in L1 caching (path L1), loads
//     follow the CC20 L1 rule. Stores always make 32-B transactions.
//   - CC50 (Maxwell, §2.5): one 32-B transaction per distinct 32-B sector
//     touched by the warp, for loads and stores and on both paths: the L1/TEX
//     cache line is 4 sectors and "only the 32B sectors in the cache line
//     that were accessed are loaded from L2".
//
// # Transactions
//
// A Txn is aligned to its Size (32, 64 or 128). Its Sectors mask names the
// 32-B sectors of the enclosing aligned 128-B block that some lane it serves
// touches; bits outside the transaction are never set, and no transaction is
// emitted that serves no lane. Transactions come in a fixed order: requests
// in lane order, and within a request ascending address (CC10's uncoalesced
// half-warps: lane order). At most MaxTxns transactions come from one warp.
//
// # Requests
//
// Requests counts the hardware sub-requests an instruction is split into
// before transactions are formed. It is not the profiler's "request": nvprof
// counts one request per warp instruction (gld_transactions_per_request =
// transactions / warp instructions), and so should the simulator. See
// Requests for the meaning per family.
//
// Addresses are taken modulo 2^64; a lane whose bytes cross a 32-B
// boundary (not naturally aligned) is served by every unit it touches.
package coalesce
