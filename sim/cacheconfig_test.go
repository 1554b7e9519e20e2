package sim_test

import (
	"reflect"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
)

// The simulated L1 is built from the device it is given: fermi with the
// prefer-l1 split runs exactly as fermi-l1-48k (written separately from
// fermi's l1_shared section) does, counter for counter, and unlike fermi's
// default 16 KiB L1 where the footprint is between the two.
func TestPreferL1RunsAsFermiL1_48k(t *testing.T) {
	fermi, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	split, err := fermi.WithCacheConfig(arch.PreferL1)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := configs.Load("fermi-l1-48k")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kernel string
		params map[string]int64
	}{
		{"transpose", map[string]int64{"N": 96}},
		{"matmul", map[string]int64{"M": 64, "N": 64, "P": 64}},
		{"latency-probe", map[string]int64{"F": 32768, "R": 3}},
	} {
		got := run(t, split, bindOn(t, split, tc.kernel, "", "", tc.params), sim.Options{})
		want := run(t, oracle, bindOn(t, oracle, tc.kernel, "", "", tc.params), sim.Options{})
		got.Device = want.Device // the only field that names the device
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fermi prefer-l1 gives\n%+v\nfermi-l1-48k\n%+v", tc.kernel, got, want)
		}
		if got.L1.Accesses == 0 {
			t.Errorf("%s: no L1 accesses; the comparison would not test the L1", tc.kernel)
		}
	}
	// The latency probe over 32 KiB: 256 lines a pass, 3 passes. 48 KiB
	// (64 sets × 6 ways) keeps them all after the cold pass: 512 hits.
	// 16 KiB (32 sets × 4 ways) holds 128 and LRU evicts each before
	// its reuse: none.
	probe := map[string]int64{"F": 32768, "R": 3}
	big := run(t, split, bindOn(t, split, "latency-probe", "", "", probe), sim.Options{}).L1
	small := run(t, fermi, bindOn(t, fermi, "latency-probe", "", "", probe), sim.Options{}).L1
	if big.Accesses != 768 || big.Hits != 512 || small.Accesses != 768 || small.Hits != 0 {
		t.Errorf("latency probe, 32 KiB × 3: prefer-l1 %d hits of %d, default %d of %d; want 512 of 768, 0 of 768",
			big.Hits, big.Accesses, small.Hits, small.Accesses)
	}
}
