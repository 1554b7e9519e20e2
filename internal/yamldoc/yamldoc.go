package yamldoc

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// SecondDocument says whether data holds a second YAML document after
// its first, and the line where it begins, at its --- marker (0 when it
// does not parse and the line is unknown). A decoder reads the first
// document and stops, so a reader that does not ask would drop the rest
// of the file without a word.
func SecondDocument(data []byte) (line int, found bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		return 0, false // no first document, or a broken one: the reader says
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
		return 0, false
	case err != nil:
		return 0, true
	}
	return second.Line, true
}
