package indexdata

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// mtxHeader is what a Matrix Market file's banner and size line say.
type mtxHeader struct {
	values     int // value words per entry: 0 pattern, 1 real or integer, 2 complex
	integer    bool
	symmetry   string
	rows, cols int64
	entries    int64
}

// mtxEntry is an entry as the CSR is built: its column and the line that
// gives it (for a duplicate's error).
type mtxEntry struct {
	col  int32
	line int64
}

// ReadMatrixMarket reads a Matrix Market coordinate file into CSR (see the
// package doc); name names it in errors. The size line's rows and entries
// are checked against MaxEntries before anything is allocated for them.
func ReadMatrixMarket(name string, r io.Reader) (*CSR, error) {
	lx := newLexer(name, r)
	h, err := mtxBanner(lx)
	if err != nil {
		return nil, err
	}
	lx.comment = func(c byte, first bool) bool { return c == '%' && first }
	if err := mtxSize(lx, &h); err != nil {
		return nil, err
	}
	rowOf, ents, err := mtxEntries(lx, &h)
	if err != nil {
		return nil, err
	}
	return mtxCSR(lx, &h, rowOf, ents)
}

const mtxHint = "the first line of a Matrix Market file is %%MatrixMarket matrix coordinate real|integer|complex|pattern general|symmetric|skew-symmetric|hermitian"

// mtxBanner reads the first line.
func mtxBanner(lx *lexer) (mtxHeader, error) {
	var h mtxHeader
	ws, err := lx.lineWords(nil)
	if err != nil {
		return h, err
	}
	if len(ws) == 0 || ws[0].line != 1 || !strings.EqualFold(ws[0].text, "%%MatrixMarket") {
		return h, lx.errAt(1, 1, "not a Matrix Market file: no %%MatrixMarket banner on line 1", mtxHint)
	}
	want := []string{"", "matrix", "coordinate"}
	for i := 1; i < 3; i++ {
		if i >= len(ws) {
			return h, lx.errAt(1, ws[len(ws)-1].col, "the banner is incomplete", mtxHint)
		}
		if t := strings.ToLower(ws[i].text); t != want[i] {
			hint := mtxHint
			if t == "array" {
				hint = "dense (array) files are not read: write the matrix in coordinate format"
			}
			return h, lx.errAt(1, ws[i].col, fmt.Sprintf("%q where the banner says %s", ws[i].text, want[i]), hint)
		}
	}
	if len(ws) != 5 {
		return h, lx.errAt(1, ws[len(ws)-1].col, fmt.Sprintf("the banner has %d words; want 5", len(ws)), mtxHint)
	}
	switch f := strings.ToLower(ws[3].text); f {
	case "pattern":
	case "real", "integer":
		h.values, h.integer = 1, f == "integer"
	case "complex":
		h.values = 2
	default:
		return h, lx.errAt(1, ws[3].col, fmt.Sprintf("unknown field %q", ws[3].text), "the field is real, integer, complex or pattern")
	}
	h.symmetry = strings.ToLower(ws[4].text)
	if !slices.Contains([]string{"general", "symmetric", "skew-symmetric", "hermitian"}, h.symmetry) {
		return h, lx.errAt(1, ws[4].col, fmt.Sprintf("unknown symmetry %q", ws[4].text), "the symmetry is general, symmetric, skew-symmetric or hermitian")
	}
	return h, nil
}

// mtxSize reads the size line: rows, columns, entries.
func mtxSize(lx *lexer, h *mtxHeader) error {
	ws, err := lx.lineWords(nil)
	if err != nil {
		return err
	}
	const hint = "after the banner and the % comment lines comes the size line: ROWS COLUMNS ENTRIES"
	if len(ws) != 3 {
		line, col := lx.line, 1
		if len(ws) > 0 {
			line, col = ws[0].line, ws[0].col
		}
		return lx.errAt(line, col, fmt.Sprintf("the size line has %d numbers; want 3", len(ws)), hint)
	}
	var v [3]int64
	for i, w := range ws {
		x, err := strconv.ParseInt(w.text, 10, 64)
		if err != nil || x < 0 {
			return lx.errAt(w.line, w.col, fmt.Sprintf("%q is not a count", w.text), hint)
		}
		v[i] = x
	}
	h.rows, h.cols, h.entries = v[0], v[1], v[2]
	stored := h.entries
	if h.symmetry != "general" {
		stored = 2 * h.entries // at most, once mirrored
	}
	switch {
	case h.rows < 1 || h.cols < 1:
		return lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("a %d×%d matrix", h.rows, h.cols), "a matrix has at least one row and one column")
	case h.rows > MaxEntries || h.cols > math.MaxInt32:
		return lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("a %d×%d matrix; at most %d rows and 2^31-1 columns are read", h.rows, h.cols, MaxEntries), "use the banded or powerlaw generator for larger matrices")
	case stored > MaxEntries:
		return lx.errAt(ws[2].line, ws[2].col, fmt.Sprintf("%d entries (%d stored once mirrored); at most %d are read", h.entries, stored, MaxEntries), "use the banded or powerlaw generator for larger matrices")
	case h.symmetry != "general" && h.rows != h.cols:
		return lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("a %s matrix of %d×%d", h.symmetry, h.rows, h.cols), "a symmetric matrix is square")
	case h.entries > h.rows*h.cols:
		return lx.errAt(ws[2].line, ws[2].col, fmt.Sprintf("%d entries in a %d×%d matrix", h.entries, h.rows, h.cols), "a matrix has at most rows·columns entries")
	}
	return nil
}

