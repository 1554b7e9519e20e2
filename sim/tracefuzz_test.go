package sim_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"gpumemsim/sim"
	"gpumemsim/traces"
	"gpumemsim/traces/accelsim"
)

// fuzzTraceWarps bounds the warps of a fuzzed trace's grid, traced or
// not (the simulator launches every warp of the grid).
const fuzzTraceWarps = 256

// traceFixture is the real sm_80 vectorAdd trace the command's tests
// replay.
const traceFixture = "../cmd/gpumemsim/testdata/accelsim/kernel-1.traceg"

// FuzzTraceRun replays fuzzed Accel-Sim kernel traces through the whole
// hierarchy, where FuzzKernel in package accelsim only reads them: what
// reads, within the fuzz bounds, on one of the shipped devices, must run
// with the self-check passed, exact or sampled, and run again to the same
// result; it may be refused as a user's replay is (a block the device
// cannot hold), but never panic, stall or fail the self-check. The seeds
// are the fixture's header with its first block and with its last, and a
// small trace of loads, local and shared accesses and a barrier.
func FuzzTraceRun(f *testing.F) {
	devs := shippedDevices(f)
	data, err := os.ReadFile(traceFixture)
	if err != nil {
		f.Fatal(err)
	}
	first := bytes.Index(data, []byte("#BEGIN_TB"))
	second := first + 1 + bytes.Index(data[first+1:], []byte("#BEGIN_TB"))
	last := bytes.LastIndex(data, []byte("#BEGIN_TB"))
	f.Add(data[:second], uint8(0), false)
	f.Add(append(data[:first:first], data[last:]...), uint8(3), true)
	f.Add([]byte(smallTrace), uint8(4), false)
	f.Add([]byte(smallTrace), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, dev uint8, sample bool) {
		k, err := accelsim.ReadKernel("fuzz.traceg", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		info := k.Info()
		c := k.Counts()
		if c.Insts > fuzzRunWork || int64(info.Blocks())*int64(info.WarpsPerBlock()) > fuzzTraceWarps {
			return
		}
		d := devs[int(dev)%len(devs)]
		opts := sim.Options{Sample: sim.SampleOptions{On: sample}}
		srcs := []traces.Source{k}
		first, err := sim.RunSequence(context.Background(), d, srcs, opts)
		if err != nil {
			if isBug(err) {
				t.Fatalf("on %s (sampled: %v): %v\n%s", d.Name, sample, err, data)
			}
			return
		}
		again, err := sim.RunSequence(context.Background(), d, srcs, opts)
		if err != nil || !reflect.DeepEqual(first, again) {
			t.Fatalf("on %s (sampled: %v): a second run differs (%v)\n%s", d.Name, sample, err, data)
		}
	})
}

// smallTrace is two blocks of two warps: global loads and a store, a
// local load, a shared store and load around a barrier.
const smallTrace = `-kernel name = k
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 1024
-nregs = 16
-binary version = 80
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007e0000000000
-nvbit version = 1.7
-accelsim tracer version = 5
-enable lineinfo = 0

#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 5
0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f1000000000 4 0
0020 0000ffff 1 R2 LDL 1 R4 4 1 0x7e0000000008 4 0
0030 ffffffff 0 STS 2 R4 R2 4 1 0x7f0000000000 4 0
0040 ffffffff 0 BAR.SYNC 0 0 0
0050 ffffffff 1 R3 LDS 1 R4 4 1 0x7f0000000080 -4 0
warp = 1
insts = 3
0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f1000000080 4 0
0040 ffffffff 0 BAR.SYNC 0 0 0
0060 ffffffff 0 STG.E 2 R4 R2 4 1 0x7f1000010080 4 0
#END_TB
#BEGIN_TB
thread block = 1,0,0
warp = 0
insts = 2
0010 00000007 1 R2 LDG.E 1 R4 4 0 0x7f1000000100 0x7f1000000300 0x7f1000000200 0
0040 ffffffff 0 BAR.SYNC 0 0 0
warp = 1
insts = 1
0040 ffffffff 0 BAR.SYNC 0 0 0
#END_TB
`
