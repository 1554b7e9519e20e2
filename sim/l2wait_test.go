package sim_test

import (
	"reflect"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// An access that waits for an L2 MSHR entry counts once in MSHRWaits,
// however many fills it is retried at. A kepler cut to one SM, one DRAM
// channel and one L2 slice with a single MSHR entry runs one warp whose
// 32 lanes read 32 different lines (stride 32 floats, 128 bytes): kepler's
// L1 does not cache global loads, so the warp sends 32 one-sector reads to
// the L2, one a cycle. The first takes the entry; the other 31 find it
// taken, its data not yet on its way, and wait. Each fill frees the entry
// for the first in the queue and the rest wait on: 31 accesses waited, in
// 31 + 30 + ... + 1 = 496 tries, as the metric counted before
// (2026-11-28). All 32 are read requests in the end, each missing once.
func TestL2MSHRWaitsCountAccesses(t *testing.T) {
	dev := deviceFrom(t, "kepler-one-slice", "base: kepler\nname: kepler-one-slice\nsms: 1\n"+
		"l2:\n  size: 1MiB\n  slices: 1\n  mshr_entries: 1\ndram:\n  channels: 1\n")
	l := bindOn(t, dev, "stride", "", "32", map[string]int64{"N": 32, "S": 32, "O": 0})
	r := run(t, dev, l, sim.Options{})
	if r.L2.MSHRWaits != 31 || r.L2.ReadRequests != 32 || r.L2.ReadMissSectors != 32 {
		t.Errorf("L2: %d accesses waited, %d read requests, %d miss sectors; want 31, 32, 32", r.L2.MSHRWaits, r.L2.ReadRequests, r.L2.ReadMissSectors)
	}
}

// The slices leave untried, at a fill, the waiting accesses that would
// only wait again (slice.blockedFor); retrying every one of them at
// every fill, as the slices did before 2026-11-28, must give the same
// result to the last count. The cases fill the L2's MSHR tables:
// a kepler cut to two slices of four entries (two requests each) and
// 64 KiB, whose L1 does not cache global loads, runs
//   - matvec: every lane a row, y loaded and stored at each step, so
//     lines are written while accesses to them wait;
//   - stride 32: each lane a line of its own;
//   - matmul with J14's uncoalesced mapping: many warps' lanes read the
//     same lines of B, so accesses also wait for a full entry of their line;
//   - transpose: uncoalesced stores among the loads;
//
// and maxwell, as shipped, runs matvec at N=1024.
func TestL2UntriedWaitsChangeNothing(t *testing.T) {
	cut := deviceFrom(t, "kepler-few-entries", "base: kepler\nname: kepler-few-entries\nsms: 2\n"+
		"l2:\n  size: 64KiB\n  slices: 2\n  mshr_entries: 4\n  mshr_merges: 2\ndram:\n  channels: 2\n")
	maxwell, err := configs.Load("maxwell")
	if err != nil {
		t.Fatal(err)
	}
	var untried int64
	for _, c := range []struct {
		dev             *arch.Device
		kernel, mapping string
		params          map[string]int64
	}{
		{cut, "shift", "", nil},
		{cut, "matvec", "", map[string]int64{"N": 256}},
		{cut, "stride", "", map[string]int64{"N": 4096, "S": 32, "O": 0}},
		{cut, "matmul", "i1=tx,i2=ty", map[string]int64{"M": 64, "N": 64, "P": 64}},
		{cut, "transpose", "", map[string]int64{"N": 128}},
		{maxwell, "matvec", "", map[string]int64{"N": 1024}},
	} {
		name := c.dev.Name + "/" + c.kernel
		var l *traces.Launch
		if c.kernel == "shift" {
			l = bindSource(t, c.dev, shiftKernel)
		} else {
			l = bindOn(t, c.dev, c.kernel, c.mapping, "", c.params)
		}
		all, none, err := sim.RunRetrying(c.dev, l, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		some, n, err := sim.RunRetrying(c.dev, l, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d accesses waited, %d retries left out", name, all.L2.MSHRWaits, n)
		if all.L2.MSHRWaits == 0 || none != 0 {
			t.Errorf("%s: %d accesses waited, %d retries left out retrying all; want some, none", name, all.L2.MSHRWaits, none)
		}
		if !reflect.DeepEqual(all, some) {
			t.Errorf("%s: the result differs when the hopeless retries are left out: %d and %d cycles, L2 %+v and %+v",
				name, all.Cycles, some.Cycles, all.L2, some.L2)
		}
		untried += n
	}
	if untried == 0 {
		t.Error("no retry was left out: the test no longer covers slice.blockedFor")
	}
}

// shiftKernel stores each lane's value to the line 32 lines on: lane i
// reads line i and writes line i+32, the line the same lane of the next
// warp reads, so stores make lines valid while loads to them wait.
const shiftKernel = `name: shift
params: {N: 4096}
arrays:
  a: {type: f32, dims: [32*N + 1024]}
source: |
  for (i = 0; i < N; i++) {
    float v = a[32*i];
    a[32*i + 1024] = v;
  }
mapping: {i: tx}
block: [128]
`
