package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/sim"
	"gpumemsim/traces"
	"gpumemsim/traces/accelsim"
)

// kernelFlags are run's flags that describe a kernel file's launch, which
// a trace carries itself.
var kernelFlags = []string{"kernel", "map", "block", "grid", "set", "spaces", "layout", "remap", "remap-cost", "data", "matrix", "show-kernel"}

// traceConflict refuses -trace with a flag of a kernel file.
func traceConflict(fs *flag.FlagSet) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(kernelFlags, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	switch {
	case len(set) == 0:
		return nil
	case set[0] == "-kernel":
		return fmt.Errorf("-trace and -kernel are exclusive: a trace is a kernel, its launch and its addresses, recorded; hint: leave out -kernel (or -trace)")
	}
	return fmt.Errorf("-trace: %s describe a kernel file's launch, and a trace carries its own; hint: leave them out", strings.Join(set, ", "))
}

// traceRun is run -trace's request: the trace and how to run and print it.
type traceRun struct {
	path    string
	device  string
	split   string
	regs    int
	sample  sim.SampleOptions
	maxWork float64
	out     runOutput
}

// runTrace replays the kernels of an Accel-Sim trace (a kernel list or one
// .traceg) on a device, one after the other, and prints what run prints
// for a kernel file.
func runTrace(ctx context.Context, tr traceRun, stdout, stderr io.Writer) error {
	dev, err := loadDevice(tr.device, tr.split)
	if err != nil {
		return err
	}
	t, err := accelsim.Open(tr.path)
	if err != nil {
		return fmt.Errorf("-trace: %w", err)
	}
	defer t.Close()
	est := workEstimate{launches: 1}
	srcs := make([]traces.Source, len(t.Kernels))
	for i, k := range t.Kernels {
		regs := k.Regs
		if tr.regs > 0 {
			regs = tr.regs
		}
		if _, err := dev.Occupancy(k.Block, regs, arch.Bytes(k.Shmem)); err != nil {
			err = splitAtFault(dev, tr.device, err, func(d *arch.Device) error {
				_, err := d.Occupancy(k.Block, regs, arch.Bytes(k.Shmem))
				return err
			})
			if tr.regs > 0 {
				return fmt.Errorf("-regs: %s, kernel %s: %v", k.File, k.Name, err)
			}
			return fmt.Errorf("%s, kernel %s (block %s, %d registers, %v shared memory): %v", k.File, k.Name, dimText(k.Block), regs, arch.Bytes(k.Shmem), err)
		}
		// The work is the trace's instructions, and a warp launch for
		// each warp of the grid that the trace leaves out (a grid far
		// larger than the blocks traced costs time too).
		c := k.Counts()
		info := k.Info()
		est.warpInsts += float64(c.Insts) + float64(int64(info.Blocks())*int64(info.WarpsPerBlock())-c.Warps)
		est.memInsts += float64(c.MemInsts)
		est.blocks += int64(info.Blocks())
		srcs[i] = k
		if len(t.Kernels) > 1 {
			srcs[i] = numbered{k, i + 1}
		}
	}
	est.seconds = est.memInsts / simRate(dev)
	est.longest = est.seconds
	if err := checkWork(ctx, tr.path, est.warpInsts, tr.maxWork); err != nil {
		return err
	}
	if tr.sample.On && len(srcs) > 1 {
		return fmt.Errorf("-sample: %s lists %d kernels, which are simulated whole, one after the other; hint: leave out -sample", tr.path, len(srcs))
	}
	bar := newProgress(stderr, "simulating", est, 1)
	seq, err := sim.RunSequence(ctx, dev, srcs, sim.Options{Regs: tr.regs, Progress: bar.job(0), Sample: tr.sample, MaxWork: tr.maxWork})
	bar.finish()
	if err != nil {
		return overWork(tr.path, err, !tr.sample.On && len(srcs) == 1)
	}
	ms, err := sim.Metrics(dev, seq.Total, tr.out.style)
	if err != nil {
		return err
	}
	switch tr.out.format {
	case "json":
		return writeJSON(stdout, replayJSON(dev, t, seq, ms, tr.out.style))
	case "csv":
		return writeTraceCSV(stdout, dev, t, seq, ms, tr.out.style)
	}
	return writeTraceText(stdout, dev, t, seq, ms, tr.out)
}

