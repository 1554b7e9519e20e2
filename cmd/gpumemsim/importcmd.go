package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/arch/gpgpusim"
	"gpumemsim/configs"
)

// cmdDevicesImport is 'gpumemsim devices import FILE': a GPGPU-Sim option
// file translated into a device config.
func cmdDevicesImport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devices import", "FILE [-o device.yaml] [-name NAME] [-base NAME]", stderr)
	out := fs.String("o", "", "write the device YAML to this `file` (atomically) instead of stdout")
	name := fs.String("name", "", "the device's `name` (default: the option file's directory for gpgpusim.config, else its base name)")
	base := fs.String("base", "", "the shipped `config` that fills the fields no GPGPU-Sim option sets (default: by compute capability: g80, gt200, fermi, kepler, maxwell)")
	if help, err := parseFlags(fs, args, len(args)); help || err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("devices import: name a GPGPU-Sim option file, e.g. devices import gpgpusim.config -o device.yaml")
	}
	file := fs.Arg(0)
	if help, err := parseFlags(fs, fs.Args()[1:], 0); help || err != nil {
		return err
	}
	data, err := readOptionFile(file)
	if err != nil {
		return err
	}
	opts, err := gpgpusim.Parse(file, data)
	if err != nil {
		return err
	}
	if *base == "" {
		cc, ok := gpgpusim.ComputeCapability(opts)
		if !ok {
			return fmt.Errorf("%s: no compute capability (-gpgpu_compute_capability_major and _minor, or -gpgpu_ptx_force_max_capability); hint: add them, or pass -base fermi (or another shipped config) for the fields no option sets", file)
		}
		*base = gpgpusim.BaseFor(cc)
	}
	baseDev, err := configs.Load(*base)
	if err != nil {
		return fmt.Errorf("-base: %w", err)
	}
	if *name == "" {
		*name = importName(file)
	}
	res, err := gpgpusim.Import(opts, baseDev, *base, *name)
	if err != nil {
		return err
	}
	y, err := res.YAML()
	if err != nil {
		return err
	}
	// What is written must load as it is.
	if _, err := arch.Load(*name, func(string, string) (string, []byte, error) { return "imported " + *name, y, nil }); err != nil {
		return fmt.Errorf("devices import: the translated device does not load back (a bug): %w", err)
	}
	if len(res.Ignored) > 0 {
		fmt.Fprintf(stderr, "gpumemsim: devices import: %d options ignored (listed at the top of the output too):\n", len(res.Ignored))
		for _, ig := range res.Ignored {
			fmt.Fprintln(stderr, "  "+gpgpusim.IgnoredLine(file, ig))
		}
	}
	if *out == "" {
		_, err := stdout.Write(y)
		return err
	}
	if err := writeFileAtomic(*out, y); err != nil {
		return fmt.Errorf("-o %s: %w", *out, err)
	}
	return nil
}

// importName is the default device name: the directory of a file called
// gpgpusim.config (GPGPU-Sim keeps one per directory, e.g. SM2_GTX480),
// else the file's name without its extension; lower case.
func importName(file string) string {
	b := filepath.Base(file)
	if b == "gpgpusim.config" {
		if d := filepath.Base(filepath.Dir(file)); d != "." && d != string(filepath.Separator) {
			b = d
		}
	}
	return strings.ToLower(strings.TrimSuffix(b, filepath.Ext(b)))
}

func readOptionFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("devices import: %s: no such file", path)
		}
		return nil, fmt.Errorf("devices import: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, gpgpusim.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("devices import: %w", err)
	}
	return data, nil
}
