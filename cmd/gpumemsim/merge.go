package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

func cmdMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", "[-format csv|json] [-o FILE] FILE...", stderr)
	format := fs.String("format", "", "output format: csv or json (default: the first file's)")
	out := fs.String("o", "", "output `file`, written whole or not at all (default: stdout)")
	if help, err := parseFlags(fs, args, math.MaxInt); help || err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("merge: no files; want the outputs of a sweep's shards, e.g. gpumemsim merge shard-0.csv shard-1.csv shard-2.csv")
	}
	if *out != "" {
		if err := checkOutDir("-o", *out); err != nil {
			return err
		}
	}
	if *format != "" {
		if err := checkFormat(*format, "csv", "json"); err != nil {
			return err
		}
	}
	t, first, err := mergeFiles(fs.Args())
	if err != nil {
		return err
	}
	if *format == "" {
		*format = first
	}
	return writeOutput(*out, stdout, func(w io.Writer) error { return t.write(w, *format) })
}

// mergeFiles reads the shards' outputs and joins their rows in the order
// of the sweep; it refuses rows of different sweeps, a row given twice,
// and a missing row. It returns the first file's format too.
func mergeFiles(files []string) (*sweepTable, string, error) {
	var from sweepRecord // the first row read, to compare the others with
	var fromFile, format string
	byIndex := map[int]sweepRecord{}
	fileOf := map[int]string{}
	for i, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, "", fmt.Errorf("merge: %v", err)
		}
		if i == 0 {
			format = formatOf(data)
		}
		t, err := readSweepTable(file, data)
		if err != nil {
			return nil, "", fmt.Errorf("merge: %w", err)
		}
		for _, r := range t.Records {
			if fromFile == "" {
				from, fromFile = r, file
			}
			if r.ID != from.ID || r.Total != from.Total {
				return nil, "", fmt.Errorf("merge: %s is of sweep %s (%d rows), %s of sweep %s (%d rows); hint: merge the shards of one sweep, run with the same axes and flags", fromFile, from.ID, from.Total, file, r.ID, r.Total)
			}
			if prev, dup := fileOf[r.Index]; dup && prev == file {
				return nil, "", fmt.Errorf("merge: %s is given twice", file)
			} else if dup {
				return nil, "", fmt.Errorf("merge: row %d is in %s and in %s; hint: give each shard's file once, and shards of one -shard i/n split", r.Index, prev, file)
			}
			byIndex[r.Index], fileOf[r.Index] = r, file
		}
	}
	if fromFile == "" {
		return nil, "", fmt.Errorf("merge: the files hold no rows")
	}
	if err := checkComplete(byIndex, from.Total); err != nil {
		return nil, "", err
	}
	t := &sweepTable{}
	for i := range from.Total {
		t.Records = append(t.Records, byIndex[i])
	}
	return t, format, nil
}

// checkComplete refuses a merge that lacks some of the total rows.
func checkComplete(byIndex map[int]sweepRecord, total int) error {
	var missing []string
	n := 0
	for i := range total {
		if _, ok := byIndex[i]; !ok {
			if n++; n <= 10 {
				missing = append(missing, strconv.Itoa(i))
			}
		}
	}
	if n == 0 {
		return nil
	}
	list := strings.Join(missing, ", ")
	if n > len(missing) {
		list += fmt.Sprintf(" and %d more", n-len(missing))
	}
	return fmt.Errorf("merge: %d of the sweep's %d rows are missing: %s; hint: merge every shard's file (with -shard i/n, row r is in shard r mod n)", n, total, list)
}

// formatOf says whether data is a sweep's JSON output or its CSV.
func formatOf(data []byte) string {
	if s := strings.TrimLeft(string(data), " \t\r\n"); strings.HasPrefix(s, "[") {
		return "json"
	}
	return "csv"
}
