package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gpumemsim/plot"
)

func cmdPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "-i FILE.json -o FILE.svg [-kind auto|heatmap|rank|bars|curve] [-metric NAME[,NAME...]] [-x PARAM]", stderr)
	in := fs.String("i", "", "the `FILE` that validate or run -format json wrote (- for standard input); for -kind curve, several runs' documents one after another")
	out := fs.String("o", "", "the SVG `FILE` to write (- for standard output)")
	kind := fs.String("kind", kindAuto, "auto (what validate -plot draws), heatmap, rank, bars or curve")
	metric := fs.String("metric", "", "what to draw: a field of the rows or references, a metric, or A/B of two (bars: a comma list); default: each kind's own")
	x := fs.String("x", "", "-kind curve: the kernel parameter along x (default: the one that varies between the runs)")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return fmt.Errorf("plot: want -i FILE.json and -o FILE.svg; hint: gpumemsim validate ... -format json > v.json; gpumemsim plot -i v.json -o v.svg")
	}
	if !slices.Contains(plotKinds, *kind) {
		return fmt.Errorf("-kind: want %s; got %q", strings.Join(plotKinds, ", "), *kind)
	}
	if *x != "" && *kind != kindCurve && *kind != kindAuto {
		return fmt.Errorf("-x: only -kind curve has a parameter along x")
	}
	if err := checkPlotPath("-o", *out); err != nil {
		return err
	}
	name, data, err := readInput(*in)
	if err != nil {
		return err
	}
	docs, err := readPlotDocs(name, data)
	if err != nil {
		return err
	}
	charts, err := chartsOf(docs, plotOptions{kind: *kind, metric: *metric, x: *x})
	if err != nil {
		return err
	}
	return writeSVG(*out, stdout, charts)
}

// readInput reads -i: a file, or standard input for "-".
func readInput(path string) (name string, data []byte, err error) {
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
		return "<stdin>", data, err
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("-i: %v", err)
	}
	return path, data, nil
}

// checkPlotPath checks, before any work, that path names an .svg file in
// a directory that exists; "-" (standard output) only for plot -o.
func checkPlotPath(flagName, path string) error {
	if path == "-" {
		if flagName == "-o" {
			return nil
		}
		return fmt.Errorf("%s: want a FILE.svg; standard output holds the table; hint: -format json | gpumemsim plot -i - -o -", flagName)
	}
	if !strings.EqualFold(filepath.Ext(path), ".svg") {
		return fmt.Errorf("%s: want a FILE.svg; got %q", flagName, path)
	}
	return checkOutDir(flagName, path)
}

// writeSVG draws the charts into one SVG document and writes it to path
// whole or not at all: to a temporary file in the same directory,
// renamed over path once complete. "-" writes to stdout.
func writeSVG(path string, stdout io.Writer, charts []plot.Chart) error {
	var buf bytes.Buffer
	if err := plot.Write(&buf, charts...); err != nil {
		return err
	}
	if path == "-" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// plotFlag adds -plot to validate.
func plotFlag(fs *flag.FlagSet) *string {
	return fs.String("plot", "", "also draw the result as SVG into `FILE.svg`: with block shapes a heat map of simulated cycles and the rank scatter, with -maps all the rank scatter, with -layouts bars of transactions and the rank scatter; 'gpumemsim plot' redraws it from -format json")
}

// plotValidate draws validate's result into path (nothing when path is
// ""): its JSON document, drawn as plot -kind auto draws it, so that
// validate -plot and plot -i on validate -format json give the same bytes.
func plotValidate(path string, doc any) error {
	if path == "" {
		return nil
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	docs, err := readPlotDocs("-plot", data)
	if err != nil {
		return err
	}
	charts, err := chartsOf(docs, plotOptions{kind: kindAuto})
	if err != nil {
		return fmt.Errorf("-plot: %v", err)
	}
	return writeSVG(path, io.Discard, charts)
}
