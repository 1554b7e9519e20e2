package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
	"gpumemsim/validate"
)

// launchFlags are the flags every command that runs a kernel shares.
type launchFlags struct {
	cmd                                 string
	device, kernel, mapping, block, set *string
	cacheConfig, spaces, layout, remap  *string
	// grid is nil for the commands that take no -grid (see addGrid).
	grid *string
	// data are -data and -matrix.
	data *dataFlags
	// applied is the rewrite -spaces jang made, once parse has run.
	applied *validate.JangApplied
}

// addGrid adds -grid, the grid of a per-thread kernel, for the commands
// that simulate or trace one launch.
func (f *launchFlags) addGrid(fs *flag.FlagSet) {
	f.grid = fs.String("grid", "", "grid `XxYxZ` in blocks for a per-thread (__global__) kernel (default: the kernel file's grid)")
}

func addLaunchFlags(fs *flag.FlagSet) *launchFlags {
	return &launchFlags{
		cmd:     fs.Name(),
		device:  fs.String("device", "fermi", "device `name` or YAML file"),
		kernel:  fs.String("kernel", "matmul", "kernel: a shipped example ("+strings.Join(kernel.Examples(), ", ")+") or a YAML `file`"),
		mapping: fs.String("map", "", "loop to thread mapping, e.g. `i1=ty,i2=tx` (default: the kernel file's)"),
		block:   fs.String("block", "", "block shape `XxYxZ`, x fastest, e.g. 16x16 (default: the kernel file's)"),
		set:     joinedFlag(fs, "set", "parameter overrides `K=V,...`, e.g. M=2048,N=2048 (repeat to add more)"),

		cacheConfig: cacheConfigFlag(fs),
		layout:      fs.String("layout", "", "data `layout` of the kernel's struct arrays, one its file names under layouts: (default: the first)"),
		spaces:      joinedFlag(fs, "spaces", "memory spaces of the kernel's arrays `A=constant,x=global,...` (global, constant, texture or readonly), instead of the kernel file's; jang: those J14's Algorithm 1 selects for a loop nest, shared-memory prefetch included"),
		data:        addDataFlags(fs),
		remap:       joinedFlag(fs, "remap", "Dymaxion remaps of the kernel's arrays `A=KIND,...` instead of the kernel file's remap: (none, row2col, col2row, diagonal, tile:THxTW or gather:INDEX)"),
	}
}

// launchArgs are what the flags say of a launch, read and checked.
type launchArgs struct {
	dev    *arch.Device
	k      *kernel.Kernel
	m      kernel.Mapping
	block  arch.Dim3
	params map[string]int64
	// jang is the rewrite -spaces jang made of the kernel file's loop
	// nest (k is its kernel then); nil without it.
	jang *validate.JangApplied
}

// parse resolves the device and the kernel and reads -map, -block and
// -set.
func (f *launchFlags) parse() (launchArgs, error) {
	var a launchArgs
	var err error
	if a.dev, err = loadDevice(*f.device, *f.cacheConfig); err != nil {
		return a, err
	}
	if a.k, err = kernel.Load(*f.kernel); err != nil {
		return a, err
	}
	if *f.layout != "" {
		if err := a.k.SelectLayout(*f.layout); err != nil {
			return a, fmt.Errorf("-layout: %w", err)
		}
	}
	if err := f.data.apply(a.k); err != nil {
		return a, err
	}
	if err := setRemaps(a.k, *f.remap); err != nil {
		return a, err
	}
	jang := strings.TrimSpace(*f.spaces) == "jang"
	if !jang {
		if err := setSpaces(a.k, *f.spaces); err != nil {
			return a, fmt.Errorf("-spaces: %w", err)
		}
	}
	if *f.mapping != "" {
		if a.m, err = kernel.ParseMapping(*f.mapping); err != nil {
			return a, fmt.Errorf("-map: %v", err)
		}
	}
	if *f.block != "" {
		if a.block, err = arch.ParseDim3(*f.block); err != nil {
			return a, fmt.Errorf("-block: %v", err)
		}
	}
	if a.params, err = parseSet(*f.set); err != nil {
		return a, fmt.Errorf("-set: %v", err)
	}
	if jang && f.cmd != "validate" {
		err = f.applyJang(&a)
	}
	return a, err
}

