package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// Job is one simulation of RunAll.
type Job struct {
	Device  *arch.Device
	Source  traces.Source
	Options Options
}

// JobError is the failure of one job of RunAll.
type JobError struct {
	Index int // into the jobs
	Err   error
}

func (e *JobError) Error() string { return fmt.Sprintf("job %d: %v", e.Index, e.Err) }
func (e *JobError) Unwrap() error { return e.Err }

// RunAll runs the jobs on up to workers goroutines (0 or less: one per
// CPU) and returns their results in the order of jobs. Each job is
// simulated as Run would, so the results do not depend on workers or on
// the order in which jobs finish. The first failure cancels the jobs not
// yet finished; RunAll then returns a *JobError, that of the job with the
// lowest index among those that failed other than by the cancellation, or
// the context's error when it was cancelled from outside. With either
// error it returns the results of the jobs that finished too, nil for the
// others, so that a caller can keep them (gpumemsim sweep records a failed
// row and simulates the rest again). The jobs' Progress callbacks may be
// called from several goroutines at once.
func RunAll(ctx context.Context, jobs []Job, workers int) ([]*Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*Result, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = ctx.Err(); errs[i] != nil {
					continue // a job failed while i waited to be handed over
				}
				results[i], errs[i] = Run(ctx, jobs[i].Device, jobs[i].Source, jobs[i].Options)
				if errs[i] != nil {
					results[i] = nil
					cancel()
				}
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return results, &JobError{Index: i, Err: err}
		}
	}
	if err := parent.Err(); err != nil {
		return results, err
	}
	return results, nil
}
