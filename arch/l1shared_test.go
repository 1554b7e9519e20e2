package arch_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

func load(t *testing.T, name string) *arch.Device {
	t.Helper()
	d, err := configs.Load(name)
	if err != nil {
		t.Fatalf("configs.Load(%q): %v", name, err)
	}
	return d
}

func TestParseCacheConfig(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want arch.CacheConfig
	}{{"", 0}, {"prefer-shared", arch.PreferShared}, {"prefer-l1", arch.PreferL1}, {"prefer-equal", arch.PreferEqual}} {
		got, err := arch.ParseCacheConfig(tc.s)
		if err != nil || got != tc.want || got.String() != tc.s {
			t.Errorf("ParseCacheConfig(%q) = %v (%d), %v; want %d, spelled back the same", tc.s, got, got, err, tc.want)
		}
	}
	// cudaFuncCache's numbering: PreferNone 0, Shared 1, L1 2, Equal 3.
	if arch.PreferShared != 1 || arch.PreferL1 != 2 || arch.PreferEqual != 3 {
		t.Errorf("cache configs are %d, %d, %d; want cudaFuncCache's 1, 2, 3", arch.PreferShared, arch.PreferL1, arch.PreferEqual)
	}
	for _, s := range []string{"prefer-none", "PreferL1", "l1", "prefer_l1", " prefer-l1"} {
		_, err := arch.ParseCacheConfig(s)
		if err == nil || !strings.Contains(err.Error(), "want prefer-shared, prefer-l1 or prefer-equal") {
			t.Errorf("ParseCacheConfig(%q) error = %v; want one listing the spellings", s, err)
		}
	}
}

// WithCacheConfig changes the shared memory per SM and per block and the
// L1's size and associativity, and nothing else; d itself is untouched.
func TestWithCacheConfigChangesOnlyTheSplit(t *testing.T) {
	fermi := load(t, "fermi")
	orig := load(t, "fermi")
	d, err := fermi.WithCacheConfig(arch.PreferL1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fermi, orig) {
		t.Errorf("WithCacheConfig changed the device it was called on")
	}
	// PG42 F.4.1: 16 KB shared memory + 48 KB L1; a block may use 16 KB.
	if d.SM.SharedMemory != 16*arch.KiB || d.SM.MaxSharedMemoryPerBlock != 16*arch.KiB ||
		d.L1.Size != 48*arch.KiB || d.L1.Associativity != 6 || d.L1.Sets() != 64 || d.CacheConfig != arch.PreferL1 {
		t.Errorf("fermi prefer-l1: shared %v (per block %v), L1 %v %d-way with %d sets, config %v; want 16KiB (16KiB), 48KiB 6-way with 64 sets, prefer-l1",
			d.SM.SharedMemory, d.SM.MaxSharedMemoryPerBlock, d.L1.Size, d.L1.Associativity, d.L1.Sets(), d.CacheConfig)
	}
	back := *d
	back.SM.SharedMemory, back.SM.MaxSharedMemoryPerBlock = fermi.SM.SharedMemory, fermi.SM.MaxSharedMemoryPerBlock
	back.L1.Size, back.L1.Associativity = fermi.L1.Size, fermi.L1.Associativity
	back.CacheConfig = 0
	if !reflect.DeepEqual(&back, fermi) {
		t.Errorf("fermi prefer-l1 changes more than the split:\n%+v\nagainst\n%+v", back, *fermi)
	}
	same, err := fermi.WithCacheConfig(0)
	if err != nil || !reflect.DeepEqual(same, fermi) {
		t.Errorf("WithCacheConfig(0) = %+v, %v; want the device unchanged", same, err)
	}
}

func TestWithCacheConfigErrors(t *testing.T) {
	for _, name := range []string{"g80", "gt200", "maxwell"} {
		_, err := load(t, name).WithCacheConfig(arch.PreferL1)
		if !errors.Is(err, arch.ErrNoSplit) || !strings.Contains(err.Error(), "device "+name+" has no configurable L1/shared split") {
			t.Errorf("%s prefer-l1: error %v; want ErrNoSplit naming the device", name, err)
		}
	}
	_, err := load(t, "fermi").WithCacheConfig(arch.PreferEqual)
	if want := "device fermi (compute capability 2.0) offers prefer-shared or prefer-l1; it has no prefer-equal split"; err == nil || err.Error() != want {
		t.Errorf("fermi prefer-equal: error %v; want %q", err, want)
	}
	_, err = load(t, "kepler").WithCacheConfig(arch.CacheConfig(9))
	if err == nil || !strings.Contains(err.Error(), "offers prefer-shared, prefer-l1 or prefer-equal") {
		t.Errorf("kepler cache config 9: error %v; want one naming the three splits", err)
	}
}

