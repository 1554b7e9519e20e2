package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gpumemsim %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; -h is not an error. Stray positional arguments
// beyond want are.
func parseFlags(fs *flag.FlagSet, args []string, want int) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, err
	}
	if fs.NArg() > want {
		return false, fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(want))
	}
	return false, nil
}

// checkFormat validates the value of -format.
func checkFormat(format string, allowed ...string) error {
	if !slices.Contains(allowed, format) {
		return fmt.Errorf("-format: want %s; got %q", strings.Join(allowed, ", "), format)
	}
	return nil
}
