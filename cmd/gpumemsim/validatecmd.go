package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
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

// config is one (mapping, block) configuration of a validate run.
type config struct {
	mapping kernel.Mapping
	cand    validate.JangCandidate
	launch  *traces.Launch
	res     *sim.Result
	metrics map[string]float64
	simRank int
	// perThread says the kernel is per-thread: it has no mapping.
	perThread bool
}

// mappingName names the configuration's mapping in the outputs.
func (c *config) mappingName() string { return mappingName(c.mapping, c.perThread) }

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "-device D -kernel K [-map ...|-maps all] [-blocks jang|LIST] [-layouts all|LIST] [-set ...] [-spaces A=constant,...] [-remap A=KIND,...] [-data NAME=SPEC] [-matrix SPEC] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-max-work N] [-sample [-sample-cycles-tol PCT] [-sample-count-tol PCT] [-sample-warmup WAVES]] [-format text|json|csv] [-plot FILE.svg]", stderr)
	lf := addLaunchFlags(fs)
	plotPath := plotFlag(fs)
	blocks := fs.String("blocks", "jang", "candidate blocks: `jang` (Algorithm 2's) or a list such as 32x8,16x16")
	maps := fs.String("maps", "", "`all`: every assignment of the mapped loops to thread dimensions")
	layouts := fs.String("layouts", "", "`all` or a list of the kernel file's layouts: rank them by Peng et al.'s cost against simulated cycles, at one mapping and block")
	format := fs.String("format", "text", "output format: text, json or csv")
	sf := addSampleFlags(fs)
	maxWork := workFlag(fs)
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	shapes, err := checkValidateFlags(lf, *blocks, *maps, *layouts, *format, *maxWork)
	if err != nil {
		return err
	}
	sample, err := sf.options(fs)
	if err != nil {
		return err
	}
	if *plotPath != "" {
		if err := checkPlotPath("-plot", *plotPath); err != nil {
			return err
		}
	}
	if *layouts != "" {
		if err := checkLayoutsFlags(fs, lf); err != nil {
			return err
		}
		return validateLayouts(ctx, lf, *layouts, *format, *plotPath, *maxWork, sample, stdout, stderr)
	}
	dev, base, err := lf.load()
	if err != nil {
		return err
	}
	mappings := []kernel.Mapping{base.Mapping}
	if *maps == "all" {
		if base.Info().PerThread {
			return fmt.Errorf("-maps all: %s is a per-thread kernel, with no loops to assign to thread dimensions (it computes its indices from threadIdx); hint: leave out -maps and compare block shapes with -blocks", base.Kernel.Name)
		}
		mappings = permutedMappings(base.Mapping)
	}
	params := base.ParamValues()
	runs, skipped, err := staticRanking(dev, base, params, mappings, shapes)
	if err != nil {
		return err
	}
	var applied []*validate.JangApplied
	if strings.TrimSpace(*lf.spaces) == "jang" {
		if runs, skipped, applied, err = jangRuns(dev, base, params, runs, skipped); err != nil {
			return err
		}
	}
	if err := simulateAll(ctx, dev, base, params, runs, *maxWork, sample, stderr); err != nil {
		return err
	}
	rankBySim(runs)
	static := make([]float64, len(runs))
	simulated := make([]float64, len(runs))
	for i, c := range runs {
		static[i] = float64(c.cand.Rank)
		simulated[i] = float64(c.res.Cycles)
	}
	cmp, err := validate.Compare(static, simulated)
	if err != nil {
		return err
	}
	if err := plotValidate(*plotPath, validateJSON(dev, base, runs, skipped, cmp)); err != nil {
		return err
	}
	switch *format {
	case "json":
		return writeJSON(stdout, validateJSON(dev, base, runs, skipped, cmp))
	case "csv":
		return writeValidateCSV(stdout, runs)
	}
	writeDeviceLines(stdout, dev)
	fmt.Fprint(stdout, kernelLine(base))
	for _, ap := range applied {
		fmt.Fprintf(stdout, "Spaces   %s\n", jangText(ap))
	}
	fmt.Fprintln(stdout)
	return writeValidateText(stdout, runs, skipped, cmp)
}

