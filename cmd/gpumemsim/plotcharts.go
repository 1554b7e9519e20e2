package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/plot"
)

// Plot kinds: what -kind names.
const (
	kindAuto    = "auto"
	kindHeatmap = "heatmap"
	kindRank    = "rank"
	kindBars    = "bars"
	kindCurve   = "curve"
)

var plotKinds = []string{kindAuto, kindHeatmap, kindRank, kindBars, kindCurve}

// plotOptions are plot's flags: the kind, the metrics (bars takes a
// comma list; "" for each kind's default) and the curve's x parameter.
type plotOptions struct {
	kind, metric, x string
}

// chartsOf draws docs as opts say. auto draws what validate -plot
// draws: a heat map of simulated cycles over the block shapes and the
// rank scatter (-blocks), the rank scatter alone (several mappings or 3-D
// blocks), bars of the transactions per layout and the rank scatter
// (-layouts), a run's references as bars, or several runs as a curve.
func chartsOf(docs []*plotDoc, opts plotOptions) ([]plot.Chart, error) {
	d := docs[0]
	curve := opts.kind == kindCurve || opts.kind == kindAuto && len(docs) > 1
	if opts.x != "" && !curve {
		return nil, fmt.Errorf("-x: only a curve (-kind curve, or several runs) has a parameter along x")
	}
	if opts.metric != "" && (opts.kind == kindRank || opts.kind == kindAuto && d.kind == docBlocks && !d.shapesGrid()) {
		return nil, fmt.Errorf("-metric: the rank scatter draws ranks and takes no metric; hint: -kind bars draws a metric per row")
	}
	if opts.kind != kindCurve && len(docs) > 1 {
		if opts.kind != kindAuto || d.kind != docRun {
			return nil, fmt.Errorf("%s: %d JSON documents; -kind %s draws one; hint: -kind curve draws several runs", docs[1].src, len(docs), opts.kind)
		}
		return oneChart(curveOf(docs, opts))
	}
	switch opts.kind {
	case kindHeatmap:
		return oneChart(heatmapOf(d, opts.metric))
	case kindRank:
		return oneChart(rankOf(d))
	case kindBars:
		return oneChart(barsOf(d, opts.metric))
	case kindCurve:
		return oneChart(curveOf(docs, opts))
	}
	switch d.kind {
	case docBlocks:
		r, err := rankOf(d)
		if err != nil {
			return nil, err
		}
		if !d.shapesGrid() {
			return []plot.Chart{r}, nil
		}
		hm, err := heatmapOf(d, opts.metric)
		return []plot.Chart{hm, r}, err
	case docLayouts:
		b, err := barsOf(d, opts.metric)
		if err != nil {
			return nil, err
		}
		r, err := rankOf(d)
		return []plot.Chart{b, r}, err
	}
	return oneChart(barsOf(d, opts.metric))
}

func oneChart[C plot.Chart](c C, err error) ([]plot.Chart, error) {
	if err != nil {
		return nil, err
	}
	return []plot.Chart{c}, nil
}

// title names a validate or run document: kernel, device, params.
func (d *plotDoc) title() string {
	params := d.rec.text("params")
	if params == "" {
		var l struct {
			Params string `json:"params"`
		}
		json.Unmarshal(d.rec["launch"], &l)
		params = l.Params
	}
	return fmt.Sprintf("%s on %s (%s)", d.rec.text("kernel"), d.rec.text("device"), params)
}

