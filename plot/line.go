package plot

import (
	"fmt"
	"math"
)

// Lines is a line chart of one or more series over a numeric x axis:
// the latency probe's time per load over its footprint or stride.
type Lines struct {
	Title          string
	XLabel, YLabel string
	// Log2X spaces x by its base-2 logarithm, with ticks at the powers of
	// two (written 4Ki, 2Mi); every x must then be positive.
	Log2X  bool
	Series []Series
}

// Series is one line: its points in the order they are joined.
type Series struct {
	Name   string
	Points []Point
}

// Point is one point of a series.
type Point struct{ X, Y float64 }

// Size is the chart's width and height.
func (l *Lines) Size() (w, h float64) {
	return xyLeft + xyW + xyRightRoom, xyTop + xyH + xyBottom
}

func (l *Lines) bounds() (xlo, xhi, ylo, yhi float64, err error) {
	xlo, ylo, xhi, yhi = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	n := 0
	for _, s := range l.Series {
		for _, p := range s.Points {
			what := fmt.Sprintf("a point of %s", s.Name)
			if err := finite(what+": x", p.X); err != nil {
				return 0, 0, 0, 0, err
			}
			if err := finite(what+": y", p.Y); err != nil {
				return 0, 0, 0, 0, err
			}
			if l.Log2X && p.X <= 0 {
				return 0, 0, 0, 0, fmt.Errorf("plot: %s has x = %v; a log₂ axis needs x > 0", what, p.X)
			}
			xlo, xhi, ylo, yhi = min(xlo, p.X), max(xhi, p.X), min(ylo, p.Y), max(yhi, p.Y)
			n++
		}
	}
	if n == 0 {
		return 0, 0, 0, 0, fmt.Errorf("plot: line chart %q has no points", l.Title)
	}
	return xlo, xhi, ylo, yhi, nil
}

func (l *Lines) draw(c *canvas) error {
	xlo, xhi, ylo, yhi, err := l.bounds()
	if err != nil {
		return err
	}
	yt := niceTicks(min(0, ylo), yhi, 5)
	fr := frame{
		y:      linear{lo: yt[0], hi: yt[len(yt)-1], a: xyTop + xyH, b: xyTop},
		yTicks: yt, xFmt: numberText, yFmt: numberText, xName: l.XLabel, yName: l.YLabel,
	}
	if l.Log2X {
		fr.xTicks, fr.xFmt = log2Ticks(xlo, xhi), binaryNumber
	} else {
		fr.xTicks = niceTicks(xlo, xhi, 6)
	}
	fr.x = linear{lo: fr.xTicks[0], hi: fr.xTicks[len(fr.xTicks)-1], a: xyLeft, b: xyLeft + xyW, log2: l.Log2X}
	c.text(10, 24, 14, "start", "title", l.Title, "font-weight=\"bold\"")
	fr.draw(c)
	names := make([]string, len(l.Series))
	for i, s := range l.Series {
		names[i] = s.Name
		col := seriesColour(i)
		pts := ""
		for k, p := range s.Points {
			if k > 0 {
				pts += " "
			}
			pts += f(fr.x.at(p.X)) + "," + f(fr.y.at(p.Y))
		}
		c.printf("<polyline class=\"series\" %s points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", attr("data-series", s.Name), pts, col)
		for _, p := range s.Points {
			c.printf("<circle class=\"point\" cx=\"%s\" cy=\"%s\" r=\"3\" fill=\"%s\" %s %s><title>%s</title></circle>\n",
				f(fr.x.at(p.X)), f(fr.y.at(p.Y)), col, attr("data-x", numberText(p.X)), attr("data-y", numberText(p.Y)),
				esc(fmt.Sprintf("%s: %s = %s, %s = %s", s.Name, l.XLabel, numberText(p.X), l.YLabel, numberText(p.Y))))
		}
	}
	legend(c, xyLeft+xyW+16, xyTop, names)
	return nil
}
