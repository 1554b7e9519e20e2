package sim_test

import (
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/indexdata"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// TestGatherTransactionsBruteForce: spmv-csr on a permutation matrix —
// the banded structure of width 1 (the identity) with its column indices
// replaced by a seeded permutation — gathers V[COL[i]] = V[perm(i)]. Its
// transactions per request, counted by brute force over the permutation
// with each device's coalescing rule for 4-byte loads, must be the
// simulator's. V's base is 256-byte aligned (the default align), so the
// 128- and 32-byte units of V's addresses are those of 4·perm(i).
func TestGatherTransactionsBruteForce(t *testing.T) {
	const n, seed = 4096, 3
	perm, err := indexdata.NewPermutation(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	// distinct counts the units of the given bytes that the lanes [lo, hi)
	// of the gather touch.
	distinct := func(lo, hi, unit int64) int64 {
		seen := map[int64]bool{}
		for i := lo; i < hi; i++ {
			seen[4*perm.At(i)/unit] = true
		}
		return int64(len(seen))
	}
	for _, tc := range []struct {
		device string
		// group is the lanes one request serves (a half-warp on CC 1.3)
		// and unit the bytes one transaction covers: CC 1.3's 128-byte
		// segment for 4-byte words (its 64/32-byte reductions do not
		// change the count), Fermi's 128-byte L1 line, Kepler's and
		// Maxwell's 32-byte segment.
		group, unit int64
	}{{"gt200", 16, 128}, {"fermi", 32, 128}, {"kepler", 32, 32}, {"maxwell", 32, 32}} {
		var want int64
		for lo := int64(0); lo < n; lo += tc.group {
			want += distinct(lo, lo+tc.group, tc.unit)
		}
		dev, err := configs.Load(tc.device)
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernel.Load("spmv-csr")
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SetMatrix("banded:rows=4096,width=1"); err != nil {
			t.Fatal(err)
		}
		if err := k.SetData("COL", "permutation:seed=3"); err != nil {
			t.Fatal(err)
		}
		l, err := traces.BindGrid(k, nil, arch.Dim3{}, arch.Dim3{}, nil, dev)
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, dev, l, sim.Options{})
		var got *sim.RefStats
		for i := range r.Refs {
			if r.Refs[i].Ref == "V[COL[i]]" {
				got = &r.Refs[i]
			}
		}
		if got == nil || got.Requests != n/32 || got.Transactions != want {
			t.Errorf("%s: V[COL[i]] = %+v; want %d requests and %d transactions (%.2f per request) by brute force", tc.device, got, n/32, want, float64(want)/(n/32))
			continue
		}
		t.Logf("%s: V[COL[i]] %d transactions, %.2f per request", tc.device, want, float64(want)/(n/32))
	}
}
