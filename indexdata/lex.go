package indexdata

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// ParseError is a positioned error in a file the package reads.
type ParseError struct {
	File      string
	Line, Col int // 1-based
	Err       error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// maxToken bounds a token: no number of the formats is longer.
const maxToken = 64

// token is a word of a file, or the end of a line (text empty, eol set)
// or of the file (eof set).
type token struct {
	text      string
	line, col int
	eol, eof  bool
}

// lexer splits a file into whitespace-separated words and line ends;
// comment says a character starts a comment, which runs to the end of
// the line, where a word would start (first: at the start of the line).
type lexer struct {
	name      string
	r         *bufio.Reader
	line, col int
	comment   func(c byte, first bool) bool
	first     bool // nothing but blanks so far on this line
	buf       []byte
}

func newLexer(name string, r io.Reader) *lexer {
	return &lexer{name: name, r: bufio.NewReader(&capped{r: r, left: MaxFileBytes}), line: 1, first: true}
}

// capped reads at most MaxFileBytes of r; past them it fails, so that no
// file (a device, an endless stream of blanks) is read for ever.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("larger than %d bytes, the most read of a data file", int64(MaxFileBytes))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (lx *lexer) errAt(line, col int, msg, hint string) error {
	if hint != "" {
		msg += "; hint: " + hint
	}
	return &ParseError{File: lx.name, Line: line, Col: col, Err: errors.New(msg)}
}

// next returns the next word or line end.
func (lx *lexer) next() (token, error) {
	for {
		c, err := lx.r.ReadByte()
		if err == io.EOF {
			return token{line: lx.line, col: lx.col + 1, eof: true}, nil
		}
		if err != nil {
			return token{}, fmt.Errorf("%s: %w", lx.name, err)
		}
		lx.col++
		switch {
		case c == '\n':
			t := token{line: lx.line, col: lx.col, eol: true}
			lx.line, lx.col, lx.first = lx.line+1, 0, true
			return t, nil
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			continue
		case lx.comment != nil && lx.comment(c, lx.first):
			if err := lx.skipLine(); err != nil {
				return token{}, err
			}
			continue
		}
		return lx.word(c)
	}
}

// word reads the rest of a word that starts with c.
func (lx *lexer) word(c byte) (token, error) {
	t := token{line: lx.line, col: lx.col}
	lx.first = false
	lx.buf = append(lx.buf[:0], c)
	for {
		c, err := lx.r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return token{}, fmt.Errorf("%s: %w", lx.name, err)
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' {
			lx.r.UnreadByte()
			break
		}
		lx.col++
		if len(lx.buf) == maxToken {
			return token{}, lx.errAt(t.line, t.col, fmt.Sprintf("a word of more than %d characters", maxToken), "numbers are separated by spaces or line ends")
		}
		lx.buf = append(lx.buf, c)
	}
	t.text = string(lx.buf)
	return t, nil
}

// skipLine skips to the end of the line (leaving the newline).
func (lx *lexer) skipLine() error {
	for {
		c, err := lx.r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", lx.name, err)
		}
		if c == '\n' {
			return lx.r.UnreadByte()
		}
		lx.col++
	}
}

// lineWords reads the words of the next line that has any (blank lines
// skipped); nil at the end of the file.
func (lx *lexer) lineWords(dst []token) ([]token, error) {
	dst = dst[:0]
	for {
		t, err := lx.next()
		switch {
		case err != nil:
			return nil, err
		case t.eof && len(dst) == 0:
			return nil, nil
		case t.eof || t.eol && len(dst) > 0:
			return dst, nil
		case !t.eol:
			dst = append(dst, t)
		}
	}
}
