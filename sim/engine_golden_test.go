package sim_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/internal/golden"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// goldenCase is one small launch whose complete Result is pinned in
// testdata/golden/DEVICE/NAME.json.
type goldenCase struct {
	kernel, mapping, block string
	params                 map[string]int64
	// devices restricts the case to these devices; nil means all.
	devices []string
}

// runsOn says whether c is for device dev.
func (c goldenCase) runsOn(dev string) bool {
	return c.devices == nil || slices.Contains(c.devices, dev)
}

// goldenKernels cover both matmul mappings, stores with loads, strided and
// transposed access, dependent loads, streaming with L2 write-backs and
// L1 MSHR stalls, at sizes that run in milliseconds.
var goldenKernels = []goldenCase{
	{"matmul", "i1=ty,i2=tx", "16x16", map[string]int64{"M": 64, "N": 64, "P": 48}, nil},
	{"matmul", "i1=tx,i2=ty", "16x8", map[string]int64{"M": 48, "N": 64, "P": 40}, nil},
	{"matmul-naive", "", "", map[string]int64{"M": 32, "N": 32, "P": 16}, nil},
	{"transpose", "", "", map[string]int64{"N": 160}, nil},
	{"vecadd", "", "", map[string]int64{"N": 40000}, nil},
	{"stride", "", "", map[string]int64{"N": 20000, "S": 3, "O": 1}, nil},
	{"latency-probe", "", "", map[string]int64{"F": 65536, "S": 128, "R": 2}, nil},
	{"copy", "", "", map[string]int64{"N": 50000}, nil},
	{"copy-rowmajor", "", "", map[string]int64{"rows": 2048, "cols": 8}, nil},
	{"copy", "", "", map[string]int64{"N": 400000}, nil},
	{"stride", "", "", map[string]int64{"N": 8192, "S": 32, "O": 0}, nil},
	{"matmul", "i1=tx,i2=ty", "16x16", map[string]int64{"M": 128, "N": 128, "P": 64}, []string{"fermi", "fermi-l1-48k", "kepler", "maxwell"}},
}

var goldenDevices = []string{"g80", "gt200", "fermi", "fermi-l1-48k", "kepler", "maxwell"}

// goldenFile names a case's file: kernel, mapping, block and params, each
// part left out when empty, e.g. matmul.i1=ty,i2=tx.16x16.M=64,N=64,P=48.
func goldenFile(device string, c goldenCase) string {
	var params []string
	for k, v := range c.params {
		params = append(params, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(params)
	parts := []string{c.kernel}
	for _, p := range []string{c.mapping, c.block, strings.Join(params, ",")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return filepath.Join("testdata", "golden", device, strings.Join(parts, ".")+".json")
}

// The engine reproduces the recorded Result of every golden case exactly:
// every cycle and counter. A change of behaviour shows as a diff of the
// case's JSON; go test ./sim -run TestEngineGolden -update records the
// new results (a change of results is a decision to state in its commit).
// The files were recorded from the engine as it stood when the scheduler's
// lookahead became the whole interconnect latency and blocks went to SMs
// in the order they finish in time (docs/design.md).
func TestEngineGolden(t *testing.T) {
	goldenRuns(t, func(device string, c goldenCase, dev *arch.Device, l *traces.Launch, r *sim.Result) {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, goldenFile(device, c), append(data, '\n'))
	})
}

// goldenRuns simulates every golden case on every device it is for and
// hands each full run to check.
func goldenRuns(t *testing.T, check func(device string, c goldenCase, dev *arch.Device, l *traces.Launch, r *sim.Result)) {
	t.Helper()
	for _, device := range goldenDevices {
		for _, c := range goldenKernels {
			if !c.runsOn(device) {
				continue
			}
			dev, l := bind(t, device, c.kernel, c.mapping, c.block, c.params)
			check(device, c, dev, l, run(t, dev, l, sim.Options{}))
		}
	}
}
