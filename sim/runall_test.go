package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/sim"
)

// RunAll returns what Run returns for each job, in the jobs' order, with
// one worker or many.
func TestRunAllMatchesRun(t *testing.T) {
	var jobs []sim.Job
	var want []string
	for _, c := range []struct{ device, kernel, mapping, block string }{
		{"fermi", "matmul", "i1=ty,i2=tx", "16x16"},
		{"gt200", "matmul", "i1=tx,i2=ty", "16x8"},
		{"kepler", "vecadd", "", ""},
		{"maxwell", "transpose", "", ""},
		{"g80", "copy", "", ""},
	} {
		params := map[string]int64{"M": 32, "N": 64, "P": 16}
		if c.kernel != "matmul" {
			params = map[string]int64{"N": 96}
		}
		dev, l := bind(t, c.device, c.kernel, c.mapping, c.block, params)
		jobs = append(jobs, sim.Job{Device: dev, Source: l})
		want = append(want, resultJSON(t, run(t, dev, l, sim.Options{})))
	}
	for _, workers := range []int{1, 3, 0} {
		got, err := sim.RunAll(context.Background(), jobs, workers)
		if err != nil {
			t.Fatalf("RunAll with %d workers: %v", workers, err)
		}
		for i := range jobs {
			if g := resultJSON(t, got[i]); g != want[i] {
				t.Errorf("RunAll with %d workers: job %d (%s on %s) differs from Run", workers, i, got[i].Kernel, got[i].Device)
			}
		}
	}
}

func resultJSON(t *testing.T, r *sim.Result) string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A failing job stops the run and is named by its index, whichever
// finished first; a cancelled context stops it with the context's error.
func TestRunAllErrors(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 16})
	bad := sim.Job{Device: dev, Source: l, Options: sim.Options{Smem: 64 * arch.KiB}} // more than an SM has
	jobs := []sim.Job{{Device: dev, Source: l}, {Device: dev, Source: l}, bad, {Device: dev, Source: l}}
	_, err := sim.RunAll(context.Background(), jobs, 2)
	var je *sim.JobError
	if !errors.As(err, &je) || je.Index != 2 || !strings.Contains(err.Error(), "shared memory") {
		t.Errorf("RunAll with job 2 failing: %v; want a *JobError for job 2 naming shared memory", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.RunAll(ctx, jobs[:2], 2); !errors.Is(err, context.Canceled) {
		t.Errorf("RunAll with a cancelled context: %v; want context.Canceled", err)
	}
	if rs, err := sim.RunAll(context.Background(), nil, 4); err != nil || len(rs) != 0 {
		t.Errorf("RunAll of no jobs = %v, %v; want no results and no error", rs, err)
	}
}

// With a failing job, RunAll returns the results of the jobs that
// finished too: with one worker the jobs run in order, so those before
// the failure finished and equal Run's, and the failed one and those
// after it have none.
func TestRunAllKeepsFinished(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 4096})
	bad := sim.Job{Device: dev, Source: l, Options: sim.Options{Smem: 64 * arch.KiB}}
	good := sim.Job{Device: dev, Source: l}
	rs, err := sim.RunAll(context.Background(), []sim.Job{good, good, bad, good}, 1)
	var je *sim.JobError
	if !errors.As(err, &je) || je.Index != 2 {
		t.Fatalf("RunAll: %v; want a *JobError for job 2", err)
	}
	want := resultJSON(t, run(t, dev, l, sim.Options{}))
	for i, r := range rs {
		switch {
		case i < 2 && (r == nil || resultJSON(t, r) != want):
			t.Errorf("job %d finished before the failure: result %v, want Run's", i, r)
		case i >= 2 && r != nil:
			t.Errorf("job %d: a result after the failure with one worker", i)
		}
	}
}
