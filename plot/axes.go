package plot

import "fmt"

// frame is the plotting area of an x-y chart and its two numeric axes.
type frame struct {
	x, y         linear // data to page
	xTicks       []float64
	yTicks       []float64
	xFmt, yFmt   func(float64) string
	xName, yName string
}

// Layout of the x-y charts (scatter, bars, lines).
const (
	xyW, xyH    = 420, 300 // the plotting area
	xyLeft      = 70
	xyTop       = 40
	xyBottom    = 50
	xyRightRoom = 150 // a legend
)

// draw draws the axes, ticks, grid lines and the axes' names.
func (fr *frame) draw(c *canvas) {
	left, right := fr.x.a, fr.x.b
	bottom, top := fr.y.a, fr.y.b
	for _, t := range fr.yTicks {
		py := fr.y.at(t)
		c.line(left, py, right, py, "#e5e5e5", "class=\"grid\"")
		c.text(left-6, py+4, 11, "end", "y-tick", fr.yFmt(t))
	}
	for _, t := range fr.xTicks {
		px := fr.x.at(t)
		c.line(px, bottom, px, bottom+4, "#444444")
		c.text(px, bottom+16, 11, "middle", "x-tick", fr.xFmt(t))
	}
	c.line(left, bottom, right, bottom, "#444444", "class=\"axis\"")
	c.line(left, bottom, left, top, "#444444", "class=\"axis\"")
	c.text((left+right)/2, bottom+38, 12, "middle", "x-name", fr.xName)
	cy := (top + bottom) / 2
	c.text(16, cy, 12, "middle", "y-name", fr.yName, fmt.Sprintf("transform=\"rotate(-90 16 %s)\"", f(cy)))
}

// legend draws one entry per name, a swatch of its colour and the name,
// from (x, y) down.
func legend(c *canvas, x, y float64, names []string) {
	for i, n := range names {
		py := y + float64(i)*18
		c.printf("<rect class=\"swatch\" x=\"%s\" y=\"%s\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", f(x), f(py), seriesColour(i))
		c.text(x+18, py+10, 11, "start", "legend-entry", n)
	}
}