// applyJang replaces a's loop nest with the kernel J14's Algorithm 1
// selects for it under a's mapping (validate.ApplyJang).
func (f *launchFlags) applyJang(a *launchArgs) error {
	if f.cmd == "estimate" {
		return errors.New("-spaces jang: estimate prints Algorithm 1's selection (the Memory space column) without it; hint: leave out -spaces, or simulate the selection with run -spaces jang")
	}
	if len(a.k.Launches) > 0 {
		return fmt.Errorf("-spaces jang: %s is a sequence of launches; hint: Algorithm 1 rewrites one serial loop nest", a.k.Name)
	}
	l, err := bindLaunch(a.k, a.m, a.block, a.params, a.dev)
	if err != nil {
		return err
	}
	ap, err := validate.ApplyJang(l)
	if err != nil {
		return fmt.Errorf("-spaces jang: %w", err)
	}
	a.k, a.m, a.jang, f.applied = ap.Kernel, nil, ap, ap
	return nil
}

// load resolves the device and the kernel, and binds the kernel with the
// mapping, block and parameters the flags give. A kernel file that
// describes a sequence of launches is refused: the command takes one.
func (f *launchFlags) load() (*arch.Device, *traces.Launch, error) {
	a, err := f.parse()
	if err != nil {
		return nil, nil, err
	}
	if len(a.k.Launches) > 0 {
		return nil, nil, f.sequenceRefused(a.k, "")
	}
	return f.bind(a)
}

// bind binds the one launch of a.
func (f *launchFlags) bind(a launchArgs) (*arch.Device, *traces.Launch, error) {
	if f.grid != nil && *f.grid != "" {
		l, err := bindWithGrid(a.k, a.m, a.block, *f.grid, a.params, a.dev)
		return a.dev, l, err
	}
	l, err := bindLaunch(a.k, a.m, a.block, a.params, a.dev)
	if err != nil {
		return nil, nil, splitAtFault(a.dev, *f.device, err, func(d *arch.Device) error {
			_, err := bindLaunch(a.k, a.m, a.block, a.params, d)
			return err
		})
	}
	return a.dev, l, nil
}

// loadSequence is load for the commands that take a kernel file's
// sequence of launches (launches:) too: every launch, bound in order.
// A file without launches is its one launch, bound as load binds it.
func (f *launchFlags) loadSequence() (*arch.Device, []*traces.Launch, error) {
	a, err := f.parse()
	if err != nil {
		return nil, nil, err
	}
	if len(a.k.Launches) == 0 {
		dev, l, err := f.bind(a)
		if err != nil {
			return nil, nil, err
		}
		return dev, []*traces.Launch{l}, nil
	}
	ls, err := f.bindSequence(a)
	return a.dev, ls, err
}

// bindSequence binds every launch of a's kernel file's launches.
func (f *launchFlags) bindSequence(a launchArgs) ([]*traces.Launch, error) {
	if f.grid != nil && *f.grid != "" {
		return nil, fmt.Errorf("-grid: %s gives each of its launches a grid (%s); hint: leave out -grid", a.k.Name, launchesAt(a.k))
	}
	return traces.BindSequence(a.k, a.m, a.block, a.params, a.dev)
}

