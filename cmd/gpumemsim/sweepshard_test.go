package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shard comes from -shard, else Slurm's array variables, else
// Kubernetes' completion index with -shards; a flag wins over the
// environment. Each case's shard is worked out by hand from the
// variables' meaning: a Slurm task's shard is (ID - MIN) / STEP.
func TestResolveShard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flag   string
		shards int
		env    map[string]string
		want   shard
		err    string
	}{
		{name: "none", want: shard{0, 1}},
		{name: "flag", flag: "2/5", want: shard{2, 5}},
		{name: "flag wins over Slurm", flag: "1/2", env: map[string]string{envSlurmID: "0", envSlurmCount: "4"}, want: shard{1, 2}},
		{name: "Slurm from 0", env: map[string]string{envSlurmID: "2", envSlurmCount: "3"}, want: shard{2, 3}},
		{name: "Slurm from 1", env: map[string]string{envSlurmID: "3", envSlurmMin: "1", envSlurmCount: "3"}, want: shard{2, 3}},
		{name: "Slurm stepped", env: map[string]string{envSlurmID: "14", envSlurmMin: "10", envSlurmStep: "2", envSlurmCount: "4"}, want: shard{2, 4}},
		{name: "-shards wins over Slurm's count", shards: 8, env: map[string]string{envSlurmID: "5", envSlurmCount: "6"}, want: shard{5, 8}},
		{name: "Kubernetes", shards: 3, env: map[string]string{envK8sIndex: "2"}, want: shard{2, 3}},
		{name: "Slurm off the step", env: map[string]string{envSlurmID: "3", envSlurmStep: "2", envSlurmCount: "4"}, err: "SLURM_ARRAY_TASK_ID=3 is not SLURM_ARRAY_TASK_MIN=0 plus a multiple of SLURM_ARRAY_TASK_STEP=2"},
		{name: "Slurm without count", env: map[string]string{envSlurmID: "1"}, err: "SLURM_ARRAY_TASK_COUNT"},
		{name: "Slurm bad count", env: map[string]string{envSlurmID: "1", envSlurmCount: "three"}, err: `SLURM_ARRAY_TASK_COUNT="three"`},
		{name: "Slurm past count", env: map[string]string{envSlurmID: "3", envSlurmCount: "3"}, err: "shard 3 of 3"},
		{name: "Kubernetes past count", shards: 2, env: map[string]string{envK8sIndex: "2"}, err: "JOB_COMPLETION_INDEX=2: shard 2 of 2"},
		{name: "negative shards", shards: -1, err: "-shards"},
		{name: "flag 0/0", flag: "0/0", err: "shard 0 of 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveShard(tc.flag, tc.shards, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v; want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("shard %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// An interrupted sweep writes the rows finished (here none: the context
// is cancelled before the first) and says how to go on; -resume then
// simulates them all, and the result is the whole sweep.
func TestSweepInterrupted(t *testing.T) {
	f := filepath.Join(t.TempDir(), "out.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args := append(append([]string{}, sweepArgs...), "-o", f)
	var stdout, stderr strings.Builder
	err := run(ctx, args, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "sweep interrupted") || !strings.Contains(err.Error(), "0 of 9 rows are written") || !strings.Contains(err.Error(), "-resume "+f) {
		t.Fatalf("a cancelled sweep: %v; want it interrupted with 0 of 9 rows written and -resume %s", err, f)
	}
	data, _ := os.ReadFile(f)
	if strings.Count(string(data), "\n") != 1 {
		t.Errorf("the interrupted sweep wrote %q; want the header alone", data)
	}
	mustRun(t, append(args, "-resume", f)...)
	resumed, _ := os.ReadFile(f)
	if whole := mustRun(t, sweepArgs...); string(resumed) != whole {
		t.Errorf("resumed after the interruption, the file is not the whole sweep")
	}
}

// A row whose simulation fails (past the checks before it: here a launch
// bound for Fermi's 1024-thread blocks given to GT200, which runs 512)
// is recorded with its error, and the others, cancelled by RunAll, are
// simulated again: every row ends with metrics or an error, with one
// worker or two.
func TestSweepSimulationFailure(t *testing.T) {
	s := &sweeper{settings: sweepSettings{Style: "nvprof"}, maxWork: 1e9}
	fermi, good, _, err := s.prepare(context.Background(), sweepParams{Device: "fermi", Kernel: "vecadd", Block: "128", Set: "N=4096"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, big, _, err := s.prepare(context.Background(), sweepParams{Device: "fermi", Kernel: "vecadd", Block: "1024", Set: "N=4096"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gt200, _, _, err := s.prepare(context.Background(), sweepParams{Device: "gt200", Kernel: "vecadd", Set: "N=4096"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		s.workers = workers
		todo := []*pending{
			{rec: sweepRecord{Index: 0}, dev: fermi, launch: good},
			{rec: sweepRecord{Index: 1}, dev: gt200, launch: big},
			{rec: sweepRecord{Index: 2}, dev: fermi, launch: good},
			{rec: sweepRecord{Index: 3}, dev: fermi, launch: good},
		}
		out, err := s.simulate(context.Background(), todo, &progress{})
		if err != nil {
			t.Fatal(err)
		}
		out = sortedByIndex(out)
		if len(out) != 4 {
			t.Fatalf("-j %d: %d rows back; want 4", workers, len(out))
		}
		for i, r := range out {
			if bad := i == 1; bad != (r.Err != "") || bad == (r.Values != nil) {
				t.Errorf("-j %d: row %d: error %q, %d metrics; want an error for row 1 only and metrics for the others", workers, i, r.Err, len(r.Values))
			}
		}
		if !strings.Contains(out[1].Err, "512") {
			t.Errorf("-j %d: row 1's error %q does not name GT200's 512 threads", workers, out[1].Err)
		}
	}
}
