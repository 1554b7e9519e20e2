package yamldoc

import (
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// SecondDocument says whether dec, which has decoded its first document,
// holds a second, and the line where it begins, at its --- marker (0
// when it does not parse and the line is unknown). A decoder reads the
// first document and stops, so a reader that does not ask would drop the
// rest of the file without a word; asking parses only the rest.
func SecondDocument(dec *yaml.Decoder) (line int, found bool) {
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
		return 0, false
	case err != nil:
		return 0, true
	}
	return second.Line, true
}
