package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
	"gpumemsim/validate"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "-device D (-kernel K | -trace FILE) [-map ...] [-block ...] [-grid ...] [-set ...] [-spaces A=constant,...] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-regs N] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-sample [-sample-cycles-tol PCT] [-sample-count-tol PCT] [-sample-warmup WAVES]] [-waves FILE.csv] [-remap-cost exclude|include] [-show-kernel] [-format text|json|csv] [-metrics nvprof|ncu|gpgpusim]", stderr)
	lf := addLaunchFlags(fs)
	lf.addGrid(fs)
	regs := fs.Int("regs", 0, "registers per thread for occupancy (default: the kernel file's regs)")
	format := fs.String("format", "text", "output format: text, json or csv")
	style := fs.String("metrics", sim.StyleNvprof, "metric names: nvprof, ncu or gpgpusim")
	describe := fs.Bool("describe", false, "print each metric's description under it (text format)")
	sf := addSampleFlags(fs)
	waves := wavesFlag(fs)
	maxWork := workFlag(fs)
	remapCost := remapCostFlag(fs)
	show := fs.Bool("show-kernel", false, "print the kernel file that would be simulated (with -spaces jang, the rewritten CUDA-form kernel) and exit")
	trace := fs.String("trace", "", "replay an Accel-Sim trace `FILE` of a real GPU run instead of a kernel: its kernelslist.g, or one kernel's .traceg")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	if *trace != "" {
		if err := traceConflict(fs); err != nil {
			return err
		}
	}
	if *show {
		return showKernel(lf, stdout)
	}
	if err := checkFormat(*format, "text", "json", "csv"); err != nil {
		return err
	}
	if err := checkStyle(*style); err != nil {
		return err
	}
	if err := checkCap(*maxWork); err != nil {
		return err
	}
	if err := checkRemapCost(*remapCost); err != nil {
		return err
	}
	sample, err := sf.options(fs)
	if err != nil {
		return err
	}
	if *regs < 0 {
		return fmt.Errorf("-regs: must not be negative; got %d", *regs)
	}
	if *waves != "" {
		if *waves == "-" {
			return errors.New("-waves: want a FILE.csv; standard output holds the run's metrics")
		}
		if err := checkOutDir("-waves", *waves); err != nil {
			return err
		}
		if *trace != "" {
			return errors.New("-waves: a trace replay's kernels are simulated whole, one after another, and have no waves to report; hint: leave out -waves")
		}
	}
	if *trace != "" {
		return runTrace(ctx, traceRun{path: *trace, device: *lf.device, split: *lf.cacheConfig, regs: *regs, sample: sample, maxWork: *maxWork,
			out: runOutput{*format, *style, *describe}}, stdout, stderr)
	}
	dev, ls, err := lf.loadSequence()
	if err != nil {
		return err
	}
	if ls, err = withRemaps(*remapCost, dev, ls); err != nil {
		return err
	}
	if len(ls) > 1 || len(ls[0].Kernel.Launches) > 0 {
		for _, f := range []struct {
			name string
			on   bool
		}{{"-sample", sample.On}, {"-waves", *waves != ""}} {
			if f.on {
				return fmt.Errorf("%s: %s is a sequence of %d launches, which are simulated whole; hint: leave out %s", f.name, kernelLaunch(ls).Kernel.Name, len(ls), f.name)
			}
		}
		return runSequence(ctx, dev, ls, *regs, *maxWork, runOutput{*format, *style, *describe}, stdout, stderr)
	}
	l := ls[0]
	what := l.Kernel.Name + " with " + l.ParamText()
	work, err := workOf(ctx, l, *maxWork, stderr)
	if err != nil {
		return err
	}
	if err := checkWork(ctx, what, work, *maxWork); err != nil {
		return err
	}
	if *regs > 0 {
		// sim.Run would refuse it too, but could not name the flag.
		if _, err := dev.Occupancy(l.Block, *regs, l.Smem); err != nil {
			return fmt.Errorf("-regs: %v", err)
		}
	}
	bar := newProgress(stderr, "simulating", sampledOf(dev, l, work, sample, *regs, shown(stderr)), 1)
	opts := sim.Options{Regs: *regs, Progress: bar.job(0), Sample: sample, MaxWork: *maxWork}
	var rows []sim.Wave
	if *waves != "" {
		opts.Waves = func(w sim.Wave) { rows = append(rows, w) }
	}
	res, err := sim.Run(ctx, dev, l, opts)
	bar.finish()
	if err != nil {
		return overWork(what, err, !sample.On)
	}
	if *waves != "" {
		if err := writeAtomic(*waves, func(w io.Writer) error { return writeWavesCSV(w, rows, res.Sampling) }); err != nil {
			return fmt.Errorf("-waves: %w", err)
		}
	}
	ms, err := sim.Metrics(dev, res, *style)
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		return writeJSON(stdout, runJSON(dev, l, res, ms))
	case "csv":
		return writeRunCSV(stdout, dev, l, ms, res.Sampling != nil)
	}
	return writeRunText(stdout, dev, l, lf.applied, res, ms, *style, *describe)
}

