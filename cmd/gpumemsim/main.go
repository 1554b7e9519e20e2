package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGTERM too: Slurm and Kubernetes stop a job with it, and an
	// interrupted sweep writes the rows it finished.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpumemsim:", err)
		os.Exit(1)
	}
}

// command is one subcommand of gpumemsim.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"devices", "list the device configs, or show one fully resolved", cmdDevices},
		{"occupancy", "the CUDA occupancy calculator for a device and launch shape", cmdOccupancy},
		{"run", "simulate a kernel and print profiler metrics and cycles", cmdRun},
		{"estimate", "static cost models (Jang, Peng) and closed-form counts of a kernel", cmdEstimate},
		{"validate", "rank launch configurations statically and by simulation, and compare", cmdValidate},
		{"sweep", "simulate every combination of devices, kernels, mappings, blocks, params, layouts and spaces", cmdSweep},
		{"merge", "join the outputs of a sweep's shards into the whole sweep's", cmdMerge},
		{"plot", "draw validate's or run's -format json output as SVG: heat map, rank scatter, bars, curve", cmdPlot},
		{"trace", "a kernel's warp instructions, their coalescing, and the profiler's counts", cmdTrace},
	}
}

// run is the whole program; main only calls it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return fmt.Errorf("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	return fmt.Errorf("unknown command %q; run 'gpumemsim help' for the list", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gpumemsim <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gpumemsim <command> -h' for a command's flags.")
}
