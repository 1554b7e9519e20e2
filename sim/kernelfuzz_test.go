package sim_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// Bounds on the work of one FuzzKernelRun input: the launches together
// may issue at most fuzzRunWork warp instructions by their estimate (a
// per-thread warp past it ends its stream with an error), over at most
// fuzzRunWarps warps, so that a kernel whose sample blocks understate
// the rest costs at most their product.
const (
	fuzzRunWork     = 20000
	fuzzRunWarps    = 64
	fuzzRunLaunches = 4
)

// FuzzKernelRun simulates fuzzed kernel files, where FuzzKernel in
// package kernel only streams them: what parses and binds, with the
// file's mapping, block and params, on one of the shipped devices, and
// is small enough, must run through the whole hierarchy (odd shapes,
// shared memory and barriers, constant and texture references, index
// data, sequences) with the simulator's self-check passed, exact or
// sampled, and a second run of the same launches must give the same
// result. It may be refused, as a user's run is (a device without the
// cache a space needs, a block the occupancy calculator refuses, an index
// outside its array), but never panic, stall or fail the self-check. The
// seeds are the shipped examples with their params made small, and the
// kernel files of kernel/testdata/fuzz.
func FuzzKernelRun(f *testing.F) {
	devs := shippedDevices(f)
	for i, name := range kernel.Examples() {
		k, err := kernel.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(smallKernel(k, devs[0]), uint8(i), i%3 == 0)
	}
	for i, data := range kernelSeedFiles(f, "../kernel/testdata/fuzz/*.yaml") {
		f.Add(data, uint8(i), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, dev uint8, sample bool) {
		k, err := kernel.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		d := devs[int(dev)%len(devs)]
		srcs, ok := smallLaunches(k, d)
		if !ok {
			return
		}
		opts := sim.Options{Sample: sim.SampleOptions{On: sample}}
		first, err := sim.RunSequence(context.Background(), d, srcs, opts)
		if err != nil {
			if isBug(err) {
				t.Fatalf("%s on %s (sampled: %v): %v\n%s", k.Name, d.Name, sample, err, data)
			}
			return
		}
		again, err := sim.RunSequence(context.Background(), d, srcs, opts)
		if err != nil || !reflect.DeepEqual(first, again) {
			t.Fatalf("%s on %s (sampled: %v): a second run differs (%v)\n%s", k.Name, d.Name, sample, err, data)
		}
	})
}

// shippedDevices loads every shipped device config, in configs.Names'
// order.
func shippedDevices(tb testing.TB) []*arch.Device {
	names := configs.Names()
	devs := make([]*arch.Device, len(names))
	for i, name := range names {
		d, err := configs.Load(name)
		if err != nil {
			tb.Fatal(err)
		}
		devs[i] = d
	}
	return devs
}

// isBug is whether a run's error is the simulator's own: its self-check
// or a stall, which it asks the user to report.
func isBug(err error) bool { return strings.Contains(err.Error(), "a bug") }

// smallLaunches binds k on dev and returns its first launches when they
// are within the fuzz bounds.
func smallLaunches(k *kernel.Kernel, dev *arch.Device) ([]traces.Source, bool) {
	ls, err := traces.BindSequence(k, nil, arch.Dim3{}, nil, dev)
	if err != nil {
		return nil, false
	}
	var srcs []traces.Source
	work, warps := 0.0, int64(0)
	for _, l := range ls[:min(len(ls), fuzzRunLaunches)] {
		l.LimitWork(fuzzRunWork)
		work += l.WarpInstructions()
		warps += l.ActiveWarps()
		srcs = append(srcs, l)
	}
	if math.IsNaN(work) || work > fuzzRunWork || warps > fuzzRunWarps {
		return nil, false
	}
	return srcs, true
}

// smallKernel is k's file with its params divided by the first power of
// two that brings its launches within the fuzz bounds on dev (none below
// 1, and those under 16 kept), or as it is when none does.
func smallKernel(k *kernel.Kernel, dev *arch.Device) []byte {
	orig := append([]kernel.Param(nil), k.Params...)
	for shift := range 24 {
		for i, p := range orig {
			k.Params[i].Value = p.Value
			if p.Value >= 16 {
				k.Params[i].Value = max(1, p.Value>>shift)
			}
		}
		data := kernel.Format(k)
		small, err := kernel.Parse("fuzz.yaml", data)
		if err != nil {
			break
		}
		if _, ok := smallLaunches(small, dev); ok {
			return data
		}
	}
	copy(k.Params, orig)
	return kernel.Format(k)
}

// kernelSeedFiles reads the files pattern matches, in order.
func kernelSeedFiles(f *testing.F, pattern string) [][]byte {
	names, err := filepath.Glob(pattern)
	if err != nil || len(names) == 0 {
		f.Fatalf("no seed files %s: %v", pattern, err)
	}
	var out [][]byte
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}
