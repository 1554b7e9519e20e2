package main

import (
	"fmt"
	"slices"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/plot"
)

// A sweep's -plot is a heat map of one metric over the sweep's two
// varying axes, a 2-D block counting as two (block x, block y), so that a
// sweep of block shapes draws J14's Fig. 2. One varying axis is drawn as
// one row of cells; a row that failed is an empty cell. The axes are
// chosen from the rows before any is simulated, so that a sweep that
// cannot be drawn is refused at once.

// sweepPlot is what -plot draws: the metric and the two axes.
type sweepPlot struct {
	metric string
	split  bool // the block column is split into its x and y extents
	x, y   string
}

// newSweepPlot chooses the axes of the rows' heat map.
func newSweepPlot(metric string, rows []sweepParams) (*sweepPlot, error) {
	p := &sweepPlot{metric: metric}
	p.split = slices.ContainsFunc(rows, func(r sweepParams) bool { return strings.Contains(r.Block, "x") })
	cols := p.columns()
	var varying []string
	for i, name := range cols {
		first := p.values(rows[0])[i]
		if slices.ContainsFunc(rows[1:], func(r sweepParams) bool { return p.values(r)[i] != first }) {
			varying = append(varying, name)
		}
	}
	switch len(varying) {
	case 0:
		p.x, p.y = cols[0], cols[1] // the device and the kernel, both fixed
	case 1:
		p.x, p.y = varying[0], cols[0]
		if p.x == cols[0] {
			p.y = cols[1]
		}
	case 2:
		p.x, p.y = varying[0], varying[1]
	default:
		return nil, fmt.Errorf("-plot: a heat map takes two varying axes; %s vary; hint: sweep two of them (the others fixed), or draw from -format json with gpumemsim plot", strings.Join(varying, ", "))
	}
	return p, nil
}

// columns are the parameter columns as the heat map sees them.
func (p *sweepPlot) columns() []string {
	cols := slices.Clone(paramColumns)
	if p.split {
		b := slices.Index(cols, "block")
		cols = slices.Replace(cols, b, b+1, "block x", "block y")
	}
	return cols
}

// values are row r's values of columns().
func (p *sweepPlot) values(r sweepParams) []string {
	vals := r.values()
	if p.split {
		b := slices.Index(paramColumns, "block")
		bx, by := vals[b], "" // "" is the kernel file's block
		if d, err := arch.ParseDim3(vals[b]); err == nil {
			bx, by = fmt.Sprint(d.X), fmt.Sprint(d.Y)
			if d.Z > 1 {
				by += "x" + fmt.Sprint(d.Z) // height × depth
			}
		}
		vals = slices.Replace(vals, b, b+1, bx, by)
	}
	return vals
}

// draw writes the heat map of the table's rows that ran into path.
func (p *sweepPlot) draw(path string, t *sweepTable) error {
	if !slices.Contains(t.metricColumns(), p.metric) {
		return fmt.Errorf("-plot-metric: no metric %q in the sweep; hint: name one of its metric columns, e.g. sim_cycles", p.metric)
	}
	tab := &plot.Table{Params: p.columns(), Metric: p.metric}
	for _, r := range t.Records {
		if r.Err == "" {
			tab.Rows = append(tab.Rows, plot.Row{Params: p.values(r.Params), Value: r.Values[p.metric]})
		}
	}
	hm, err := tab.HeatMap(p.x, p.y)
	if err != nil {
		return fmt.Errorf("-plot: %v", err)
	}
	hm.Title = p.title(t)
	return writeSVG(path, nil, []plot.Chart{hm})
}

// title names the metric and the parameters the heat map holds fixed
// (those with a value): "sim_cycles; device gt200, kernel matmul-tiled".
func (p *sweepPlot) title(t *sweepTable) string {
	var fixed []string
	if len(t.Records) > 0 {
		vals := p.values(t.Records[0].Params)
		for i, name := range p.columns() {
			if name != p.x && name != p.y && vals[i] != "" {
				fixed = append(fixed, name+" "+vals[i])
			}
		}
	}
	return strings.Join(append([]string{p.metric}, fixed...), "; ")
}
