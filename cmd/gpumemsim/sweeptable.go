package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// sweepTable is a sweep's output, or one shard's: a row per run, its
// parameters, its error if it failed, and its metrics. It is what sweep
// writes and merge and -resume read; a plot would take its columns too.
type sweepTable struct {
	Records []sweepRecord // in the order of their Index
}

// sweepRecord is one row.
type sweepRecord struct {
	ID     string // the sweep's (sweepID)
	Index  int    // the row's place in the whole sweep, from 0
	Total  int    // rows in the whole sweep
	Params sweepParams
	Err    string             // "" when the row ran
	Values map[string]float64 // its metrics, by name; none when it failed
}

// The columns before the parameters and after them, before the metrics.
var (
	headColumns = []string{"sweep", "row", "rows"}
	errColumn   = "error"
)

// fixedColumns are every column but the metrics.
func fixedColumns() []string {
	return slices.Concat(headColumns, paramColumns, []string{errColumn})
}

// metricColumns are the metrics of all rows, sorted by name: a function
// of the set of names alone, so that the shards of a sweep, merged, have
// the columns of the whole sweep whatever rows each holds.
func (t *sweepTable) metricColumns() []string {
	var names []string
	for _, r := range t.Records {
		for name := range r.Values {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// failed counts the rows with an error.
func (t *sweepTable) failed() int {
	n := 0
	for _, r := range t.Records {
		if r.Err != "" {
			n++
		}
	}
	return n
}

// formatMetric writes a metric's value in the shortest form that reads
// back to the same float, without an exponent: 1048576, 0.03125.
func formatMetric(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// writeCSV writes the fixed columns and the metrics; a row without a
// metric (a failed row, or one whose device has no such counter) leaves
// its cell empty.
func (t *sweepTable) writeCSV(w io.Writer) error {
	metrics := t.metricColumns()
	cw := csv.NewWriter(w)
	cw.Write(slices.Concat(fixedColumns(), metrics))
	for _, r := range t.Records {
		row := slices.Concat([]string{r.ID, strconv.Itoa(r.Index), strconv.Itoa(r.Total)}, r.Params.values(), []string{r.Err})
		for _, m := range metrics {
			cell := ""
			if v, ok := r.Values[m]; ok {
				cell = formatMetric(v)
			}
			row = append(row, cell)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes an array of objects, one a line, each with the fixed
// columns and then the row's own metrics by name.
func (t *sweepTable) writeJSON(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range t.Records {
		o := ordered{{"sweep", r.ID}, {"row", r.Index}, {"rows", r.Total}}
		for j, v := range r.Params.values() {
			o = append(o, keyValue{paramColumns[j], v})
		}
		o = append(o, keyValue{errColumn, r.Err})
		for _, m := range slices.Sorted(maps.Keys(r.Values)) {
			o = append(o, keyValue{m, r.Values[m]})
		}
		data, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("row %d: %v", r.Index, err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.Write(data)
	}
	b.WriteString("\n]\n")
	_, err := w.Write(b.Bytes())
	return err
}

// write writes t in format, csv or json.
func (t *sweepTable) write(w io.Writer, format string) error {
	if format == "json" {
		return t.writeJSON(w)
	}
	return t.writeCSV(w)
}

// readSweepTable reads a sweep's output, CSV or JSON (an array), named
// file in errors.
func readSweepTable(file string, data []byte) (*sweepTable, error) {
	var t *sweepTable
	var err error
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		t, err = readSweepJSON(file, data)
	} else {
		t, err = readSweepCSV(file, data)
	}
	if err != nil {
		return nil, err
	}
	return t, t.check(file)
}

// check refuses a table whose rows disagree on their sweep or are not in
// the order of their index.
func (t *sweepTable) check(file string) error {
	for i, r := range t.Records {
		if r.Total < 1 || r.Index < 0 || r.Index >= r.Total {
			return fmt.Errorf("%s: row %d of %d: want a row from 0 to rows-1", file, r.Index, r.Total)
		}
		if i == 0 {
			continue
		}
		first := t.Records[0]
		if r.ID != first.ID || r.Total != first.Total {
			return fmt.Errorf("%s: row %d is of sweep %s (%d rows), row %d of sweep %s (%d rows); hint: a file holds one sweep's rows", file, first.Index, first.ID, first.Total, r.Index, r.ID, r.Total)
		}
		if r.Index <= t.Records[i-1].Index {
			return fmt.Errorf("%s: row %d follows row %d; want the rows in increasing order, each once", file, r.Index, t.Records[i-1].Index)
		}
	}
	return nil
}

func readSweepCSV(file string, data []byte) (*sweepTable, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty; want a sweep's CSV output, its header first", file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	fixed := fixedColumns()
	if len(header) < len(fixed) || !slices.Equal(header[:len(fixed)], fixed) {
		return nil, fmt.Errorf("%s:1: not a sweep's output: want the columns %v first", file, fixed)
	}
	metrics := header[len(fixed):]
	if err := checkMetricNames(metrics); err != nil {
		return nil, fmt.Errorf("%s:1: %v", file, err)
	}
	t := &sweepTable{}
	for {
		cells, err := cr.Read()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		line, _ := cr.FieldPos(0)
		r, err := recordOfCells(cells, metrics)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		t.Records = append(t.Records, r)
	}
}

// checkMetricNames refuses a metric column that is empty, given twice or
// not in sorted order, as sweep writes them.
func checkMetricNames(metrics []string) error {
	for i, m := range metrics {
		if m == "" || slices.Contains(fixedColumns(), m) {
			return fmt.Errorf("metric %q: want a metric's name, not empty nor one of %v", m, fixedColumns())
		}
		if i > 0 && metrics[i-1] >= m {
			return fmt.Errorf("metric columns %s and %s: want the metrics sorted by name, each once", metrics[i-1], m)
		}
	}
	return nil
}

// recordOfCells reads one CSV row, whose header has the fixed columns
// and then metrics.
func recordOfCells(cells, metrics []string) (sweepRecord, error) {
	var r sweepRecord
	var err error
	r.ID = cells[0]
	if r.Index, err = strconv.Atoi(cells[1]); err != nil {
		return r, fmt.Errorf("row %q: want an integer", cells[1])
	}
	if r.Total, err = strconv.Atoi(cells[2]); err != nil {
		return r, fmt.Errorf("rows %q: want an integer", cells[2])
	}
	np := len(headColumns)
	r.Params = paramsOf(cells[np : np+len(paramColumns)])
	r.Err = cells[np+len(paramColumns)]
	for i, cell := range cells[len(fixedColumns()):] {
		if cell == "" {
			continue
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			return r, fmt.Errorf("%s %q: want a number", metrics[i], cell)
		}
		if r.Values == nil {
			r.Values = map[string]float64{}
		}
		r.Values[metrics[i]] = v
	}
	return r, nil
}

// sweepJSONRow is a row of the JSON form as read back: the fixed columns
// by name, the rest metrics.
type sweepJSONRow map[string]json.RawMessage

func readSweepJSON(file string, data []byte) (*sweepTable, error) {
	var rows []sweepJSONRow
	if err := json.Unmarshal(data, &rows); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: byte %d: %v", file, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: want a sweep's JSON output, an array of rows: %v", file, err)
	}
	t := &sweepTable{}
	for i, row := range rows {
		r, err := row.record()
		if err == nil {
			err = checkMetricNames(slices.Sorted(maps.Keys(r.Values)))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: element %d: %v", file, i+1, err)
		}
		t.Records = append(t.Records, r)
	}
	return t, nil
}

func (row sweepJSONRow) record() (sweepRecord, error) {
	var r sweepRecord
	str := func(key string) (string, error) {
		var s string
		raw, ok := row[key]
		if !ok {
			return "", fmt.Errorf("no %q; not a sweep's row", key)
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%q: want a string", key)
		}
		return s, nil
	}
	num := func(key string) (int, error) {
		var n int
		if err := json.Unmarshal(row[key], &n); err != nil {
			return 0, fmt.Errorf("%q: want an integer", key)
		}
		return n, nil
	}
	var err error
	if r.ID, err = str("sweep"); err != nil {
		return r, err
	}
	if r.Index, err = num("row"); err != nil {
		return r, err
	}
	if r.Total, err = num("rows"); err != nil {
		return r, err
	}
	vals := make([]string, len(paramColumns))
	for i, c := range paramColumns {
		if vals[i], err = str(c); err != nil {
			return r, err
		}
	}
	r.Params = paramsOf(vals)
	if r.Err, err = str(errColumn); err != nil {
		return r, err
	}
	for key, raw := range row {
		if slices.Contains(fixedColumns(), key) {
			continue
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return r, fmt.Errorf("metric %q: want a number", key)
		}
		if r.Values == nil {
			r.Values = map[string]float64{}
		}
		r.Values[key] = v
	}
	return r, nil
}
