package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// launchFlags are the flags every command that runs a kernel shares.
type launchFlags struct {
	device, kernel, mapping, block, set *string
	cacheConfig                         *string
	// grid is nil for the commands that take no -grid (see addGrid).
	grid *string
}

// addGrid adds -grid, the grid of a per-thread kernel, for the commands
// that simulate or trace one launch.
func (f *launchFlags) addGrid(fs *flag.FlagSet) {
	f.grid = fs.String("grid", "", "grid `XxYxZ` in blocks for a per-thread (__global__) kernel (default: the kernel file's grid)")
}

func addLaunchFlags(fs *flag.FlagSet) *launchFlags {
	return &launchFlags{
		device:  fs.String("device", "fermi", "device `name` or YAML file"),
		kernel:  fs.String("kernel", "matmul", "kernel: a shipped example ("+strings.Join(kernel.Examples(), ", ")+") or a YAML `file`"),
		mapping: fs.String("map", "", "loop to thread mapping, e.g. `i1=ty,i2=tx` (default: the kernel file's)"),
		block:   fs.String("block", "", "block shape `XxYxZ`, x fastest, e.g. 16x16 (default: the kernel file's)"),
		set:     fs.String("set", "", "parameter overrides `K=V,...`, e.g. M=2048,N=2048"),

		cacheConfig: cacheConfigFlag(fs),
	}
}

// load resolves the device and the kernel, and binds the kernel with the
// mapping, block and parameters the flags give.
func (f *launchFlags) load() (*arch.Device, *traces.Launch, error) {
	dev, err := loadDevice(*f.device, *f.cacheConfig)
	if err != nil {
		return nil, nil, err
	}
	k, err := kernel.Load(*f.kernel)
	if err != nil {
		return nil, nil, err
	}
	var m kernel.Mapping
	if *f.mapping != "" {
		if m, err = kernel.ParseMapping(*f.mapping); err != nil {
			return nil, nil, fmt.Errorf("-map: %v", err)
		}
	}
	var block arch.Dim3
	if *f.block != "" {
		if block, err = arch.ParseDim3(*f.block); err != nil {
			return nil, nil, fmt.Errorf("-block: %v", err)
		}
	}
	params, err := parseSet(*f.set)
	if err != nil {
		return nil, nil, fmt.Errorf("-set: %v", err)
	}
	if f.grid != nil && *f.grid != "" {
		l, err := bindWithGrid(k, m, block, *f.grid, params, dev)
		return dev, l, err
	}
	l, err := bindLaunch(k, m, block, params, dev)
	if err != nil {
		return nil, nil, splitAtFault(dev, *f.device, err, func(d *arch.Device) error {
			_, err := bindLaunch(k, m, block, params, d)
			return err
		})
	}
	return dev, l, nil
}

// bindWithGrid binds a per-thread kernel with the grid -grid gives; an
// error the grid alone causes names the flag.
func bindWithGrid(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, grid string, params map[string]int64, dev *arch.Device) (*traces.Launch, error) {
	g, err := arch.ParseDim3(grid)
	if err != nil {
		return nil, fmt.Errorf("-grid: %v", err)
	}
	l, err := traces.BindGrid(k, m, block, g, params, dev)
	if err != nil {
		if _, e := traces.BindGrid(k, m, block, arch.Dim3{X: 1, Y: 1, Z: 1}, params, dev); e == nil {
			return nil, fmt.Errorf("-grid: %v", err)
		}
	}
	return l, err
}

// parseSet reads parameter overrides written "M=256,N=512".
func parseSet(s string) (map[string]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	params := map[string]int64{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("want NAME=VALUE pairs such as M=256,N=256; got %q", part)
		}
		if _, dup := params[name]; dup {
			return nil, fmt.Errorf("param %s set twice", name)
		}
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: the value must be an integer", name, val)
		}
		params[name] = v
	}
	return params, nil
}

// bindLaunch binds the kernel and, when that fails, names the flag at
// fault: each override is tried alone against the kernel's defaults (with
// -map standing in for a mapping the file lacks). Only then is the launch
// checked against the device.
func bindLaunch(k *kernel.Kernel, m kernel.Mapping, block arch.Dim3, params map[string]int64, d *arch.Device) (*traces.Launch, error) {
	if _, err := traces.Bind(k, m, block, params, nil); err != nil {
		if len(k.Mapping) == 0 && m == nil {
			return nil, err // no mapping at all: the kernel's error, with its hint
		}
		var base kernel.Mapping // the kernel's own, unless it has none
		if len(k.Mapping) == 0 {
			base = m
		}
		if m != nil {
			if _, e := traces.Bind(k, m, arch.Dim3{}, nil, nil); e != nil {
				return nil, fmt.Errorf("-map: %v", e)
			}
		}
		if block != (arch.Dim3{}) {
			if _, e := traces.Bind(k, base, block, nil, nil); e != nil {
				return nil, fmt.Errorf("-block: %v", e)
			}
		}
		if params != nil {
			if _, e := traces.Bind(k, base, arch.Dim3{}, params, nil); e != nil {
				return nil, fmt.Errorf("-set: %v", e)
			}
		}
		return nil, err
	}
	l, err := traces.Bind(k, m, block, params, d)
	if err != nil && block != (arch.Dim3{}) {
		if _, e := traces.Bind(k, m, arch.Dim3{}, params, d); e == nil {
			return nil, fmt.Errorf("-block: %v", err)
		}
	}
	return l, err
}
