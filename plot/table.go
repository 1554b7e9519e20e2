package plot

import (
	"fmt"
	"slices"
	"strconv"
)

// Table is a plain table of results: each row the values of some named
// parameters (block width, height, a kernel parameter) and the value of
// one metric. A heat map takes two of its parameters as its axes; a
// sweep's rows are such a table.
type Table struct {
	Params []string // the parameters' names, in column order
	Metric string   // the metric's name
	Rows   []Row
}

// Row is one row of a Table: Params[i] is the value of Table.Params[i].
type Row struct {
	Params []string
	Value  float64
}

// column returns the index of the parameter name.
func (t *Table) column(name string) (int, error) {
	i := slices.Index(t.Params, name)
	if i < 0 {
		return 0, fmt.Errorf("plot: the table has no parameter %q; it has %v", name, t.Params)
	}
	return i, nil
}

// HeatMap makes a heat map of the table's metric over parameters x and y.
// Two rows may not fall in the same cell: the other parameters must be
// fixed. A pair of values no row gives is drawn as an empty cell.
func (t *Table) HeatMap(x, y string) (*HeatMap, error) {
	xi, err := t.column(x)
	if err != nil {
		return nil, err
	}
	yi, err := t.column(y)
	if err != nil {
		return nil, err
	}
	h := &HeatMap{XLabel: x, YLabel: y, Metric: t.Metric}
	seen := map[[2]string]int{}
	for r, row := range t.Rows {
		if len(row.Params) != len(t.Params) {
			return nil, fmt.Errorf("plot: table row %d has %d parameters; want %d (%v)", r+1, len(row.Params), len(t.Params), t.Params)
		}
		key := [2]string{row.Params[xi], row.Params[yi]}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("plot: table rows %d and %d both fall in the cell %s=%s, %s=%s; hint: fix the other parameters, one heat map for each of their values", prev+1, r+1, x, key[0], y, key[1])
		}
		seen[key] = r
		h.Cells = append(h.Cells, Cell{X: key[0], Y: key[1], Value: row.Value})
	}
	return h, nil
}

// categories returns the distinct values in order: numerically when all
// are numbers, else in the order of first appearance.
func categories(vals []string) []string {
	var out []string
	seen := map[string]bool{} // looked up, never iterated
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	nums := make(map[string]float64, len(out))
	for _, v := range out {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return out
		}
		nums[v] = n
	}
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case nums[a] < nums[b]:
			return -1
		case nums[a] > nums[b]:
			return 1
		}
		return 0
	})
	return out
}
