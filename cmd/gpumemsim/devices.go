package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

// deviceRow is one line of 'gpumemsim devices'.
type deviceRow struct {
	Name              string  `json:"name"`
	Board             string  `json:"board"`
	ComputeCapability string  `json:"compute_capability"`
	SMs               int     `json:"sms"`
	L1                string  `json:"l1"`
	L2                string  `json:"l2"`
	PeakDRAMGBps      float64 `json:"peak_dram_bandwidth_gbps"`
}

func cmdDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "import" {
		return cmdDevicesImport(args[1:], stdout, stderr)
	}
	fs := newFlagSet("devices", "[-format text|json] | devices show NAME|FILE [-format yaml|json] | devices import FILE [-o device.yaml]", stderr)
	format := fs.String("format", "", "output format: text or json (list); yaml or json (show)")
	if help, err := parseFlags(fs, args, len(args)); help || err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "show" {
		if len(rest) < 2 {
			return fmt.Errorf("devices show: name a device (%v) or a YAML file", configs.Names())
		}
		name := rest[1]
		// Flags may also follow the device name.
		if help, err := parseFlags(fs, rest[2:], 0); help || err != nil {
			return err
		}
		return showDevice(name, *format, stdout)
	}
	if len(rest) > 0 {
		return fmt.Errorf("devices: unknown argument %q; want 'devices', 'devices show NAME|FILE' or 'devices import FILE'", rest[0])
	}
	if *format == "" {
		*format = "text"
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	var rows []deviceRow
	for _, name := range configs.Names() {
		d, err := configs.Load(name)
		if err != nil {
			return err
		}
		rows = append(rows, deviceRow{
			Name: d.Name, Board: d.Board, ComputeCapability: d.ComputeCapability, SMs: d.SMs,
			L1: cacheSize(d.L1), L2: l2Size(d.L2),
			PeakDRAMGBps: d.PeakDRAMBandwidth() / 1e9,
		})
	}
	if *format == "json" {
		return writeJSON(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBOARD\tCC\tSMS\tL1\tL2\tPEAK DRAM BW")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%.1f GB/s\n", r.Name, r.Board, r.ComputeCapability, r.SMs, r.L1, r.L2, r.PeakDRAMGBps)
	}
	return tw.Flush()
}

func cacheSize(c arch.Cache) string {
	if !c.Present() {
		return "-"
	}
	return c.Size.String()
}

// l2Size is the L2's size, marked "(tex)" where it caches texture
// fetches only (G80, GT200).
func l2Size(c arch.L2Cache) string {
	if c.TextureOnly && c.Present() {
		return cacheSize(c.Cache) + " (tex)"
	}
	return cacheSize(c.Cache)
}

func showDevice(name, format string, stdout io.Writer) error {
	if format == "" {
		format = "yaml"
	}
	if err := checkFormat(format, "yaml", "json"); err != nil {
		return err
	}
	d, err := configs.Load(name)
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(stdout, d)
	}
	enc := yaml.NewEncoder(stdout)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return err
	}
	return enc.Close()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