// heatmapOf is a heat map of metric (default sim_cycles) over the block
// widths and heights of a validate document of one mapping.
func heatmapOf(d *plotDoc, metric string) (*plot.HeatMap, error) {
	if d.kind != docBlocks {
		return nil, fmt.Errorf("%s: -kind heatmap draws validate's rows of block shapes; this is %s; hint: -kind bars", d.src, d.what())
	}
	metric = cmp.Or(metric, "sim_cycles")
	tab := plot.Table{Params: []string{"block width (x)", "block height (y)"}, Metric: metric}
	if n := d.distinct("mapping"); n > 1 {
		return nil, fmt.Errorf("%s: the rows have %d mappings (-maps all); a heat map over block shapes needs one; hint: -kind rank, or validate with -map", d.src, n)
	}
	for i, row := range d.rows {
		b, err := arch.ParseDim3(row.text("block"))
		if err != nil || b.Z > 1 {
			return nil, fmt.Errorf("%s: row %d: block %q: a heat map is over width × height; hint: -kind rank", d.src, i+1, row.text("block"))
		}
		v, err := row.value(metric)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %v", d.src, i+1, err)
		}
		tab.Rows = append(tab.Rows, plot.Row{Params: []string{fmt.Sprint(b.X), fmt.Sprint(b.Y)}, Value: v})
	}
	hm, err := tab.HeatMap("block width (x)", "block height (y)")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", d.src, err)
	}
	hm.Title = d.title() + ": " + metric
	return hm, nil
}

// rankOf is the scatter of static against simulated rank of a validate
// document, with the Spearman ρ its summary gives.
func rankOf(d *plotDoc) (*plot.RankScatter, error) {
	static, label, xname := "static_rank", "block", "J14 static rank (OR, Algorithm 2)"
	if d.kind == docLayouts {
		static, label, xname = "peng_rank", "layout", "Peng et al.'s rank (cost vector)"
	}
	if d.kind == docRun {
		return nil, fmt.Errorf("%s: -kind rank draws validate's static and simulated ranks; this is %s", d.src, d.what())
	}
	var sum struct {
		Spearman *float64 `json:"spearman"`
	}
	json.Unmarshal(d.rec["summary"], &sum)
	r := &plot.RankScatter{Title: d.title(), XLabel: xname, YLabel: "simulated rank (by cycles)", Rho: math.NaN()}
	if sum.Spearman != nil {
		r.Rho = *sum.Spearman
	}
	several := d.distinct("mapping") > 1
	for i, row := range d.rows {
		s, err1 := row.value(static)
		m, err2 := row.value("sim_rank")
		if err := cmp.Or(err1, err2); err != nil {
			return nil, fmt.Errorf("%s: row %d: %v", d.src, i+1, err)
		}
		name := row.text(label)
		if several {
			name = row.text("mapping") + " " + name
		}
		r.Points = append(r.Points, plot.RankPoint{Label: name, Static: s, Simulated: m})
	}
	return r, nil
}

// shapesGrid says whether the rows' block shapes make a heat map: one
// mapping, and no block with a depth.
func (d *plotDoc) shapesGrid() bool {
	for _, row := range d.rows {
		if b, err := arch.ParseDim3(row.text("block")); err != nil || b.Z > 1 {
			return false
		}
	}
	return d.distinct("mapping") == 1
}

