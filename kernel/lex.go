package kernel

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tFloat
	tPunct
	// tString is a string literal, read only so that #include "x.h"
	// lines lex.
	tString
)

type token struct {
	kind     tokKind
	text     string
	val      int64
	off, end int // byte offsets in the source
	// line and col are 1-based in the source text; col counts characters,
	// not bytes, as YAML's positions do.
	line, col int
}

// lexError is a lexical error at a source position.
type lexError struct {
	line, col int
	msg, hint string
}

// puncts are the punctuators, each before those it starts with.
var puncts = []string{"<<=", ">>=", "<<", ">>", "&=", "|=", "^=", "#", "<=", ">=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "&&", "||",
	"(", ")", "{", "}", "[", "]", ";", ",", "+", "-", "*", "/", "%", "=", "<", ">", "!", "?", ":", "&", "|", "^", "~", "."}

// lex splits C source into tokens; comments are skipped.
func lex(src string) ([]token, *lexError) {
	var toks []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			switch {
			case src[i] == '\n':
				line++
				col = 1
			case !utf8.RuneStart(src[i]):
				// a continuation byte: same character
			default:
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
			continue
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			l, cl := line, col
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, &lexError{l, cl, "unterminated comment", "close it with */"}
			}
			adv(j + 4)
			continue
		}
		t := token{off: i, line: line, col: col}
		switch {
		case isLetter(c):
			j := i
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
				j++
			}
			t.kind, t.text = tIdent, src[i:j]
			adv(j - i)
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j, isFloat := scanNumber(src, i)
			t.text = src[i:j]
			if isFloat {
				t.kind = tFloat
			} else {
				t.kind = tInt
				v, ok := parseIntLit(t.text)
				if !ok {
					return nil, &lexError{line, col, fmt.Sprintf("bad integer literal %q", t.text), "write a decimal, 0x hexadecimal or 0 octal integer that fits in 64 bits"}
				}
				t.val = v
			}
			adv(j - i)
		case c == '"':
			j := strings.IndexAny(src[i+1:], "\"\n")
			if j < 0 || src[i+1+j] != '"' {
				return nil, &lexError{line, col, "unterminated string", "close it with \" on the same line"}
			}
			t.kind, t.text = tString, src[i:i+j+2]
			adv(j + 2)
		default:
			p := punct(src[i:])
			if p == "" {
				return nil, unexpected(src[i:], line, col)
			}
			t.kind, t.text = tPunct, p
			adv(len(p))
		}
		t.end = i
		toks = append(toks, t)
	}
	toks = append(toks, token{kind: tEOF, off: len(src), end: len(src), line: line, col: col, text: "end of source"})
	return toks, nil
}

// punct is the punctuator s starts with, the longest first; "" for none.
func punct(s string) string {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

// unexpected is the error for a character outside the subset at the
// start of s.
func unexpected(s string, line, col int) *lexError {
	hint := "the source is a C subset: for loops, declarations, assignments and arithmetic"
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsLetter(r) {
		hint = "names are made of ASCII letters, digits and _"
	}
	return &lexError{line, col, "unexpected " + character(s), hint}
}

// character describes the character at the start of s as written: a
// printable one as itself ('é', '→'), an invisible one by its code, a
// byte that is not UTF-8 as a byte.
func character(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("byte %#02x (the file is not valid UTF-8)", s[0])
	case unicode.IsPrint(r):
		return fmt.Sprintf("character '%c'", r)
	}
	return fmt.Sprintf("character %U", r)
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func scanNumber(src string, i int) (int, bool) {
	j := i
	if strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X") {
		j += 2
		for j < len(src) && (isDigit(src[j]) || strings.IndexByte("abcdefABCDEF", src[j]) >= 0) {
			j++
		}
		for j < len(src) && strings.IndexByte("uUlL", src[j]) >= 0 {
			j++
		}
		return j, false
	}
	isFloat := false
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		isFloat = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			isFloat = true
			j = k
			for j < len(src) && isDigit(src[j]) {
				j++
			}
		}
	}
	if j < len(src) && (src[j] == 'f' || src[j] == 'F') {
		isFloat = true
		j++
	}
	for j < len(src) && strings.IndexByte("uUlL", src[j]) >= 0 {
		j++
	}
	return j, isFloat
}

func parseIntLit(s string) (int64, bool) {
	s = strings.TrimRight(s, "uUlL")
	base := int64(10)
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:] // C's octal: 010 is 8
	}
	if s == "" {
		return 0, false
	}
	var v int64
	for _, c := range []byte(s) {
		var d int64
		switch {
		case isDigit(c):
			d = int64(c - '0')
		case c >= 'a' && c <= 'f':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int64(c-'A') + 10
		}
		if d >= base {
			return 0, false // 8 or 9 in an octal literal
		}
		if v > (math.MaxInt64-d)/base {
			return 0, false // v*base + d would pass the largest int64
		}
		v = v*base + d
	}
	return v, true
}
