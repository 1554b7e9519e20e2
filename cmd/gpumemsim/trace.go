package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/sim/coalesce"
	"gpumemsim/traces"
)

// fastCount is the most work, in warp instructions streamed, trace counts
// through the coalescer without -totals: a few seconds at most
// (sim.BenchmarkCountEveryBlock: 15 to 55 million memory instructions per
// second on the development machine, counted by address shape; a loop
// nest's compute instructions cost next to nothing). A loop nest's
// regular blocks are counted one per class, so its work is that of its
// irregular blocks and one block per class, and a walk over the grid
// (sim.CountWork).
const fastCount = 5e7

func cmdTrace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace", "-device NAME|FILE -kernel NAME|FILE [-map i1=ty,i2=tx] [-block 16x16] [-grid XxY] [-set K=V,...] [-spaces A=constant,...] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-launch N] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-warps N] [-totals] [-format text|json]", stderr)
	lf := addLaunchFlags(fs)
	lf.addGrid(fs)
	which := fs.Int("launch", 0, "for a kernel file with launches: trace launch `N` of its sequence, counted from 1")
	shown := fs.Int("warps", 8, "how many memory warp instructions of block 0 to show")
	totals := fs.Bool("totals", false, fmt.Sprintf("count the whole kernel through the coalescer even when that streams more than %s warp instructions", sci(fastCount)))
	maxWork := workFlag(fs)
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	if err := checkCap(*maxWork); err != nil {
		return err
	}
	if *shown < 0 {
		return fmt.Errorf("-warps: must not be negative; got %d", *shown)
	}
	if given(fs, "launch") && *which < 1 {
		return fmt.Errorf("-launch: launches count from 1; got %d", *which)
	}
	d, l, err := lf.loadLaunch(*which)
	if err != nil {
		return err
	}
	// Showing block 0's first instructions walks its warps, whose loops may
	// be long even where the kernel has few warps.
	work, _ := workOf(ctx, l, *maxWork, stderr) // its error comes after the warps shown
	perWarp := work / float64(max(1, l.ActiveWarps()))
	if err := checkWork(ctx, "a warp of "+l.Kernel.Name+" with "+l.ParamText(), perWarp, *maxWork); err != nil {
		return err
	}
	// What counting costs, judged only as far as the larger bound.
	bound := fastCount
	if *totals {
		bound = *maxWork
	}
	countWork := sim.CountWork(l, work/float64(max(1, l.Blocks())), bound)
	count := *totals || countWork <= fastCount
	if *totals {
		if err := checkCountWork(l, work, countWork, *maxWork); err != nil {
			return err
		}
	}
	co, err := sim.NewCoalescer(d)
	if err != nil {
		return err
	}
	insts, err := firstInsts(d, l, co, *shown)
	if err != nil {
		return err
	}
	if *format == "text" {
		// The instructions go out before the kernel is counted.
		if err := writeTraceHead(stdout, d, l, insts, *shown); err != nil {
			return err
		}
		if !count {
			_, err := fmt.Fprintf(stdout, "\nTotals over the whole kernel: not counted, more than %s warp instructions to stream; -totals counts them (a few seconds per %s).\n", sci(fastCount), sci(fastCount))
			return err
		}
	}
	var counts *sim.Counts
	var metrics []sim.Metric
	if count {
		if counts, err = sim.Count(ctx, d, l, nil); err != nil {
			return err
		}
		metrics = sim.CountMetrics(d.Coalescer.Rule, &counts.Loads, &counts.Stores)
		if l.Info().PerThread {
			metrics = append(metrics, sim.SharedMetrics(d, &counts.Shared)...)
		}
		if reads(l, kernel.SpaceConstant) {
			metrics = append(metrics, sim.ConstantMetrics(&counts.Constant, false)...)
		}
		if reads(l, kernel.SpaceTexture) || reads(l, kernel.SpaceReadOnly) {
			metrics = append(metrics, sim.TextureMetrics(&counts.Texture, false)...)
		}
	}
	if *format == "json" {
		return writeJSON(stdout, traceJSON(d, l, insts, metrics, counts))
	}
	return writeTraceTotals(stdout, d, l, metrics, counts)
}

// checkCountWork refuses to count when doing so streams more than cap
// warp instructions (countWork, which sim.CountWork stops adding up past
// cap), suggesting a cap that will do: the launch's whole work and the
// walk, which counting never exceeds.
func checkCountWork(l *traces.Launch, work, countWork, cap float64) error {
	if countWork <= cap {
		return nil
	}
	most := work + sim.BlockWalk*float64(l.Blocks())
	return fmt.Errorf("%s with %s: counting it streams more than %s warp instructions, the cap (-max-work), which keeps a run within minutes; use smaller sizes (-set), or raise the cap with -max-work %s",
		l.Kernel.Name, l.ParamText(), sci(cap), raisedCap(most, cap))
}

// formatFloat prints a metric with at most two decimals and no trailing
// zeros.
func formatFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// plural writes n and the noun, with an s (es after an s) unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func describeDevice(d *arch.Device) string {
	path := ""
	switch d.Coalescer.Rule {
	case arch.RuleCC20, arch.RuleCC30:
		if sim.LoadPath(d) == coalesce.L1 {
			path = ", loads cached in L1 (128-B lines)"
		} else {
			path = ", loads cached in L2 only (32-B segments)"
		}
	}
	return fmt.Sprintf("%s (%s, compute capability %s, coalescer %s%s)", d.Name, d.Board, d.ComputeCapability, d.Coalescer.Rule, path)
}