// mtxEntries reads the entries: per entry its row and its column with
// its line, mirrored entries included.
func mtxEntries(lx *lexer, h *mtxHeader) ([]int32, []mtxEntry, error) {
	n := min(h.entries, 4096) // grown as the entries come: a short file allocates little
	rowOf, ents := make([]int32, 0, n), make([]mtxEntry, 0, n)
	var ws []token
	for k := int64(0); k < h.entries; k++ {
		var err error
		if ws, err = lx.lineWords(ws); err != nil {
			return nil, nil, err
		}
		if ws == nil {
			return nil, nil, lx.errAt(lx.line, lx.col+1, fmt.Sprintf("the file ends after %d of the %d entries the size line gives", k, h.entries), "give one entry per line, ROW COLUMN [VALUE]")
		}
		i, j, err := mtxEntry1(lx, h, ws)
		if err != nil {
			return nil, nil, err
		}
		line := int64(ws[0].line)
		rowOf, ents = append(rowOf, int32(i)), append(ents, mtxEntry{int32(j), line})
		if i != j && h.symmetry != "general" {
			rowOf, ents = append(rowOf, int32(j)), append(ents, mtxEntry{int32(i), line})
		}
	}
	ws, err := lx.lineWords(ws)
	if err != nil {
		return nil, nil, err
	}
	if ws != nil {
		return nil, nil, lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("more entries than the %d the size line gives", h.entries), "make the size line's third number the number of entry lines")
	}
	return rowOf, ents, nil
}

// mtxEntry1 checks one entry line and returns its 0-based row and column.
func mtxEntry1(lx *lexer, h *mtxHeader, ws []token) (int64, int64, error) {
	want := 2 + h.values
	if len(ws) != want {
		return 0, 0, lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("an entry of %d words; a %s file's entries have %d", len(ws), mtxField(h), want), "write ROW COLUMN and the value(s), one entry per line")
	}
	var ix [2]int64
	for d, lim := range [2]int64{h.rows, h.cols} {
		w := ws[d]
		x, err := strconv.ParseInt(w.text, 10, 64)
		if err != nil {
			return 0, 0, lx.errAt(w.line, w.col, fmt.Sprintf("index %q is not an integer", w.text), "indices are whole numbers from 1")
		}
		if x < 1 || x > lim {
			return 0, 0, lx.errAt(w.line, w.col, fmt.Sprintf("%s index %d outside [1, %d]", [2]string{"row", "column"}[d], x, lim), "indices count from 1 up to the size line's rows and columns")
		}
		ix[d] = x - 1
	}
	for _, w := range ws[2:] {
		var err error
		if h.integer {
			_, err = strconv.ParseInt(w.text, 10, 64)
		} else {
			_, err = strconv.ParseFloat(w.text, 64)
		}
		if err != nil {
			return 0, 0, lx.errAt(w.line, w.col, fmt.Sprintf("value %q is not a number of a %s file", w.text, mtxField(h)), "the values do not change addresses, but they must be numbers")
		}
	}
	i, j := ix[0], ix[1]
	switch {
	case h.symmetry == "skew-symmetric" && i <= j:
		return 0, 0, lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("entry (%d, %d) on or above the diagonal of a skew-symmetric file", i+1, j+1), "a skew-symmetric file lists the entries below the diagonal only")
	case h.symmetry != "general" && i < j:
		return 0, 0, lx.errAt(ws[0].line, ws[0].col, fmt.Sprintf("entry (%d, %d) above the diagonal of a %s file", i+1, j+1, h.symmetry), "a symmetric file lists the lower triangle only; make it general to give both")
	}
	return i, j, nil
}

func mtxField(h *mtxHeader) string {
	switch {
	case h.values == 0:
		return "pattern"
	case h.values == 2:
		return "complex"
	case h.integer:
		return "integer"
	}
	return "real"
}

// mtxCSR sorts the entries into rows, each row's columns ascending, and
// refuses an entry given twice.
func mtxCSR(lx *lexer, h *mtxHeader, rowOf []int32, ents []mtxEntry) (*CSR, error) {
	ptr := make([]int64, h.rows+1)
	for _, r := range rowOf {
		ptr[r+1]++
	}
	for r := range h.rows {
		ptr[r+1] += ptr[r]
	}
	sorted := make([]mtxEntry, len(ents))
	next := slices.Clone(ptr[:h.rows])
	for k, r := range rowOf {
		sorted[next[r]] = ents[k]
		next[r]++
	}
	col := make([]int64, len(ents))
	for r := range h.rows {
		row := sorted[ptr[r]:ptr[r+1]]
		slices.SortStableFunc(row, func(a, b mtxEntry) int { return int(a.col) - int(b.col) })
		for k, e := range row {
			if k > 0 && row[k-1].col == e.col {
				return nil, lx.errAt(int(e.line), 1, fmt.Sprintf("entry (%d, %d) is given twice, at lines %d and %d", r+1, e.col+1, row[k-1].line, e.line), "give each entry once (a symmetric file mirrors its entries itself)")
			}
			col[ptr[r]+int64(k)] = int64(e.col)
		}
	}
	return &CSR{Rows: h.rows, Cols: h.cols, NNZ: int64(len(ents)), RowPtr: NewValues(ptr), Col: NewValues(col)}, nil
}
