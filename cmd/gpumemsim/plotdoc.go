package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// record is one JSON object that plot reads (a document, a row of
// validate's, a reference of run's), its fields kept raw so that any
// numeric field can be plotted by name.
type record map[string]json.RawMessage

// docKind is what wrote a document.
type docKind int

const (
	docBlocks  docKind = iota // validate (-blocks, -maps): rows of block shapes
	docLayouts                // validate -layouts: rows of layouts
	docRun                    // run (one launch or a sequence): references
)

// plotDoc is one document plot reads, with where it came from.
type plotDoc struct {
	src  string // FILE:line:col of its opening brace
	kind docKind
	rec  record
	rows []record // validate's rows, or run's references
}

// readPlotDocs reads validate's or run's -format json output: one JSON
// document, several one after another (a loop of run's), or an array of
// them. Errors say file:line:col.
func readPlotDocs(name string, data []byte) ([]*plotDoc, error) {
	var recs []record
	var offs []int64
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, jsonError(name, data, 0, err)
		}
		next := int64(bytes.IndexByte(data, '['))
		for _, raw := range raws {
			var r record
			off := next + int64(max(bytes.Index(data[next:], raw), 0))
			next = off + int64(len(raw))
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, jsonError(name, data, off, err)
			}
			recs, offs = append(recs, r), append(offs, off)
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var r record
			off := dec.InputOffset()
			err := dec.Decode(&r)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, jsonError(name, data, off, err)
			}
			recs, offs = append(recs, r), append(offs, off+int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n"))))
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no JSON document; hint: give the output of validate or run with -format json", name)
	}
	docs := make([]*plotDoc, len(recs))
	for i, r := range recs {
		line, col := position(data, offs[i])
		d, err := classify(fmt.Sprintf("%s:%d:%d", name, line, col), r)
		if err != nil {
			return nil, err
		}
		docs[i] = d
	}
	return docs, nil
}

// classify tells validate's documents from run's.
func classify(src string, r record) (*plotDoc, error) {
	d := &plotDoc{src: src, rec: r}
	var err error
	switch {
	case r["rows"] != nil:
		if err = json.Unmarshal(r["rows"], &d.rows); err != nil || len(d.rows) == 0 {
			return nil, fmt.Errorf("%s: rows: want a non-empty array of objects, as validate -format json writes", src)
		}
		d.kind = docBlocks
		if d.rows[0]["layout"] != nil {
			d.kind = docLayouts
		}
		for i, row := range d.rows {
			key := "block"
			if d.kind == docLayouts {
				key = "layout"
			}
			if row.text(key) == "" {
				return nil, fmt.Errorf("%s: row %d has no %s; want every row of one validate run", src, i+1, key)
			}
		}
	case r["references"] != nil:
		if err = json.Unmarshal(r["references"], &d.rows); err != nil {
			return nil, fmt.Errorf("%s: references: want an array of objects, as run -format json writes", src)
		}
		d.kind = docRun
	default:
		return nil, fmt.Errorf("%s: neither rows (validate -format json) nor references (run -format json); hint: plot reads what those write", src)
	}
	return d, nil
}

// jsonError places a decoding error at file:line:col: a syntax error
// where the decoder stopped (its offset counts from the start of the
// data, past the bad byte), any other at the start of the document at base.
func jsonError(name string, data []byte, base int64, err error) error {
	off := base
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the decoder read the bad byte
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	line, col := position(data, off)
	return fmt.Errorf("%s:%d:%d: %v; hint: plot reads the output of validate or run with -format json", name, line, col, err)
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// text is a string field, "" when absent or not a string.
func (r record) text(name string) string {
	var s string
	if json.Unmarshal(r[name], &s) != nil {
		return ""
	}
	return s
}

// field is a numeric field of r or of its metrics.
func (r record) field(name string) (float64, bool) {
	var v float64
	if raw, ok := r[name]; ok && json.Unmarshal(raw, &v) == nil {
		return v, true
	}
	var ms map[string]float64
	if json.Unmarshal(r["metrics"], &ms) == nil {
		v, ok := ms[name]
		return v, ok
	}
	return 0, false
}

// refRates are the per-reference rates run's text table prints, worked
// out from the counts its JSON holds.
var refRates = map[string][2][]string{
	// name: {numerator fields, denominator fields}; percentages are ×100.
	"transactions_per_request": {{"transactions"}, {"requests"}},
	"l1_hit_rate":              {{"l1_hits"}, {"l1_hits", "l1_misses"}},
	"l2_hit_rate":              {{"l2_hit_sectors"}, {"l2_read_sectors"}},
	"tex_hit_rate":             {{"tex_hits"}, {"tex_hits", "tex_misses"}},
	"const_hit_rate":           {{"const_hits"}, {"const_hits", "const_misses"}},
}

// value is the metric name of r: a numeric field, one of its metrics, a
// per-reference rate, or the ratio A/B of two of those (0/0 is 0).
func (r record) value(name string) (float64, error) {
	if a, b, ok := strings.Cut(name, "/"); ok {
		num, err := r.value(a)
		if err != nil {
			return 0, err
		}
		den, err := r.value(b)
		switch {
		case err != nil:
			return 0, err
		case den == 0 && num == 0:
			return 0, nil
		case den == 0:
			return 0, fmt.Errorf("%s: %s is 0 and %s is not", name, b, a)
		}
		return num / den, nil
	}
	if v, ok := r.field(name); ok {
		return v, nil
	}
	if rate, ok := refRates[name]; ok {
		sum := func(fields []string) float64 {
			s := 0.0
			for _, f := range fields {
				v, _ := r.field(f)
				s += v
			}
			return s
		}
		num, den := sum(rate[0]), sum(rate[1])
		if den == 0 {
			return 0, nil
		}
		if strings.HasSuffix(name, "_rate") {
			return 100 * num / den, nil
		}
		return num / den, nil
	}
	return 0, fmt.Errorf("no metric %q; hint: want one of %s, or A/B of two", name, strings.Join(r.names(), ", "))
}

// names are the metric names value takes on r, sorted.
func (r record) names() []string {
	var out []string
	for k, raw := range r {
		var v float64
		if json.Unmarshal(raw, &v) == nil {
			out = append(out, k)
		}
	}
	var ms map[string]float64
	if json.Unmarshal(r["metrics"], &ms) == nil {
		out = append(out, slices.Collect(maps.Keys(ms))...)
	}
	if r["ref"] != nil {
		out = append(out, slices.Collect(maps.Keys(refRates))...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// launchParams are the kernel parameters of a run document's launch
// ("F=8192,S=128,R=3"), in their order.
func (d *plotDoc) launchParams() ([][2]string, error) {
	var l struct {
		Params string `json:"params"`
	}
	if err := json.Unmarshal(d.rec["launch"], &l); err != nil || l.Params == "" {
		return nil, fmt.Errorf("%s: no launch.params; want run -format json's output", d.src)
	}
	var out [][2]string
	for _, kv := range strings.Split(l.Params, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%s: launch.params: %q is not NAME=VALUE", d.src, kv)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// number parses a parameter's value for an axis.
func number(src, name, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: parameter %s=%s is not a number", src, name, v)
	}
	return x, nil
}
