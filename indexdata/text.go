package indexdata

import (
	"fmt"
	"io"
	"strconv"
)

// ReadText reads a plain text array: integers separated by blanks and
// line ends; # or % starts a comment that runs to the end of the line.
// name names the file in errors. More than MaxEntries values are refused
// as soon as the next one is read.
func ReadText(name string, r io.Reader) (*Values, error) {
	lx := newLexer(name, r)
	lx.comment = func(c byte, _ bool) bool { return c == '#' || c == '%' }
	var v []int64
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		if t.eof {
			break
		}
		if t.eol {
			continue
		}
		x, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, lx.errAt(t.line, t.col, fmt.Sprintf("%q is not an integer", t.text), "a text array is decimal integers separated by spaces or line ends, # for comments")
		}
		if len(v) == MaxEntries {
			return nil, lx.errAt(t.line, t.col, fmt.Sprintf("more than %d values", MaxEntries), "use a generator (permutation, uniform, strided) for larger arrays")
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return nil, lx.errAt(1, 1, "no values", "a text array is decimal integers separated by spaces or line ends")
	}
	return NewValues(v), nil
}
