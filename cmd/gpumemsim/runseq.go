package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// runOutput is how run prints: -format, -metrics and -describe.
type runOutput struct {
	format, style string
	describe      bool
}

// runSequence simulates a kernel file's sequence of launches (launches:)
// and prints each launch and the total.
func runSequence(ctx context.Context, dev *arch.Device, ls []*traces.Launch, regs int, maxWork float64, out runOutput, stdout, stderr io.Writer) error {
	k := kernelLaunch(ls).Kernel
	timed := shown(stderr)
	var est workEstimate
	for i, l := range ls {
		work, err := workOf(ctx, l, maxWork, stderr)
		if err != nil {
			return fmt.Errorf("launch %d of %d: %w", i+1, len(ls), err)
		}
		est = est.add(estimateOf(dev, l, work, timed))
	}
	est.launches, est.longest = 1, est.seconds // one simulation, launch after launch
	if err := checkWork(ctx, fmt.Sprintf("%s, %d launches, with %s", k.Name, len(ls), fixedParams(kernelLaunch(ls))), est.warpInsts, maxWork); err != nil {
		return err
	}
	srcs := make([]traces.Source, len(ls))
	for i, l := range ls {
		if regs > 0 {
			if _, err := dev.Occupancy(l.Block, regs, l.Smem); err != nil {
				return fmt.Errorf("-regs: %v", err)
			}
		}
		srcs[i] = l
	}
	bar := newProgress(stderr, "simulating", est, 1)
	seq, err := sim.RunSequence(ctx, dev, srcs, sim.Options{Regs: regs, Progress: bar.job(0), MaxWork: maxWork})
	bar.finish()
	if err != nil {
		return overWork(k.Name, err, false)
	}
	total, err := sim.Metrics(dev, seq.Total, out.style)
	if err != nil {
		return err
	}
	switch out.format {
	case "json":
		return writeJSON(stdout, sequenceJSON(dev, ls, seq, total, out.style))
	case "csv":
		return writeSequenceCSV(stdout, dev, ls, seq, total, out.style)
	}
	return writeSequenceText(stdout, dev, ls, seq, total, out)
}

// fixedParams writes the params no launch of a sequence sets, K=V,...
// in declaration order.
func fixedParams(l *traces.Launch) string {
	set := map[string]bool{}
	for _, h := range l.Kernel.Launches {
		for _, s := range h.Set {
			set[s.Name] = true
		}
	}
	var fixed []kernel.Param
	for _, p := range l.Params {
		if !set[p.Name] {
			fixed = append(fixed, p)
		}
	}
	return kernel.ParamsText(fixed, ",")
}

// setText writes what a launch's entry set: K=V ..., or "-".
func setText(l *traces.Launch) string {
	if len(l.Set) == 0 {
		return "-"
	}
	return kernel.ParamsText(l.Set, " ")
}

func writeSequenceText(w io.Writer, dev *arch.Device, ls []*traces.Launch, seq *sim.Sequence, ms []sim.Metric, out runOutput) error {
	l, tot := kernelLaunch(ls), seq.Total
	writeDeviceLines(w, dev)
	fmt.Fprintf(w, "Kernel   %s%s  block %s  %s\n", l.Kernel.Name, formText(l), dimText(l.Block), fixedParams(l))
	launches := strconv.Itoa(len(ls))
	if n := remaps(ls); n > 0 {
		launches = fmt.Sprintf("%d (%d remap, then %d of the kernel)", len(ls), n, len(ls)-n)
	}
	fmt.Fprintf(w, "Launches %s, one after the other: the L2 and DRAM keep their state, the L1s start empty\n", launches)
	fmt.Fprintf(w, "Time     %d cycles = %.6g ms at %v, all launches\n\n", tot.Cycles, tot.TimeMS, dev.Clocks.Core)
	if err := writeLaunchTable(w, ls, seq); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeResultTables(w, tot, ms, out.style, out.describe)
}

// writeLaunchTable writes a line per launch of a sequence, its grid,
// what its entry set and its main counters, and a line of the total.
func writeLaunchTable(w io.Writer, ls []*traces.Launch, seq *sim.Sequence) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Launch\tGrid\tSet\tCycles\tLoad txn\tStore txn\tL1 hit\tL2 hit\tDRAM read\tDRAM write\t")
	row := func(name, grid, set string, r *sim.Result) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t\n", name, grid, set, r.Cycles, r.Loads.Transactions, r.Stores.Transactions,
			pct(r.L1.Hits, r.L1.Accesses), pct(r.L2.ReadHitSectors, r.L2.ReadSectors), r.DRAM.ReadSectors, r.DRAM.WriteSectors)
	}
	n := remaps(ls)
	for i, l := range ls {
		name := strconv.Itoa(i + 1 - n)
		if l.RemapOf != "" {
			name = "remap " + l.RemapOf
		}
		row(name, dimText(l.Grid()), setText(l), seq.Launches[i])
	}
	row("total", "", "", seq.Total)
	return tw.Flush()
}

