package arch

import (
	"errors"
	"fmt"
)

// Limiters of occupancy, as the CUDA occupancy calculator names them.
const (
	LimitBlocks       = "blocks"        // max thread blocks per SM
	LimitWarps        = "warps"         // max warps (threads) per SM
	LimitRegisters    = "registers"     // register file
	LimitSharedMemory = "shared_memory" // shared memory
)

// Occupancy is the CUDA occupancy calculator's answer for one launch
// configuration on one SM.
type Occupancy struct {
	ThreadsPerBlock int `json:"threads_per_block"`
	WarpsPerBlock   int `json:"warps_per_block"`
	// RegistersPerBlock and SharedMemoryPerBlock are after rounding to the
	// allocation units.
	RegistersPerBlock    int   `json:"registers_per_block"`
	SharedMemoryPerBlock Bytes `json:"shared_memory_per_block"`

	// Blocks per SM allowed by each limit on its own.
	BlocksByWarps        int `json:"blocks_by_warps"` // max warps and max blocks
	BlocksByRegisters    int `json:"blocks_by_registers"`
	BlocksBySharedMemory int `json:"blocks_by_shared_memory"`

	ActiveBlocks  int     `json:"active_blocks_per_sm"`
	ActiveWarps   int     `json:"active_warps_per_sm"`
	ActiveThreads int     `json:"active_threads_per_sm"`
	Occupancy     float64 `json:"occupancy"` // active warps / max warps, 0 to 1
	// LimitedBy is the binding limit: LimitBlocks, LimitWarps,
	// LimitRegisters or LimitSharedMemory. When several bind equally the
	// first in that order is named.
	LimitedBy string `json:"limited_by"`
}

// Occupancy computes how many blocks of the given shape, registers per
// thread and shared memory per block one SM holds at once, with the
// calculator's allocation units and granularities: registers are allocated
// per block on CC 1.x (the block's warp count rounded up to the warp
// allocation granularity) and per warp on later devices, each rounded up to
// the register allocation unit; shared memory is rounded up to its unit.
// A block the device cannot run at all is an error.
func (d *Device) Occupancy(block Dim3, regsPerThread int, smemPerBlock Bytes) (Occupancy, error) {
	s := d.SM
	var o Occupancy
	threads := block.Threads()
	switch {
	case block.X <= 0 || block.Y <= 0 || block.Z <= 0:
		return o, fmt.Errorf("block %v: extents must be positive", block)
	case block.X > s.MaxBlockDim.X || block.Y > s.MaxBlockDim.Y || block.Z > s.MaxBlockDim.Z:
		return o, fmt.Errorf("block %v exceeds the largest block extents %d×%d×%d of %s", block,
			s.MaxBlockDim.X, s.MaxBlockDim.Y, s.MaxBlockDim.Z, d.Name)
	case threads > s.MaxThreadsPerBlock:
		return o, fmt.Errorf("block %v has %d threads; %s allows at most %d per block", block, threads, d.Name, s.MaxThreadsPerBlock)
	case regsPerThread < 0:
		return o, errors.New("registers per thread must not be negative")
	case regsPerThread > s.MaxRegistersPerThread:
		return o, fmt.Errorf("%d registers per thread exceed the limit of %d on %s", regsPerThread, s.MaxRegistersPerThread, d.Name)
	case smemPerBlock < 0:
		return o, errors.New("shared memory per block must not be negative")
	case smemPerBlock > s.MaxSharedMemoryPerBlock:
		return o, fmt.Errorf("%v of shared memory per block exceeds the limit of %v on %s", smemPerBlock, s.MaxSharedMemoryPerBlock, d.Name)
	}

	o.ThreadsPerBlock = threads
	o.WarpsPerBlock = ceilDiv(threads, d.WarpSize)
	o.BlocksByWarps = min(s.MaxBlocks, s.MaxWarps/o.WarpsPerBlock)

	o.BlocksByRegisters = s.MaxBlocks
	if regsPerThread > 0 {
		if s.RegisterAllocGranularity == AllocPerBlock {
			warps := roundUp(o.WarpsPerBlock, s.WarpAllocGranularity)
			o.RegistersPerBlock = roundUp(warps*d.WarpSize*regsPerThread, s.RegisterAllocUnit)
			o.BlocksByRegisters = s.Registers / o.RegistersPerBlock
		} else {
			perWarp := roundUp(regsPerThread*d.WarpSize, s.RegisterAllocUnit)
			o.RegistersPerBlock = perWarp * o.WarpsPerBlock
			o.BlocksByRegisters = (s.Registers / perWarp) / o.WarpsPerBlock
		}
		if o.BlocksByRegisters == 0 {
			return o, fmt.Errorf("a block of %d threads with %d registers per thread needs %d registers; an SM of %s has %d",
				threads, regsPerThread, o.RegistersPerBlock, d.Name, s.Registers)
		}
	}

	o.BlocksBySharedMemory = s.MaxBlocks
	if smemPerBlock > 0 {
		o.SharedMemoryPerBlock = Bytes(roundUp(int(smemPerBlock), int(s.SharedMemoryAllocUnit)))
		o.BlocksBySharedMemory = int(s.SharedMemory / o.SharedMemoryPerBlock)
		if o.BlocksBySharedMemory == 0 {
			return o, fmt.Errorf("a block needs %v of shared memory (%v after rounding); an SM of %s has %v",
				smemPerBlock, o.SharedMemoryPerBlock, d.Name, s.SharedMemory)
		}
	}

	o.ActiveBlocks = min(o.BlocksByWarps, o.BlocksByRegisters, o.BlocksBySharedMemory)
	o.ActiveWarps = o.ActiveBlocks * o.WarpsPerBlock
	o.ActiveThreads = o.ActiveBlocks * threads
	o.Occupancy = float64(o.ActiveWarps) / float64(s.MaxWarps)
	switch o.ActiveBlocks {
	case s.MaxBlocks:
		o.LimitedBy = LimitBlocks
	case o.BlocksByWarps:
		o.LimitedBy = LimitWarps
	case o.BlocksByRegisters:
		o.LimitedBy = LimitRegisters
	default:
		o.LimitedBy = LimitSharedMemory
	}
	return o, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func roundUp(a, unit int) int {
	if unit <= 1 {
		return a
	}
	return ceilDiv(a, unit) * unit
}
