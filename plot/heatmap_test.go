package plot

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gpumemsim/internal/svgtest"
)

// A 3 × 4 heat map: 12 cells; the x labels in numeric order although the
// rows come scrambled; each cell under its x label and beside its y
// label; its printed value its own; and the darker the fill, the lower
// the value (viridis' lightness rises with the value).
func TestHeatMapCells(t *testing.T) {
	widths := []string{"64", "16", "32"}
	heights := []string{"16", "2", "8", "4"}
	tab := Table{Params: []string{"width", "height", "kernel"}, Metric: "sim_cycles"}
	value := map[[2]string]float64{}
	// Values 1000·(k+1) in a scrambled order: k runs over the cells as
	// (7·i) mod 12.
	i := 0
	for _, w := range widths {
		for _, h := range heights {
			v := float64(1000 * ((7*i)%12 + 1))
			value[[2]string{w, h}] = v
			tab.Rows = append(tab.Rows, Row{Params: []string{w, h, "matmul"}, Value: v})
			i++
		}
	}
	hm, err := tab.HeatMap("width", "height")
	if err != nil {
		t.Fatal(err)
	}
	hm.Title = "t"
	_, svg := render(t, hm)

	xl, yl := svg.All("text", "x-label"), svg.All("text", "y-label")
	if got, want := svgtest.Texts(xl), []string{"16", "32", "64"}; !slices.Equal(got, want) {
		t.Errorf("x labels %v; want %v", got, want)
	}
	if got, want := svgtest.Texts(yl), []string{"2", "4", "8", "16"}; !slices.Equal(got, want) {
		t.Errorf("y labels %v; want %v", got, want)
	}
	cells := svg.All("rect", "cell")
	if len(cells) != 12 {
		t.Fatalf("%d cells; want 12", len(cells))
	}
	labelX := map[string]float64{}
	for _, l := range xl {
		labelX[l.Text] = l.Num(t, "x")
	}
	labelY := map[string]float64{}
	for _, l := range yl {
		labelY[l.Text] = l.Num(t, "y")
	}
	values := svg.All("text", "value")
	for k, c := range cells {
		x, y := c.Attrs["data-x"], c.Attrs["data-y"]
		mid := c.Num(t, "x") + c.Num(t, "width")/2
		if mid != labelX[x] {
			t.Errorf("cell %s,%s centred at x = %v; its label at %v", x, y, mid, labelX[x])
		}
		top, bottom := c.Num(t, "y"), c.Num(t, "y")+c.Num(t, "height")
		if labelY[y] < top || labelY[y] > bottom {
			t.Errorf("cell %s,%s spans y %v..%v; its label at %v", x, y, top, bottom, labelY[y])
		}
		want := strconv.Itoa(int(value[[2]string{x, y}]))
		if values[k].Text != want {
			t.Errorf("cell %s,%s prints %q; want %q", x, y, values[k].Text, want)
		}
	}
	byValue := slices.Clone(cells)
	sort.Slice(byValue, func(a, b int) bool {
		return value[[2]string{byValue[a].Attrs["data-x"], byValue[a].Attrs["data-y"]}] < value[[2]string{byValue[b].Attrs["data-x"], byValue[b].Attrs["data-y"]}]
	})
	for k := 1; k < len(byValue); k++ {
		lo, hi := svgtest.Luminance(t, byValue[k-1].Attrs["fill"]), svgtest.Luminance(t, byValue[k].Attrs["fill"])
		if !(lo < hi) {
			t.Errorf("fill %s (luminance %.1f) of a lower value is not darker than %s (%.1f)", byValue[k-1].Attrs["fill"], lo, byValue[k].Attrs["fill"], hi)
		}
	}
	if l := svg.All("text", "legend-tick"); len(l) != 3 || l[0].Text != "12000" || l[1].Text != "6500" || l[2].Text != "1000" {
		t.Errorf("legend ticks %v; want 12000, 6500, 1000 (the highest, the middle, the lowest)", svgtest.Texts(l))
	}
}

