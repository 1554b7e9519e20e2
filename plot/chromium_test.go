package plot

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium, or skips the test.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium or chromium-browser on PATH; CI installs it (.ci/run)")
	return ""
}

// screenshot renders the SVG file in headless Chromium at w × h and
// decodes the PNG it writes.
func screenshot(t *testing.T, bin, svgPath string, w, h int) image.Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--screenshot="+out, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "file://"+svgPath)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return img
}

// Chromium draws the heat map and the rank scatter: the screenshot has
// the viridis colours of the cells, not only white and black.
func TestChromiumRendersHeatMap(t *testing.T) {
	bin := chromium(t)
	tab := Table{Params: []string{"width", "height"}, Metric: "sim_cycles"}
	for i, s := range [][2]string{{"16", "16"}, {"32", "8"}, {"64", "4"}, {"16", "32"}} {
		tab.Rows = append(tab.Rows, Row{Params: s[:], Value: float64(1000 * (i + 1))})
	}
	hm, err := tab.HeatMap("width", "height")
	if err != nil {
		t.Fatal(err)
	}
	r := &RankScatter{Rho: 0.8, Points: []RankPoint{{"16x16", 1, 2}, {"32x8", 2, 1}}}
	var buf bytes.Buffer
	if err := Write(&buf, hm, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fig.svg")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	img := screenshot(t, bin, path, 1000, 400)
	colours, ink := map[uint32]bool{}, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				ink++
			}
		}
	}
	// The lowest cell is viridis' first stop, #440154; Chromium draws
	// it exactly or within antialiasing of it.
	if !colours[0x440154] {
		t.Errorf("the screenshot lacks the lowest cell's colour #440154 (%d colours)", len(colours))
	}
	if share := float64(ink) / float64(b.Dx()*b.Dy()); share < 0.03 || len(colours) < 20 {
		t.Errorf("the screenshot looks blank: %.1f%% non-white pixels, %d colours", 100*share, len(colours))
	}
}
