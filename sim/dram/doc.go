// Package dram models the off-chip memory: channels whose banks keep one row
// open, DRAM timing, an FR-FCFS or FCFS scheduler per channel and a shared
// data bus per channel. It is driven by events, never ticked: the engine asks
// [Memory.NextEvent] when something will next happen and calls
// [Memory.Advance] at that time.
//
// # Time
//
// Inside a channel, time is counted in transfer slots: one slot is the time
// one data transfer occupies the pins, 1/dram_data_rate of a DRAM clock
// cycle. Every timing parameter (given in DRAM cycles) is multiplied by the
// data rate, and a burst of burst_length transfers takes burst_length slots,
// so all internal arithmetic is exact integers even when a burst is a
// fraction of a DRAM cycle. At the boundary, a slot s becomes the core cycle
// ceil(s·coreHz / (dramHz·dataRate)) and a core cycle c becomes the slot
// ceil(c·dramHz·dataRate / coreHz) for an arrival; the ratio is reduced by
// its greatest common divisor and multiplied in 128 bits, so the conversion
// is exact and deterministic. A request pushed at core cycle c is visible to
// its channel from the first slot at or after c; [Memory.Advance] at core
// cycle c performs everything due at a slot s with ceil(s·coreHz/(dramHz·rate)) ≤ c.
//
// # Address mapping
//
// With interleave I, C channels, row size R and B banks per channel:
//
//	channel = (addr / I) mod C
//	local   = (addr / (I·C))·I + addr mod I   // the address within the channel
//	bank    = (local / R) mod B
//	row     = local / (R·B)
//
// Consecutive interleave chunks go to consecutive channels (C need not be a
// power of two), and consecutive row-sized pieces of a channel's local space
// go to consecutive banks, so a sequential stream opens each row once and
// then moves to the next bank. Interleave and row size must be multiples of
// 128 B, so a request (at most one 128-B line) never spans two channels or
// two rows. GPGPU-Sim instead takes bits of the address by a mask
// (-gpgpu_mem_addr_mapping); the division form here is what lets a channel
// count such as the K20c's 5 work.
//
// With G bank groups, bank b is in group b / (B/G): the banks of a group
// are consecutive, as in GPGPU-Sim's dram.cc (get_bankgrp_number with the
// default -dram_bnkgrp_indexing_policy 0 takes the higher bank bits). For
// the GTX 480, GPGPU-Sim's mapping dramid@8;…RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS
// takes the channel as (addr/256) mod 6 and the local address as here
// (addrdec_tlx for a channel count that is not a power of two), then bank
// bit 0 from local bit 8 and bank bits 1–3 from local bits 13–15, the row
// from bits 16 and up. Its bank group (bank bits 2–3) is thus local bits
// 14–15, exactly the group of the mapping here (R = 4 KiB, B = 16: bank
// = local bits 12–15, group = bits 14–15), and so is the row. The two
// differ only inside a group: GPGPU-Sim alternates two banks of the group
// every 256 B over 8 KiB, this model fills one bank's 4-KiB row and then
// the next; both activate one row per 4 KiB of a sequential stream, and
// both keep such a stream in one bank group for 16 KiB of a channel's
// space, so the simpler mapping is kept.
//
// # Banks and commands
//
// Each bank is precharged (no open row) or has one open row. The request a
// bank serves needs, in turn: a precharge if another row is open, an
// activate if no row is open, then its column commands. The rules, in DRAM
// cycles of the device's timing:
//
//   - activate → column command to that bank: tRCD;
//   - activate → precharge of that bank: tRAS;
//   - precharge → activate of that bank: tRP;
//   - activate → activate of different banks of the channel: tRRD;
//   - column command → column command anywhere on the channel: tCCD, and at
//     least one burst, so bursts never overlap on the data bus;
//   - column command → column command in the same bank group: tCCDL
//     (GPGPU-Sim's CCDLc, set by every read and write column command);
//   - read column command → its data on the bus: tCL; write column command
//     → its data: tWL; the data then occupy the bus for one burst per
//     column command;
//   - read column command → write column command anywhere on the channel:
//     tCL + one burst + 2 − tWL, so the write's data start 2 cycles after
//     the read's end (GPGPU-Sim's tRTW in memory_config::init);
//   - write column command → read column command anywhere on the channel:
//     tWL + one burst + tWTR, i.e. tWTR after the write's data end
//     (GPGPU-Sim's tWTR, built from the datasheets' tCDLR);
//   - last read burst issued → precharge of that bank: one burst time
//     (GPGPU-Sim's RTPc = BL/data_command_freq_ratio in dram.cc);
//   - read column command → precharge of any bank of its bank group:
//     tRTPL (GPGPU-Sim's RTPLc, kept per group);
//   - end of a write's data → precharge of that bank: tWR (GPGPU-Sim's
//     tWTP = tWL + burst + tWR from the write column command).
//
// A request of n bytes moves ceil(n / bus_bytes) transfers rounded up to
// whole bursts of burst_length transfers, one column command per burst
// (GPGPU-Sim's dram_t::issue_col_command moves one dram_atom_size per
// column command). On a GTX 480 channel (64-bit bus, BL 8, 4 transfers per
// DRAM clock) a burst is 64 B in 2 DRAM cycles, and a 128-B request is two
// bursts, 4 DRAM cycles of the bus. Each burst is a column command of its
// own, arbitrated with the other banks' (GPGPU-Sim's issue_col_command
// moves one atom per call and keeps the request in its bank until all its
// bytes have moved), so with bank groups the bursts of two requests in
// different groups interleave tCCD apart while each group waits tCCDL.
//
// A read completes when its last transfer is done: its last column command
// + tCL + one burst; a write likewise with tWL for tCL.
// Writes are posted, so the caller waits on them only for queue space and
// bandwidth. The two turnaround rules keep data in command order on the bus
// even though tWL < tCL, so completions leave a channel in issue order.
// The device description has no tRC (it is the sum tRAS + tRP that the
// rules above already imply), no activate-to-write delay shorter than tRCD
// (GPGPU-Sim's tRCDWR) and no refresh: no
// citable GDDR3/GDDR5 tREFI and tRFC for these boards was found, and
// GPGPU-Sim does not model refresh either.
//
// Row (activate, precharge) and column commands travel on separate command
// buses, as in GPGPU-Sim's dual_bus_interface option: in one DRAM cycle a
// channel may issue one row command and one column command. On each bus the
// command that becomes legal first goes first; among commands legal at the
// same time, the oldest request's (GPGPU-Sim rotates a bank priority
// instead; age keeps the choice independent of bank numbering).
//
// Nothing prefers a direction explicitly, but after a read another read is
// legal tCCD later and a write only after the turnaround (and the reverse),
// so while banks hold requests of the bus's current direction those go
// first and reads and writes are grouped: a stream whose reads and writes
// sit in different banks turns the bus around about once per queue-full of
// requests. GPGPU-Sim's issue_col_command behaves the same way (a write
// waits while RTWc counts down, a read while WTRc does). Its FR-FCFS
// scheduler can also drain writes from a separate write queue between
// watermarks (-dram_seperate_write_queue_enable), but that option is off
// by default and in its tested configs, so it is not modelled. Requests
// that share one bank are served one at a time in FR-FCFS order, so there
// reads and writes alternate as they arrive and every switch pays the
// turnaround.
//
// # Scheduling
//
// Each channel has one queue of at most queue_depth waiting requests. A
// request that finds the queue full is refused by [Memory.Push], for the
// caller to retry; [Memory.Send] keeps it instead, behind any refused
// before it, in the channel's backlog, which enters the queue in order at
// the end of each [Memory.Advance] as room is made (in GPGPU-Sim a request
// waits in the same way, at the head of its latency queue, while
// m_dram->full(): memory_partition_unit::dram_cycle in l2cache.cc). Each
// bank serves one request at a time, as in GPGPU-Sim (the bank's mrq in
// dram.cc). When a bank is free, the scheduler gives it a waiting request
// for that bank:
//
//   - frfcfs: the oldest waiting request to the bank's open row, else the
//     oldest waiting request to the bank (GPGPU-Sim's
//     frfcfs_scheduler::schedule in dram_sched.cc, which keeps requests per
//     bank binned by row and drains the bin of the current row first);
//   - fcfs: requests leave the queue strictly in arrival order; the oldest
//     waits until its bank is free, and those behind it wait too
//     (GPGPU-Sim's scheduler_fifo).
//
// A bank is free again as soon as its request's last column command has
// been issued, so it may prepare its next request (precharge, activate) while
// the data are still on the bus. Different banks overlap their precharges
// and activates; all share the channel's data bus. A request counts as a row
// hit when the bank it is given to already has its row open, and as a row
// miss otherwise (a row-empty activate or a row conflict).
//
// # Bandwidth
//
// A long stream of 128-B reads that hit open rows keeps the bus busy with
// back-to-back bursts, so each channel delivers bus_bytes × dram_data_rate
// bytes per DRAM cycle, and the memory as a whole
// [arch.Device.PeakDRAMBandwidth] when tCCD is at most one burst and the
// stream reaches at least two bank groups. A stream confined to one group
// moves one burst per max(tCCD, tCCDL): on the GTX 480 (burst 2 cycles,
// tCCDL 3) two thirds of the peak. Mixing
// in writes then costs the bus tCL + 2 − tWL idle cycles at each read to
// write switch and tWL + tWTR at each write to read switch;
// [ChannelStats.Turnarounds] counts the switches.
//
// Completions are reported in order of finish time (core cycles), then
// channel, then arrival, so every run is reproducible bit for bit.
package dram
