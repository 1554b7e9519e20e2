// Command gpumemsim is a cycle-approximate GPU memory-hierarchy simulator.
//
// Usage:
//
//	gpumemsim devices [-format text|json]
//	gpumemsim devices show NAME|FILE [-format yaml|json]
//	gpumemsim occupancy -device NAME|FILE -block 16x16 [-regs N] [-smem BYTES] [-format text|json]
//
// Devices are named by an embedded config (g80, gt200, fermi, fermi-m2050,
// fermi-l1-48k, kepler, maxwell) or by the path of a YAML file, which may
// start from an embedded config with "base: fermi". Errors are printed as
// "gpumemsim: ..." and exit with status 1.
package main
