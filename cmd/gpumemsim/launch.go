package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/traces"
)

// launchFlags are the flags every command that runs a kernel shares.
type launchFlags struct {
	device, kernel, mapping, block, set *string
}

func addLaunchFlags(fs *flag.FlagSet) *launchFlags {
	return &launchFlags{
		device:  fs.String("device", "fermi", "device `name` or YAML file"),
		kernel:  fs.String("kernel", "matmul", "kernel `name` (a shipped example) or YAML file"),
		mapping: fs.String("map", "", "loop to thread mapping, e.g. `i1=ty,i2=tx` (default: the kernel file's)"),
		block:   fs.String("block", "", "block shape `XxYxZ`, x fastest, e.g. 16x16 (default: the kernel file's)"),
		set:     fs.String("set", "", "parameter overrides `K=V,...`, e.g. M=2048,N=2048"),
	}
}

// load resolves the device and the kernel, and binds the kernel with the
// mapping, block and parameters the flags give.
func (f *launchFlags) load() (*arch.Device, *traces.Launch, error) {
	dev, err := configs.Load(*f.device)
	if err != nil {
		return nil, nil, err
	}
	k, err := traces.LoadKernel(*f.kernel)
	if err != nil {
		return nil, nil, err
	}
	var m traces.Mapping
	if *f.mapping != "" {
		if m, err = traces.ParseMapping(*f.mapping); err != nil {
			return nil, nil, fmt.Errorf("-map: %v", err)
		}
	}
	var block arch.Dim3
	if *f.block != "" {
		if block, err = arch.ParseDim3(*f.block); err != nil {
			return nil, nil, fmt.Errorf("-block: %v", err)
		}
	}
	params, err := parseParams(*f.set)
	if err != nil {
		return nil, nil, fmt.Errorf("-set: %v", err)
	}
	l, err := traces.Bind(k, m, block, params, dev)
	if err != nil {
		return nil, nil, err
	}
	return dev, l, nil
}

// parseParams reads "K=V,K=V" with integer values.
func parseParams(s string) (map[string]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]int64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("want K=V pairs separated by commas, e.g. M=2048,N=2048; got %q", kv)
		}
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: want an integer, got %q", k, v)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s is set twice", k)
		}
		out[k] = n
	}
	return out, nil
}

// paramString writes a launch's parameters as K=V,... in declaration
// order.
func paramString(l *traces.Launch) string {
	var b strings.Builder
	for i, p := range l.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", p.Name, p.Value)
	}
	return b.String()
}
