package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gpumemsim/arch"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// sweeper runs a sweep's rows.
type sweeper struct {
	settings sweepSettings
	maxWork  float64
	workers  int
	id       string // the sweep's (sweepID)
	total    int    // rows in the whole sweep
}

// resumed reads -resume's file: the rows of this sweep that ran, by
// their parameters. Rows recorded with an error are run again.
func (s *sweeper) resumed(path string) (map[sweepParams]sweepRecord, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-resume: %v", err)
	}
	t, err := readSweepTable(path, data)
	if err != nil {
		return nil, fmt.Errorf("-resume: %w", err)
	}
	done := map[sweepParams]sweepRecord{}
	for _, r := range t.Records {
		if r.ID != s.id || r.Total != s.total {
			return nil, fmt.Errorf("-resume %s: its rows are of sweep %s (%d rows), this is sweep %s (%d rows): other axes or other -cache-config, -remap, -data, -matrix or -metrics; hint: resume with the flags that wrote it", path, r.ID, r.Total, s.id, s.total)
		}
		if r.Err == "" {
			done[r.Params] = r
		}
	}
	return done, nil
}

// pending is a row to simulate: its record, its place among the rows
// to simulate (its progress counter), and its device and launch while its
// batch is bound.
type pending struct {
	rec    sweepRecord
	slot   int
	dev    *arch.Device
	launch *traces.Launch
	// count is the row's per-thread work as prepare counted it, given to
	// the launch bound again to simulate it.
	count traces.WorkCount
}

// batchPerWorker is how many rows per worker are bound at once: a bound
// launch holds its index data and matrix, so a sweep of many rows binds
// them a batch at a time, not all together.
const batchPerWorker = 8

// run simulates the rows of shard sh that done lacks and returns the
// shard's table, done's rows and the new in the order of the sweep. When
// interrupted it returns the rows finished and an error saying so.
func (s *sweeper) run(ctx context.Context, rows []sweepParams, sh shard, done map[sweepParams]sweepRecord, stderr io.Writer) (*sweepTable, error) {
	t := &sweepTable{}
	var todo []*pending
	var work workEstimate
	kept, timed := 0, shown(stderr)
	for i, p := range rows {
		if !sh.has(i) {
			continue
		}
		if r, ok := done[p]; ok && r.Index == i {
			t.Records = append(t.Records, r)
			kept++
			continue
		}
		rec := sweepRecord{ID: s.id, Index: i, Total: s.total, Params: p}
		// Prepared now to refuse it now and estimate its work, which a
		// signal may interrupt.
		dev, l, insts, err := s.prepare(ctx, p, stderr)
		if err != nil && ctx.Err() != nil {
			return t, &interrupted{err: ctx.Err(), written: len(t.Records), rows: shardRows(rows, sh)}
		}
		if err != nil {
			rec.Err = err.Error()
			t.Records = append(t.Records, rec)
			continue
		}
		work = work.add(estimateOf(dev, l, insts, timed))
		todo = append(todo, &pending{rec: rec, slot: len(todo), count: l.WorkCount()})
	}
	if done != nil {
		fmt.Fprintf(stderr, "sweep: -resume: %d of %d rows kept, %d to simulate\n", kept, len(t.Records)+len(todo), len(todo))
	}
	bar := newProgress(stderr, "sweeping", work, s.workers)
	finished, err := s.simulateBatches(ctx, todo, bar)
	bar.finish()
	t.Records = mergeByIndex(t.Records, finished)
	if err != nil {
		return t, &interrupted{err: err, written: len(t.Records), rows: len(t.Records) + len(todo) - len(finished)}
	}
	return t, nil
}

// shardRows is how many of rows shard sh holds.
func shardRows(rows []sweepParams, sh shard) int {
	n := 0
	for i := range rows {
		if sh.has(i) {
			n++
		}
	}
	return n
}

// prepare binds row p (bind), counts its warp instructions (workOf,
// shown on stderr) and refuses it past -max-work.
func (s *sweeper) prepare(ctx context.Context, p sweepParams, stderr io.Writer) (*arch.Device, *traces.Launch, float64, error) {
	dev, l, err := s.bind(p)
	if err != nil {
		return nil, nil, 0, err
	}
	work, err := workOf(ctx, l, s.maxWork, stderr)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := checkWork(ctx, l.Kernel.Name+" with "+l.ParamText(), work, s.maxWork); err != nil {
		return nil, nil, 0, err
	}
	return dev, l, work, nil
}

