package svgtest

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

// Node is an element of a parsed SVG document.
type Node struct {
	Name     string
	Attrs    map[string]string
	Text     string // the character data directly inside
	Children []*Node
}

// Parse parses doc with encoding/xml into a tree and returns its svg
// root; it fails the test when the document is not well-formed XML or
// has another root.
func Parse(t testing.TB, doc []byte) *Node {
	t.Helper()
	root, err := parse(doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return root
}

func parse(doc []byte) (*Node, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := &Node{}
	stack := []*Node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: tok.Name.Local, Attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.Children = append(top.Children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].Text += string(tok)
		}
	}
	if len(root.Children) != 1 || root.Children[0].Name != "svg" {
		return nil, errFormat("want one svg root element; got " + strconv.Itoa(len(root.Children)) + " elements")
	}
	return root.Children[0], nil
}

type errFormat string

func (e errFormat) Error() string { return string(e) }

// Valid says whether doc is well-formed XML with one svg root.
func Valid(doc []byte) error {
	_, err := parse(doc)
	return err
}

// All returns the elements of the tree named name with the class, in
// document order ("" matches any class).
func (n *Node) All(name, class string) []*Node {
	var out []*Node
	var walk func(*Node)
	walk = func(m *Node) {
		if m.Name == name && (class == "" || m.Attrs["class"] == class) {
			out = append(out, m)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Num is a numeric attribute; it fails the test when it is not a number.
func (n *Node) Num(t testing.TB, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.Attrs[attr], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.Name, attr, n.Attrs[attr], err)
	}
	return v
}

// Texts are the nodes' character data.
func Texts(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}

// Luminance is the luma (BT.709 weights on the gamma-encoded channels,
// enough to order colours) of a fill written #rrggbb.
func Luminance(t testing.TB, hex string) float64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		t.Fatalf("fill %q is not #rrggbb", hex)
	}
	r, g, b := float64(v>>16), float64(v>>8&0xff), float64(v&0xff)
	return 0.2126*r + 0.7152*g + 0.0722*b
}
