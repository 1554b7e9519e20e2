package plot

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gpumemsim/internal/svgtest"
)

// Each point sits where the ticks of its ranks are; the title carries ρ;
// the two points at one place get one label naming both.
func TestRankScatterPoints(t *testing.T) {
	pts := []RankPoint{{"32x16", 1, 3}, {"16x32", 1, 3}, {"16x16", 2, 1}, {"256x2", 4, 4}, {"8x8", 3, 2}}
	r := &RankScatter{Title: "J14", XLabel: "static rank", YLabel: "simulated rank", Rho: 0.9, Points: pts}
	_, svg := render(t, r)
	if got := svg.All("text", "title")[0].Text; !strings.Contains(got, "ρ = 0.900") || !strings.Contains(got, "n = 5") {
		t.Errorf("title %q; want ρ = 0.900 and n = 5 in it", got)
	}
	tickX := map[string]float64{}
	for _, tk := range svg.All("text", "x-tick") {
		tickX[tk.Text] = tk.Num(t, "x")
	}
	tickY := map[string]float64{}
	for _, tk := range svg.All("text", "y-tick") {
		tickY[tk.Text] = tk.Num(t, "y") - 4 // the label's baseline sits 4 below its tick
	}
	circles := svg.All("circle", "point")
	if len(circles) != len(pts) {
		t.Fatalf("%d points; want %d", len(circles), len(pts))
	}
	for i, c := range circles {
		p := pts[i]
		sx, sy := strconv.Itoa(int(p.Static)), strconv.Itoa(int(p.Simulated))
		if c.Num(t, "cx") != tickX[sx] || c.Num(t, "cy") != tickY[sy] {
			t.Errorf("%s at (%v, %v); want the ticks of static %s and simulated %s at (%v, %v)", p.Label, c.Num(t, "cx"), c.Num(t, "cy"), sx, sy, tickX[sx], tickY[sy])
		}
	}
	labels := svgtest.Texts(svg.All("text", "point-label"))
	if labels[0] != "32x16, 16x32" || labels[1] != "" {
		t.Errorf("the tied points' labels %q, %q; want %q on the first and none on the second", labels[0], labels[1], "32x16, 16x32")
	}
	if err := (&RankScatter{Rho: math.NaN(), Points: []RankPoint{{"a", 0, 1}}}).draw(&canvas{}); err == nil {
		t.Error("rank 0: no error")
	}
}

// Bars stand on the axis with heights in proportion to their values.
func TestBarsHeights(t *testing.T) {
	b := &Bars{Title: "refs", YLabel: "count", Groups: []string{"A[i]", "B[j]"}, Series: []string{"requests", "transactions", "x"},
		Values: [][]float64{{100, 400, 0}, {50, 800, 25}}}
	_, svg := render(t, b)
	bars := svg.All("rect", "bar")
	if len(bars) != 6 {
		t.Fatalf("%d bars; want 6", len(bars))
	}
	base := bars[0].Num(t, "y") + bars[0].Num(t, "height")
	unit := bars[0].Num(t, "height") / 100 // page units per count
	for i, v := range []float64{100, 400, 0, 50, 800, 25} {
		h := bars[i].Num(t, "height")
		if math.Abs(h-v*unit) > 0.02 || math.Abs(bars[i].Num(t, "y")+h-base) > 0.02 {
			t.Errorf("bar %d (%v): height %v bottom %v; want %v and %v", i, v, h, bars[i].Num(t, "y")+h, v*unit, base)
		}
	}
	if got := svgtest.Texts(svg.All("text", "x-label")); got[0] != "A[i]" || got[1] != "B[j]" {
		t.Errorf("group labels %v", got)
	}
	if got := svgtest.Texts(svg.All("text", "legend-entry")); strings.Join(got, ",") != "requests,transactions,x" {
		t.Errorf("legend %v", got)
	}
	if err := Write(&strings.Builder{}, &Bars{Groups: []string{"a"}, Series: []string{"s"}, Values: [][]float64{{-1}}}); err == nil {
		t.Error("a negative bar: no error")
	}
}