// J14 Table 1's twelve shapes on a grid of five widths and five heights:
// 12 cells and 13 empty ones.
func TestHeatMapMissingCells(t *testing.T) {
	shapes := [][2]string{{"256", "2"}, {"128", "4"}, {"64", "8"}, {"32", "16"}, {"16", "32"}, {"128", "2"},
		{"64", "4"}, {"32", "8"}, {"16", "16"}, {"64", "2"}, {"32", "4"}, {"16", "8"}}
	tab := Table{Params: []string{"width", "height"}, Metric: "sim_cycles"}
	for i, s := range shapes {
		tab.Rows = append(tab.Rows, Row{Params: []string{s[0], s[1]}, Value: float64(i)})
	}
	hm, err := tab.HeatMap("width", "height")
	if err != nil {
		t.Fatal(err)
	}
	_, svg := render(t, hm)
	if c, e := len(svg.All("rect", "cell")), len(svg.All("rect", "empty")); c != 12 || e != 25-12 {
		t.Errorf("%d cells and %d empty; want 12 and 13", c, e)
	}
}

func TestTableErrors(t *testing.T) {
	tab := Table{Params: []string{"w", "h", "n"}, Metric: "m", Rows: []Row{
		{Params: []string{"16", "16", "1"}, Value: 1},
		{Params: []string{"16", "16", "2"}, Value: 2},
	}}
	if _, err := tab.HeatMap("w", "h"); err == nil || !strings.Contains(err.Error(), "rows 1 and 2") {
		t.Errorf("two rows in one cell: err = %v; want it to name rows 1 and 2", err)
	}
	if _, err := tab.HeatMap("w", "depth"); err == nil || !strings.Contains(err.Error(), `"depth"`) {
		t.Errorf("unknown parameter: err = %v", err)
	}
	tab.Rows = []Row{{Params: []string{"16"}, Value: 1}}
	if _, err := tab.HeatMap("w", "h"); err == nil {
		t.Error("a short row: no error")
	}
}

// Text is escaped, the output is the same bytes twice, and a NaN is
// refused before anything is written.
func TestEscapingDeterminismRefusal(t *testing.T) {
	hm := &HeatMap{Title: `a<b & "c"`, XLabel: "x", YLabel: "y", Metric: "m<1>", Cells: []Cell{{"1", "<2>", 3.5}, {"2", "<2>", 1e-3}}}
	doc, svg := render(t, hm)
	if got := svg.All("text", "title")[0].Text; got != `a<b & "c"` {
		t.Errorf("title %q after parsing; want the original", got)
	}
	again, _ := render(t, hm)
	if !bytes.Equal(doc, again) {
		t.Error("two renderings differ")
	}
	var buf bytes.Buffer
	bad := &HeatMap{Cells: []Cell{{"1", "1", 0}, {"1", "2", nan()}}}
	if err := Write(&buf, bad); err == nil || buf.Len() != 0 {
		t.Errorf("NaN cell: err = %v, %d bytes written; want an error and nothing", err, buf.Len())
	}
}

// Values that span more than a float64 holds (−1e308 to 1e308: the
// range overflows to +Inf) still take viridis' ends and middle: the
// lowest its first stop (#440154), the highest its last (#fde725), 0 and
// the near-zero 17697 its middle stop (#21908d, t = 0.5 to eleven
// digits). The heat map panicked on them (a NaN colour index).
func TestHeatMapExtremeValues(t *testing.T) {
	tab := Table{Params: []string{"width", "height"}, Metric: "sim_cycles"}
	want := map[string]string{}
	for i, v := range []float64{-1e308, 0, 17697, 1e308} {
		w := strconv.Itoa(8 << i)
		tab.Rows = append(tab.Rows, Row{Params: []string{w, "8"}, Value: v})
		want[w] = map[float64]string{-1e308: "#440154", 1e308: "#fde725"}[v]
		if want[w] == "" {
			want[w] = "#21908d"
		}
	}
	hm, err := tab.HeatMap("width", "height")
	if err != nil {
		t.Fatal(err)
	}
	hm.Title = "t"
	_, svg := render(t, hm)
	cells := svg.All("rect", "cell")
	if len(cells) != 4 {
		t.Fatalf("%d cells; want 4", len(cells))
	}
	for _, c := range cells {
		if x := c.Attrs["data-x"]; c.Attrs["fill"] != want[x] {
			t.Errorf("width %s: fill %s; want %s", x, c.Attrs["fill"], want[x])
		}
	}
}
