package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/configs"
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

// given says the command line set flag name (its default aside).
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// checkFormat validates the value of -format.
func checkFormat(format string, allowed ...string) error {
	if !slices.Contains(allowed, format) {
		return fmt.Errorf("-format: want %s; got %q", strings.Join(allowed, ", "), format)
	}
	return nil
}

// cacheConfigFlag adds -cache-config, the L1/shared split a kernel asks
// for with cudaFuncSetCacheConfig, to a command that takes -device.
func cacheConfigFlag(fs *flag.FlagSet) *string {
	return fs.String("cache-config", "", "the L1/shared `split` a kernel asks for with cudaFuncSetCacheConfig: prefer-shared, prefer-l1 or prefer-equal (default: the device config's own)")
}

// loadDevice loads the device called name and applies the split that
// -cache-config names, if any.
func loadDevice(name, cacheConfig string) (*arch.Device, error) {
	c, err := arch.ParseCacheConfig(cacheConfig)
	if err != nil {
		return nil, fmt.Errorf("-cache-config: %v", err)
	}
	d, err := configs.Load(name)
	if err != nil || c == 0 {
		return d, err
	}
	split, err := d.WithCacheConfig(c)
	if errors.Is(err, arch.ErrNoSplit) {
		return nil, fmt.Errorf("-cache-config: %v; hint: leave -cache-config out, or pick a device with a split (%s)", err, devicesWithSplit())
	}
	if err != nil {
		return nil, fmt.Errorf("-cache-config: %v", err)
	}
	return split, nil
}

// splitAtFault names -cache-config in err when the device called name,
// as loaded, would have accepted what failed on d: a block that needs
// more shared memory than the split leaves.
func splitAtFault(d *arch.Device, name string, err error, try func(*arch.Device) error) error {
	if err == nil || d.CacheConfig == 0 {
		return err
	}
	if loaded, e := configs.Load(name); e == nil && try(loaded) == nil {
		return fmt.Errorf("-cache-config %v: %w", d.CacheConfig, err)
	}
	return err
}

// devicesWithSplit lists the shipped devices that have an L1/shared split.
func devicesWithSplit() string {
	var names []string
	for _, n := range configs.Names() {
		if d, err := configs.Load(n); err == nil && d.L1Shared.Present() {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// splitText describes the split -cache-config chose, "" without one:
// "prefer-l1 (48KiB L1, 16KiB shared memory per SM)".
func splitText(d *arch.Device) string {
	if d.CacheConfig == 0 {
		return ""
	}
	return fmt.Sprintf("%v (%v L1, %v shared memory per SM)", d.CacheConfig, d.L1.Size, d.SM.SharedMemory)
}

// writeSplitLine writes the Cache line of run's, estimate's and
// validate's header when -cache-config chose a split.
func writeSplitLine(w io.Writer, d *arch.Device) {
	if s := splitText(d); s != "" {
		fmt.Fprintf(w, "Cache    %s\n", s)
	}
}

// deviceColumn is the Device column of nvprof's CSV: the board and the
// name, with the split -cache-config chose.
func deviceColumn(d *arch.Device) string {
	if d.CacheConfig != 0 {
		return fmt.Sprintf("%s (%s, %v)", d.Board, d.Name, d.CacheConfig)
	}
	return d.Board + " (" + d.Name + ")"
}
