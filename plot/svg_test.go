package plot

import (
	"bytes"
	"testing"

	"gpumemsim/internal/svgtest"
)

// render writes the charts as one SVG and parses it.
func render(t *testing.T, charts ...Chart) ([]byte, *svgtest.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, charts...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), svgtest.Parse(t, buf.Bytes())
}

func nan() float64 { z := 0.0; return z / z }