// showKernel prints the kernel file the flags describe, with -spaces
// applied: the rewrite of -spaces jang as it was generated (comments
// included), any other kernel as kernel.Format writes it. Either runs as
// it is with run -kernel FILE.
func showKernel(lf *launchFlags, w io.Writer) error {
	a, err := lf.parse()
	if err != nil {
		return err
	}
	if a.jang != nil {
		_, err = w.Write(a.jang.File)
		return err
	}
	_, err = w.Write(kernel.Format(a.k))
	return err
}

func checkStyle(style string) error {
	for _, s := range sim.Styles() {
		if s == style {
			return nil
		}
	}
	return fmt.Errorf("-metrics: want nvprof, ncu or gpgpusim; got %q", style)
}

type launchInfo struct {
	Mapping string `json:"mapping"`
	Block   string `json:"block"`
	Grid    string `json:"grid"`
	Params  string `json:"params"`
	Regs    int    `json:"regs"`
	Layout  string `json:"layout,omitempty"`
}

func launchOf(l *traces.Launch, res *sim.Result) launchInfo {
	return launchInfo{Mapping: l.Mapping.String(), Block: dimText(l.Block), Grid: dimText(l.Grid()),
		Params: l.ParamText(), Regs: l.Regs, Layout: layoutName(l)}
}

// layoutName names the data layout of l's struct arrays, "" for a kernel
// file without layouts.
func layoutName(l *traces.Launch) string {
	if l.Kernel.Layout == nil {
		return ""
	}
	return l.Kernel.Layout.Name
}

// dimText writes a shape without trailing unit extents: 16x16, 256.
func dimText(d arch.Dim3) string {
	switch {
	case d.Z > 1:
		return fmt.Sprintf("%dx%dx%d", d.X, d.Y, d.Z)
	case d.Y > 1:
		return fmt.Sprintf("%dx%d", d.X, d.Y)
	}
	return strconv.Itoa(d.X)
}

func runJSON(dev *arch.Device, l *traces.Launch, res *sim.Result, ms []sim.Metric) any {
	return struct {
		Device      string             `json:"device"`
		CacheConfig arch.CacheConfig   `json:"cache_config,omitempty"`
		Kernel      string             `json:"kernel"`
		Launch      launchInfo         `json:"launch"`
		Metrics     map[string]float64 `json:"metrics"`
		CI95        map[string]float64 `json:"ci95,omitempty"`
		Sampling    *sim.Sampling      `json:"sampling,omitempty"`
		References  []sim.RefStats     `json:"references"`
	}{dev.Name, dev.CacheConfig, l.Kernel.Name, launchOf(l, res), sim.MetricValues(ms), metricCIs(ms), res.Sampling, res.Refs}
}

// metricCIs maps each metric with a confidence interval to its half-width.
func metricCIs(ms []sim.Metric) map[string]float64 {
	var out map[string]float64
	for _, m := range ms {
		if m.CI95 != nil {
			if out == nil {
				out = map[string]float64{}
			}
			out[m.Name] = *m.CI95
		}
	}
	return out
}

