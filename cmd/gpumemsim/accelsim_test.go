package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestGoldenTrace(t *testing.T) {
	const vadd = "testdata/accelsim/kernelslist.g"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run-trace-vectoradd-a100", []string{"run", "-device", "a100", "-trace", vadd}},
		{"run-trace-vectoradd-a100-json", []string{"run", "-device", "a100", "-trace", vadd, "-format", "json"}},
		{"run-trace-vectoradd-a100-csv", []string{"run", "-device", "a100", "-trace", vadd, "-format", "csv", "-metrics", "ncu"}},
		{"run-trace-vectoradd-maxwell-traceg", []string{"run", "-device", "maxwell", "-trace", "testdata/accelsim/kernel-1.traceg"}},
		{"run-trace-seq-a100", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-seq/kernelslist.g"}},
		{"run-trace-seq-a100-csv", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-seq/kernelslist.g", "-format", "csv"}},
		{"run-trace-err-with-kernel", []string{"run", "-trace", vadd, "-kernel", "vecadd"}},
		{"run-trace-err-with-set", []string{"run", "-trace", vadd, "-set", "N=4", "-block", "128"}},
		{"run-trace-err-bad-mask", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-bad/bad-mask.traceg"}},
		{"run-trace-err-truncated", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-bad/truncated.traceg"}},
		{"run-trace-err-count", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-bad/count.traceg"}},
		{"run-trace-err-mode", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-bad/mode.traceg"}},
		{"run-trace-err-missing-kernel", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-bad/kernelslist.g"}},
		{"run-trace-err-sample-seq", []string{"run", "-device", "a100", "-trace", "testdata/accelsim-seq/kernelslist.g", "-sample"}},
		{"run-trace-err-regs", []string{"run", "-device", "a100", "-trace", vadd, "-regs", "300"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// countTrace counts a .traceg's global loads and stores independently of
// package accelsim: LDG and STG lines, their active lanes from the mask,
// the lanes' addresses expanded from the three address modes, and the
// distinct 32-byte sectors each instruction touches.
func countTrace(t *testing.T, path string) (loads, loadSectors, stores, storeSectors int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		// PC mask dest_num [R] opcode src_num [R...] mem_width mode ...
		if len(fs) < 5 || strings.HasPrefix(fs[0], "-") || strings.HasPrefix(fs[0], "#") {
			continue
		}
		i := 3
		if fs[2] == "1" {
			i = 4
		}
		op := strings.SplitN(fs[i], ".", 2)[0]
		if op != "LDG" && op != "STG" {
			continue
		}
		nsrc, _ := strconv.Atoi(fs[i+1])
		rest := fs[i+2+nsrc:]
		width, _ := strconv.ParseUint(rest[0], 10, 64)
		mask, _ := strconv.ParseUint(fs[1], 16, 32)
		lanes := bits.OnesCount64(mask)
		hex := func(s string) uint64 { v, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64); return v }
		var addrs []uint64
		switch rest[1] {
		case "0":
			for _, a := range rest[2 : 2+lanes] {
				addrs = append(addrs, hex(a))
			}
		case "1":
			stride, _ := strconv.ParseInt(rest[3], 10, 64)
			for k := range lanes {
				addrs = append(addrs, hex(rest[2])+uint64(int64(k)*stride))
			}
		case "2":
			a := hex(rest[2])
			addrs = append(addrs, a)
			for _, d := range rest[3 : 3+lanes-1] {
				v, _ := strconv.ParseInt(d, 10, 64)
				a += uint64(v)
				addrs = append(addrs, a)
			}
		}
		sectors := map[uint64]bool{}
		for _, a := range addrs {
			sectors[a/32], sectors[(a+width-1)/32] = true, true
		}
		if op == "LDG" {
			loads, loadSectors = loads+1, loadSectors+len(sectors)
		} else {
			stores, storeSectors = stores+1, storeSectors+len(sectors)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return
}

// The vectorAdd trace's global requests and sectors, simulated on every
// device with 32-byte sectors (and as the trace's own counts), equal an
// independent count of the file.
func TestTraceCountsIndependent(t *testing.T) {
	for _, tc := range []struct{ dir, device string }{
		{"testdata/accelsim", "a100"},
		{"testdata/accelsim", "maxwell"},
		{"testdata/accelsim-seq", "a100"},
	} {
		var wantLd, wantLdS, wantSt, wantStS int
		matches, _ := filepath.Glob(filepath.Join(tc.dir, "kernel-*.traceg"))
		for _, m := range matches {
			a, b, c, d := countTrace(t, m)
			wantLd, wantLdS, wantSt, wantStS = wantLd+a, wantLdS+b, wantSt+c, wantStS+d
		}
		var out bytes.Buffer
		args := []string{"run", "-device", tc.device, "-trace", filepath.Join(tc.dir, "kernelslist.g"), "-format", "json"}
		if err := run(context.Background(), args, &out, &out); err != nil {
			t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
		}
		var r struct {
			Metrics map[string]float64
			Kernels []struct {
				Counts map[string]int `json:"trace_counts"`
			}
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var traced [4]int
		for _, k := range r.Kernels {
			for i, key := range []string{"global_load_requests", "global_load_sectors", "global_store_requests", "global_store_sectors"} {
				traced[i] += k.Counts[key]
			}
		}
		m := r.Metrics
		sim := [4]int{int(m["inst_executed_global_loads"]), int(m["sim_gld_sectors"]), int(m["inst_executed_global_stores"]), int(m["sim_gst_sectors"])}
		txn := [2]int{int(m["gld_transactions"]), int(m["gst_transactions"])}
		want := [4]int{wantLd, wantLdS, wantSt, wantStS}
		// RED, an atomic, replays as a store: the independent count sees
		// STG only.
		if tc.dir == "testdata/accelsim-seq" {
			want[2], want[3] = want[2]+4, want[3]+4
		}
		t.Logf("%s on %s: counted (requests, sectors) loads %d, %d; stores %d, %d. Trace reader %v, simulated %v, transactions %v",
			tc.dir, tc.device, want[0], want[1], want[2], want[3], traced, sim, txn)
		if sim != want || traced != want || txn != [2]int{want[1], want[3]} {
			t.Errorf("%s on %s: simulated requests and sectors %v (transactions %v), trace reader %v; independent count %v", tc.dir, tc.device, sim, txn, traced, want)
		}
	}
}