// loadLaunch is load for a command that takes one launch of a kernel
// file's sequence too: launch n of it, counted from 1 (the flag
// -launch); n is 0 for a file without launches.
func (f *launchFlags) loadLaunch(n int) (*arch.Device, *traces.Launch, error) {
	a, err := f.parse()
	if err != nil {
		return nil, nil, err
	}
	if len(a.k.Launches) == 0 {
		if n != 0 {
			return nil, nil, fmt.Errorf("-launch: %s is one launch (its file has no launches:); hint: leave out -launch", a.k.Name)
		}
		return f.bind(a)
	}
	if n == 0 {
		return nil, nil, f.sequenceRefused(a.k, "-launch N")
	}
	ls, err := f.bindSequence(a)
	if err != nil {
		return nil, nil, err
	}
	if n < 1 || n > len(ls) {
		return nil, nil, fmt.Errorf("-launch: %s has launches 1 to %d; got %d", a.k.Name, len(ls), n)
	}
	return a.dev, ls[n-1], nil
}

// launchesAt says where a kernel file gives its launches.
func launchesAt(k *kernel.Kernel) string {
	return fmt.Sprintf("launches: at %s:%d", k.File, k.Where.Launches.Line)
}

// sequenceRefused says why the command takes no sequence of launches,
// and how to get one launch of it (choose: the flag that picks one, or
// "" for none).
func (f *launchFlags) sequenceRefused(k *kernel.Kernel, choose string) error {
	hint := "simulate the sequence with run"
	if choose != "" {
		hint = "pick one launch with " + choose + ", or simulate the sequence with run"
	}
	return fmt.Errorf("%s describes a sequence of launches (%s), and %s takes one launch; hint: %s", k.Name, launchesAt(k), f.cmd, hint)
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

// setSpaces puts k's arrays in the memory spaces that -spaces gives,
// written "A=constant,x=global".
func setSpaces(k *kernel.Kernel, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for part := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(part) == "jang" {
			return fmt.Errorf("jang stands alone: Algorithm 1 chooses every array's space; hint: give -spaces jang, or pairs such as A=constant")
		}
	}
	ps, err := pairs(s, "ARRAY=SPACE", "A=constant,x=global", "array")
	if err != nil {
		return err
	}
	spaces := map[string]kernel.Space{}
	for _, p := range ps {
		sp, err := kernel.ParseSpace(p.value)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", p.name, p.value, err)
		}
		spaces[p.name] = sp
	}
	return k.SetSpaces(spaces)
}

// pair is one NAME=VALUE of a flag's list.
type pair struct{ name, value string }

// pairs reads a flag's list "K=V,K=V" in order, each name once; form,
// example and noun say what a pair is in errors.
func pairs(s, form, example, noun string) ([]pair, error) {
	var out []pair
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("want %s pairs such as %s; got %q", form, example, part)
		}
		for _, p := range out {
			if p.name == name {
				return nil, fmt.Errorf("%s %s set twice", noun, name)
			}
		}
		out = append(out, pair{name, val})
	}
	return out, nil
}

// reads says the launch has a reference to memory space sp.
func reads(l *traces.Launch, sp kernel.Space) bool {
	return slices.ContainsFunc(l.Refs, func(r traces.Ref) bool { return r.Space == sp })
}

// joined is a list flag whose repeats add to it: -set M=64 -set N=32 is
// -set M=64,N=32 (where the flag package would keep only the last), and
// a name given in two of them is refused as one given twice in one is.
type joined string

func (j *joined) String() string { return string(*j) }

func (j *joined) Set(s string) error {
	if *j != "" && strings.TrimSpace(s) != "" {
		*j += ","
	}
	*j += joined(s)
	return nil
}

// joinedFlag defines a joined flag and returns its value.
func joinedFlag(fs *flag.FlagSet, name, usage string) *string {
	j := new(joined)
	fs.Var(j, name, usage)
	return (*string)(j)
}

// parseSet reads parameter overrides written "M=256,N=512".
func parseSet(s string) (map[string]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	ps, err := pairs(s, "NAME=VALUE", "M=256,N=256", "param")
	if err != nil {
		return nil, err
	}
	params := map[string]int64{}
	for _, p := range ps {
		v, err := strconv.ParseInt(p.value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: the value must be an integer", p.name, p.value)
		}
		params[p.name] = v
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
