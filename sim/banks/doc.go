// Package banks counts the passes through the shared-memory banks
// (transactions) that one warp-level shared-memory instruction needs under
// a compute-capability family's bank rule. It is pure: no state, no
// allocation, deterministic.
//
// # Transactions
//
// A transaction is one pass through the banks. The count is what nvprof
// reports as shared_load_transactions (or shared_store_transactions) for
// one instruction: 1 for a conflict-free 32-bit access by a full warp on
// CC 2.x and later. Sub-requests (half- or quarter-warps) are served one
// after another, so their transactions add up; a sub-request with no
// active lane costs nothing, and a warp with none costs 0. Within a
// sub-request the count is its conflict degree: the most distinct rows one
// bank must serve, where a row is the data all banks deliver in one pass
// (banks × bank width bytes, aligned) and a bank serves one row per pass
// to any number of readers. Two lanes conflict when they read different
// rows of one bank; lanes reading the same row share its pass (broadcast),
// except on CC 1.x.
//
// Halves gives the same count without the addresses for a full warp
// whose half-warps each read one 4-byte word or 16 consecutive ones (a
// tile's row read by thread index), from their first addresses, and says
// where it has no closed form.
//
// # Rules
//
// The rules follow the CUDA C Programming Guide v4.2, Appendix F (PG42 in
// shared/reference/hardware.md: F.3.3 for CC 1.x, F.4.3 for CC 2.x, F.5.3
// for CC 3.0), read in a public copy of its English text, and the legacy
// CUDA C++ Programming Guide §20.4.3 for CC 5.x (PG-5x).
//
//   - CC1x (PG42 F.3.3): 16 banks; "successive 32-bit words map to
//     successive banks". "A shared memory request for a warp is split into
//     two memory requests, one for each half-warp, that are issued
//     independently", so a conflict-free full warp costs 2 and the halves
//     never conflict with each other. Broadcast is limited (F.3.3.2): a
//     request is served in steps; each step serves "all addresses that are
//     within the broadcast word" and "one address for each bank (other
//     than the broadcasting bank)". A lane is one address, so two lanes
//     reading one word outside the broadcast bank take two steps. The
//     guide leaves open which word is broadcast and which address each
//     bank serves; we count the fewest steps any choice allows. That is
//     the only choice the guide's own example pins down: it calls the
//     pattern in which threads 3, 4, 6, 7 and 9 read one word of bank 5
//     conflict-free on CC 1.x, which holds only if that word is the one
//     broadcast. 8- and 16-bit accesses conflict (F.3.3.3: char shared[tid]
//     conflicts "because shared[0], shared[1], shared[2], and shared[3]
//     ... belong to the same bank"; shared[4*tid] does not): lanes reading
//     bytes of one word share a step only as the broadcast word. Accesses
//     wider than 32 bits are "split into 32-bit accesses" (F.3.3.4: a
//     double array read by tid "is compiled into two separate 32-bit
//     requests with a stride of two"), so a 64-bit access costs two 32-bit
//     requests per half-warp and a 128-bit access four.
//   - CC2x (PG42 F.4.3): 32 banks of 32 bits; the warp is one request, and
//     "multiple words can be broadcast in a single transaction", so lanes
//     reading any address within one 32-bit word never conflict, char
//     shared[tid] included. 64-bit accesses: "a bank conflict only occurs
//     if two threads in either of the half-warps access different
//     addresses belonging to the same bank", so each half-warp is a
//     sub-request (a conflict-free 64-bit warp costs 2). 128-bit accesses:
//     each quarter-warp is a sub-request, and "to determine the ways of
//     bank conflicts, one must add 1 to the maximum number of threads in a
//     quarter-warp that access different addresses belonging to the same
//     bank", so a conflict-free quarter-warp costs 2 and a 128-bit warp at
//     least 8. The guide says only "the majority of 128-bit accesses" pay
//     the extra pass and not which do not; we add it to every quarter-warp
//     with an active lane.
//   - CC3x64, CC3x32 (PG42 F.5.3): 32 banks with "a bandwidth of 64 bits
//     per clock cycle", so a row is 256 B. In 64-bit mode "successive
//     64-bit words map to successive banks" and lanes within one 64-bit
//     word never conflict. In 32-bit mode successive 32-bit words map to
//     successive banks, and lanes never conflict within one 32-bit word
//     "or within two 32-bit words whose indices i and j are in the same
//     64-word aligned segment ... and such that j=i+32": the 64-bit bank
//     row holds words i and i+32. The guide names no sub-requests for
//     CC 3.x; we take the warp as one request for accesses of up to 8
//     bytes (32 lanes × 8 B is one row) and split 128-bit accesses into
//     half-warps, so that no sub-request asks for more than one row.
//   - CC5x (PG-5x §20.4.3): 32 banks of 32 bits, 32 bits per bank per
//     clock; "a shared memory request for a warp does not generate a bank
//     conflict between two threads that access any address within the same
//     32-bit word". The section says nothing of wider accesses. As the
//     banks deliver one 128-B row per clock, we split 64-bit accesses into
//     half-warps and 128-bit accesses into quarter-warps, as PG42 F.4.3
//     documents for CC 2.x (without its extra 128-bit pass).
//
// With 32-bit words the guide's stride rule follows (PG42 F.3.3.1,
// F.4.3.1): threads tid and tid+n conflict when s·n is a multiple of the
// number of banks, so a stride of s words is conflict-free only when s is
// odd. In Kepler's 64-bit mode the same rule holds for 64-bit words, so
// 32-bit stride 3 reads 64-bit words 1 and 33 in bank 1 (2-way), though
// PG42 F.5.3.1 says that mode causes "as many or fewer" conflicts than
// CC 2.x for 32-bit accesses; we follow the mapping, not the summary.
// Transactions takes the rule as a shortcut where the active lanes of a
// request are at a constant stride of whole words and some bank is asked
// for three rows or more (a tile's column): the most active lanes in one
// bank, where a row holds one word of each bank; in Kepler's 32-bit mode,
// where it holds two, the rows each bank's lanes reach in turn. Other
// requests are counted row by row.
//
// # Stores
//
// Stores follow the load rule. The guide states one rule for both (for
// writes to one word "each address is written by only one of the threads",
// F.4.3, F.5.3, §20.4.3; on CC 1.x "only one thread per half-warp performs
// a write"), and GPGPU-Sim counts shared-memory loads and stores alike.
//
// # Addresses
//
// Addresses are byte offsets into the block's shared memory, taken modulo
// 2^64. The hardware requires a lane's address to be a multiple of its
// access width; Transactions rounds a misaligned one down.
//
// # GPGPU-Sim
//
// GPGPU-Sim (gpgpu-sim/gpgpu-sim_distribution at 90ec3399,
// src/abstract_hardware_model.cc, warp_inst_t::generate_mem_accesses,
// case shared_space) counts the same degree for CC 2.x and later: per
// sub-warp (-gpgpu_shmem_warp_parts, 1 in its Fermi and later configs),
// the most distinct 4-byte words in one bank (shmem_bank_func is
// addr/4 mod -gpgpu_shmem_num_banks), summed over sub-warps. It differs in
// three ways: it reads only each lane's first address, so the access width
// never matters; it has no 64-bit bank mode; and its CC 1.x model
// (-gpgpu_shmem_limited_broadcast 1, -gpgpu_shmem_warp_parts 2) picks one
// broadcast word per sub-warp, not one per step, and serves every other
// lane of its bank one at a time, which overcounts a half-warp reading two
// shared words: it costs 2 steps by the guide's procedure.
package banks