// On a log₂ axis doubling footprints are evenly spaced; the polyline
// joins the points in order.
func TestLinesLog2(t *testing.T) {
	var s Series
	for i, fp := range []float64{1024, 2048, 4096, 8192} {
		s.Points = append(s.Points, Point{fp, float64(100 + 50*i)})
	}
	l := &Lines{Title: "probe", XLabel: "F (bytes)", YLabel: "cycles per load", Log2X: true, Series: []Series{s}}
	_, svg := render(t, l)
	pts := svg.All("circle", "point")
	if len(pts) != 4 {
		t.Fatalf("%d points; want 4", len(pts))
	}
	step := pts[1].Num(t, "cx") - pts[0].Num(t, "cx")
	for i := 1; i < 4; i++ {
		if d := pts[i].Num(t, "cx") - pts[i-1].Num(t, "cx"); math.Abs(d-step) > 0.02 || step <= 0 {
			t.Errorf("points %d and %d are %v apart; want %v (doubling x, even steps)", i-1, i, d, step)
		}
		dy := pts[i-1].Num(t, "cy") - pts[i].Num(t, "cy")
		if math.Abs(dy-(pts[0].Num(t, "cy")-pts[1].Num(t, "cy"))) > 0.02 || dy <= 0 {
			t.Errorf("y steps uneven or not upward: %v", dy)
		}
	}
	if got := svgtest.Texts(svg.All("text", "x-tick")); strings.Join(got, ",") != "1Ki,2Ki,4Ki,8Ki" {
		t.Errorf("x ticks %v; want 1Ki,2Ki,4Ki,8Ki", got)
	}
	if n := len(strings.Fields(svg.All("polyline", "series")[0].Attrs["points"])); n != 4 {
		t.Errorf("polyline of %d points; want 4", n)
	}
	if err := Write(&strings.Builder{}, &Lines{Log2X: true, Series: []Series{{Name: "s", Points: []Point{{0, 1}}}}}); err == nil {
		t.Error("x = 0 on a log axis: no error")
	}
}

// Two panels side by side: the second is translated by the first's
// width and the gap, and the document is as wide as both.
func TestWriteTwoPanels(t *testing.T) {
	hm := &HeatMap{Metric: "m", Cells: []Cell{{"1", "1", 1}, {"2", "1", 2}}}
	r := &RankScatter{Rho: 1, Points: []RankPoint{{"a", 1, 1}, {"b", 2, 2}}}
	_, svg := render(t, hm, r)
	w1, _ := hm.Size()
	w2, h2 := r.Size()
	if got, want := svg.Num(t, "width"), w1+gap+w2; got != want {
		t.Errorf("width %v; want %v", got, want)
	}
	if got := svg.Num(t, "height"); got < h2 {
		t.Errorf("height %v; want at least %v", got, h2)
	}
	gs := svg.All("g", "")
	if len(gs) != 2 || gs[1].Attrs["transform"] != "translate("+f(w1+gap)+",0)" {
		t.Errorf("panels %d, second at %q", len(gs), gs[len(gs)-1].Attrs["transform"])
	}
}

func TestNumberAndTicks(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{3990, "3990"}, {0.5, "0.5"}, {66.666666, "66.7"}, {1234.56, "1234.6"}, {-2, "-2"}, {0.000123456, "0.000123"}} {
		if got := numberText(c.v); got != c.want {
			t.Errorf("numberText(%v) = %q; want %q", c.v, got, c.want)
		}
	}
	if got := niceTicks(0, 9943, 5); len(got) != 6 || got[5] != 10000 || got[1] != 2000 {
		t.Errorf("niceTicks(0, 9943) = %v; want 0, 2000, ..., 10000", got)
	}
	if got := niceTicks(0, 0.3, 3); got[len(got)-1] != 0.3 || got[1] != 0.1 {
		t.Errorf("niceTicks(0, 0.3) = %v; want 0, 0.1, 0.2, 0.3", got)
	}
	if got := rankTicks(30); got[0] != 1 || got[1] != 5 || got[len(got)-1] != 30 {
		t.Errorf("rankTicks(30) = %v; want 1, 5, 10, ..., 30", got)
	}
}

// Near the largest float64 a round step can leave it: the ticks are then
// the range's ends, finite, where the tick loop ran on past +Inf until
// memory ran out (a curve of a metric at -1.7e308), or ended in +Inf
// (bars to 1.7e308, every bar drawn at zero height).
func TestNiceTicksAtTheEdges(t *testing.T) {
	for _, c := range []struct{ lo, hi, first, last float64 }{
		{-1.7e308, 12, -1.7e308, 12},
		{0, 1.7e308, 0, 1.7e308},
		{1.5e308, 1.5e308, 7.5e307, math.MaxFloat64},
		{-1e308, 1e308, -1e308, 1e308},
	} {
		got := niceTicks(c.lo, c.hi, 5)
		for _, v := range got {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				t.Errorf("niceTicks(%g, %g) = %v: not finite", c.lo, c.hi, got)
			}
		}
		if len(got) == 0 || got[0] != c.first || got[len(got)-1] != c.last {
			t.Errorf("niceTicks(%g, %g) = %v; want from %g to %g", c.lo, c.hi, got, c.first, c.last)
		}
	}
}
