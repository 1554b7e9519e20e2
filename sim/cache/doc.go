// Package cache models a set-associative, optionally sectored cache as flat
// tag, stamp and sector-mask arrays, and the MSHR table that tracks its
// outstanding misses; both are pure state with no notion of time.
//
// A Cache answers one access at a time: which requested sectors hit, which
// must be fetched or forwarded to the next level, and which line, with
// which dirty sectors, left the cache. Fills are modelled as immediate; the
// simulator around it adds latency and holds the miss in an MSHR until the
// data would have returned. Counting is the caller's job: every access
// returns a Result with enough to count accesses, hits, line misses, sector
// misses and evictions; the line an access evicted, with its dirty sectors
// to write back, is asked for separately (Victim), so that the result of
// the common access stays small enough to come back in registers.
//
// Addresses are byte addresses. A line address is the byte address of a
// line's first byte (LineAddr). A sector mask has bit i set for sector i of
// the line (sector i covers bytes [i·SectorBytes, (i+1)·SectorBytes) of the
// line); an unsectored cache has one sector, mask 1.
//
// Set-index functions:
//
//   - linear: set = (addr / LineBytes) mod Sets, for any number of sets.
//   - fermi_hash: the Fermi L1 hash of Nugteren et al. (HPCA 2014) as
//     GPGPU-Sim implements it (gpu-cache.cc, FERMI_HASH_SET_FUNCTION), for
//     32 or 64 sets: set = ((addr >> log2 LineBytes) & 31) XOR u, where u
//     gathers address bits 13, 14, 15, 17 and 19 into bits 0 to 4; with 64
//     sets address bit 12 becomes set bit 5. With 128-byte lines the first
//     term is address bits 7 to 11.
//   - xor: for a power-of-two number of sets S, with line = addr / LineBytes,
//     set = (line XOR (line >> log2 S)) mod S: the linear index XOR the next
//     log2 S bits of the line address above it (GPGPU-Sim's
//     BITWISE_XORING_FUNCTION).
//
// Replacement chooses the first invalid way of the set, else the way with
// the smallest stamp: the last use for lru, the fill for fifo.
//
// Write policies (Write):
//
//   - write_back: a present line takes the written sectors as valid and
//     dirty; nothing goes on. An absent line is allocated when WriteAllocate
//     is set (write-validate: the written sectors become valid and dirty,
//     nothing is fetched), else the write is forwarded and nothing is
//     allocated. Dirty sectors leave with an evicted line (Victim).
//   - write_through: a present line takes the written sectors as valid and
//     clean; an absent line is allocated clean when WriteAllocate is set.
//     The write is always forwarded.
//   - write_evict: a present line is invalidated (reported as evicted,
//     with its dirty sectors); the write is always forwarded. This is
//     Fermi's L1 for global stores.
//   - read_only: writes are refused.
package cache
