package main

import (
	"context"
	"encoding/csv"
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

// layoutRun is one data layout of validate -layouts: Peng et al.'s static
// estimate and the simulation.
type layoutRun struct {
	name     string
	launch   *traces.Launch
	peng     validate.PengResult
	pengRank int
	res      *sim.Result
	simCost  float64
	simRank  int
	gld, gst float64
}

// validateLayouts is validate -layouts: every named layout of the
// kernel's struct arrays (or those listed), each estimated with Peng et
// al.'s cost model and simulated at the one mapping and block the flags
// give; the layouts are ranked by Peng's cost vector and by simulated
// cycles, and the ranks compared.
func validateLayouts(ctx context.Context, lf *launchFlags, list, format, plotPath string, maxWork float64, sample sim.SampleOptions, stdout, stderr io.Writer) error {
	a, err := lf.parse()
	if err != nil {
		return err
	}
	names, err := layoutList(a.k, list)
	if err != nil {
		return err
	}
	runs := make([]*layoutRun, len(names))
	for i, name := range names {
		k := *a.k // Bind reads the layout from the kernel: one copy each
		if err := k.SelectLayout(name); err != nil {
			return err
		}
		l, err := bindLaunch(&k, a.m, a.block, a.params, a.dev)
		if err != nil {
			return fmt.Errorf("layout %s: %w", name, err)
		}
		p, err := validate.PengEstimate(a.dev, l)
		if err != nil {
			return fmt.Errorf("layout %s: %w", name, err)
		}
		runs[i] = &layoutRun{name: name, launch: l, peng: p}
	}
	if err := simulateLayouts(ctx, a.dev, runs, maxWork, sample, stderr); err != nil {
		return err
	}
	rankLayouts(runs)
	static := make([]float64, len(runs))
	simulated := make([]float64, len(runs))
	for i, r := range runs {
		static[i], simulated[i] = float64(r.pengRank), float64(r.res.Cycles)
	}
	cmp, err := validate.Compare(static, simulated)
	if err != nil {
		return err
	}
	if err := plotValidate(plotPath, layoutsJSON(a.dev, runs, cmp)); err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(stdout, layoutsJSON(a.dev, runs, cmp))
	case "csv":
		return writeLayoutsCSV(stdout, runs)
	}
	writeDeviceLines(stdout, a.dev)
	fmt.Fprint(stdout, strings.TrimSuffix(kernelLine(runs[0].launch), "  layout "+runs[0].name+"\n")+"\n\n")
	return writeLayoutsText(stdout, runs, cmp)
}

// layoutList is the layouts -layouts names: all of the kernel's, or a
// comma list of them.
func layoutList(k *kernel.Kernel, list string) ([]string, error) {
	if len(k.Layouts) == 0 {
		return nil, fmt.Errorf("-layouts: kernel %s declares no layouts; hint: add a layouts: key that groups its struct arrays' fields, or leave out -layouts", k.Name)
	}
	if list == "all" {
		return k.LayoutNames(), nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(k.LayoutNames(), n) {
			return nil, fmt.Errorf("-layouts: kernel %s has no layout %q; hint: want all or some of %s", k.Name, n, strings.Join(k.LayoutNames(), ", "))
		}
		if slices.Contains(names, n) {
			return nil, fmt.Errorf("-layouts: %s listed twice", n)
		}
		names = append(names, n)
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("-layouts: one layout (%s) has nothing to be ranked against; hint: list two or more, or give all", names[0])
	}
	return names, nil
}

// simulateLayouts simulates every layout's launch and works out Peng's
// cost of what the simulation counted.
func simulateLayouts(ctx context.Context, dev *arch.Device, runs []*layoutRun, maxWork float64, sample sim.SampleOptions, stderr io.Writer) error {
	ls := make([]*traces.Launch, len(runs))
	for i, r := range runs {
		ls[i] = r.launch
	}
	l := runs[0].launch
	what := fmt.Sprintf("%d layouts of %s with %s", len(runs), l.Kernel.Name, l.ParamText())
	results, err := simulateLaunches(ctx, dev, ls, "layouts", what, maxWork, sample, stderr, func(i int) string { return "layout " + runs[i].name })
	if err != nil {
		return err
	}
	for i, r := range runs {
		r.res = results[i]
		r.gld, r.gst = float64(r.res.Loads.Transactions), float64(r.res.Stores.Transactions)
		if r.simCost, err = simulatedPengCost(r.peng.Weights, r.res); err != nil {
			return fmt.Errorf("layout %s: %w", r.name, err)
		}
	}
	return nil
}

// simulatedPengCost is Peng et al.'s cost function evaluated on what the
// simulation counted, as the paper evaluates it on profiled counts:
// N_read and N_write the global load and store transactions, R_L1 the L1
// hit ratio of global loads, R_L2 the L2's read hit ratio in sectors, and
// R_L2write the share of written sectors that never reached DRAM (1 −
// (write-back + dirty at end) / written; the L2 keeps no write hit count
// of its own).
func simulatedPengCost(w validate.PengWeights, res *sim.Result) (float64, error) {
	t := validate.PengTraffic{ReadRequests: res.Loads.Transactions, WriteRequests: res.Stores.Transactions}
	if res.L1.Accesses > 0 {
		t.L1ReadHit = float64(res.L1.Hits) / float64(res.L1.Accesses)
	}
	if res.L2.ReadSectors > 0 {
		t.L2ReadHit = float64(res.L2.ReadHitSectors) / float64(res.L2.ReadSectors)
	}
	if res.L2.WriteSectors > 0 {
		out := float64(res.L2.WriteBackSectors+res.L2.DirtySectorsAtEnd) / float64(res.L2.WriteSectors)
		t.L2WriteHit = 1 - min(out, 1)
	}
	rd, wr, err := validate.PengCost(w, t)
	return rd + wr, err
}