// Validate checks each split's geometry against the l1 section, that
// each split is what its name says, and that the sm and l1 sections give
// one of the splits; every problem at once.
func TestValidateL1Shared(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(d *arch.Device)
		want   []string
	}{
		{"a 48 KiB L1 of 4 ways", func(d *arch.Device) { d.L1Shared.PreferL1.L1Associativity = 4 }, []string{
			// 49152 / (128 × 4) = 96 sets.
			"l1_shared.prefer_l1.l1_associativity: the 48KiB L1 this split leaves has 96 sets of 4 ways; l1.set_index fermi_hash needs 32 or 64",
		}},
		{"a 48 KiB L1 of 5 ways and no prefer_shared", func(d *arch.Device) {
			d.L1Shared.PreferL1.L1Associativity = 5
			d.L1Shared.PreferShared = arch.Split{}
		}, []string{
			"l1_shared.prefer_shared: required",
			// 49152 / 640 = 76.8.
			"l1_shared.prefer_l1.l1_associativity: the 48KiB L1 this split leaves (64KiB − 16KiB) is not divisible by l1.line × l1_associativity (128B × 5 = 640B)",
		}},
		{"splits that contradict their names", func(d *arch.Device) {
			d.L1Shared.PreferShared.SharedMemory = 16 * arch.KiB
			d.L1Shared.PreferL1.SharedMemory = 64 * arch.KiB
			d.L1Shared.PreferEqual = arch.Split{SharedMemory: 24 * arch.KiB, L1Associativity: 4}
		}, []string{
			"l1_shared.prefer_shared.shared_memory: 16KiB leaves a 48KiB L1: prefer_shared has more shared memory than L1",
			// 49152 / (128 × 4) = 96 sets.
			"l1_shared.prefer_shared.l1_associativity: the 48KiB L1 this split leaves has 96 sets of 4 ways",
			"l1_shared.prefer_l1.shared_memory: 64KiB leaves no L1 of the 64KiB in l1_shared.size",
			"l1_shared.prefer_equal.shared_memory: 24KiB leaves a 40KiB L1: prefer_equal has as much shared memory as L1",
			// 40960 / 512 = 80 sets.
			"l1_shared.prefer_equal.l1_associativity: the 40KiB L1 this split leaves has 80 sets of 4 ways",
		}},
		{"an L1 of no split", func(d *arch.Device) { d.L1.Size = 32 * arch.KiB }, []string{
			"l1.size: 32KiB: with sm.shared_memory 48KiB (l1_shared.prefer_shared), l1_shared.size 64KiB leaves 16KiB for the L1",
		}},
		{"shared memory of no split", func(d *arch.Device) {
			d.SM.SharedMemory = 32 * arch.KiB
			d.SM.MaxSharedMemoryPerBlock = 32 * arch.KiB
		}, []string{
			"sm.shared_memory: 32KiB is the shared memory of none of the splits in l1_shared (prefer_shared 48KiB, prefer_l1 16KiB)",
		}},
		{"a per-block limit below the split's", func(d *arch.Device) { d.SM.MaxSharedMemoryPerBlock = 32 * arch.KiB }, []string{
			"sm.max_shared_memory_per_block: 32KiB: in l1_shared.prefer_shared a block may use 48KiB",
		}},
		{"no L1", func(d *arch.Device) { d.L1 = arch.Cache{}; d.Coalescer.CacheGlobalLoads = false }, []string{
			"l1_shared: describes a split of shared memory with an L1, but the device has no L1",
		}},
	} {
		d := load(t, "fermi")
		tc.change(d)
		err := d.Validate()
		if err == nil {
			t.Errorf("%s: Validate() = nil; want errors", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Validate() does not report %q; got:\n%v", tc.name, w, err)
			}
		}
		if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != len(tc.want) {
			t.Errorf("%s: Validate() reported %d problems; want %d:\n%v", tc.name, n, len(tc.want), err)
		}
	}
}