// checkLayoutsFlags refuses, with -layouts, the flags that vary what
// -layouts holds fixed.
func checkLayoutsFlags(fs *flag.FlagSet, lf *launchFlags) error {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "maps" || f.Name == "blocks" || f.Name == "layout" {
			bad = append(bad, "-"+f.Name)
		}
	})
	if strings.TrimSpace(*lf.spaces) == "jang" {
		bad = append(bad, "-spaces jang")
	}
	verb := "varies"
	if len(bad) > 1 {
		verb = "vary"
	}
	if len(bad) > 0 {
		return fmt.Errorf("-layouts compares layouts at one mapping and block; %s %s other things; hint: give -map and -block, or run validate once per layout", strings.Join(bad, ", "), verb)
	}
	return nil
}

// checkValidateFlags checks validate's own flags and returns the shapes
// of -blocks (nil for jang).
func checkValidateFlags(lf *launchFlags, blocks, maps, layouts, format string, maxWork float64) ([]arch.Dim3, error) {
	if err := checkFormat(format, "text", "json", "csv"); err != nil {
		return nil, err
	}
	if err := checkCap(maxWork); err != nil {
		return nil, err
	}
	if maps != "" && maps != "all" {
		return nil, fmt.Errorf("-maps: want all; got %q", maps)
	}
	if maps == "all" && *lf.mapping != "" {
		return nil, fmt.Errorf("-maps all and -map exclude each other")
	}
	if layouts == "" && *lf.block != "" {
		return nil, fmt.Errorf("-block: validate ranks the shapes of -blocks (jang: Algorithm 2's candidates), not one block; hint: -blocks %s validates that shape alone, and -layouts compares layouts at -block", *lf.block)
	}
	if blocks == "jang" {
		return nil, nil
	}
	var shapes []arch.Dim3
	for _, s := range strings.Split(blocks, ",") {
		b, err := arch.ParseDim3(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("-blocks: want jang or a list of shapes such as 32x8,16x16: %v", err)
		}
		if slices.Contains(shapes, b) {
			return nil, fmt.Errorf("-blocks: %s given twice; validate ranks each shape once", strings.TrimSpace(s))
		}
		shapes = append(shapes, b)
	}
	return shapes, nil
}

