package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gpumemsim/internal/svgtest"
)

// table1Small is J14 Table 1's twelve shapes (x first, as -blocks takes
// them) at a size that simulates in half a second.
var table1Small = []string{"validate", "-device", "gt200", "-kernel", "matmul-tiled", "-set", "M=32,N=256,P=32",
	"-blocks", "256x2,128x4,64x8,32x16,16x32,128x2,64x4,32x8,16x16,64x2,32x4,16x8"}

// spearman is Spearman's ρ of x and y: Pearson's r of their ranks, ties
// given the mean of the ranks they span.
func spearman(x, y []float64) float64 {
	rank := func(v []float64) []float64 {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
		r := make([]float64, len(v))
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
				j++
			}
			for k := i; k <= j; k++ {
				r[idx[k]] = float64(i+j)/2 + 1
			}
			i = j + 1
		}
		return r
	}
	rx, ry := rank(x), rank(y)
	var mx, my float64
	for i := range rx {
		mx, my = mx+rx[i], my+ry[i]
	}
	mx, my = mx/float64(len(rx)), my/float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// validate -plot on Table 1's shapes: a heat map of 12 cells on the grid
// of five widths and five heights, each holding its row's simulated
// cycles, darker for fewer; and a scatter whose points are the rows'
// ranks, with ρ worked out here from the JSON's ranks and cycles. The
// same bytes come from plot -i on validate -format json.
func TestValidatePlotBlocks(t *testing.T) {
	dir := t.TempDir()
	svgPath := filepath.Join(dir, "t1.svg")
	runOut(t, append(slices.Clone(table1Small), "-plot", svgPath)...)
	doc, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Rows []struct {
			Block      string `json:"block"`
			StaticRank int    `json:"static_rank"`
			SimCycles  int64  `json:"sim_cycles"`
			SimRank    int    `json:"sim_rank"`
		} `json:"rows"`
	}
	js := runOut(t, append(slices.Clone(table1Small), "-format", "json")...)
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	svg := svgtest.Parse(t, doc)
	if got := svgtest.Texts(svg.All("text", "x-label")); strings.Join(got, " ") != "16 32 64 128 256" {
		t.Errorf("x labels %v; want the widths 16 32 64 128 256", got)
	}
	if got := svgtest.Texts(svg.All("text", "y-label")); strings.Join(got, " ") != "2 4 8 16 32" {
		t.Errorf("y labels %v; want the heights 2 4 8 16 32", got)
	}
	cells := svg.All("rect", "cell")
	if len(cells) != 12 || len(svg.All("rect", "empty")) != 13 {
		t.Fatalf("%d cells, %d empty; want 12 and 13", len(cells), len(svg.All("rect", "empty")))
	}
	cycles := map[string]int64{}
	var static, simulated []float64
	for _, r := range out.Rows {
		cycles[r.Block] = r.SimCycles
		static, simulated = append(static, float64(r.StaticRank)), append(simulated, float64(r.SimCycles))
	}
	for _, c := range cells {
		block := c.Attrs["data-x"] + "x" + c.Attrs["data-y"]
		if want := strconv.FormatInt(cycles[block], 10); c.Attrs["data-value"] != want {
			t.Errorf("cell %s holds %s; the JSON's sim_cycles is %s", block, c.Attrs["data-value"], want)
		}
	}
	sort.Slice(cells, func(a, b int) bool { return cells[a].Num(t, "data-value") < cells[b].Num(t, "data-value") })
	for k := 1; k < len(cells); k++ {
		if svgtest.Luminance(t, cells[k-1].Attrs["fill"]) >= svgtest.Luminance(t, cells[k].Attrs["fill"]) {
			t.Errorf("cell %s (%s cycles) is not darker than %s (%s)", cells[k-1].Attrs["data-x"]+"x"+cells[k-1].Attrs["data-y"],
				cells[k-1].Attrs["data-value"], cells[k].Attrs["data-x"]+"x"+cells[k].Attrs["data-y"], cells[k].Attrs["data-value"])
		}
	}
	points := svg.All("circle", "point")
	if len(points) != len(out.Rows) {
		t.Fatalf("%d points; want %d", len(points), len(out.Rows))
	}
	for i, p := range points {
		r := out.Rows[i]
		if p.Attrs["data-label"] != r.Block || p.Attrs["data-static"] != strconv.Itoa(r.StaticRank) || p.Attrs["data-simulated"] != strconv.Itoa(r.SimRank) {
			t.Errorf("point %d: %v; want %s at static %d, simulated %d", i, p.Attrs, r.Block, r.StaticRank, r.SimRank)
		}
	}
	rho := strconv.FormatFloat(spearman(static, simulated), 'f', 3, 64)
	if title := svg.All("text", "title")[1].Text; !strings.Contains(title, "ρ = "+rho) {
		t.Errorf("scatter title %q; want ρ = %s", title, rho)
	}

	in := filepath.Join(dir, "v.json")
	if err := os.WriteFile(in, js, 0o644); err != nil {
		t.Fatal(err)
	}
	redrawn := filepath.Join(dir, "redrawn.svg")
	runOut(t, "plot", "-i", in, "-o", redrawn)
	if again, _ := os.ReadFile(redrawn); !bytes.Equal(again, doc) {
		t.Error("plot -i on validate -format json differs from validate -plot")
	}
}

