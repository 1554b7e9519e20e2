package yamldoc

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The second document is found at its --- marker, a file of one document
// (with or without its --- marker, with a trailing ... or an empty
// document after it) has none, and a
// broken second document is found without a line.
func TestSecondDocument(t *testing.T) {
	for _, c := range []struct {
		data  string
		line  int
		found bool
	}{
		{"a: 1\n", 0, false},
		{"---\na: 1\n", 0, false},
		{"# c\n---\na: 1\n...\n", 0, false},
		{"a: 1\n---\nb: 2\n", 2, true},
		{"---\na: 1\n---\n\nb: 2\n", 3, true},
		{"a: 1\n---\nb: [\n", 0, true},
		{"a: 1\n---\n", 0, false},
		{"a: 1\n---\n# nothing\n---\nb: 2\n", 4, true},
		{"a: [\n---\nb: 2\n", 0, false},
		{"", 0, false},
	} {
		dec := yaml.NewDecoder(bytes.NewReader([]byte(c.data)))
		var first yaml.Node
		if err := dec.Decode(&first); err != nil {
			if c.found {
				t.Errorf("%q: the first document: %v", c.data, err)
			}
			continue // the reader reports a broken first document itself
		}
		line, found := SecondDocument(dec)
		if line != c.line || found != c.found {
			t.Errorf("%q: line %d, found %v; want %d, %v", c.data, line, found, c.line, c.found)
		}
	}
}