// staticRanking is J14's static model: Algorithm 2's candidates (or the
// given shapes) for every mapping, ranked together; it returns those that
// run on dev, and those Algorithm 2 visits but does not queue (skipped,
// each with its reason).
func staticRanking(dev *arch.Device, base *traces.Launch, params map[string]int64, mappings []kernel.Mapping, shapes []arch.Dim3) (runs, skipped []*config, err error) {
	var cfgs []*config
	anyGain := false
	for _, m := range mappings {
		cands, err := candidates(dev, base, params, m, shapes)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range cands {
			anyGain = anyGain || (c.Valid && c.Gain > 0)
			cfgs = append(cfgs, &config{mapping: m, cand: c, perThread: base.Info().PerThread})
		}
	}
	all := make([]validate.JangCandidate, len(cfgs))
	for i, c := range cfgs {
		all[i] = c.cand
	}
	validate.RankJang(all, anyGain)
	for i, c := range cfgs {
		c.cand = all[i]
		if c.cand.Valid {
			runs = append(runs, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	if len(runs) == 0 {
		return nil, nil, fmt.Errorf("no candidate configuration of %s runs on %s", base.Kernel.Name, dev.Name)
	}
	return runs, skipped, nil
}

// candidates are the work-group candidates of one mapping: Algorithm 2's,
// or the given shapes (a per-thread kernel's model is built at each).
func candidates(dev *arch.Device, base *traces.Launch, params map[string]int64, m kernel.Mapping, shapes []arch.Dim3) ([]validate.JangCandidate, error) {
	l, err := traces.Bind(base.Kernel, m, base.Block, params, dev)
	if err != nil {
		return nil, err
	}
	if shapes == nil {
		est, err := validate.NewJangEstimate(dev, l)
		if err != nil {
			return nil, err
		}
		return est.Candidates, nil
	}
	model, err := validate.NewJangModel(l)
	if err != nil {
		return nil, err
	}
	var cands []validate.JangCandidate
	for _, b := range shapes {
		if l.Info().PerThread {
			if _, err := traces.Bind(base.Kernel, m, b, params, dev); err != nil {
				return nil, fmt.Errorf("-blocks %v: %w", b, err) // a shape asked for must run
			}
		}
		cs, err := validate.JangSearchLaunch(dev, l, model, []arch.Dim3{b})
		if err != nil {
			return nil, fmt.Errorf("-blocks %v: %w", b, err)
		}
		cands = append(cands, cs...)
	}
	return cands, nil
}

// permutedMappings returns every assignment of m's loops to the first
// len(m) thread dimensions, starting with m itself.
func permutedMappings(m kernel.Mapping) []kernel.Mapping {
	out := []kernel.Mapping{m}
	axes := make([]kernel.Axis, len(m))
	for i := range axes {
		axes[i] = kernel.Axis(i)
	}
	var perm func(k int)
	perm = func(k int) {
		if k == len(axes) {
			nm := make(kernel.Mapping, len(m))
			for i, lm := range m {
				nm[i] = kernel.LoopMap{Loop: lm.Loop, Axis: axes[i]}
			}
			if !slices.ContainsFunc(out, func(o kernel.Mapping) bool { return o.String() == nm.String() }) {
				out = append(out, nm)
			}
			return
		}
		for i := k; i < len(axes); i++ {
			axes[k], axes[i] = axes[i], axes[k]
			perm(k + 1)
			axes[k], axes[i] = axes[i], axes[k]
		}
	}
	perm(0)
	return out
}

// simulateAll binds every configuration and simulates them in parallel
// with sim.RunAll; results come back in the order of runs, so the output
// does not depend on the order in which the runs finish.
func simulateAll(ctx context.Context, dev *arch.Device, base *traces.Launch, params map[string]int64, runs []*config, maxWork float64, sample sim.SampleOptions, stderr io.Writer) error {
	ls := make([]*traces.Launch, len(runs))
	for i, c := range runs {
		if c.launch == nil {
			l, err := traces.Bind(base.Kernel, c.mapping, c.cand.Block, params, dev)
			if err != nil {
				return err
			}
			c.launch = l
		}
		ls[i] = c.launch
	}
	what := fmt.Sprintf("%d configurations of %s with %s", len(runs), base.Kernel.Name, base.ParamText())
	results, err := simulateLaunches(ctx, dev, ls, "configurations", what, maxWork, sample, stderr, func(i int) string {
		return runs[i].mappingName() + " " + dimText(runs[i].cand.Block)
	})
	if err != nil {
		return err
	}
	for i, c := range runs {
		ms, err := sim.Metrics(dev, results[i], sim.StyleNvprof)
		if err != nil {
			return err
		}
		c.res, c.metrics = results[i], sim.MetricValues(ms)
	}
	return nil
}

// simulateLaunches simulates validate's launches in parallel, after
// refusing them together past maxWork, under a progress bar: noun names
// them on the bar ("configurations"), what in the refusal, and name(i)
// launch i in an error.
func simulateLaunches(ctx context.Context, dev *arch.Device, ls []*traces.Launch, noun, what string, maxWork float64, sample sim.SampleOptions, stderr io.Writer, name func(int) string) ([]*sim.Result, error) {
	jobs := make([]sim.Job, len(ls))
	var work workEstimate
	timed := shown(stderr)
	for i, l := range ls {
		insts, err := workOf(ctx, l, maxWork, stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name(i), err)
		}
		work = work.add(sampledOf(dev, l, insts, sample, 0, timed))
		jobs[i] = sim.Job{Device: dev, Source: l, Options: sim.Options{Sample: sample, MaxWork: maxWork}}
	}
	if err := checkWork(ctx, what, work.warpInsts, maxWork); err != nil {
		return nil, err
	}
	bar := newProgress(stderr, "simulating "+noun, work, runtime.GOMAXPROCS(0))
	defer bar.finish()
	for i := range jobs {
		jobs[i].Options.Progress = bar.job(i)
	}
	results, err := sim.RunAll(ctx, jobs, 0)
	var je *sim.JobError
	if errors.As(err, &je) {
		return nil, fmt.Errorf("%s: %w", name(je.Index), overWork("", je.Err, !sample.On))
	}
	return results, err
}

// jangRuns gives every configuration to run the launch of the kernel
// J14's Algorithm 1 selects for base's loop nest under its mapping
// (-spaces jang): one rewrite per mapping, bound at each block. A block
// the rewrite refuses (its barriers need whole blocks and strips) moves
// to skipped with the reason. It returns the rewrites, one per mapping.
func jangRuns(dev *arch.Device, base *traces.Launch, params map[string]int64, runs, skipped []*config) ([]*config, []*config, []*validate.JangApplied, error) {
	var applied []*validate.JangApplied
	byMapping := map[string]*validate.JangApplied{}
	var kept []*config
	for _, c := range runs {
		ap := byMapping[c.mapping.String()]
		if ap == nil {
			l, err := traces.Bind(base.Kernel, c.mapping, base.Block, params, dev)
			if err == nil {
				ap, err = validate.ApplyJang(l)
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("-spaces jang: %w", err)
			}
			byMapping[c.mapping.String()] = ap
			applied = append(applied, ap)
		}
		l, err := traces.Bind(ap.Kernel, nil, c.cand.Block, params, dev)
		if err != nil {
			c.cand.Reason = "-spaces jang: " + err.Error()
			skipped = append(skipped, c)
			continue
		}
		c.launch = l
		kept = append(kept, c)
	}
	if len(kept) == 0 {
		return nil, nil, nil, fmt.Errorf("-spaces jang: no candidate configuration of %s runs with Algorithm 1's selection on %s", base.Kernel.Name, dev.Name)
	}
	return kept, skipped, applied, nil
}

// jangText says what -spaces jang did with each array.
func jangText(ap *validate.JangApplied) string {
	var parts []string
	for _, p := range ap.Arrays {
		s := p.Array + " " + p.Space
		if p.Tile != "" {
			s += " via " + p.Tile + " along " + p.Strip
		}
		if p.NotApplied != "" {
			s += " (not applied: " + p.NotApplied + ")"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("J14 Algorithm 1 (-spaces jang, %s): %s", ap.Model.Mapping, strings.Join(parts, "; "))
}

// rankBySim gives dense ranks by simulated cycles, 1 the fastest.
func rankBySim(runs []*config) {
	cycles := make([]int64, len(runs))
	for i, c := range runs {
		cycles[i] = c.res.Cycles
	}
	for i, r := range cycleRanks(cycles) {
		runs[i].simRank = r
	}
}

// cycleRanks are the dense ranks of cycles, 1 the fewest; equal values
// share a rank.
func cycleRanks(cycles []int64) []int {
	sorted := slices.Compact(slices.Sorted(slices.Values(cycles)))
	ranks := make([]int, len(cycles))
	for i, c := range cycles {
		r, _ := slices.BinarySearch(sorted, c)
		ranks[i] = r + 1
	}
	return ranks
}

func writeValidateText(w io.Writer, runs, skipped []*config, cmp validate.Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tMapping\tWGS\tAWG\tOC\tCost\tGain\tOR\tSim cycles\tSim ms\tSim rank\tgld_transactions\tdram_read_transactions\t")
	for i, c := range runs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%.0f%%\t%d\t%d\t%d\t%d\t%.4f\t%d\t%.0f\t%.0f\t\n", i+1, c.mappingName(), dimText(c.cand.Block),
			c.cand.AWG, 100*c.cand.Occupancy, c.cand.Cost, c.cand.Gain, c.cand.Rank, c.res.Cycles, c.res.TimeMS, c.simRank,
			c.metrics["gld_transactions"], c.metrics["dram_read_transactions"])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWGS work-group (block) size, x first as -block takes it; AWG active work groups (blocks) per SM;")
	fmt.Fprintln(w, "OC occupancy; Cost and Gain J14's per-work-group estimates; OR J14's static rank (Algorithm 2).")
	for _, c := range skipped {
		fmt.Fprintf(w, "Not run (Algorithm 2 visits it but does not queue it): %s %s: %s\n", c.mappingName(), dimText(c.cand.Block), c.cand.Reason)
	}
	pick, best := runs[cmp.StaticPick], runs[cmp.SimulatedBest]
	fmt.Fprintf(w, "\nStatic rank (OR) against simulated cycles, n = %d:\n", cmp.N)
	fmt.Fprintf(w, "  Spearman ρ %s   Kendall τ-b %s   Pearson r %s\n", num(cmp.Spearman), num(cmp.KendallTauB), num(cmp.Pearson))
	fmt.Fprintf(w, "  static pick: #%d %s %s; simulated best: #%d %s %s; top-1 agreement: %v; regret %s\n",
		cmp.StaticPick+1, pick.mappingName(), dimText(pick.cand.Block), cmp.SimulatedBest+1, best.mappingName(), dimText(best.cand.Block),
		cmp.Top1Agree, num(cmp.Regret))
	for _, warn := range cmp.Warnings {
		fmt.Fprintf(w, "  warning: %v\n", warn)
	}
	writeSampledRuns(w, runs)
	return nil
}

// writeSampledRuns says, after validate -sample, which runs were
// extrapolated and how sure their cycles are.
func writeSampledRuns(w io.Writer, runs []*config) {
	for i, c := range runs {
		writeSampledRun(w, i, c.res)
	}
}

// writeSampledRun says, after a sampled run, what row i simulated and
// how sure its cycles are; nothing for a run that simulated every block.
func writeSampledRun(w io.Writer, i int, res *sim.Result) {
	if s := res.Sampling; s != nil && s.SkippedBlocks > 0 {
		fmt.Fprintf(w, "  #%d sampled: %d of %d blocks simulated; cycles ± %.2f%% (95%% CI)\n", i+1,
			s.SimulatedBlocks, s.SimulatedBlocks+s.SkippedBlocks, 100*s.CyclesCI95/float64(res.Cycles))
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

type validateRow struct {
	Row        int                `json:"row"` // from 1, as the text's #
	Mapping    string             `json:"mapping"`
	Block      string             `json:"block"`
	AWG        int                `json:"awg"`
	Occupancy  float64            `json:"occupancy"`
	Cost       int64              `json:"cost"`
	Gain       int64              `json:"gain"`
	StaticRank int                `json:"static_rank"`
	SimCycles  int64              `json:"sim_cycles"`
	SimTimeMS  float64            `json:"sim_time_ms"`
	SimRank    int                `json:"sim_rank"`
	Metrics    map[string]float64 `json:"metrics"`
	// Sampling says, for a run of validate -sample, what was simulated
	// and the 95% half-width of SimCycles.
	Sampling *sim.Sampling `json:"sampling,omitempty"`
}

func rowsOf(runs []*config) []validateRow {
	rows := make([]validateRow, len(runs))
	for i, c := range runs {
		rows[i] = validateRow{Row: i + 1, Mapping: c.mappingName(), Block: dimText(c.cand.Block), AWG: c.cand.AWG,
			Occupancy: c.cand.Occupancy, Cost: c.cand.Cost, Gain: c.cand.Gain, StaticRank: c.cand.Rank,
			SimCycles: c.res.Cycles, SimTimeMS: c.res.TimeMS, SimRank: c.simRank, Metrics: c.metrics, Sampling: c.res.Sampling}
	}
	return rows
}

// notRun is a configuration Algorithm 2 visits but does not queue.
type notRun struct {
	Mapping string `json:"mapping"`
	Block   string `json:"block"`
	Reason  string `json:"reason"`
}

func validateJSON(dev *arch.Device, base *traces.Launch, runs, skipped []*config, cmp validate.Comparison) any {
	var nr []notRun
	for _, c := range skipped {
		nr = append(nr, notRun{c.mappingName(), dimText(c.cand.Block), c.cand.Reason})
	}
	return struct {
		Device      string              `json:"device"`
		CacheConfig arch.CacheConfig    `json:"cache_config,omitempty"`
		Kernel      string              `json:"kernel"`
		Params      string              `json:"params"`
		Rows        []validateRow       `json:"rows"`
		NotRun      []notRun            `json:"not_run,omitempty"`
		Summary     validate.Comparison `json:"summary"`
	}{dev.Name, dev.CacheConfig, base.Kernel.Name, base.ParamText(), rowsOf(runs), nr, cmp}
}

func writeValidateCSV(w io.Writer, runs []*config) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"row", "mapping", "block", "awg", "occupancy", "cost", "gain", "static_rank", "sim_cycles", "sim_time_ms", "sim_rank", "gld_transactions", "dram_read_transactions"})
	for _, r := range rowsOf(runs) {
		cw.Write([]string{strconv.Itoa(r.Row), r.Mapping, r.Block, strconv.Itoa(r.AWG), strconv.FormatFloat(r.Occupancy, 'f', -1, 64),
			strconv.FormatInt(r.Cost, 10), strconv.FormatInt(r.Gain, 10), strconv.Itoa(r.StaticRank),
			strconv.FormatInt(r.SimCycles, 10), strconv.FormatFloat(r.SimTimeMS, 'f', -1, 64), strconv.Itoa(r.SimRank),
			strconv.FormatFloat(r.Metrics["gld_transactions"], 'f', -1, 64), strconv.FormatFloat(r.Metrics["dram_read_transactions"], 'f', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}
