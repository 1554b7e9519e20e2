package arch

import (
	"strings"
	"testing"
)

// cc13 is a compute capability 1.3 SM as the CUDA occupancy calculator
// describes it (conventions.md §1.3).
func cc13() *Device {
	return &Device{Name: "cc13", WarpSize: 32, SM: SMLimits{
		MaxThreads: 1024, MaxWarps: 32, MaxBlocks: 8, Registers: 16384,
		RegisterAllocUnit: 512, RegisterAllocGranularity: AllocPerBlock, WarpAllocGranularity: 2,
		MaxRegistersPerThread: 124, SharedMemory: 16 * KiB, SharedMemoryAllocUnit: 512,
		MaxSharedMemoryPerBlock: 16 * KiB, MaxThreadsPerBlock: 512, MaxBlockDim: Dim3{512, 512, 64},
	}}
}

// cc20 is a compute capability 2.0 SM (48 KiB shared memory).
func cc20() *Device {
	return &Device{Name: "cc20", WarpSize: 32, SM: SMLimits{
		MaxThreads: 1536, MaxWarps: 48, MaxBlocks: 8, Registers: 32768,
		RegisterAllocUnit: 64, RegisterAllocGranularity: AllocPerWarp, WarpAllocGranularity: 2,
		MaxRegistersPerThread: 63, SharedMemory: 48 * KiB, SharedMemoryAllocUnit: 128,
		MaxSharedMemoryPerBlock: 48 * KiB, MaxThreadsPerBlock: 1024, MaxBlockDim: Dim3{1024, 1024, 64},
	}}
}

func TestOccupancyAllocation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dev     *Device
		block   Dim3
		regs    int
		smem    Bytes
		blocks  int
		regsBlk int
		limit   string
	}{
		// 1 warp rounds up to 2 (warp granularity) before registers are
		// allocated: 2·32·28 = 1792 → 2048 per block, 16384/2048 = 8.
		{"cc13 one warp", cc13(), Dim3{32, 1, 1}, 28, 0, 8, 2048, LimitBlocks},
		// 8 warps · 32 · 17 = 4352 → 4608 (9·512); 16384/4608 = 3.
		{"cc13 registers", cc13(), Dim3{16, 16, 1}, 17, 0, 3, 4608, LimitRegisters},
		// 4 warps fit 8 times in 32 warps, and 8 is also the block limit.
		{"cc13 blocks", cc13(), Dim3{128, 1, 1}, 0, 0, 8, 0, LimitBlocks},
		// 16 warps per block: 32/16 = 2.
		{"cc13 warps", cc13(), Dim3{512, 1, 1}, 3, 0, 2, 1536, LimitWarps},
		// 5000 B → 5120 (10·512); 16384/5120 = 3.
		{"cc13 shared memory", cc13(), Dim3{64, 1, 1}, 0, 5000, 3, 0, LimitSharedMemory},
		// Per warp: 21·32 = 672 → 704; 32768/704 = 46 warps; 16-warp blocks → 2.
		{"cc20 per-warp registers", cc20(), Dim3{512, 1, 1}, 21, 0, 2, 704 * 16, LimitRegisters},
		// 20·32 = 640 (a multiple of 64); 51 warps / 8 = 6; threads 1536/256 = 6 too.
		{"cc20 warps tie", cc20(), Dim3{256, 1, 1}, 20, 0, 6, 640 * 8, LimitWarps},
	} {
		o, err := tc.dev.Occupancy(tc.block, tc.regs, tc.smem)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if o.ActiveBlocks != tc.blocks || o.RegistersPerBlock != tc.regsBlk || o.LimitedBy != tc.limit {
			t.Errorf("%s: Occupancy(%v, %d regs, %v) = %d blocks, %d regs/block, limited by %s; want %d, %d, %s",
				tc.name, tc.block, tc.regs, tc.smem, o.ActiveBlocks, o.RegistersPerBlock, o.LimitedBy, tc.blocks, tc.regsBlk, tc.limit)
		}
		if want := o.ActiveBlocks * o.WarpsPerBlock; o.ActiveWarps != want {
			t.Errorf("%s: active warps %d; want %d", tc.name, o.ActiveWarps, want)
		}
	}
}

func TestOccupancyErrors(t *testing.T) {
	for _, tc := range []struct {
		dev   *Device
		block Dim3
		regs  int
		smem  Bytes
		want  string
	}{
		{cc13(), Dim3{1024, 1, 1}, 0, 0, "exceeds the largest block extents 512×512×64"},
		{cc13(), Dim3{1, 1, 65}, 0, 0, "largest block extents"},
		{cc13(), Dim3{32, 32, 1}, 0, 0, "at most 512"},
		{cc20(), Dim3{32, 1, 1}, 64, 0, "exceed the limit of 63"},
		{cc13(), Dim3{512, 1, 1}, 40, 0, "needs 20480 registers"},
		{cc20(), Dim3{32, 1, 1}, 0, 49 * KiB, "exceeds the limit of 48KiB"},
	} {
		_, err := tc.dev.Occupancy(tc.block, tc.regs, tc.smem)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Occupancy(%v, %d, %v) error = %v; want it to mention %q", tc.dev.Name, tc.block, tc.regs, tc.smem, err, tc.want)
		}
	}
}
