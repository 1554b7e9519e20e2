package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// -cache-config on each command that takes a device: the goldens show
// where the output names the split, and the errors name the flag.
func TestCacheConfigGolden(t *testing.T) {
	small := "M=64,N=64,P=64"
	for _, tc := range []struct {
		name string
		args []string
	}{
		// 256 threads with 12 KiB: 48/12 = 4 blocks by default, 16/12 = 1
		// with prefer-l1 (arch and configs tests derive the numbers).
		{"occupancy-fermi-prefer-l1", []string{"occupancy", "-device", "fermi", "-block", "256", "-smem", "12KiB", "-cache-config", "prefer-l1"}},
		// Kepler's 32/32 split: 5000 B → 5120 B; 32768 / 5120 = 6 blocks.
		{"occupancy-kepler-prefer-equal-json", []string{"occupancy", "-device", "kepler", "-block", "256", "-smem", "5000", "-cache-config", "prefer-equal", "-format", "json"}},
		{"run-matmul-fermi-prefer-l1", []string{"run", "-device", "fermi", "-kernel", "matmul", "-set", small, "-cache-config", "prefer-l1"}},
		{"trace-vecadd-kepler-prefer-equal", []string{"trace", "-device", "kepler", "-kernel", "vecadd", "-set", "N=1024", "-warps", "1", "-cache-config", "prefer-equal"}},
		{"estimate-matvec-fermi-prefer-l1", []string{"estimate", "-device", "fermi", "-kernel", "matvec", "-set", "N=256", "-cache-config", "prefer-l1"}},
		{"cache-config-err-unknown", []string{"run", "-cache-config", "prefer-none"}},
		{"cache-config-err-no-split", []string{"occupancy", "-device", "gt200", "-cache-config", "prefer-l1"}},
		{"cache-config-err-no-equal", []string{"validate", "-device", "fermi", "-kernel", "vecadd", "-cache-config", "prefer-equal"}},
		// 24 KiB per block fits fermi's default 48 KiB but not prefer-l1's
		// 16 KiB: the kernel file's line is named, and so is the flag.
		{"cache-config-err-smem-file", []string{"run", "-device", "fermi", "-kernel", "testdata/kernels/smem-24k.yaml", "-cache-config", "prefer-l1"}},
		{"cache-config-err-smem-flag", []string{"occupancy", "-device", "fermi", "-smem", "20KiB", "-cache-config", "prefer-l1"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// runJSONOf runs the command and decodes its JSON output.
func runJSONOf(t *testing.T, v any, args ...string) {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, &out, &out); err != nil {
		t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("gpumemsim %s: %v", strings.Join(args, " "), err)
	}
}

// fermi-l1-48k.yaml was written apart from fermi's l1_shared section, so
// it is an independent oracle: a run of fermi with -cache-config
// prefer-l1 must count what a run of fermi-l1-48k counts, metric by
// metric and reference by reference, and differ from fermi's default
// split where the larger L1 helps.
func TestPreferL1RunsAsFermiL1_48k(t *testing.T) {
	type result struct {
		Device      string             `json:"device"`
		CacheConfig string             `json:"cache_config"`
		Metrics     map[string]float64 `json:"metrics"`
		References  []map[string]any   `json:"references"`
	}
	for _, k := range []struct {
		kernel, set string
		// L1 hits with prefer-l1 and with the default split; -1: not
		// derived by hand.
		hits, dfltHits float64
	}{
		// 16×16 tiles reuse within 16 KiB: as many hits either way.
		{"matmul", "M=64,N=64,P=64", -1, -1},
		// A dependent chase over 32 KiB in 128-B steps, three times: 256
		// lines a pass, 768 loads. 48 KiB holds them (64 sets × 6 ways),
		// so only the first pass misses: 512 hits. 16 KiB holds 128
		// lines (32 sets × 4 ways) and LRU evicts each line before its
		// next use: no hits.
		{"latency-probe", "F=32768,R=3", 512, 0},
	} {
		var split, oracle, dflt result
		args := []string{"run", "-kernel", k.kernel, "-set", k.set, "-metrics", "gpgpusim", "-format", "json"}
		runJSONOf(t, &split, append(args, "-device", "fermi", "-cache-config", "prefer-l1")...)
		runJSONOf(t, &oracle, append(args, "-device", "fermi-l1-48k")...)
		runJSONOf(t, &dflt, append(args, "-device", "fermi")...)
		if split.Device != "fermi" || split.CacheConfig != "prefer-l1" || oracle.CacheConfig != "" || dflt.CacheConfig != "" {
			t.Errorf("%s: devices %q (%q), %q (%q), %q (%q); want fermi with prefer-l1, and no cache_config without the flag",
				k.kernel, split.Device, split.CacheConfig, oracle.Device, oracle.CacheConfig, dflt.Device, dflt.CacheConfig)
		}
		if !reflect.DeepEqual(split.Metrics, oracle.Metrics) {
			t.Errorf("%s: fermi prefer-l1 metrics %v; fermi-l1-48k %v", k.kernel, split.Metrics, oracle.Metrics)
		}
		if !reflect.DeepEqual(split.References, oracle.References) {
			t.Errorf("%s: fermi prefer-l1 references %v; fermi-l1-48k %v", k.kernel, split.References, oracle.References)
		}
		hits := "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"
		if _, ok := split.Metrics[hits]; !ok {
			t.Fatalf("%s: no %s metric", k.kernel, hits)
		}
		if k.hits >= 0 && (split.Metrics[hits] != k.hits || dflt.Metrics[hits] != k.dfltHits) {
			t.Errorf("%s: %v L1 hits with prefer-l1, %v with fermi's default 16 KiB L1; want %v and %v", k.kernel, split.Metrics[hits], dflt.Metrics[hits], k.hits, k.dfltHits)
		}
	}
}

// Every command's JSON names the split where it names the device, and
// only when -cache-config is given.
func TestCacheConfigJSON(t *testing.T) {
	for _, args := range [][]string{
		{"occupancy", "-device", "kepler"},
		{"trace", "-device", "kepler", "-kernel", "vecadd", "-set", "N=1024", "-warps", "1"},
		{"run", "-device", "kepler", "-kernel", "vecadd", "-set", "N=1024"},
		{"estimate", "-device", "kepler", "-kernel", "vecadd", "-set", "N=1024"},
		{"validate", "-device", "kepler", "-kernel", "vecadd", "-set", "N=1024"},
	} {
		var with, without map[string]any
		runJSONOf(t, &with, append(args, "-format", "json", "-cache-config", "prefer-equal")...)
		runJSONOf(t, &without, append(args, "-format", "json")...)
		if with["cache_config"] != "prefer-equal" || with["device"] != "kepler" {
			t.Errorf("%s -cache-config prefer-equal: device %v, cache_config %v; want kepler, prefer-equal", args[0], with["device"], with["cache_config"])
		}
		if _, ok := without["cache_config"]; ok {
			t.Errorf("%s without -cache-config: cache_config %v; want none", args[0], without["cache_config"])
		}
	}
}
