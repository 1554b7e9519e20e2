package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

func cmdOccupancy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("occupancy", "-device NAME|FILE -block XxYxZ [-regs N] [-smem BYTES] [-kernel K [-set ...]] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-format text|json]", stderr)
	device := fs.String("device", "fermi", "device `name` or YAML file")
	cacheConfig := cacheConfigFlag(fs)
	blockFlag := fs.String("block", "256", "block shape `XxYxZ`, x fastest (e.g. 16x16); with -kernel, default the kernel file's")
	regs := fs.Int("regs", 0, "registers per thread (0: registers do not limit; with -kernel, default the kernel file's regs)")
	smemFlag := fs.String("smem", "0", "shared memory per block: bytes, or with a unit (e.g. 4KiB); with -kernel, added to the kernel's (dynamic shared memory)")
	kernelFlag := fs.String("kernel", "", "a kernel (shipped example or YAML `file`) whose regs, smem and __shared__ arrays count")
	set := joinedFlag(fs, "set", "with -kernel, parameter overrides `K=V,...` (they size __shared__ arrays; repeat to add more)")
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	blockGiven := given(fs, "block")
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	block, err := arch.ParseDim3(*blockFlag)
	if err != nil {
		return fmt.Errorf("-block: %v", err)
	}
	smem, err := parseBytesFlag(*smemFlag)
	if err != nil {
		return fmt.Errorf("-smem: %v", err)
	}
	if *regs < 0 {
		return fmt.Errorf("-regs: must not be negative; got %d", *regs)
	}
	d, err := loadDevice(*device, *cacheConfig)
	if err != nil {
		return err
	}
	if *kernelFlag != "" {
		if !blockGiven {
			block = arch.Dim3{}
		}
		l, err := kernelResources(d, *kernelFlag, *set, block)
		if err != nil {
			return err
		}
		block, smem = l.Block, smem+l.Smem
		if *regs == 0 {
			*regs = l.Regs
		}
	} else if *set != "" {
		return errors.New("-set: sets a kernel's params; hint: name the kernel with -kernel")
	}
	o, err := occupancyOf(d, block, *regs, smem)
	if err != nil {
		return splitAtFault(d, *device, err, func(d *arch.Device) error {
			_, err := occupancyOf(d, block, *regs, smem)
			return err
		})
	}
	if *format == "json" {
		return writeJSON(stdout, struct {
			Device      string           `json:"device"`
			CacheConfig arch.CacheConfig `json:"cache_config,omitempty"`
			Block       string           `json:"block"`
			Regs        int              `json:"registers_per_thread"`
			Smem        int64            `json:"shared_memory_per_block_bytes"`
			arch.Occupancy
		}{d.Name, d.CacheConfig, block.String(), *regs, int64(smem), o})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Device\t%s (%s, compute capability %s)\n", d.Name, d.Board, d.ComputeCapability)
	if s := splitText(d); s != "" {
		fmt.Fprintf(tw, "Cache Config\t%s\n", s)
	}
	fmt.Fprintf(tw, "Threads Per Block\t%d (%v)\n", o.ThreadsPerBlock, block)
	fmt.Fprintf(tw, "Registers Per Thread\t%d\n", *regs)
	fmt.Fprintf(tw, "Shared Memory Per Block (bytes)\t%d\n", int64(smem))
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "Active Threads per Multiprocessor\t%d\n", o.ActiveThreads)
	fmt.Fprintf(tw, "Active Warps per Multiprocessor\t%d\n", o.ActiveWarps)
	fmt.Fprintf(tw, "Active Thread Blocks per Multiprocessor\t%d\n", o.ActiveBlocks)
	fmt.Fprintf(tw, "Occupancy of each Multiprocessor\t%s%%\n", strconv.FormatFloat(100*o.Occupancy, 'f', -1, 64))
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "Maximum Thread Blocks Per Multiprocessor\tBlocks/SM\n")
	fmt.Fprintf(tw, "Limited by Max Warps or Max Blocks per Multiprocessor\t%d\n", o.BlocksByWarps)
	fmt.Fprintf(tw, "Limited by Registers per Multiprocessor\t%d\n", o.BlocksByRegisters)
	fmt.Fprintf(tw, "Limited by Shared Memory per Multiprocessor\t%d\n", o.BlocksBySharedMemory)
	fmt.Fprintf(tw, "Limited by\t%s\n", limitLabel(o.LimitedBy))
	return tw.Flush()
}

// kernelResources binds kernel k (a name or file) with the params of
// set and block (zero: the file's) for its registers and shared memory:
// its smem and its __shared__ arrays, as they are sized for the block.
func kernelResources(d *arch.Device, k, set string, block arch.Dim3) (*traces.Launch, error) {
	kern, err := kernel.Load(k)
	if err != nil {
		return nil, err
	}
	params, err := parseSet(set)
	if err != nil {
		return nil, fmt.Errorf("-set: %v", err)
	}
	if len(kern.Launches) > 0 {
		ls, err := traces.BindSequence(kern, nil, block, params, d)
		if err != nil {
			return nil, err
		}
		return ls[0], nil // every launch has the file's block and arrays
	}
	return traces.Bind(kern, nil, block, params, d)
}

// occupancyOf is d.Occupancy with an error that names the flag at fault:
// the block alone, then with the registers, then with the shared memory.
func occupancyOf(d *arch.Device, block arch.Dim3, regs int, smem arch.Bytes) (arch.Occupancy, error) {
	if _, err := d.Occupancy(block, 0, 0); err != nil {
		return arch.Occupancy{}, fmt.Errorf("-block: %v", err)
	}
	if _, err := d.Occupancy(block, regs, 0); err != nil {
		return arch.Occupancy{}, fmt.Errorf("-regs: %v", err)
	}
	o, err := d.Occupancy(block, regs, smem)
	if err != nil {
		return o, fmt.Errorf("-smem: %v", err)
	}
	return o, nil
}

func limitLabel(l string) string {
	switch l {
	case arch.LimitBlocks:
		return "Max Blocks per Multiprocessor"
	case arch.LimitWarps:
		return "Max Warps per Multiprocessor"
	case arch.LimitRegisters:
		return "Registers per Multiprocessor"
	}
	return "Shared Memory per Multiprocessor"
}

// parseBytesFlag reads a byte count, either a plain integer or a size
// with a unit (4KiB).
func parseBytesFlag(s string) (arch.Bytes, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("must not be negative; got %d", n)
		}
		return arch.Bytes(n), nil
	}
	return arch.ParseBytes(s)
}