// bind binds row p as run would bind its flags.
func (s *sweeper) bind(p sweepParams) (*arch.Device, *traces.Launch, error) {
	lf := &launchFlags{cmd: "sweep", device: &p.Device, kernel: &p.Kernel, mapping: &p.Map, block: &p.Block, set: &p.Set,
		cacheConfig: &s.settings.CacheConfig, spaces: &p.Spaces, layout: &p.Layout, remap: &s.settings.Remap,
		data: &dataFlags{data: s.settings.Data, matrix: &s.settings.Matrix}}
	dev, l, err := lf.load()
	if err != nil {
		return nil, nil, err
	}
	if _, err := dev.Occupancy(l.Block, l.Regs, l.Smem); err != nil {
		return nil, nil, err
	}
	return dev, l, nil
}

// rebind binds prepared row p again to simulate it, with the work
// prepare counted and within the same cap.
func (s *sweeper) rebind(p *pending) error {
	dev, l, err := s.bind(p.rec.Params)
	if err != nil {
		return err
	}
	l.LimitWork(s.maxWork)
	l.SetWorkCount(p.count)
	p.dev, p.launch = dev, l
	return nil
}

// simulateBatches binds the rows a batch at a time, simulates each batch
// and lets its launches go. It returns the rows finished, in index
// order, and the context's error if it was cancelled.
func (s *sweeper) simulateBatches(ctx context.Context, todo []*pending, bar *progress) ([]sweepRecord, error) {
	var out []sweepRecord
	size := batchPerWorker * s.workers
	for start := 0; start < len(todo); start += size {
		batch := todo[start:min(start+size, len(todo))]
		var bound []*pending
		for _, p := range batch {
			if ctx.Err() != nil {
				return sortedByIndex(out), ctx.Err()
			}
			if err := s.rebind(p); err != nil {
				rec := p.rec // bound before; not expected to fail now
				rec.Err = err.Error()
				out = append(out, rec)
				continue
			}
			bound = append(bound, p)
		}
		finished, err := s.simulate(ctx, bound, bar)
		out = append(out, finished...)
		for _, p := range batch {
			p.dev, p.launch = nil, nil
		}
		if err != nil {
			return sortedByIndex(out), err
		}
	}
	return sortedByIndex(out), nil
}

// simulate runs bound rows through sim.RunAll on s.workers goroutines.
// A row whose simulation fails is recorded with its error, and the rows
// not finished then are simulated again. It returns the rows finished
// and the context's error if it was cancelled.
func (s *sweeper) simulate(ctx context.Context, todo []*pending, bar *progress) ([]sweepRecord, error) {
	var out []sweepRecord
	for len(todo) > 0 {
		jobs := make([]sim.Job, len(todo))
		for i, p := range todo {
			jobs[i] = sim.Job{Device: p.dev, Source: p.launch, Options: sim.Options{Progress: bar.job(p.slot), MaxWork: s.maxWork}}
		}
		results, err := sim.RunAll(ctx, jobs, s.workers)
		var je *sim.JobError
		failed := &sim.JobError{Index: -1}
		if errors.As(err, &je) {
			failed = je
		} else if err != nil {
			return s.keep(out, todo, results, failed), err
		}
		out = s.keep(out, todo, results, failed)
		var rest []*pending
		for i, p := range todo {
			if results[i] == nil && i != failed.Index {
				rest = append(rest, p)
			}
		}
		todo = rest
	}
	return out, nil
}

// sortedByIndex sorts rows by their index.
func sortedByIndex(rows []sweepRecord) []sweepRecord {
	slices.SortFunc(rows, func(a, b sweepRecord) int { return a.Index - b.Index })
	return rows
}

// keep appends to out the rows of todo that have a result, with their
// metrics, and the failed one (Index -1: none) with its error.
func (s *sweeper) keep(out []sweepRecord, todo []*pending, results []*sim.Result, failed *sim.JobError) []sweepRecord {
	for i, p := range todo {
		rec := p.rec
		switch {
		case i == failed.Index:
			rec.Err = overWork("", failed.Err, false).Error()
		case results[i] == nil:
			continue
		default:
			ms, err := sim.Metrics(p.dev, results[i], s.settings.Style)
			if err != nil {
				rec.Err = err.Error()
			} else {
				rec.Values = sim.MetricValues(ms)
			}
		}
		out = append(out, rec)
	}
	return out
}

// mergeByIndex joins two lists of rows, each in index order, into one.
func mergeByIndex(a, b []sweepRecord) []sweepRecord {
	out := make([]sweepRecord, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Index < b[0].Index {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// interrupted is the error of a sweep stopped before its rows finished.
type interrupted struct {
	err           error
	written, rows int
	out           string // -o, "" for stdout
}

func (e *interrupted) Error() string {
	hint := "run the same command with -o FILE -resume FILE to simulate only the rest"
	if e.out != "" {
		hint = "run the same command with -resume " + e.out + " to simulate only the rest"
	}
	return fmt.Sprintf("sweep interrupted (%v); %d of %d rows are written; hint: %s", e.err, e.written, e.rows, hint)
}

func (e *interrupted) Unwrap() error { return e.err }