// rankLayouts ranks the layouts by Peng's cost vector (his order: the
// rightmost entry most significant; 1 plus the layouts that cost less)
// and, as rankBySim does, densely by simulated cycles.
func rankLayouts(runs []*layoutRun) {
	cycles := make([]int64, len(runs))
	for i, r := range runs {
		cycles[i] = r.res.Cycles
		r.pengRank = 1
		for _, o := range runs {
			if validate.ComparePengCostVectors(o.peng.CostVector, r.peng.CostVector) < 0 {
				r.pengRank++
			}
		}
	}
	for i, rank := range cycleRanks(cycles) {
		runs[i].simRank = rank
	}
}

func writeLayoutsText(w io.Writer, runs []*layoutRun, cmp validate.Comparison) error {
	fmt.Fprintf(w, "Peng et al. (PEN): weights %s\n\n", runs[0].peng.Weights.String())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tLayout\tPeng cost\tPeng rank\tSim cost\tSim cycles\tSim ms\tSim rank\tgld_transactions\tgst_transactions\t")
	for i, r := range runs {
		fmt.Fprintf(tw, "%d\t%s\t%.6g\t%d\t%.6g\t%d\t%.4f\t%d\t%.0f\t%.0f\t\n", i+1, r.name, r.peng.Cost, r.pengRank, r.simCost,
			r.res.Cycles, r.res.TimeMS, r.simRank, r.gld, r.gst)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nPeng cost and rank: the static estimate and its cost-vector order; Sim cost: Peng's formula on the")
	fmt.Fprintln(w, "simulated counts (transactions, L1 and L2 hit ratios); Sim rank: by simulated cycles.")
	if ind := indirectAccesses(runs[0].peng); ind != "" {
		fmt.Fprintf(w, "Peng's estimate of %s: %s.\n", ind, validate.PengIndirectAssumption)
	}
	pick, best := runs[cmp.StaticPick], runs[cmp.SimulatedBest]
	fmt.Fprintf(w, "\nPeng rank against simulated cycles, n = %d:\n", cmp.N)
	fmt.Fprintf(w, "  Spearman ρ %s   Kendall τ-b %s   Pearson r %s\n", num(cmp.Spearman), num(cmp.KendallTauB), num(cmp.Pearson))
	fmt.Fprintf(w, "  static pick: #%d %s; simulated best: #%d %s; top-1 agreement: %v; regret %s\n",
		cmp.StaticPick+1, pick.name, cmp.SimulatedBest+1, best.name, cmp.Top1Agree, num(cmp.Regret))
	for _, warn := range cmp.Warnings {
		fmt.Fprintf(w, "  warning: %v\n", warn)
	}
	for i, r := range runs {
		writeSampledRun(w, i, r.res)
	}
	return nil
}

type layoutRow struct {
	Row        int                     `json:"row"`
	Layout     string                  `json:"layout"`
	PengCost   float64                 `json:"peng_cost"`
	CostVector validate.PengCostVector `json:"peng_cost_vector"`
	PengRank   int                     `json:"peng_rank"`
	SimCost    float64                 `json:"sim_cost"`
	SimCycles  int64                   `json:"sim_cycles"`
	SimTimeMS  float64                 `json:"sim_time_ms"`
	SimRank    int                     `json:"sim_rank"`
	GLD        float64                 `json:"gld_transactions"`
	GST        float64                 `json:"gst_transactions"`
	Sampling   *sim.Sampling           `json:"sampling,omitempty"`
}

func layoutsJSON(dev *arch.Device, runs []*layoutRun, cmp validate.Comparison) any {
	rows := make([]layoutRow, len(runs))
	for i, r := range runs {
		rows[i] = layoutRow{i + 1, r.name, r.peng.Cost, r.peng.CostVector, r.pengRank, r.simCost, r.res.Cycles, r.res.TimeMS, r.simRank, r.gld, r.gst, r.res.Sampling}
	}
	l := runs[0].launch
	li := launchOf(l, nil)
	li.Layout = "" // each row's
	return struct {
		Device  string              `json:"device"`
		Kernel  string              `json:"kernel"`
		Launch  launchInfo          `json:"launch"`
		Weights string              `json:"peng_weights"`
		Rows    []layoutRow         `json:"rows"`
		Summary validate.Comparison `json:"summary"`
	}{dev.Name, l.Kernel.Name, li, runs[0].peng.Weights.String(), rows, cmp}
}

func writeLayoutsCSV(w io.Writer, runs []*layoutRun) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"row", "layout", "peng_cost", "peng_rank", "sim_cost", "sim_cycles", "sim_time_ms", "sim_rank", "gld_transactions", "gst_transactions"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i, r := range runs {
		cw.Write([]string{strconv.Itoa(i + 1), r.name, f(r.peng.Cost), strconv.Itoa(r.pengRank), f(r.simCost), strconv.FormatInt(r.res.Cycles, 10),
			f(r.res.TimeMS), strconv.Itoa(r.simRank), f(r.gld), f(r.gst)})
	}
	cw.Flush()
	return cw.Error()
}

// indirectAccesses names the accesses of p whose subscripts depend on
// data ("NEI[k], rB[j].rv_v"), whose estimate rests on Peng's assumption
// for them; "" if none. Every layout has the same accesses.
func indirectAccesses(p validate.PengResult) string {
	var names []string
	for _, a := range p.Accesses {
		if a.Indirect {
			names = append(names, a.Text)
		}
	}
	return strings.Join(names, ", ")
}
