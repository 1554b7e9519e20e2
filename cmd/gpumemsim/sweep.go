package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"gpumemsim/arch"
)

const sweepUsage = "[-device D1,D2] [-kernel K1,K2] [-map 'M1;M2'] [-blocks B1,B2] [-set NAME=V1,V2 ...] [-layout L1,L2] [-spaces 'S1;S2'] | -f SWEEP.yaml; [-cache-config C] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-metrics nvprof|ncu|gpgpusim] [-max-work N] [-j N] [-shard i/n | -shards n] [-resume FILE] [-format csv|json] [-o FILE] [-plot FILE.svg [-plot-metric M]]"

// sweepFlags are sweep's flags, as given.
type sweepFlags struct {
	devices, kernels, maps, blocks, layouts, spaces *string
	sets                                            setList
	file                                            *string
	settings                                        sweepSettings
	data                                            *dataFlags
	maxWork                                         *float64
	workers                                         *int
	format, out, resume, shard                      *string
	plot, plotMetric                                *string
	shards                                          *int
	// bindSettings reads the shared flags into settings, once parsed.
	bindSettings func()
}

func addSweepFlags(fs *flag.FlagSet) *sweepFlags {
	f := &sweepFlags{
		devices:    fs.String("device", "", "devices, a comma `list` of names or YAML files: gt200,fermi,kepler (default fermi)"),
		kernels:    fs.String("kernel", "", "kernels, a comma `list` of shipped examples or files (default matmul)"),
		maps:       fs.String("map", "", "mappings separated by semicolons: `'i1=ty,i2=tx;i1=tx,i2=ty'`; an empty item is the kernel file's (default: the kernel file's)"),
		blocks:     fs.String("blocks", "", "block shapes, a comma `list`: 64,128,16x16 (default: the kernel file's)"),
		layouts:    fs.String("layout", "", "layouts of the kernel's struct arrays, a comma `list` (default: the kernel file's first)"),
		spaces:     fs.String("spaces", "", "memory-space assignments separated by semicolons: `'A=texture;A=constant,B=texture'`; an empty item is the kernel file's"),
		file:       fs.String("f", "", "a sweep `file` (YAML) giving the axes instead of the axis flags"),
		maxWork:    workFlag(fs),
		workers:    fs.Int("j", 0, "rows simulated at once (default: the number of cores, runtime.NumCPU)"),
		format:     fs.String("format", "csv", "output format: csv or json"),
		out:        fs.String("o", "", "output `file`, written whole or not at all (default: stdout)"),
		resume:     fs.String("resume", "", "a previous output `file` of the same sweep: its rows that ran are kept, not simulated again"),
		shard:      fs.String("shard", "", "run shard `i/n` only: the rows whose index (from 0) is i modulo n; shards count from 0"),
		shards:     fs.Int("shards", 0, "the number of shards, with the shard index read from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX"),
		plot:       fs.String("plot", "", "also draw a heat map of -plot-metric over the sweep's two varying axes (a 2-D block's width and height count as two) into `FILE.svg`"),
		plotMetric: fs.String("plot-metric", "sim_cycles", "the `metric` -plot draws"),
	}
	fs.Var(&f.sets, "set", "a parameter and its values `NAME=V1,V2`; repeat -set for more parameters (the sweep takes the product)")
	cc := cacheConfigFlag(fs)
	remap := fs.String("remap", "", "Dymaxion remaps of the kernels' arrays `A=KIND,...`, for every row")
	style := fs.String("metrics", "nvprof", "metric names: nvprof, ncu or gpgpusim")
	f.data = addDataFlags(fs)
	f.bindSettings = func() {
		f.settings = sweepSettings{CacheConfig: *cc, Remap: *remap, Matrix: *f.data.matrix, Style: *style, Data: f.data.data}
	}
	return f
}

