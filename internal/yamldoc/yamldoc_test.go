package yamldoc

import "testing"

// The second document is found at its --- marker, a file of one document
// (with or without its --- marker, with a trailing ...) has none, and a
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
		{"a: [\n---\nb: 2\n", 0, false},
		{"", 0, false},
	} {
		line, found := SecondDocument([]byte(c.data))
		if line != c.line || found != c.found {
			t.Errorf("%q: line %d, found %v; want %d, %v", c.data, line, found, c.line, c.found)
		}
	}
}