// writeRunCSV writes nvprof's CSV columns, and for a sampled run the
// half-width of each metric's 95% confidence interval (empty: exact).
func writeRunCSV(w io.Writer, dev *arch.Device, l *traces.Launch, ms []sim.Metric, sampled bool) error {
	cw := csv.NewWriter(w)
	header := []string{"Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"}
	if sampled {
		header = append(header, "CI95")
	}
	cw.Write(header)
	kernel := kernelColumn(l)
	for _, m := range ms {
		v := formatValue(m)
		row := []string{deviceColumn(dev), kernel, "1", m.Name, m.Description, v, v, v}
		if sampled {
			row = append(row, formatCI(m))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func formatValue(m sim.Metric) string {
	v := strconv.FormatFloat(m.Value, 'f', -1, 64)
	if m.Value != float64(int64(m.Value)) {
		v = strconv.FormatFloat(m.Value, 'f', 6, 64)
	}
	if m.Unit == "%" {
		v += "%"
	}
	return v
}

// kernelLine describes a launch in one line of the text outputs: the
// kernel, its mapping, block, grid and params.
func kernelLine(l *traces.Launch) string {
	layout := ""
	if name := layoutName(l); name != "" {
		layout = "  layout " + name
	}
	return fmt.Sprintf("Kernel   %s%s  block %s  grid %s  %s%s\n", l.Kernel.Name, formText(l), dimText(l.Block), dimText(l.Grid()), l.ParamText(), layout)
}

// mappingName names a launch's mapping in the outputs: a per-thread
// kernel computes its own indices and has none.
func mappingName(m kernel.Mapping, perThread bool) string {
	if perThread {
		return "per-thread"
	}
	return m.String()
}

// textWidth is the width the text tables keep within.
const textWidth = 100

// writeRunText writes run's text output; jang is the rewrite -spaces jang
// made, nil without one.
func writeRunText(w io.Writer, dev *arch.Device, l *traces.Launch, jang *validate.JangApplied, res *sim.Result, ms []sim.Metric, style string, describe bool) error {
	writeDeviceLines(w, dev)
	fmt.Fprint(w, kernelLine(l))
	if jang != nil {
		fmt.Fprintf(w, "Spaces   %s; -show-kernel prints it\n", jangText(jang))
	}
	fmt.Fprintf(w, "Time     %d cycles = %.6g ms at %v\n", res.Cycles, res.TimeMS, dev.Clocks.Core)
	if s := res.Sampling; s != nil {
		fmt.Fprintln(w, samplingLine(s))
	}
	fmt.Fprintln(w)
	return writeResultTables(w, res, ms, style, describe)
}

// writeDeviceLines writes the Device line of run's header and the Cache
// line when -cache-config chose a split.
func writeDeviceLines(w io.Writer, dev *arch.Device) {
	fmt.Fprintf(w, "Device   %s (%s, compute capability %s)\n", dev.Name, dev.Board, dev.ComputeCapability)
	writeSplitLine(w, dev)
}

// formText is how run's Kernel line names the launch's form: the loop
// nest's mapping, or per-thread.
func formText(l *traces.Launch) string {
	if l.Info().PerThread {
		return "  " + mappingName(l.Mapping, true)
	}
	return "  map " + l.Mapping.String()
}

// writeResultTables writes the metrics of a run (as GPGPU-Sim prints
// them in its style) and, but in that style, its references.
func writeResultTables(w io.Writer, res *sim.Result, ms []sim.Metric, style string, describe bool) error {
	if style == sim.StyleGPGPUSim {
		for _, m := range ms {
			fmt.Fprintf(w, "%s = %s\n", m.Name, formatValue(m))
		}
		return nil
	}
	if err := writeMetricTable(w, ms, describe); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeRefStats(w, res.Refs)
}

// writeRefStats writes the references' counts. When some reference reads
// constant or texture memory or loads through the read-only data cache,
// a Space column says each one's, and a Const hit (Tex hit) column the
// constant (texture) cache's hit rate (Transactions are then the passes
// or lookups through it; the read-only data cache is the texture cache).
// DRAM read is the 32-B sectors DRAM read for the reference; what it
// wrote is not the reference's alone (an L2 writes back lines that
// several stores dirtied) and is in the metrics, dram_write_transactions,
// as the launch table's DRAM write is.
func writeRefStats(w io.Writer, refs []sim.RefStats) error {
	in := func(sp kernel.Space) bool {
		return slices.ContainsFunc(refs, func(r sim.RefStats) bool { return r.Space == sp.String() })
	}
	constant, texture := in(kernel.SpaceConstant), in(kernel.SpaceTexture) || in(kernel.SpaceReadOnly)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "Reference\tOp\t"
	if constant || texture {
		head += "Space\t"
	}
	head += "Requests\tTransactions\tTxn/Req\tL1 hit\t"
	if constant {
		head += "Const hit\t"
	}
	if texture {
		head += "Tex hit\t"
	}
	fmt.Fprintln(tw, head+"L2 hit\tDRAM read\t")
	for _, r := range refs {
		fmt.Fprintf(tw, "%s\t%s\t", r.Ref, r.Op)
		if constant || texture {
			fmt.Fprintf(tw, "%s\t", cmp.Or(r.Space, kernel.SpaceGlobal.String()))
		}
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%s\t", r.Requests, r.Transactions, r.TransactionsPerRequest(), pct(r.L1Hits, r.L1Hits+r.L1Misses))
		if constant {
			fmt.Fprintf(tw, "%s\t", pct(r.ConstHits, r.ConstHits+r.ConstMisses))
		}
		if texture {
			fmt.Fprintf(tw, "%s\t", pct(r.TexHits, r.TexHits+r.TexMisses))
		}
		fmt.Fprintf(tw, "%s\t%d\t\n", pct(r.L2HitSectors, r.L2ReadSectors), r.DRAMReadSectors)
	}
	return tw.Flush()
}

// writeMetricTable writes name, value and unit, one metric a line, and
// with describe the description below each, indented and wrapped to
// textWidth.
func writeMetricTable(w io.Writer, ms []sim.Metric, describe bool) error {
	nameW, valueW := len("Metric Name"), len("Value")
	for _, m := range ms {
		nameW, valueW = max(nameW, len(m.Name)), max(valueW, len(valueText(m)))
	}
	line := func(name, value, unit string) {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s  %*s  %s", nameW, name, valueW, value, unit), " "))
	}
	line("Metric Name", "Value", "Unit")
	for _, m := range ms {
		line(m.Name, valueText(m), strings.TrimSuffix(m.Unit, "%"))
		if describe {
			for _, d := range wrap(m.Description, textWidth-4) {
				fmt.Fprintln(w, "    "+d)
			}
		}
	}
	return nil
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func pct(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
