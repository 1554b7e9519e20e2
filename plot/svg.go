package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Chart is one panel of a figure: it knows its size and draws itself
// with its top left corner at the origin.
type Chart interface {
	// Size is the panel's width and height in SVG user units (pixels).
	Size() (w, h float64)
	draw(c *canvas) error
}

// gap is the space between panels of a figure.
const gap = 16

// Write writes one SVG document holding the charts side by side, left to
// right. Nothing is written to w unless every chart draws.
func Write(w io.Writer, charts ...Chart) error {
	if len(charts) == 0 {
		return errors.New("plot: no charts to write")
	}
	var body canvas
	width, height := 0.0, 0.0
	for i, ch := range charts {
		cw, chh := ch.Size()
		if i > 0 {
			width += gap
		}
		body.printf("<g transform=\"translate(%s,0)\">\n", f(width))
		if err := ch.draw(&body); err != nil {
			return err
		}
		body.printf("</g>\n")
		width += cw
		height = max(height, chh)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"sans-serif\">\n",
		f(width), f(height), f(width), f(height))
	out.WriteString("<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
	out.Write(body.buf.Bytes())
	out.WriteString("</svg>\n")
	_, err := w.Write(out.Bytes())
	return err
}

// canvas collects SVG elements.
type canvas struct {
	buf bytes.Buffer
	ids int // ids handed out, so that two panels' ids differ
}

// id returns a document-unique id starting with prefix.
func (c *canvas) id(prefix string) string {
	c.ids++
	return prefix + strconv.Itoa(c.ids)
}

func (c *canvas) printf(format string, args ...any) { fmt.Fprintf(&c.buf, format, args...) }

// text writes a text element; anchor is start, middle or end; extra
// attributes (already escaped) follow.
func (c *canvas) text(x, y float64, size float64, anchor, class, s string, extra ...string) {
	attrs := ""
	if len(extra) > 0 {
		attrs = " " + strings.Join(extra, " ")
	}
	c.printf("<text class=\"%s\" x=\"%s\" y=\"%s\" font-size=\"%s\" text-anchor=\"%s\"%s>%s</text>\n",
		class, f(x), f(y), f(size), anchor, attrs, esc(s))
}

// line writes a line from (x1, y1) to (x2, y2).
func (c *canvas) line(x1, y1, x2, y2 float64, stroke string, extra ...string) {
	attrs := ""
	if len(extra) > 0 {
		attrs = " " + strings.Join(extra, " ")
	}
	c.printf("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\"%s/>\n", f(x1), f(y1), f(x2), f(y2), stroke, attrs)
}

// f formats a coordinate with two decimals at most, the same bytes on
// every platform: 12, 12.5, 12.25.
func f(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// esc escapes s for SVG text and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// attr is one escaped attribute, name="value".
func attr(name, value string) string { return name + "=\"" + esc(value) + "\"" }

// numberText formats a value for a label: integers as integers (up to 10
// digits), other values with three significant digits, or fixed-point
// with one decimal from 100 up.
func numberText(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case v == math.Trunc(v) && math.Abs(v) < 1e10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100 && math.Abs(v) < 1e10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// finite refuses NaN and infinite values, which have no place on an axis.
func finite(what string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("plot: %s is %v; every value must be finite", what, v)
	}
	return nil
}

// textWidth estimates the width of s at a font size: sans-serif glyphs
// average a little over half the size. Only layout uses it.
func textWidth(s string, size float64) float64 {
	return 0.6 * size * float64(len([]rune(s)))
}
