package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RankScatter plots each configuration's static rank (x) against its
// simulated rank (y), 1 the best on both, with the diagonal of perfect
// agreement and Spearman's ρ in the title.
type RankScatter struct {
	Title          string // ρ is appended: "Title (Spearman ρ = 0.900)"
	XLabel, YLabel string
	Rho            float64 // NaN: not defined (the title says so)
	Points         []RankPoint
}

// RankPoint is one configuration.
type RankPoint struct {
	Label             string // names it: a block shape, a layout
	Static, Simulated float64
}

// Size is the scatter's width and height.
func (r *RankScatter) Size() (w, h float64) {
	return xyLeft + xyW + xyRightRoom, xyTop + xyH + xyBottom
}

func (r *RankScatter) title() string {
	rho := "undefined"
	if !math.IsNaN(r.Rho) {
		rho = strconv.FormatFloat(r.Rho, 'f', 3, 64)
	}
	return fmt.Sprintf("%s (Spearman ρ = %s, n = %d)", r.Title, rho, len(r.Points))
}

func (r *RankScatter) draw(c *canvas) error {
	if len(r.Points) == 0 {
		return fmt.Errorf("plot: rank scatter %q has no points", r.Title)
	}
	hi := 1.0
	for _, p := range r.Points {
		for _, v := range []float64{p.Static, p.Simulated} {
			if err := finite("rank of "+p.Label, v); err != nil {
				return err
			}
			if v < 1 {
				return fmt.Errorf("plot: rank of %s is %v; ranks start at 1", p.Label, v)
			}
			hi = max(hi, v)
		}
	}
	ticks := rankTicks(hi)
	top := ticks[len(ticks)-1]
	fr := frame{
		x:      linear{lo: 0.5, hi: top + 0.5, a: xyLeft, b: xyLeft + xyW},
		y:      linear{lo: 0.5, hi: top + 0.5, a: xyTop + xyH, b: xyTop},
		xTicks: ticks, yTicks: ticks, xFmt: numberText, yFmt: numberText,
		xName: r.XLabel, yName: r.YLabel,
	}
	c.text(10, 24, 14, "start", "title", r.title(), "font-weight=\"bold\"")
	fr.draw(c)
	c.line(fr.x.at(1), fr.y.at(1), fr.x.at(top), fr.y.at(top), "#999999", "class=\"diagonal\"", "stroke-dasharray=\"4 4\"")
	for i, p := range r.Points {
		px, py := fr.x.at(p.Static), fr.y.at(p.Simulated)
		c.printf("<circle class=\"point\" cx=\"%s\" cy=\"%s\" r=\"5\" fill=\"%s\" fill-opacity=\"0.8\" %s %s %s><title>%s</title></circle>\n",
			f(px), f(py), seriesColour(0), attr("data-label", p.Label), attr("data-static", numberText(p.Static)), attr("data-simulated", numberText(p.Simulated)),
			esc(fmt.Sprintf("%s: static %s, simulated %s", p.Label, numberText(p.Static), numberText(p.Simulated))))
		c.text(px+7, py-5, 10, "start", "point-label", r.labelAt(i))
	}
	return nil
}

// labelAt is the label written beside point i: the labels of every
// point at the same place, on the first of them only, so that ties do
// not print over each other.
func (r *RankScatter) labelAt(i int) string {
	p := r.Points[i]
	var names []string
	for j, q := range r.Points {
		if q.Static == p.Static && q.Simulated == p.Simulated {
			if j < i {
				return ""
			}
			names = append(names, q.Label)
		}
	}
	return strings.Join(names, ", ")
}

// rankTicks are the ticks of a rank axis up to hi: every rank up to 12,
// then round steps.
func rankTicks(hi float64) []float64 {
	n := math.Ceil(hi)
	step := 1.0
	for n/step > 12 {
		switch {
		case step == 1:
			step = 2
		case step == 2:
			step = 5
		default:
			step *= 2
		}
	}
	ticks := []float64{1}
	for t := step; ; t += step {
		if t > 1 {
			ticks = append(ticks, t)
		}
		if t >= n {
			break
		}
	}
	return ticks
}
