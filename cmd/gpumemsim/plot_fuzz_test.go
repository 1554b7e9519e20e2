package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gpumemsim/internal/svgtest"
	"gpumemsim/plot"
)

// FuzzPlotDocs: plot's reader never panics, and whatever it accepts
// draws, for every kind that takes it, as well-formed SVG.
func FuzzPlotDocs(f *testing.F) {
	files, _ := filepath.Glob("testdata/plot/*.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"rows":[{"block":"8x8","static_rank":1,"sim_rank":1,"sim_cycles":1e308}]}]`))
	f.Add([]byte(`{"references":[],"launch":{"params":"F=0"},"metrics":{"sim_cycles":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := readPlotDocs("fuzz.json", data)
		if err != nil {
			return
		}
		for _, kind := range plotKinds {
			charts, err := chartsOf(docs, plotOptions{kind: kind})
			if err != nil {
				continue
			}
			var buf bytes.Buffer
			if err := plot.Write(&buf, charts...); err != nil {
				continue
			}
			if err := svgtest.Valid(buf.Bytes()); err != nil {
				t.Fatalf("-kind %s: %v\n%s", kind, err, buf.Bytes())
			}
		}
	})
}