// writeTraceText writes the header lines of a trace run, a line per
// kernel when there are several, and the metrics and references.
func writeTraceText(w io.Writer, dev *arch.Device, t *accelsim.Trace, seq *sim.Sequence, ms []sim.Metric, out runOutput) error {
	writeDeviceLines(w, dev)
	fmt.Fprintf(w, "Trace    %s\n", traceLine(t))
	tot := seq.Total
	if len(t.Kernels) == 1 {
		k := t.Kernels[0]
		fmt.Fprintf(w, "Kernel   %s\n", kernelText(k))
		fmt.Fprintf(w, "Traced   %s\n", tracedText(k.Counts()))
		fmt.Fprintf(w, "Counted  %s\n", countedText(k.Counts()))
		fmt.Fprintf(w, "Time     %d cycles = %.6g ms at %v\n", tot.Cycles, tot.TimeMS, dev.Clocks.Core)
		if s := tot.Sampling; s != nil {
			fmt.Fprintln(w, samplingLine(s))
		}
		fmt.Fprintln(w)
		return writeResultTables(w, tot, ms, out.style, out.describe)
	}
	fmt.Fprintf(w, "Time     %d cycles = %.6g ms at %v, all kernels\n\n", tot.Cycles, tot.TimeMS, dev.Clocks.Core)
	if err := writeTraceLaunches(w, t, seq); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeResultTables(w, tot, ms, out.style, out.describe)
}

// traceLine says what the trace is: its file, kernels and copies.
func traceLine(t *accelsim.Trace) string {
	s := fmt.Sprintf("%s: %d kernel", t.File, len(t.Kernels))
	if len(t.Kernels) != 1 {
		s += "s, one after the other: the L2 and DRAM keep their state, the L1s start empty"
	}
	if n := len(t.Copies); n > 0 {
		var bytes int64
		for _, c := range t.Copies {
			bytes += c.Bytes
		}
		s += fmt.Sprintf("; %d MemcpyHtoD of %d bytes in all, not simulated", n, bytes)
	}
	return s
}

// kernelText describes one traced kernel: its name, launch and the
// trace's versions.
func kernelText(k *accelsim.Kernel) string {
	return fmt.Sprintf("%s  block %s  grid %s  regs %d  shmem %v  sm_%d, tracer %d", k.Name, dimText(k.Block), dimText(k.Grid),
		k.Regs, arch.Bytes(k.Shmem), k.BinaryVersion, k.TracerVersion)
}

// tracedText counts what a kernel's trace holds.
func tracedText(c accelsim.Counts) string {
	return fmt.Sprintf("%d thread blocks, %d warps, %d warp instructions (%d with memory addresses)", c.Blocks, c.Warps, c.Insts, c.MemInsts)
}

// countedText is the global requests and sectors the trace's addresses
// give, to set beside the simulated gld/gst counts.
func countedText(c accelsim.Counts) string {
	return fmt.Sprintf("from the trace's addresses: global loads %d requests, %d sectors; global stores %d requests, %d sectors (distinct 32-B sectors per warp instruction)",
		c.GlobalLoads, c.GlobalLoadSectors, c.GlobalStores, c.GlobalStoreSectors)
}

// writeTraceLaunches writes a line per kernel of a trace and one of the
// total.
func writeTraceLaunches(w io.Writer, t *accelsim.Trace, seq *sim.Sequence) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Launch\tKernel\tGrid\tBlock\tCycles\tLoad txn\tStore txn\tL1 hit\tL2 hit\tDRAM read\tDRAM write\t")
	row := func(name, kernel, grid, block string, r *sim.Result) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t\n", name, kernel, grid, block, r.Cycles, r.Loads.Transactions, r.Stores.Transactions,
			pct(r.L1.Hits, r.L1.Accesses), pct(r.L2.ReadHitSectors, r.L2.ReadSectors), r.DRAM.ReadSectors, r.DRAM.WriteSectors)
	}
	for i, k := range t.Kernels {
		row(strconv.Itoa(i+1), k.Name, dimText(k.Grid), dimText(k.Block), seq.Launches[i])
	}
	row("total", "", "", "", seq.Total)
	return tw.Flush()
}

// traceKernelJSON is one kernel of a trace in run's JSON.
type traceKernelJSON struct {
	Name          string             `json:"name"`
	File          string             `json:"file"`
	Grid          string             `json:"grid"`
	Block         string             `json:"block"`
	Regs          int                `json:"regs"`
	Shmem         int64              `json:"shmem_bytes"`
	BinaryVersion int                `json:"binary_version"`
	TracerVersion int                `json:"tracer_version"`
	Trace         traceCountsJSON    `json:"trace_counts"`
	Metrics       map[string]float64 `json:"metrics,omitempty"`
}

