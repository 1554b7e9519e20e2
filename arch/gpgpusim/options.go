package gpgpusim

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"gpumemsim/arch"
)

// Option is one option of a file: its name with the leading dash
// ("-gpgpu_n_clusters"), its value with any quotes removed, and where the
// name was written.
type Option struct {
	Name  string
	Value string
	// Bare is true for a name followed by another name or the end of the
	// file: a flag without a value.
	Bare         bool
	Line, Column int
}

// Options are the options of one file, in the order written.
type Options struct {
	File string
	List []Option
}

// MaxFileSize is the largest option file read; GPGPU-Sim's tested
// configs are under 10 KiB.
const MaxFileSize = 1 << 20

// token is one whitespace-separated word, with where it starts; quoted
// says it was written in double quotes (and may have spanned lines).
type token struct {
	text         string
	line, column int
	quoted       bool
}

// Parse reads an option file. Errors are *arch.PosError values naming the
// file, line and column.
func Parse(file string, data []byte) (*Options, error) {
	if len(data) > MaxFileSize {
		return nil, &arch.PosError{File: file, Err: fmt.Errorf("larger than %d bytes (1 MiB); hint: a GPGPU-Sim option file is a few kilobytes", MaxFileSize)}
	}
	toks, err := tokens(file, string(data))
	if err != nil {
		return nil, err
	}
	opts := &Options{File: file}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !isName(t) {
			return nil, &arch.PosError{File: file, Line: t.line, Column: t.column,
				Err: fmt.Errorf("%q: want an option name starting with -, then its value, e.g. -gpgpu_n_clusters 15", t.text)}
		}
		if t.text == "-config" {
			// GPGPU-Sim reads the named file in place (ParseCommandLine).
			return nil, &arch.PosError{File: file, Line: t.line, Column: t.column,
				Err: errors.New("-config: an option file that includes another is not followed; hint: import the included file, or copy its options into this one")}
		}
		o := Option{Name: t.text, Line: t.line, Column: t.column}
		if i+1 < len(toks) && !isName(toks[i+1]) {
			o.Value = toks[i+1].text
			i++
		} else {
			o.Bare = true
		}
		opts.List = append(opts.List, o)
	}
	return opts, nil
}

// isName reports whether t is an option name: unquoted, a dash and then
// something that does not start a number (-1 and -.5 are values).
func isName(t token) bool {
	if t.quoted || len(t.text) < 2 || t.text[0] != '-' {
		return false
	}
	c := t.text[1]
	return !(c >= '0' && c <= '9' || c == '.')
}

// tokens splits the file as GPGPU-Sim does: comments removed line by
// line, then words, with quoted words joined.
func tokens(file, text string) ([]token, error) {
	var words []token
	for n, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if col, bad := badByte(line); bad {
			return nil, &arch.PosError{File: file, Line: n + 1, Column: col + 1,
				Err: errors.New("not text (a control character or invalid UTF-8); hint: an option file is plain text")}
		}
		for col := 0; col < len(line); {
			if isSpace(line[col]) {
				col++
				continue
			}
			end := col
			for end < len(line) && !isSpace(line[end]) {
				end++
			}
			words = append(words, token{text: line[col:end], line: n + 1, column: col + 1})
			col = end
		}
	}
	var out []token
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.text[0] != '"' {
			out = append(out, w)
			continue
		}
		open := w
		parts := []string{w.text}
		closed := len(w.text) >= 2 && strings.HasSuffix(w.text, `"`)
		for !closed && i+1 < len(words) {
			i++
			parts = append(parts, words[i].text)
			closed = strings.HasSuffix(words[i].text, `"`)
		}
		if !closed {
			return nil, &arch.PosError{File: file, Line: open.line, Column: open.column,
				Err: errors.New(`a quoted value opens here and never closes; hint: end it with a double quote (GPGPU-Sim joins the lines between)`)}
		}
		joined := strings.Join(parts, " ")
		out = append(out, token{text: joined[1 : len(joined)-1], line: open.line, column: open.column, quoted: true})
	}
	return out, nil
}

// badByte finds the first control character (other than white space) or
// invalid UTF-8 in line.
func badByte(line string) (int, bool) {
	for i, r := range line {
		if r == utf8.RuneError || r < 0x20 && !isSpace(byte(r)) || r == 0x7f {
			return i, true
		}
	}
	return 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// Last returns the last occurrence of the option called name (GPGPU-Sim
// keeps the last value given).
func (o *Options) Last(name string) (Option, bool) {
	for i := len(o.List) - 1; i >= 0; i-- {
		if o.List[i].Name == name {
			return o.List[i], true
		}
	}
	return Option{}, false
}

// Format writes the options back as an option file, one per line, quoting
// a value where Parse needs the quotes to read it back.
func (o *Options) Format() string {
	var b strings.Builder
	for _, op := range o.List {
		b.WriteString(op.Name)
		if !op.Bare {
			b.WriteByte(' ')
			b.WriteString(quote(op.Value))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func quote(v string) string {
	if v == "" || strings.ContainsAny(v, " \t") || v[0] == '"' || v[0] == '-' {
		return `"` + v + `"`
	}
	return v
}