func arrayShape(a traces.BoundArray) string {
	var b strings.Builder
	b.WriteString(a.TypeName())
	for _, n := range a.Dims {
		fmt.Fprintf(&b, "[%d]", n)
	}
	if a.Layout == kernel.ColMajor {
		b.WriteString(" col-major")
	}
	return b.String()
}

// writeTraceHead writes the launch and block 0's first n memory
// instructions with their transactions.
func writeTraceHead(w io.Writer, d *arch.Device, l *traces.Launch, insts []shownInst, n int) error {
	k := l.Kernel
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "device\t%s\n", describeDevice(d))
	if s := splitText(d); s != "" {
		fmt.Fprintf(tw, "cache config\t%s\n", s)
	}
	desc := ""
	if d := strings.TrimSpace(k.Description); d != "" {
		desc = ": " + strings.ReplaceAll(d, "\n", "\n\t") // aligned under the first line
	}
	fmt.Fprintf(tw, "kernel\t%s (%s; positions below are line:col there)%s\n", k.Name, k.File, desc)
	if l.Kernel.Program.Form == kernel.PerThread {
		fmt.Fprintln(tw, "form\tper-thread (__global__): each thread computes its indices from threadIdx and blockIdx")
	} else {
		fmt.Fprintf(tw, "mapping\t%s\n", l.Mapping)
	}
	fmt.Fprintf(tw, "block\t%s (%d threads, %d warps)\n", l.Block, l.Block.Threads(), l.WarpsPerBlock())
	fmt.Fprintf(tw, "grid\t%s (%s)\n", l.Grid(), plural(l.Blocks(), "block"))
	fmt.Fprintf(tw, "params\t%s\n", kernel.ParamsText(l.Params, " "))
	for i, a := range l.Arrays {
		label := ""
		if i == 0 {
			label = "arrays"
		}
		space := ""
		switch {
		case a.BlockLinear:
			space = ", texture memory, a block-linear cudaArray"
		case a.Space == kernel.SpaceConstant || a.Space == kernel.SpaceTexture:
			space = ", " + a.Space.String() + " memory"
		case a.Space == kernel.SpaceReadOnly:
			space = ", loads through the read-only data cache"
		case a.Remap != kernel.RemapNone:
			space = ", remap " + l.Kernel.ArrayNamed(a.Name).Remap.Text()
		}
		fmt.Fprintf(tw, "%s\t%s %s at %#x (%s%s)\n", label, a.Name, arrayShape(a), a.Base, arch.Bytes(a.Size), space)
	}
	for i, a := range l.Shared {
		label := ""
		if i == 0 {
			label = "__shared__"
		}
		fmt.Fprintf(tw, "%s\t%s %s at %#x of each block's shared memory (%s)\n", label, a.Name, arrayShape(a), a.Base, arch.Bytes(a.Size))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nBlock 0, the first %d memory instructions in issue order (warp 0's, then warp 1's, ...); compute instructions are one line each, not counted:\n", n)
	mem := 0
	for i := range insts {
		s := &insts[i]
		switch s.in.Op {
		case traces.OpCompute:
			fmt.Fprintf(w, "      warp %d  compute %d\n", s.in.Warp, s.in.Count)
			continue
		case traces.OpBarrier:
			fmt.Fprintf(w, "      warp %d  __syncthreads()\n", s.in.Warp)
			continue
		}
		mem++
		writeInst(w, l, mem, s)
	}
	if mem < n {
		fmt.Fprintf(w, "  (block 0 has only %d memory instructions)\n", mem)
	}
	return nil
}

// writeTraceTotals writes the whole kernel's counts per reference and as
// profiler metrics.
func writeTraceTotals(w io.Writer, d *arch.Device, l *traces.Launch, metrics []sim.Metric, c *sim.Counts) error {
	fmt.Fprintf(w, "\nTotals over the whole kernel (%s):\n", plural(l.Blocks(), "block"))
	if err := writeRefTable(w, d, l, c); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nProfiler metrics (%s):\n", d.Coalescer.Rule)
	return writeMetricTable(w, metrics, true)
}

func writeRefTable(w io.Writer, d *arch.Device, l *traces.Launch, c *sim.Counts) error {
	cc10 := d.Coalescer.Rule == arch.RuleCC10
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "REF\tAT\tOP\tREQUESTS\tTRANSACTIONS\t32B\t64B\t128B\tBYTES\tREQUESTED\tTXN/REQ\tEFFICIENCY %\t"
	if cc10 {
		head += "HALF-WARPS\tCOALESCED\t"
	}
	fmt.Fprintln(tw, head)
	row := func(name, at, op string, r *sim.RefCounts) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t", name, at, op,
			r.Requests, r.Transactions, r.Txn32, r.Txn64, r.Txn128, r.Bytes, r.RequestedBytes,
			formatFloat(r.TransactionsPerRequest()), formatFloat(r.Efficiency()))
		if cc10 {
			fmt.Fprintf(tw, "%d\t%d\t", r.HalfWarps, r.Coalesced)
		}
		fmt.Fprintln(tw)
	}
	for i := range l.Refs {
		r := &l.Refs[i]
		row(r.Text, fmt.Sprintf("%d:%d", r.Line, r.Col), r.Op.String(), &c.Refs[i])
	}
	row("all loads", "", "load", &c.Loads)
	row("all stores", "", "store", &c.Stores)
	return tw.Flush()
}
