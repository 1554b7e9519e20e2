package plot

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

// node is an element of a parsed SVG document.
type node struct {
	name     string
	attrs    map[string]string
	text     string // the character data directly inside
	children []*node
}

// parseSVG parses doc with encoding/xml into a tree; it fails the test
// when the document is not well-formed XML.
func parseSVG(t *testing.T, doc []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := &node{}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(tok)
		}
	}
	if len(root.children) != 1 || root.children[0].name != "svg" {
		t.Fatalf("want one svg root element; got %d elements", len(root.children))
	}
	return root.children[0]
}

// all returns the elements of the tree named name with the class, in
// document order ("" matches any class).
func (n *node) all(name, class string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.name == name && (class == "" || m.attrs["class"] == class) {
			out = append(out, m)
		}
		for _, c := range m.children {
			walk(c)
		}
	}
	walk(n)
	return out
}

func (n *node) num(t *testing.T, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attrs[attr], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.name, attr, n.attrs[attr], err)
	}
	return v
}

func texts(ns []*node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.text
	}
	return out
}

// render writes the charts as one SVG and parses it.
func render(t *testing.T, charts ...Chart) ([]byte, *node) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, charts...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), parseSVG(t, buf.Bytes())
}

// luminance is the relative luminance (ITU-R BT.709 weights on the
// gamma-encoded channels, enough to order colours) of #rrggbb.
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		t.Fatalf("fill %q is not #rrggbb", hex)
	}
	r, g, b := float64(v>>16), float64(v>>8&0xff), float64(v&0xff)
	return 0.2126*r + 0.7152*g + 0.0722*b
}

func nan() float64 { z := 0.0; return z / z }
