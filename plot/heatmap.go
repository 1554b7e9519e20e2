package plot

import (
	"fmt"
	"math"
)

// HeatMap is a metric over two categorical parameters: one cell per
// (X, Y) pair, coloured along viridis from the lowest value (dark) to the
// highest (yellow), with the value printed in it and a colour scale
// beside it.
type HeatMap struct {
	Title          string
	XLabel, YLabel string // the parameters' names
	Metric         string // the legend's title
	Cells          []Cell
}

// Cell is one cell of a heat map.
type Cell struct {
	X, Y  string
	Value float64
}

const (
	cellW, cellH = 64, 36
	heatLeft     = 70 // room for the y labels and name
	heatTop      = 40 // the title
	heatBottom   = 50 // the x labels and name
	legendW      = 110
)

func (h *HeatMap) axes() (xs, ys []string) {
	var xv, yv []string
	for _, c := range h.Cells {
		xv, yv = append(xv, c.X), append(yv, c.Y)
	}
	return categories(xv), categories(yv)
}

// Size is the heat map's width and height.
func (h *HeatMap) Size() (w, hh float64) {
	xs, ys := h.axes()
	w = heatLeft + float64(len(xs))*cellW + legendW
	w = max(w, textWidth(h.Title, 14)+20)
	return w, heatTop + float64(max(len(ys), 4))*cellH + heatBottom
}

func (h *HeatMap) draw(c *canvas) error {
	if len(h.Cells) == 0 {
		return fmt.Errorf("plot: heat map %q has no cells", h.Title)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cl := range h.Cells {
		if err := finite(fmt.Sprintf("heat map cell %s=%s, %s=%s", h.XLabel, cl.X, h.YLabel, cl.Y), cl.Value); err != nil {
			return err
		}
		lo, hi = min(lo, cl.Value), max(hi, cl.Value)
	}
	xs, ys := h.axes()
	c.text(10, 24, 14, "start", "title", h.Title, "font-weight=\"bold\"")
	at := make(map[[2]string]int, len(h.Cells)) // looked up, never iterated
	for k, cl := range h.Cells {
		if _, dup := at[[2]string{cl.X, cl.Y}]; dup {
			return fmt.Errorf("plot: heat map %q has two cells at %s=%s, %s=%s", h.Title, h.XLabel, cl.X, h.YLabel, cl.Y)
		}
		at[[2]string{cl.X, cl.Y}] = k
	}
	for j, y := range ys {
		for i, x := range xs {
			k, ok := at[[2]string{x, y}]
			if !ok {
				k = -1
			}
			h.drawCell(c, heatLeft+float64(i)*cellW, heatTop+float64(j)*cellH, x, y, k, lo, hi)
		}
		c.text(heatLeft-6, heatTop+(float64(j)+0.5)*cellH+4, 12, "end", "y-label", y)
	}
	gridBottom := heatTop + float64(len(ys))*cellH
	for i, x := range xs {
		c.text(heatLeft+(float64(i)+0.5)*cellW, gridBottom+16, 12, "middle", "x-label", x)
	}
	c.text(heatLeft+float64(len(xs))*cellW/2, gridBottom+38, 12, "middle", "x-name", h.XLabel)
	cy := heatTop + float64(len(ys))*cellH/2
	c.text(18, cy, 12, "middle", "y-name", h.YLabel, fmt.Sprintf("transform=\"rotate(-90 18 %s)\"", f(cy)))
	h.drawLegend(c, heatLeft+float64(len(xs))*cellW+20, lo, hi)
	return nil
}

// drawCell draws the cell at (x, y) of the page for the heat map's cell
// k, or an empty cell when k < 0.
func (h *HeatMap) drawCell(c *canvas, px, py float64, x, y string, k int, lo, hi float64) {
	if k < 0 {
		c.printf("<rect class=\"empty\" x=\"%s\" y=\"%s\" width=\"%d\" height=\"%d\" fill=\"#f2f2f2\" stroke=\"#ffffff\"/>\n", f(px), f(py), cellW, cellH)
		return
	}
	v := h.Cells[k].Value
	t := 0.5
	if hi > lo {
		t = fraction(v, lo, hi)
	}
	c.printf("<rect class=\"cell\" x=\"%s\" y=\"%s\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" %s %s %s><title>%s</title></rect>\n",
		f(px), f(py), cellW, cellH, colour(t), attr("data-x", x), attr("data-y", y), attr("data-value", numberText(v)),
		esc(fmt.Sprintf("%s=%s, %s=%s: %s %s", h.XLabel, x, h.YLabel, y, h.Metric, numberText(v))))
	ink := "#000000"
	if dark(t) {
		ink = "#ffffff"
	}
	c.text(px+cellW/2, py+cellH/2+4, 11, "middle", "value", numberText(v), "fill=\""+ink+"\"")
}

// drawLegend draws the colour scale: a bar from the highest value (top)
// to the lowest, its ends and middle labelled.
func (h *HeatMap) drawLegend(c *canvas, x, lo, hi float64) {
	const barW, barH = 16, 140
	top := float64(heatTop)
	id := c.id("scale")
	c.printf("<defs><linearGradient id=\"%s\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n", id)
	for i := range viridis {
		t := float64(i) / float64(len(viridis)-1)
		c.printf("<stop offset=\"%s\" stop-color=\"%s\"/>\n", f(t), colour(t))
	}
	c.printf("</linearGradient></defs>\n")
	c.text(x, top-8, 11, "start", "legend-title", h.Metric)
	c.printf("<rect class=\"legend\" x=\"%s\" y=\"%s\" width=\"%d\" height=\"%d\" fill=\"url(#%s)\" stroke=\"#888888\"/>\n", f(x), f(top), barW, barH, id)
	for _, tick := range []struct {
		frac float64
		v    float64
	}{{0, hi}, {0.5, (lo + hi) / 2}, {1, lo}} {
		y := top + tick.frac*barH
		c.line(x+barW, y, x+barW+4, y, "#444444")
		c.text(x+barW+7, y+4, 11, "start", "legend-tick", numberText(tick.v))
	}
}
