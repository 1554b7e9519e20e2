package gpgpusim

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// importFile imports testdata/name with the base its compute capability
// selects.
func importFile(t *testing.T, name string) *Result {
	t.Helper()
	opts, err := Parse(name, readTestdata(t, name))
	if err != nil {
		t.Fatal(err)
	}
	cc, ok := ComputeCapability(opts)
	if !ok {
		t.Fatal("no compute capability")
	}
	baseName := BaseFor(cc)
	base, err := configs.Load(baseName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(opts, base, baseName, strings.TrimSuffix(name, ".config"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// check compares named numbers.
// importText imports option file text src, named f, on the shipped
// config base, failing the test on an error.
func importText(t *testing.T, src, base string) *Result {
	t.Helper()
	opts, err := Parse("f", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := configs.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Import(opts, b, base, "f")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// The expected values are worked out by hand from the option strings of
// GPGPU-Sim's SM2_GTX480 file (testdata/gtx480.config).
func TestImportGTX480(t *testing.T) {
	r := importFile(t, "gtx480.config")
	d := r.Device
	check(t, "base", r.Base, "fermi")
	check(t, "compute capability (major 2, minor 0)", d.ComputeCapability, "2.0")
	check(t, "SMs: 15 clusters × 1 core", d.SMs, 15)
	check(t, "core clock 700.0 MHz", d.Clocks.Core, 700*arch.MHz)
	check(t, "DRAM clock 924.0 MHz", d.Clocks.DRAM, 924*arch.MHz)
	check(t, "data rate: -dram_data_command_freq_ratio 4", d.Clocks.DRAMDataRate, 4)
	check(t, "threads 1536:32", d.SM.MaxThreads, 1536)
	check(t, "warps 1536/32", d.SM.MaxWarps, 48)
	check(t, "CTAs", d.SM.MaxBlocks, 8)
	check(t, "registers", d.SM.Registers, 32768)
	check(t, "schedulers", d.Scheduler.PerSM, 2)
	check(t, "policy", d.Scheduler.Policy, arch.PolicyGTO)
	check(t, "issue", d.Scheduler.IssuePerCycle, 1)
	check(t, "coalesce arch 20", d.Coalescer.Rule, arch.RuleCC20)
	check(t, "skip L1D 0", d.Coalescer.CacheGlobalLoads, true)
	// dl1 N:32:128:4,L:L:m:N:H,S:64:8,8: 32 sets × 128 B × 4 ways = 16 KiB.
	check(t, "l1 size", d.L1.Size, 16*arch.KiB)
	check(t, "l1 line", d.L1.Line, arch.Bytes(128))
	check(t, "l1 sector (N: not sectored)", d.L1.Sector, arch.Bytes(128))
	check(t, "l1 ways", d.L1.Associativity, 4)
	check(t, "l1 index H", d.L1.SetIndex, arch.IndexFermiHash)
	check(t, "l1 write L", d.L1.WritePolicy, arch.WriteThrough)
	check(t, "l1 no write allocate (N)", d.L1.WriteAllocate, false)
	check(t, "l1 MSHR 64", d.L1.MSHREntries, 64)
	check(t, "l1 merges 8", d.L1.MSHRMerges, 8)
	check(t, "l1 latency", d.L1.HitLatency, 35)
	// dl2 S:64:128:8 per sub-partition: 64 × 128 × 8 = 64 KiB, × 6 × 2.
	check(t, "l2 slices 6 × 2", d.L2.Slices, 12)
	check(t, "l2 size 12 × 64 KiB", d.L2.Size, 768*arch.KiB)
	check(t, "l2 sector (S)", d.L2.Sector, arch.Bytes(32))
	check(t, "l2 ways", d.L2.Associativity, 8)
	check(t, "l2 write back", d.L2.WritePolicy, arch.WriteBack)
	check(t, "l2 lazy fetch allocates", d.L2.WriteAllocate, true)
	check(t, "l2 MSHR A:256:4", d.L2.MSHREntries, 256)
	check(t, "l2 merges", d.L2.MSHRMerges, 4)
	check(t, "rop latency", d.L2.HitLatency, 120)
	check(t, "partition queue 64:64:64:64", d.L2.QueueDepth, 64)
	// tex N:4:128:24 = 12 KiB; const N:64:64:2 = 8 KiB.
	check(t, "tex size", d.Texture.Size, 12*arch.KiB)
	check(t, "tex ways", d.Texture.Associativity, 24)
	check(t, "tex MSHR T:128:4", d.Texture.MSHREntries, 128)
	check(t, "const size", d.Constant.Size, 8*arch.KiB)
	check(t, "const line", d.Constant.Line, arch.Bytes(64))
	check(t, "const MSHR S:2:32", d.Constant.MSHRMerges, 32)
	check(t, "shared memory 49152", d.SM.SharedMemory, 48*arch.KiB)
	check(t, "banks", d.SM.SharedMemoryBanks, 32)
	check(t, "smem latency", d.SM.SharedLatency, 26)
	// DRAM: 2 chips × 4 B × 8 bits.
	check(t, "channels", d.DRAM.Channels, 6)
	check(t, "bus width", d.DRAM.BusWidthBits, 64)
	check(t, "burst", d.DRAM.BurstLength, 8)
	check(t, "nbk", d.DRAM.Banks, 16)
	check(t, "nbkgrp", d.DRAM.BankGroups, 4)
	check(t, "timing", d.DRAM.Timing, arch.DRAMTiming{CL: 12, RCD: 12, RP: 12, RAS: 28, CCD: 2, RRD: 6, WR: 12, WL: 4, WTR: 5, CCDL: 3, RTPL: 2})
	check(t, "scheduler 1", d.DRAM.Scheduler, arch.SchedFRFCFS)
	check(t, "queue", d.DRAM.QueueDepth, 64)
	check(t, "dram latency", d.DRAM.Latency, 100)
	// dramid@8: 256 B; mask BBBCCCCB.CCSSSSSS: 6 C + 6 S bits = 4 KiB rows.
	check(t, "interleave", d.DRAM.Interleave, arch.Bytes(256))
	check(t, "row", d.DRAM.RowSize, 4*arch.KiB)
	// Peak bandwidth 6 × 8 B × 924 MHz × 4 = 177.4 GB/s (hardware.md §1.3).
	check(t, "peak GB/s", int(d.PeakDRAMBandwidth()/1e8), 1774)
	// Fields no option sets come from fermi.yaml.
	check(t, "interconnect (base)", d.Interconnect.Latency, 15)
	check(t, "no split imported", d.L1Shared.Present(), false)
}

// Kepler TITAN: 14 SMs, 12 32-bit channels × 2 sub-partitions, dl2
// S:32:128:16 = 64 KiB per slice, IPOLY read as xor, L1 skipped.
func TestImportKeplerTitan(t *testing.T) {
	r := importFile(t, "kepler-titan.config")
	d := r.Device
	check(t, "base", r.Base, "kepler")
	check(t, "cc", d.ComputeCapability, "3.5")
	check(t, "SMs", d.SMs, 14)
	check(t, "core", d.Clocks.Core, 837*arch.MHz)
	check(t, "dram", d.Clocks.DRAM, 1502*arch.MHz)
	check(t, "issue", d.Scheduler.IssuePerCycle, 2)
	check(t, "CTAs", d.SM.MaxBlocks, 16)
	check(t, "skip L1D 1", d.Coalescer.CacheGlobalLoads, false)
	check(t, "coalesce 35", d.Coalescer.Rule, arch.RuleCC30)
	// dl1 S:4:128:32 = 16 KiB, sectored.
	check(t, "l1", d.L1.Size, 16*arch.KiB)
	check(t, "l1 sector", d.L1.Sector, arch.Bytes(32))
	check(t, "l2 slices", d.L2.Slices, 24)
	check(t, "l2 size 24 × 64 KiB", d.L2.Size, 1536*arch.KiB)
	check(t, "l2 index P", d.L2.SetIndex, arch.IndexXOR)
	check(t, "l2 queue 32", d.L2.QueueDepth, 32)
	check(t, "tex N:16:128:24", d.Texture.Size, 48*arch.KiB)
	check(t, "const N:128:64:2", d.Constant.Size, 16*arch.KiB)
	check(t, "bus 1 × 4 B", d.DRAM.BusWidthBits, 32)
	// RBBBCCCC.BCCSSSSS: 6 C + 5 S bits = 2 KiB.
	check(t, "row", d.DRAM.RowSize, 2*arch.KiB)
	check(t, "timing", d.DRAM.Timing, arch.DRAMTiming{CL: 16, RCD: 16, RP: 16, RAS: 37, CCD: 2, RRD: 8, WR: 16, WL: 6, WTR: 7, CCDL: 4, RTPL: 3})
	// Splits: 49152 B shared + S:4:128:32 (16 KiB) = 16384 B shared +
	// S:4:128:96 (4 × 128 × 96 = 48 KiB) = 64 KiB.
	check(t, "split total", d.L1Shared.Size, 64*arch.KiB)
	check(t, "prefer shared", d.L1Shared.PreferShared, arch.Split{SharedMemory: 48 * arch.KiB, L1Associativity: 32})
	check(t, "prefer L1", d.L1Shared.PreferL1, arch.Split{SharedMemory: 16 * arch.KiB, L1Associativity: 96})
	check(t, "no equal split option", d.L1Shared.PreferEqual, arch.Split{})
	preferL1, err := d.WithCacheConfig(arch.PreferL1)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "prefer-L1 L1", preferL1.L1.Size, 48*arch.KiB)
	// -smem_latency is not a GPGPU-Sim option (it registers
	// -gpgpu_smem_latency), so the base's value stays.
	check(t, "shared latency (base)", d.SM.SharedLatency, 26)
	if !ignoredNames(r)["-smem_latency"] {
		t.Error("-smem_latency is not listed as ignored")
	}
}

// QV100: 80 SMs, HBM (ratio 2, 16-byte bus, burst 2), 6 MiB L2.
func TestImportQV100(t *testing.T) {
	r := importFile(t, "qv100.config")
	d := r.Device
	check(t, "base", r.Base, "maxwell")
	check(t, "cc", d.ComputeCapability, "7.0")
	check(t, "SMs", d.SMs, 80)
	check(t, "policy", d.Scheduler.Policy, arch.PolicyLRR)
	check(t, "CTAs", d.SM.MaxBlocks, 32)
	check(t, "coalesce 70", d.Coalescer.Rule, arch.RuleCC50)
	// dl1 S:4:128:64 = 32 KiB, write-through (T), lazy fetch (L).
	check(t, "l1", d.L1.Size, 32*arch.KiB)
	check(t, "l1 T", d.L1.WritePolicy, arch.WriteThrough)
	check(t, "l1 MSHR A:512:8", d.L1.MSHREntries, 512)
	// dl2 S:32:128:24 = 96 KiB × 32 × 2.
	check(t, "l2", d.L2.Size, 6*arch.MiB)
	check(t, "shmem 98304", d.SM.SharedMemory, 96*arch.KiB)
	check(t, "shmem per block 65536", d.SM.MaxSharedMemoryPerBlock, 64*arch.KiB)
	check(t, "tex N:4:128:256", d.Texture.Size, 128*arch.KiB)
	check(t, "bus 1 × 16 B", d.DRAM.BusWidthBits, 128)
	check(t, "burst", d.DRAM.BurstLength, 2)
	check(t, "ratio", d.Clocks.DRAMDataRate, 2)
	check(t, "tCCD", d.DRAM.Timing.CCD, 1)
	check(t, "TB launch latency", d.Scheduler.BlockLaunchLatency, 0)
	ig := ignoredNames(r)
	for _, name := range []string{"-gpgpu_memory_partition_indexing", "-gpgpu_adaptive_cache_config", "-gpgpu_unified_l1d_size"} {
		if !ig[name] {
			t.Errorf("%s is not listed as ignored", name)
		}
	}
}

func ignoredNames(r *Result) map[string]bool {
	m := map[string]bool{}
	for _, ig := range r.Ignored {
		m[ig.Option.Name] = true
	}
	return m
}

// TestRoundTrip writes each import as YAML and loads it with the strict
// loader: the same device comes back.
func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"gtx480.config", "kepler-titan.config", "qv100.config"} {
		r := importFile(t, name)
		y, err := r.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := arch.Load("x", func(string, string) (string, []byte, error) { return name + ".yaml", y, nil })
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, y)
		}
		if !reflect.DeepEqual(back, r.Device) {
			t.Errorf("%s: loaded back\n%+v\nwant\n%+v", name, back, r.Device)
		}
	}
}

// Without a -gpgpu_cache:dl2 string, more partitions keep the base's
// slice: fermi's 768 KiB / 12 = 64 KiB, × 8 channels × 2 = 1 MiB.
func TestPartitionsKeepSliceSize(t *testing.T) {
	src := "-gpgpu_compute_capability_major 2\n-gpgpu_compute_capability_minor 0\n" +
		"-gpgpu_n_mem 8\n-gpgpu_n_sub_partition_per_mchannel 2\n"
	r := importText(t, src, "fermi")
	check(t, "slices", r.Device.L2.Slices, 16)
	check(t, "size", r.Device.L2.Size, arch.MiB)
}

// Options of an absent cache are listed as ignored, with the reason.
func TestIgnoredAbsentCaches(t *testing.T) {
	src := "-gpgpu_compute_capability_major 1\n-gpgpu_compute_capability_minor 3\n" +
		"-gpgpu_cache:dl1 none\n-gpgpu_l1_latency 20\n"
	r := importText(t, src, "gt200")
	if len(r.Ignored) != 1 || IgnoredLine("f", r.Ignored[0]) != "f:4: -gpgpu_l1_latency 20: not used: the device has no L1 (-gpgpu_cache:dl1 none)" {
		t.Errorf("ignored: %+v", r.Ignored)
	}
	check(t, "no L1", r.Device.L1.Present(), false)
}

// Every ignored option is listed once per occurrence, and an overridden
// one names the line that overrides it.
func TestIgnored(t *testing.T) {
	src := "-gpgpu_compute_capability_major 2\n-gpgpu_compute_capability_minor 0\n" +
		"-gpgpu_n_clusters 10\n-gpgpu_n_clusters 15\n-power_simulation_enabled 1\n-no_such_option 3\n-gpgpu_n_cores_per_cluster 1\n"
	r := importText(t, src, "fermi")
	var got []string
	for _, ig := range r.Ignored {
		got = append(got, IgnoredLine("f", ig))
	}
	want := []string{
		"f:3: -gpgpu_n_clusters 10: overridden by line 4 (GPGPU-Sim keeps the last value)",
		"f:5: -power_simulation_enabled 1: recognised, not modelled: statistics, power and tracing output",
		"f:6: -no_such_option 3: unknown to gpumemsim (not translated)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	check(t, "SMs: the later value", r.Device.SMs, 15)
}

func TestImportErrors(t *testing.T) {
	cc := "-gpgpu_compute_capability_major 2\n-gpgpu_compute_capability_minor 0\n"
	for _, tc := range []struct{ src, want string }{
		{"-gpgpu_cache:dl1 N:32:128,L:L:m:N:H,S:64:8,8\n", `f:3:1: -gpgpu_cache:dl1 "N:32:128,L:L:m:N:H,S:64:8,8": geometry "N:32:128"`},
		{"-gpgpu_n_clusters 15\n", `f:3:1: -gpgpu_n_clusters "15": without -gpgpu_n_cores_per_cluster`},
		{"-gpgpu_shader_cta eight\n", `f:3:1: -gpgpu_shader_cta "eight": want a positive integer`},
		{"-gpgpu_scheduler two_level_active:6:0:1\n", `f:3:1: -gpgpu_scheduler "two_level_active:6:0:1": gpumemsim models the lrr and gto`},
		{"-gpgpu_dram_timing_opt \"nbk=16:CCD=2\"\n", `f:3:1: -gpgpu_dram_timing_opt "nbk=16:CCD=2": RRD is missing`},
		{"-gpgpu_cache:dl2 S:64:128:8,L:B:m:L:C,A:256:4,4:0,32\n", `set index function "C"`},
		{"-gpgpu_mem_addr_mapping dramid@8;RRRRXBBB\n", `mask letter 'X'`},
		{"-gpgpu_shmem_size 49152\n-gpgpu_shmem_size_PrefL1 32768\n-gpgpu_cache:dl1PrefL1 N:64:128:6,L:L:m:N:H,S:64:8,8\n" +
			"-gpgpu_shmem_size_PrefShared 49152\n-gpgpu_cache:dl1PrefShared N:32:128:4,L:L:m:N:H,S:64:8,8\n",
			`f:4:1: -gpgpu_shmem_size_PrefL1 "32768": shared memory 32KiB + the -gpgpu_cache:dl1PrefL1 L1 48KiB = 80KiB, but prefer-shared's 48KiB + 16KiB = 64KiB`},
	} {
		opts, err := Parse("f", []byte(cc+tc.src))
		if err != nil {
			t.Fatal(err)
		}
		base, _ := configs.Load("fermi")
		_, err = Import(opts, base, "fermi", "f")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.src, err, tc.want)
		}
	}
}

// FuzzImport checks that a parsed file either imports to a device whose
// YAML loads back the same, or is refused; never a panic.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"gtx480", "kepler-titan", "qv100"} {
		f.Add(readTestdata(f, name+".config"))
	}
	f.Add([]byte("-gpgpu_cache:dl2 none\n-gpgpu_cache:dl1 none\n-gpgpu_mem_addr_mapping 0000DDRRBBBCCCCSSSSSSS\n"))
	base, err := configs.Load("fermi")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, err := Parse("f", data)
		if err != nil {
			return
		}
		r, err := Import(opts, base, "fermi", "f")
		if err != nil {
			return
		}
		y, err := r.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := arch.Load("x", func(string, string) (string, []byte, error) { return "x.yaml", y, nil })
		if err != nil {
			t.Fatalf("imported YAML does not load: %v\n%s", err, y)
		}
		if !reflect.DeepEqual(back, r.Device) {
			t.Fatalf("loaded back a different device\n%s", y)
		}
	})
}
