package plot

import (
	"fmt"
	"slices"
)

// Bars is a grouped bar chart: for each group (a reference, a layout)
// one bar per series (a metric), on one y axis from zero.
type Bars struct {
	Title  string
	YLabel string
	Groups []string
	Series []string
	// Values[g][s] is series s of group g; every value is at least 0.
	Values [][]float64
}

// Size is the chart's width and height.
func (b *Bars) Size() (w, h float64) {
	return xyLeft + b.plotW() + xyRightRoom, xyTop + xyH + xyBottom
}

// plotW widens the plotting area when the groups need it.
func (b *Bars) plotW() float64 {
	return max(xyW, float64(len(b.Groups)*(len(b.Series)*18+24)))
}

func (b *Bars) check() (hi float64, err error) {
	if len(b.Groups) == 0 || len(b.Series) == 0 {
		return 0, fmt.Errorf("plot: bar chart %q has no groups or no series", b.Title)
	}
	if len(b.Values) != len(b.Groups) {
		return 0, fmt.Errorf("plot: bar chart %q has %d groups and %d rows of values", b.Title, len(b.Groups), len(b.Values))
	}
	for g, row := range b.Values {
		if len(row) != len(b.Series) {
			return 0, fmt.Errorf("plot: bar chart %q: group %s has %d values; want one per series (%d)", b.Title, b.Groups[g], len(row), len(b.Series))
		}
		for s, v := range row {
			what := fmt.Sprintf("%s of %s", b.Series[s], b.Groups[g])
			if err := finite(what, v); err != nil {
				return 0, err
			}
			if v < 0 {
				return 0, fmt.Errorf("plot: %s is %v; bars start at zero", what, v)
			}
			hi = max(hi, v)
		}
	}
	return hi, nil
}

func (b *Bars) draw(c *canvas) error {
	hi, err := b.check()
	if err != nil {
		return err
	}
	ticks := niceTicks(0, hi, 5)
	w := b.plotW()
	fr := frame{
		x:      linear{lo: 0, hi: float64(len(b.Groups)), a: xyLeft, b: xyLeft + w},
		y:      linear{lo: 0, hi: ticks[len(ticks)-1], a: xyTop + xyH, b: xyTop},
		yTicks: ticks, xFmt: numberText, yFmt: numberText, yName: b.YLabel,
	}
	c.text(10, 24, 14, "start", "title", b.Title, "font-weight=\"bold\"")
	fr.draw(c)
	slot := w / float64(len(b.Groups))
	barW := (slot - 16) / float64(len(b.Series))
	for g, name := range b.Groups {
		x0 := xyLeft + float64(g)*slot + 8
		for s, v := range b.Values[g] {
			top := fr.y.at(v)
			c.printf("<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" %s %s %s><title>%s</title></rect>\n",
				f(x0+float64(s)*barW), f(top), f(barW-1), f(fr.y.a-top), seriesColour(s),
				attr("data-group", name), attr("data-series", b.Series[s]), attr("data-value", numberText(v)),
				esc(fmt.Sprintf("%s, %s: %s", name, b.Series[s], numberText(v))))
		}
		c.text(xyLeft+(float64(g)+0.5)*slot, fr.y.a+16, 11, "middle", "x-label", name)
	}
	legend(c, xyLeft+w+16, xyTop, slices.Clone(b.Series))
	return nil
}