func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", sweepUsage, stderr)
	f := addSweepFlags(fs)
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	f.bindSettings()
	if err := f.check(); err != nil {
		return err
	}

	axes, err := f.axes(fs)
	if err != nil {
		return err
	}
	rows, err := axes.withDefaults().rows()
	if err != nil {
		return fmt.Errorf("sweep: %v", err)
	}
	var sp *sweepPlot
	if *f.plot != "" {
		if err := checkPlotPath("-plot", *f.plot); err != nil {
			return err
		}
		if sp, err = newSweepPlot(*f.plotMetric, rows); err != nil {
			return err
		}
	}
	sh, err := resolveShard(*f.shard, *f.shards, os.Getenv)
	if err != nil {
		return err
	}
	sw := &sweeper{settings: f.settings, maxWork: *f.maxWork, workers: *f.workers, id: sweepID(f.settings, rows), total: len(rows)}
	done, err := sw.resumed(*f.resume)
	if err != nil {
		return err
	}
	t, runErr := sw.run(ctx, rows, sh, done, stderr)
	if err := writeOutput(*f.out, stdout, func(w io.Writer) error { return t.write(w, *f.format) }); err != nil {
		return err
	}
	if ie, ok := runErr.(*interrupted); ok {
		ie.out = *f.out
	}
	if runErr != nil {
		return runErr
	}
	ran := t.failed() < len(t.Records)
	if sp != nil && ran {
		if err := sp.draw(*f.plot, t); err != nil {
			return err
		}
	}
	err = failureSummary(t, stderr)
	switch {
	case sp == nil || ran:
	case err != nil:
		// Not draw's complaint that the metric is missing: the rows are.
		return fmt.Errorf("%w; -plot: no row ran, so %s is not drawn", err, *f.plot)
	default: // a shard with no rows
		return fmt.Errorf("-plot: this part of the sweep has no rows, so %s is not drawn; hint: leave out -plot here, and give it to the sweep run whole", *f.plot)
	}
	return err
}

// check checks the flags that are not axes.
func (f *sweepFlags) check() error {
	if err := checkFormat(*f.format, "csv", "json"); err != nil {
		return err
	}
	if _, err := arch.ParseCacheConfig(f.settings.CacheConfig); err != nil {
		return fmt.Errorf("-cache-config: %v", err) // else every row would fail alike
	}
	if err := checkStyle(f.settings.Style); err != nil {
		return err
	}
	if err := checkCap(*f.maxWork); err != nil {
		return err
	}
	if *f.out != "" {
		if err := checkOutDir("-o", *f.out); err != nil {
			return err // before the sweep's work, not after it
		}
	}
	if *f.workers < 0 {
		return fmt.Errorf("-j: want 1 or more rows at once (or 0, the default: the number of cores); got %d", *f.workers)
	}
	if *f.workers == 0 {
		*f.workers = runtime.NumCPU()
	}
	return nil
}

// axes are the sweep's axes, from -f or from the axis flags.
func (f *sweepFlags) axes(fs *flag.FlagSet) (sweepAxes, error) {
	if *f.file != "" {
		var given []string
		fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "device", "kernel", "map", "blocks", "set", "layout", "spaces":
				given = append(given, "-"+fl.Name)
			}
		})
		if len(given) > 0 {
			return sweepAxes{}, fmt.Errorf("-f %s gives the axes; %s too; hint: put every axis in the file", *f.file, strings.Join(given, ", "))
		}
		return loadSweepFile(*f.file)
	}
	a := sweepAxes{Set: f.sets}
	var err error
	lists := []struct {
		name, value, sep string
		emptyOK          bool
		to               *[]string
	}{
		{"-device", *f.devices, ",", false, &a.Devices},
		{"-kernel", *f.kernels, ",", false, &a.Kernels},
		{"-map", *f.maps, ";", true, &a.Maps},
		{"-blocks", *f.blocks, ",", false, &a.Blocks},
		{"-layout", *f.layouts, ",", false, &a.Layouts},
		{"-spaces", *f.spaces, ";", true, &a.Spaces},
	}
	for _, l := range lists {
		if *l.to, err = splitOn(l.name, l.value, l.sep, l.emptyOK); err != nil {
			return a, err
		}
	}
	return a, nil
}

// writeOutput writes to path, whole or not at all (writeAtomic), or to
// stdout when path is "".
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	if err := writeAtomic(path, write); err != nil {
		return fmt.Errorf("-o %s: %v; nothing written", path, err)
	}
	return nil
}

// failureSummary lists the failed rows on stderr and returns an error,
// so that the exit status says some failed; nil when none did.
func failureSummary(t *sweepTable, stderr io.Writer) error {
	n := t.failed()
	if n == 0 {
		return nil
	}
	const shown = 10
	fmt.Fprintf(stderr, "sweep: %d of %d rows failed:\n", n, len(t.Records))
	k := 0
	for _, r := range t.Records {
		if r.Err == "" {
			continue
		}
		if k++; k > shown {
			fmt.Fprintf(stderr, "  and %d more\n", n-shown)
			break
		}
		fmt.Fprintf(stderr, "  row %d (%s): %s\n", r.Index, rowText(r.Params), r.Err)
	}
	return fmt.Errorf("sweep: %d of %d rows failed; the error column says why; the other rows are written", n, len(t.Records))
}

// rowText names a row by its parameters that are given.
func rowText(p sweepParams) string {
	var parts []string
	for i, v := range p.values() {
		switch {
		case v == "":
		case i < 2:
			parts = append(parts, v)
		default:
			parts = append(parts, paramColumns[i]+" "+v)
		}
	}
	return strings.Join(parts, " ")
}
