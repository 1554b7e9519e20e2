package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sweepAxes are what a sweep varies, each list in the order given. An
// empty string in a list stands for the kernel file's own (its mapping,
// block, layout or spaces).
type sweepAxes struct {
	Devices, Kernels, Maps, Blocks, Layouts, Spaces []string
	// Set is each parameter with its values; the sweep takes their
	// product, the first parameter slowest.
	Set []setAxis
}

// setAxis is one parameter of -set and the values it takes.
type setAxis struct {
	Name   string
	Values []int64
}

// sweepParams are a row's parameter columns: what run would be given as
// -device, -kernel, -map, -block, -set, -layout and -spaces.
type sweepParams struct {
	Device, Kernel, Map, Block, Set, Layout, Spaces string
}

// paramColumns name sweepParams' fields in the outputs, in order.
var paramColumns = []string{"device", "kernel", "map", "block", "set", "layout", "spaces"}

func (p sweepParams) values() []string {
	return []string{p.Device, p.Kernel, p.Map, p.Block, p.Set, p.Layout, p.Spaces}
}

// paramsOf is the inverse of values.
func paramsOf(v []string) sweepParams {
	return sweepParams{v[0], v[1], v[2], v[3], v[4], v[5], v[6]}
}

// maxSweepRows bounds a sweep, so that a typo in a list cannot ask for
// billions of rows.
const maxSweepRows = 1_000_000

// withDefaults fills the lists left empty: run's device and kernel, and
// the kernel file's own for the others.
func (a sweepAxes) withDefaults() sweepAxes {
	or := func(l []string, d string) []string {
		if len(l) == 0 {
			return []string{d}
		}
		return l
	}
	a.Devices, a.Kernels = or(a.Devices, "fermi"), or(a.Kernels, "matmul")
	a.Maps, a.Blocks, a.Layouts, a.Spaces = or(a.Maps, ""), or(a.Blocks, ""), or(a.Layouts, ""), or(a.Spaces, "")
	return a
}

// sets are the -set texts of the product of a.Set: "N=1024,M=64", the
// first parameter slowest; one empty text without parameters.
func (a sweepAxes) sets() []string {
	out := []string{""}
	for _, p := range a.Set {
		var next []string
		for _, prefix := range out {
			for _, v := range p.Values {
				s := p.Name + "=" + strconv.FormatInt(v, 10)
				if prefix != "" {
					s = prefix + "," + s
				}
				next = append(next, s)
			}
		}
		out = next
	}
	return out
}

// count is the number of rows, or an error past maxSweepRows.
func (a sweepAxes) count() (int, error) {
	n := 1
	lens := []int{len(a.Devices), len(a.Kernels), len(a.Maps), len(a.Blocks), len(a.Layouts), len(a.Spaces)}
	for _, p := range a.Set {
		lens = append(lens, len(p.Values))
	}
	for _, l := range lens {
		if l == 0 {
			return 0, fmt.Errorf("the sweep has an empty list, so no rows")
		}
		if n > maxSweepRows/l {
			return 0, fmt.Errorf("the sweep has more than %d rows; hint: split it into several sweeps", maxSweepRows)
		}
		n *= l
	}
	return n, nil
}

// rows is the cartesian product of the axes (with withDefaults applied),
// nested devices › kernels › maps › blocks › set › layouts › spaces: the
// device changes slowest, the spaces fastest.
func (a sweepAxes) rows() ([]sweepParams, error) {
	n, err := a.count()
	if err != nil {
		return nil, err
	}
	out := make([]sweepParams, 0, n)
	sets := a.sets()
	for _, d := range a.Devices {
		for _, k := range a.Kernels {
			for _, m := range a.Maps {
				for _, b := range a.Blocks {
					for _, s := range sets {
						for _, l := range a.Layouts {
							for _, sp := range a.Spaces {
								out = append(out, sweepParams{d, k, m, b, s, l, sp})
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

// sweepSettings are the flags every row of a sweep shares that decide
// its values.
type sweepSettings struct {
	CacheConfig, Remap, Matrix, Style string
	Data                              []string
}

// sweepID identifies a sweep: the first 12 hex digits of the SHA-256 of
// its settings and its rows' parameters, in order. Every shard of a sweep
// computes the same, so merge can refuse to join shards of different
// sweeps, and -resume a file from another sweep.
func sweepID(s sweepSettings, rows []sweepParams) string {
	h := sha256.New()
	fmt.Fprintf(h, "gpumemsim sweep 1\ncache-config=%q\nremap=%q\nmatrix=%q\nmetrics=%q\n", s.CacheConfig, s.Remap, s.Matrix, s.Style)
	for _, d := range s.Data {
		fmt.Fprintf(h, "data=%q\n", d)
	}
	for _, r := range rows {
		fmt.Fprintf(h, "%q\n", r.values())
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// splitList reads a flag's comma list: "fermi,kepler". Items are trimmed
// and must not be empty.
func splitList(flagName, s string) ([]string, error) {
	return splitOn(flagName, s, ",", false)
}

// splitOn splits s at sep, trimming each item; an empty item is refused
// unless emptyOK (where it stands for the kernel file's own).
func splitOn(flagName, s, sep string, emptyOK bool) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for i, item := range strings.Split(s, sep) {
		item = strings.TrimSpace(item)
		if item == "" && !emptyOK {
			return nil, fmt.Errorf("%s: item %d of %q is empty; hint: separate the values with %q", flagName, i+1, s, sep)
		}
		if slices.Contains(out, item) {
			return nil, fmt.Errorf("%s: %q is given twice in %q; a sweep runs each value once", flagName, item, s)
		}
		out = append(out, item)
	}
	return out, nil
}

// setList is -set as sweep takes it: one parameter and its values per
// flag, NAME=V1,V2,...; repeat the flag for more parameters.
type setList []setAxis

func (s *setList) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, p := range *s {
		parts = append(parts, p.Name+"=...")
	}
	return strings.Join(parts, " ")
}

func (s *setList) Set(v string) error {
	p, err := parseSetAxis(v)
	if err != nil {
		return err
	}
	for _, q := range *s {
		if q.Name == p.Name {
			return fmt.Errorf("param %s given twice; hint: list its values in one -set %s=V1,V2", p.Name, p.Name)
		}
	}
	*s = append(*s, p)
	return nil
}

// parseSetAxis reads "N=1024,4096".
func parseSetAxis(v string) (setAxis, error) {
	name, vals, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || !isParamName(name) {
		return setAxis{}, fmt.Errorf("want NAME=V1,V2,... such as N=1024,4096 (one parameter per -set; repeat -set for more); got %q", v)
	}
	p := setAxis{Name: name}
	items, err := splitOn("-set "+name, vals, ",", false)
	if err != nil {
		return setAxis{}, err
	}
	if len(items) == 0 {
		return setAxis{}, fmt.Errorf("%s has no values; want NAME=V1,V2,... such as N=1024,4096", name)
	}
	for _, it := range items {
		x, err := strconv.ParseInt(it, 10, 64)
		if err != nil {
			return setAxis{}, fmt.Errorf("%s=%s: the value must be an integer", name, it)
		}
		if slices.Contains(p.Values, x) {
			return setAxis{}, fmt.Errorf("%s=%s is given twice; a sweep runs each value once", name, it)
		}
		p.Values = append(p.Values, x)
	}
	return p, nil
}

// isParamName says s is an identifier, as a kernel file's params are.
func isParamName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