// plot -kind bars on run's JSON: a group per reference, the bars'
// heights in proportion to the JSON's requests and transactions.
func TestPlotBarsRun(t *testing.T) {
	dir := t.TempDir()
	js := runOut(t, "run", "-device", "fermi", "-kernel", "matmul", "-set", "M=32,N=32,P=32", "-format", "json")
	var out struct {
		References []struct {
			Ref          string `json:"ref"`
			Op           string `json:"op"`
			Requests     float64
			Transactions float64
		} `json:"references"`
	}
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "run.json")
	os.WriteFile(in, js, 0o644)
	svg := svgtest.Parse(t, runOut(t, "plot", "-kind", "bars", "-i", in, "-o", "-"))
	bars := svg.All("rect", "bar")
	if len(bars) != 2*len(out.References) {
		t.Fatalf("%d bars; want %d", len(bars), 2*len(out.References))
	}
	unit := bars[0].Num(t, "height") / out.References[0].Requests
	for i, r := range out.References {
		for s, v := range []float64{r.Requests, r.Transactions} {
			if h := bars[2*i+s].Num(t, "height"); math.Abs(h-v*unit) > 0.02 {
				t.Errorf("%s %s bar %d: height %v; want %v", r.Ref, r.Op, s, h, v*unit)
			}
		}
	}
	if got := svgtest.Texts(svg.All("text", "x-label"))[0]; got != out.References[0].Ref+" ("+out.References[0].Op+")" {
		t.Errorf("first group %q", got)
	}
}

// plot -kind curve on the latency probe run at five footprints: one
// point per run at its F (a log₂ axis: evenly spaced), its y the run's
// cycles over its global loads.
func TestPlotCurveProbe(t *testing.T) {
	var stream bytes.Buffer
	var want []float64
	fs := []int{1024, 2048, 4096, 8192, 16384}
	for _, f := range fs {
		js := runOut(t, "run", "-device", "fermi", "-kernel", "latency-probe", "-set", "F="+strconv.Itoa(f)+",R=2", "-format", "json")
		var out struct {
			Metrics map[string]float64 `json:"metrics"`
		}
		json.Unmarshal(js, &out)
		want = append(want, out.Metrics["sim_cycles"]/out.Metrics["inst_executed_global_loads"])
		stream.Write(js)
	}
	in := filepath.Join(t.TempDir(), "probe.json")
	os.WriteFile(in, stream.Bytes(), 0o644)
	svg := svgtest.Parse(t, runOut(t, "plot", "-kind", "curve", "-i", in, "-o", "-"))
	pts := svg.All("circle", "point")
	if len(pts) != len(fs) {
		t.Fatalf("%d points; want %d", len(pts), len(fs))
	}
	step := pts[1].Num(t, "cx") - pts[0].Num(t, "cx")
	for i, p := range pts {
		if p.Attrs["data-x"] != strconv.Itoa(fs[i]) {
			t.Errorf("point %d at F = %s; want %d", i, p.Attrs["data-x"], fs[i])
		}
		if y := p.Num(t, "data-y"); math.Abs(y-want[i]) > 0.01*want[i] {
			t.Errorf("F=%d: %v cycles per load; the run's sim_cycles/inst_executed_global_loads is %v", fs[i], y, want[i])
		}
		if i > 0 && math.Abs(p.Num(t, "cx")-pts[i-1].Num(t, "cx")-step) > 0.02 {
			t.Errorf("F=%d is not one even step right of F=%d", fs[i], fs[i-1])
		}
	}
	if got := svg.All("text", "x-name")[0].Text; got != "F" {
		t.Errorf("x axis %q; want F, the parameter that varies", got)
	}
}

// docs/j14-table1-heatmap.svg is what plot draws from docs/j14-table1.json
// (validate -format json of J14 Table 1's shapes at 512³; docs/design.md,
// Plots), and its axes are Table 1's widths and heights.
func TestDocsJ14Table1(t *testing.T) {
	want, err := os.ReadFile("../../docs/j14-table1-heatmap.svg")
	if err != nil {
		t.Fatal(err)
	}
	got := runOut(t, "plot", "-i", "../../docs/j14-table1.json", "-o", "-")
	if !bytes.Equal(got, want) {
		t.Error("docs/j14-table1-heatmap.svg differs from what plot draws from docs/j14-table1.json; redraw it with the command in docs/design.md, Plots")
	}
	svg := svgtest.Parse(t, got)
	// Table 1 lists WGS as ty×tx: 2×256 ... 8×16; tx takes 16..256 and ty 2..32.
	if x, y := svgtest.Texts(svg.All("text", "x-label")), svgtest.Texts(svg.All("text", "y-label")); strings.Join(x, " ") != "16 32 64 128 256" || strings.Join(y, " ") != "2 4 8 16 32" {
		t.Errorf("axes %v × %v; want Table 1's widths and heights", x, y)
	}
	if n := len(svg.All("rect", "cell")); n != 12 {
		t.Errorf("%d cells; want Table 1's 12 shapes", n)
	}
}

// runOut is mustRun's output as bytes.
func runOut(t *testing.T, args ...string) []byte {
	t.Helper()
	return []byte(mustRun(t, args...))
}
