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
// An empty document (a trailing ---, as some tools end a file) is none.
func SecondDocument(dec *yaml.Decoder) (line int, found bool) {
	for {
		var second yaml.Node
		switch err := dec.Decode(&second); {
		case errors.Is(err, io.EOF):
			return 0, false
		case err != nil:
			return 0, true
		}
		if !empty(&second) {
			return second.Line, true
		}
	}
}

// empty says a decoded document holds nothing: no node, or a null
// scalar that is not written (a --- followed by nothing or comments).
func empty(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}
