package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/internal/svgtest"
)

// Bad flags and bad input get an error that says what, where and how to
// fix it; nothing is drawn.
func TestPlotErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"plot-err-no-flags", []string{"plot"}},
		{"plot-err-kind", []string{"plot", "-i", "testdata/plot/run-matmul.json", "-o", "-", "-kind", "pie"}},
		{"plot-err-ext", []string{"plot", "-i", "testdata/plot/run-matmul.json", "-o", "out.png"}},
		{"plot-err-no-dir", []string{"plot", "-i", "testdata/plot/run-matmul.json", "-o", "no/such/dir/out.svg"}},
		{"plot-err-no-file", []string{"plot", "-i", "testdata/plot/absent.json", "-o", "-"}},
		{"plot-err-syntax", []string{"plot", "-i", "testdata/plot/syntax.json", "-o", "-"}},
		{"plot-err-other-json", []string{"plot", "-i", "testdata/plot/other.json", "-o", "-"}},
		{"plot-err-metric", []string{"plot", "-kind", "heatmap", "-metric", "sim_cyles", "-i", "testdata/plot/table1-small.json", "-o", "-"}},
		{"plot-err-heatmap-run", []string{"plot", "-kind", "heatmap", "-i", "testdata/plot/run-matmul.json", "-o", "-"}},
		{"plot-err-heatmap-maps", []string{"plot", "-kind", "heatmap", "-i", "testdata/plot/maps-all.json", "-o", "-"}},
		{"plot-err-rank-run", []string{"plot", "-kind", "rank", "-i", "testdata/plot/run-matmul.json", "-o", "-"}},
		{"plot-err-curve-x", []string{"plot", "-kind", "curve", "-i", "testdata/plot/probe-two-vary.json", "-o", "-"}},
		{"plot-err-curve-bad-x", []string{"plot", "-kind", "curve", "-x", "N", "-i", "testdata/plot/probe-two-vary.json", "-o", "-"}},
		{"plot-err-x-kind", []string{"plot", "-kind", "bars", "-x", "F", "-i", "testdata/plot/run-matmul.json", "-o", "-"}},
		{"validate-err-plot-ext", []string{"validate", "-device", "gt200", "-kernel", "vecadd", "-plot", "v.png"}},
		{"validate-err-plot-stdout", []string{"validate", "-device", "gt200", "-kernel", "vecadd", "-plot", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// A plot that fails leaves the file it would have replaced as it was,
// and no temporary file beside it.
func TestPlotFailureLeavesFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "old.svg")
	os.WriteFile(out, []byte("old"), 0o644)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"plot", "-kind", "heatmap", "-i", "testdata/plot/run-matmul.json", "-o", out}, &stdout, &stderr)
	if err == nil {
		t.Fatal("heat map of a run: no error")
	}
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Errorf("the failed plot changed %s to %q", out, got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory; want only old.svg", len(ents))
	}
}

// The auto plots of -maps all (the rank scatter alone, its points named
// by mapping and block) and of -layouts (bars of gld and gst transactions
// per layout beside the scatter).
func TestPlotAutoKinds(t *testing.T) {
	svg := svgtest.Parse(t, runOut(t, "plot", "-i", "testdata/plot/maps-all.json", "-o", "-"))
	if n := len(svg.All("rect", "cell")); n != 0 {
		t.Errorf("-maps all: %d heat map cells; want none", n)
	}
	pts := svg.All("circle", "point")
	if len(pts) != 4 || !strings.Contains(pts[0].Attrs["data-label"], " ") {
		t.Errorf("-maps all: %d points, first %q; want 4 named mapping and block", len(pts), pts[0].Attrs["data-label"])
	}
	svg = svgtest.Parse(t, runOut(t, "plot", "-i", "testdata/plot/layouts.json", "-o", "-"))
	bars, groups := svg.All("rect", "bar"), svgtest.Texts(svg.All("text", "x-label"))
	if len(bars) != 2*len(groups) || len(svg.All("circle", "point")) != len(groups) {
		t.Errorf("-layouts: %d bars, %d layouts, %d points; want two bars and one point per layout", len(bars), len(groups), len(svg.All("circle", "point")))
	}
	if got := svgtest.Texts(svg.All("text", "legend-entry")); strings.Join(got, ",") != "gld_transactions,gst_transactions" {
		t.Errorf("-layouts: series %v", got)
	}
}

// Flags the chosen plot would not use are errors, not ignored.
func TestPlotUnusedFlags(t *testing.T) {
	for _, args := range [][]string{
		{"plot", "-x", "F", "-i", "testdata/plot/run-matmul.json", "-o", "-"},
		{"plot", "-kind", "rank", "-metric", "sim_cycles", "-i", "testdata/plot/table1-small.json", "-o", "-"},
		{"plot", "-metric", "sim_cycles", "-i", "testdata/plot/maps-all.json", "-o", "-"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err == nil || stdout.Len() != 0 {
			t.Errorf("%s: err = %v, %d bytes out; want an error and nothing drawn", strings.Join(args, " "), err, stdout.Len())
		}
	}
}