// seqLaunchJSON is one launch of a sequence in run's JSON.
type seqLaunchJSON struct {
	Remap   string             `json:"remap,omitempty"`
	Grid    string             `json:"grid"`
	Set     map[string]int64   `json:"set,omitempty"`
	Metrics map[string]float64 `json:"metrics"`
}

func sequenceJSON(dev *arch.Device, ls []*traces.Launch, seq *sim.Sequence, total []sim.Metric, style string) any {
	l := kernelLaunch(ls)
	launches := make([]seqLaunchJSON, len(ls))
	for i, li := range ls {
		ms, _ := sim.Metrics(dev, seq.Launches[i], style) // style checked: total's succeeded
		launches[i] = seqLaunchJSON{Remap: li.RemapOf, Grid: dimText(li.Grid()), Metrics: sim.MetricValues(ms)}
		for _, p := range li.Set {
			if launches[i].Set == nil {
				launches[i].Set = map[string]int64{}
			}
			launches[i].Set[p.Name] = p.Value
		}
	}
	return struct {
		Device      string             `json:"device"`
		CacheConfig arch.CacheConfig   `json:"cache_config,omitempty"`
		Kernel      string             `json:"kernel"`
		Launch      launchInfo         `json:"launch"`
		Launches    []seqLaunchJSON    `json:"launches"`
		Metrics     map[string]float64 `json:"metrics"`
		References  []sim.RefStats     `json:"references"`
	}{dev.Name, dev.CacheConfig, l.Kernel.Name, launchInfo{Mapping: l.Mapping.String(), Block: dimText(l.Block), Params: fixedParams(l), Regs: l.Regs},
		launches, sim.MetricValues(total), seq.Total.Refs}
}

// writeSequenceCSV writes nvprof's CSV of a kernel invoked once per
// launch: each metric's minimum, maximum and mean over the launches.
func writeSequenceCSV(w io.Writer, dev *arch.Device, ls []*traces.Launch, seq *sim.Sequence, total []sim.Metric, style string) error {
	per := make([][]sim.Metric, len(ls))
	for i := range ls {
		per[i], _ = sim.Metrics(dev, seq.Launches[i], style) // style checked: total's succeeded
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"})
	// A kernel's rows summarise its consecutive launches: a remap
	// kernel's one, then the kernel file's.
	for start := 0; start < len(ls); {
		end := start + 1
		for end < len(ls) && ls[end].Kernel == ls[start].Kernel {
			end++
		}
		writeKernelCSV(cw, dev, ls[start], total, per[start:end])
		start = end
	}
	cw.Flush()
	return cw.Error()
}

// writeKernelCSV writes the rows of l's kernel, invoked once for each of
// per, the metrics of its launches, named as total names them.
func writeKernelCSV(cw *csv.Writer, dev *arch.Device, l *traces.Launch, total []sim.Metric, per [][]sim.Metric) {
	writeInvocationsCSV(cw, deviceColumn(dev), kernelColumn(l), total, per, false)
}

// kernelColumn is the CSV's Kernel column: the kernel, its mapping and
// block, "matmul (i1=ty,i2=tx, 16x16)"; a per-thread kernel, which has no
// mapping, its block alone, "transpose-shared (32x8)".
func kernelColumn(l *traces.Launch) string {
	if m := l.Mapping.String(); m != "" {
		return fmt.Sprintf("%s (%s, %s)", l.Kernel.Name, m, dimText(l.Block))
	}
	return fmt.Sprintf("%s (%s)", l.Kernel.Name, dimText(l.Block))
}

// writeInvocationsCSV writes nvprof's rows of a kernel invoked once for
// each of per, the metrics of its launches: each of total's metrics with
// its minimum, maximum and mean over the launches that have it (matched
// by name: launches of one kernel may differ in their metrics, as a
// traced generic access reaches shared memory in one and not another),
// and with sampled the CI95 column.
func writeInvocationsCSV(cw *csv.Writer, device, kernel string, total []sim.Metric, per [][]sim.Metric, sampled bool) {
	for _, m := range total {
		lo, hi, avg := m, m, m
		lo.Value, hi.Value, avg.Value = math.Inf(1), math.Inf(-1), 0
		n := 0
		for _, ms := range per {
			if i := slices.IndexFunc(ms, func(x sim.Metric) bool { return x.Name == m.Name }); i >= 0 {
				v := ms[i].Value
				lo.Value, hi.Value, avg.Value = min(lo.Value, v), max(hi.Value, v), avg.Value+v
				n++
			}
		}
		if n == 0 {
			continue
		}
		avg.Value /= float64(n)
		row := []string{device, kernel, strconv.Itoa(len(per)), m.Name, m.Description, formatValue(lo), formatValue(hi), formatValue(avg)}
		if sampled {
			row = append(row, formatCI(m))
		}
		cw.Write(row)
	}
}