// traceCountsJSON is what accelsim.Counts counts, as run's JSON names it.
type traceCountsJSON struct {
	Blocks             int64 `json:"thread_blocks"`
	Warps              int64 `json:"warps"`
	Insts              int64 `json:"warp_insts"`
	MemInsts           int64 `json:"mem_insts"`
	GlobalLoads        int64 `json:"global_load_requests"`
	GlobalLoadSectors  int64 `json:"global_load_sectors"`
	GlobalStores       int64 `json:"global_store_requests"`
	GlobalStoreSectors int64 `json:"global_store_sectors"`
}

type traceCopyJSON struct {
	Addr  string `json:"addr"`
	Bytes int64  `json:"bytes"`
}

func replayJSON(dev *arch.Device, t *accelsim.Trace, seq *sim.Sequence, ms []sim.Metric, style string) any {
	kernels := make([]traceKernelJSON, len(t.Kernels))
	for i, k := range t.Kernels {
		c := k.Counts()
		kernels[i] = traceKernelJSON{Name: k.Name, File: k.File, Grid: dimText(k.Grid), Block: dimText(k.Block), Regs: k.Regs, Shmem: k.Shmem,
			BinaryVersion: k.BinaryVersion, TracerVersion: k.TracerVersion,
			Trace: traceCountsJSON{c.Blocks, c.Warps, c.Insts, c.MemInsts, c.GlobalLoads, c.GlobalLoadSectors, c.GlobalStores, c.GlobalStoreSectors}}
		if len(t.Kernels) > 1 {
			m, _ := sim.Metrics(dev, seq.Launches[i], style) // style checked: the total's succeeded
			kernels[i].Metrics = sim.MetricValues(m)
		}
	}
	copies := make([]traceCopyJSON, len(t.Copies))
	for i, c := range t.Copies {
		copies[i] = traceCopyJSON{fmt.Sprintf("0x%016x", c.Addr), c.Bytes}
	}
	return struct {
		Device      string             `json:"device"`
		CacheConfig arch.CacheConfig   `json:"cache_config,omitempty"`
		Trace       string             `json:"trace"`
		Copies      []traceCopyJSON    `json:"copies"`
		Kernels     []traceKernelJSON  `json:"kernels"`
		Metrics     map[string]float64 `json:"metrics"`
		CI95        map[string]float64 `json:"ci95,omitempty"`
		Sampling    *sim.Sampling      `json:"sampling,omitempty"`
		References  []sim.RefStats     `json:"references"`
	}{dev.Name, dev.CacheConfig, t.File, copies, kernels, sim.MetricValues(ms), metricCIs(ms), seq.Total.Sampling, seq.Total.Refs}
}

// writeTraceCSV writes nvprof's CSV: a kernel invoked several times in a
// row is one row per metric with its minimum, maximum and mean.
func writeTraceCSV(w io.Writer, dev *arch.Device, t *accelsim.Trace, seq *sim.Sequence, total []sim.Metric, style string) error {
	per := make([][]sim.Metric, len(t.Kernels))
	for i := range t.Kernels {
		per[i] = total
		if len(t.Kernels) > 1 {
			per[i], _ = sim.Metrics(dev, seq.Launches[i], style) // style checked: the total's succeeded
		}
	}
	sampled := seq.Total.Sampling != nil
	cw := csv.NewWriter(w)
	header := []string{"Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"}
	if sampled {
		header = append(header, "CI95")
	}
	cw.Write(header)
	for start := 0; start < len(t.Kernels); {
		end := start + 1
		for end < len(t.Kernels) && t.Kernels[end].Name == t.Kernels[start].Name {
			end++
		}
		writeInvocationsCSV(cw, deviceColumn(dev), t.Kernels[start].Name, total, per[start:end], sampled)
		start = end
	}
	cw.Flush()
	return cw.Error()
}

// numbered is a kernel of a trace of several, whose references say which
// launch they are of: "2: LDG.E @0x0010".
type numbered struct {
	*accelsim.Kernel
	n int
}

func (k numbered) Info() *traces.Info {
	info := k.Kernel.Info()
	for i := range info.Refs {
		info.Refs[i].Text = fmt.Sprintf("%d: %s", k.n, info.Refs[i].Text)
	}
	return info
}
