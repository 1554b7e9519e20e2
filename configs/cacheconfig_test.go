package configs

import (
	"math"
	"reflect"
	"testing"

	"gpumemsim/arch"
)

func withSplit(t *testing.T, name string, c arch.CacheConfig) *arch.Device {
	t.Helper()
	d, err := mustLoad(t, name).WithCacheConfig(c)
	if err != nil {
		t.Fatalf("%s with %v: %v", name, c, err)
	}
	return d
}

// The config as loaded is its default split: applying that split gives
// back the same device, so nothing that ran before -cache-config changes.
func TestCacheConfigDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    arch.CacheConfig
	}{
		{"fermi", arch.PreferShared}, // PG42 F.4.1: 48 KB shared + 16 KB L1 by default
		{"fermi-m2050", arch.PreferShared},
		{"kepler", arch.PreferShared}, // PG42 F.5.1: 48/16 by default too
		{"fermi-l1-48k", arch.PreferL1},
	} {
		d := withSplit(t, tc.name, tc.c)
		d.CacheConfig = 0
		if loaded := mustLoad(t, tc.name); !reflect.DeepEqual(d, loaded) {
			t.Errorf("%s with %v differs from the config as loaded:\n%+v\n%+v", tc.name, tc.c, d, loaded)
		}
	}
}

// fermi-l1-48k.yaml was written from PG42, GPGPU-Sim's alternative
// SM2_GTX480 L1 and Nugteren et al.'s default48.conf, apart from fermi's
// l1_shared section: fermi with prefer-l1 must have its SM limits and L1
// field for field, and fermi-l1-48k with prefer-shared fermi's.
func TestFermiPreferL1IsFermiL1_48k(t *testing.T) {
	l148k := mustLoad(t, "fermi-l1-48k")
	d := withSplit(t, "fermi", arch.PreferL1)
	if d.SM != l148k.SM {
		t.Errorf("fermi prefer-l1 SM limits:\n%+v\nfermi-l1-48k:\n%+v", d.SM, l148k.SM)
	}
	if d.L1 != l148k.L1 || d.L1.Sets() != l148k.L1.Sets() {
		t.Errorf("fermi prefer-l1 L1 (%d sets):\n%+v\nfermi-l1-48k (%d sets):\n%+v", d.L1.Sets(), d.L1, l148k.L1.Sets(), l148k.L1)
	}
	fermi := mustLoad(t, "fermi")
	back := withSplit(t, "fermi-l1-48k", arch.PreferShared)
	if back.SM != fermi.SM || back.L1 != fermi.L1 {
		t.Errorf("fermi-l1-48k prefer-shared: SM %+v, L1 %+v; want fermi's %+v, %+v", back.SM, back.L1, fermi.SM, fermi.L1)
	}
}

// Kepler's three splits (PG42 F.5.1): 48/16, 16/48 and 32/32 KB of
// shared memory and L1; a block may use all of the split's shared memory.
func TestKeplerSplits(t *testing.T) {
	for _, tc := range []struct {
		c           arch.CacheConfig
		shared, l1  arch.Bytes
		ways, sets  int
		perBlockMax arch.Bytes
	}{
		{arch.PreferShared, 48 * arch.KiB, 16 * arch.KiB, 4, 32, 48 * arch.KiB}, // 16384 / (128 × 4) = 32
		{arch.PreferL1, 16 * arch.KiB, 48 * arch.KiB, 6, 64, 16 * arch.KiB},     // 49152 / (128 × 6) = 64
		{arch.PreferEqual, 32 * arch.KiB, 32 * arch.KiB, 4, 64, 32 * arch.KiB},  // 32768 / (128 × 4) = 64
	} {
		d := withSplit(t, "kepler", tc.c)
		if d.SM.SharedMemory != tc.shared || d.L1.Size != tc.l1 || d.L1.Associativity != tc.ways || d.L1.Sets() != tc.sets || d.SM.MaxSharedMemoryPerBlock != tc.perBlockMax {
			t.Errorf("kepler %v: shared %v (per block %v), L1 %v %d-way %d sets; want %v (%v), %v %d-way %d sets",
				tc.c, d.SM.SharedMemory, d.SM.MaxSharedMemoryPerBlock, d.L1.Size, d.L1.Associativity, d.L1.Sets(),
				tc.shared, tc.perBlockMax, tc.l1, tc.ways, tc.sets)
		}
	}
}

// The occupancy calculator follows the split. Blocks of 256 threads are 8
// warps: max warps allow 48/8 = 6 on Fermi and 64/8 = 8 on Kepler (fewer
// than their 8 and 16 max blocks). Shared memory is rounded up to 128 B
// on Fermi and 256 B on Kepler, then divides the split's shared memory.
func TestCacheConfigOccupancy(t *testing.T) {
	for _, tc := range []struct {
		device string
		c      arch.CacheConfig
		smem   arch.Bytes
		blocks int
		limit  string
		occPct float64
	}{
		// 48 KiB / 12 KiB = 4 blocks: 32 of 48 warps.
		{"fermi", arch.PreferShared, 12 * arch.KiB, 4, arch.LimitSharedMemory, 100 * 32.0 / 48},
		// 16 KiB / 12 KiB = 1 block: 8 of 48 warps.
		{"fermi", arch.PreferL1, 12 * arch.KiB, 1, arch.LimitSharedMemory, 100 * 8.0 / 48},
		// 48 KiB / 8 KiB = 6, as many as the warps allow: the warps bind.
		{"fermi", arch.PreferShared, 8 * arch.KiB, 6, arch.LimitWarps, 100},
		// 16 KiB / 8 KiB = 2: now shared memory binds.
		{"fermi", arch.PreferL1, 8 * arch.KiB, 2, arch.LimitSharedMemory, 100 * 16.0 / 48},
		// 5000 B → 5120 B (20 × 256): 49152 / 5120 = 9 > 8 blocks by warps.
		{"kepler", arch.PreferShared, 5000, 8, arch.LimitWarps, 100},
		// 32768 / 5120 = 6: 48 of 64 warps.
		{"kepler", arch.PreferEqual, 5000, 6, arch.LimitSharedMemory, 75},
		// 16384 / 5120 = 3: 24 of 64 warps.
		{"kepler", arch.PreferL1, 5000, 3, arch.LimitSharedMemory, 37.5},
	} {
		d := withSplit(t, tc.device, tc.c)
		o, err := d.Occupancy(arch.Dim3{X: 256, Y: 1, Z: 1}, 0, tc.smem)
		if err != nil {
			t.Errorf("%s %v: Occupancy(256, smem %v): %v", tc.device, tc.c, tc.smem, err)
			continue
		}
		if o.ActiveBlocks != tc.blocks || o.LimitedBy != tc.limit || math.Abs(100*o.Occupancy-tc.occPct) > 1e-9 {
			t.Errorf("%s %v: Occupancy(256, smem %v) = %d blocks, limited by %s, %.4g%%; want %d, %s, %.4g%%",
				tc.device, tc.c, tc.smem, o.ActiveBlocks, o.LimitedBy, 100*o.Occupancy, tc.blocks, tc.limit, tc.occPct)
		}
	}
	// PG42: a block may use at most the split's 16 KB with prefer-l1.
	_, err := withSplit(t, "fermi", arch.PreferL1).Occupancy(arch.Dim3{X: 256, Y: 1, Z: 1}, 0, 20*arch.KiB)
	if err == nil || err.Error() != "20KiB of shared memory per block exceeds the limit of 16KiB on fermi" {
		t.Errorf("fermi prefer-l1 with 20KiB per block: error %v; want the 16KiB per-block limit", err)
	}
}