// distinct counts the distinct values of a text field over the rows.
func (d *plotDoc) distinct(field string) int {
	var seen []string
	for _, row := range d.rows {
		if v := row.text(field); !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	return len(seen)
}

// what says what wrote d, for errors.
func (d *plotDoc) what() string {
	return [...]string{"validate's output over block shapes", "validate -layouts' output", "run's output"}[d.kind]
}

// barsOf draws metrics (a comma list) for each row: each reference of a
// run (default requests,transactions), each layout (default
// gld_transactions,gst_transactions) or each block shape (sim_cycles).
func barsOf(d *plotDoc, metrics string) (*plot.Bars, error) {
	def, label := "requests,transactions", func(r record) string { return r.text("ref") + " (" + r.text("op") + ")" }
	switch d.kind {
	case docLayouts:
		def, label = "gld_transactions,gst_transactions", func(r record) string { return r.text("layout") }
	case docBlocks:
		def, label = "sim_cycles", func(r record) string { return r.text("mapping") + " " + r.text("block") }
	}
	if len(d.rows) == 0 {
		return nil, fmt.Errorf("%s: no references to draw", d.src)
	}
	series := strings.Split(cmp.Or(metrics, def), ",")
	b := &plot.Bars{Title: d.title(), YLabel: strings.Join(series, ", "), Series: series}
	for i, row := range d.rows {
		vals := make([]float64, len(series))
		for s, m := range series {
			v, err := row.value(strings.TrimSpace(m))
			if err != nil {
				return nil, fmt.Errorf("%s: row %d: %v", d.src, i+1, err)
			}
			vals[s] = v
		}
		b.Groups, b.Values = append(b.Groups, label(row)), append(b.Values, vals)
	}
	return b, nil
}

// curveOf draws several runs as lines: metric (default
// sim_cycles/inst_executed_global_loads, the latency probe's cycles per
// load) over the kernel parameter x (default: the one parameter that
// varies), one line per device and value of any other parameter that
// varies. The x axis is log₂ when every x is a power of two and they span
// a factor of 8 or more.
func curveOf(docs []*plotDoc, opts plotOptions) (*plot.Lines, error) {
	metric := cmp.Or(opts.metric, "sim_cycles/inst_executed_global_loads")
	params := make([][][2]string, len(docs))
	for i, d := range docs {
		if d.kind != docRun {
			return nil, fmt.Errorf("%s: -kind curve draws runs; this is %s", d.src, d.what())
		}
		p, err := d.launchParams()
		if err != nil {
			return nil, err
		}
		params[i] = p
	}
	varying := varyingParams(params)
	x := opts.x
	if x == "" {
		if len(varying) != 1 {
			return nil, fmt.Errorf("-x: give the parameter along x; the runs vary %s", orNone(varying))
		}
		x = varying[0]
	}
	l := &plot.Lines{Title: docs[0].rec.text("kernel") + ": " + metric, XLabel: x, YLabel: metric}
	allPow2 := true
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, d := range docs {
		xv, key, err := curvePoint(d, params[i], x, varying)
		if err != nil {
			return nil, err
		}
		y, err := d.rec.value(metric)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d.src, err)
		}
		k := slices.IndexFunc(l.Series, func(s plot.Series) bool { return s.Name == key })
		if k < 0 {
			l.Series, k = append(l.Series, plot.Series{Name: key}), len(l.Series)
		}
		l.Series[k].Points = append(l.Series[k].Points, plot.Point{X: xv, Y: y})
		allPow2 = allPow2 && xv >= 1 && xv == math.Trunc(xv) && bits.OnesCount64(uint64(xv)) == 1
		lo, hi = min(lo, xv), max(hi, xv)
	}
	for _, s := range l.Series {
		slices.SortStableFunc(s.Points, func(a, b plot.Point) int { return cmp.Compare(a.X, b.X) })
	}
	l.Log2X = allPow2 && hi >= 8*lo
	return l, nil
}

// curvePoint is a run's x and the name of its series: its device and
// the values of the other parameters that vary.
func curvePoint(d *plotDoc, params [][2]string, x string, varying []string) (float64, string, error) {
	key := []string{d.rec.text("device")}
	xv, found := 0.0, false
	for _, p := range params {
		switch {
		case p[0] == x:
			v, err := number(d.src, p[0], p[1])
			if err != nil {
				return 0, "", err
			}
			xv, found = v, true
		case slices.Contains(varying, p[0]):
			key = append(key, p[0]+"="+p[1])
		}
	}
	if !found {
		return 0, "", fmt.Errorf("%s: -x %s: the run has no such parameter; it has %s", d.src, x, paramNames(params))
	}
	return xv, strings.Join(key, " "), nil
}

// varyingParams are the parameters whose value differs between runs,
// in the order of the first run's.
func varyingParams(params [][][2]string) []string {
	var out []string
	for _, p := range params[0] {
		for _, q := range params[1:] {
			if i := slices.IndexFunc(q, func(kv [2]string) bool { return kv[0] == p[0] }); i < 0 || q[i][1] != p[1] {
				out = append(out, p[0])
				break
			}
		}
	}
	return out
}

func paramNames(params [][2]string) string {
	var names []string
	for _, p := range params {
		names = append(names, p[0])
	}
	return orNone(names)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
