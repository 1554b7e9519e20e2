// Package arch describes what a GPU is: the Device (SM limits, warp
// schedulers, coalescing rule, caches, interconnect, DRAM, clocks), its
// unit types, strict loading from YAML with base configs, validation that
// reports every problem at once, and the CUDA occupancy calculator.
package arch
