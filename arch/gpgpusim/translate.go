package gpgpusim

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// Result is an imported device with the account of where each field came
// from and what the option file said that gpumemsim does not model.
type Result struct {
	Device *arch.Device
	// File is the option file's name as given.
	File string
	// Base is the config whose values fill the fields no option sets.
	Base string
	// From maps a field's YAML path ("l1.size") to the options it was
	// translated from, as they were written, with notes where the
	// translation approximates. A path not in From came from Base.
	From map[string]string
	// Ignored lists the options that set no field, in file order.
	Ignored []Ignored
}

// Ignored is an option that sets no field, and why.
type Ignored struct {
	Option Option
	Why    string
}

// importer translates one file; errs collects every malformed value.
type importer struct {
	opts     *Options
	base     *arch.Device
	baseName string
	d        *arch.Device
	used     map[int]bool // indexes into opts.List
	// skipped gives the reason an option read was not used.
	skipped map[int]string
	from    map[string]string
	errs    []error
}

// Import translates opts into a device named name, starting from base (a
// copy of it is changed; base is the config called baseName). It refuses
// a malformed value of an option it translates, naming the option and its
// line; it refuses nothing for an option it ignores.
func Import(opts *Options, base *arch.Device, baseName, name string) (*Result, error) {
	d := *base
	im := &importer{opts: opts, base: base, baseName: baseName, d: &d, used: map[int]bool{}, skipped: map[int]string{}, from: map[string]string{}}
	d.Name = name
	d.Board = "GPGPU-Sim option file " + opts.File
	d.Sources = []string{
		"GPGPU-Sim option file " + opts.File + ": every field commented with the option it was translated from",
		"configs/" + baseName + ".yaml: the fields no GPGPU-Sim option sets (commented 'base')",
	}
	im.from["name"] = "-name flag"
	im.from["board"] = "the option file's path"
	im.from["sources"] = "gpumemsim devices import"
	// The L1/shared splits of the base do not describe the imported L1.
	d.L1Shared = arch.L1Shared{}
	for _, step := range []func(){
		im.computeCapability, im.core, im.caches, im.sharedMemory, im.memory,
	} {
		step()
	}
	if len(im.errs) > 0 {
		sort.SliceStable(im.errs, func(i, j int) bool {
			return im.errs[i].(*arch.PosError).Line < im.errs[j].(*arch.PosError).Line
		})
		return nil, errors.Join(im.errs...)
	}
	if err := d.Validate(); err != nil {
		return nil, im.invalid(err)
	}
	return &Result{Device: &d, File: opts.File, Base: baseName, From: im.from, Ignored: im.ignored()}, nil
}

// get returns the last occurrence of any of names (an option's current
// name and its GPGPU-Sim 3.x name), marking every occurrence of all of
// them as read.
func (im *importer) get(names ...string) (Option, bool) {
	var last Option
	idx := -1
	for i, o := range im.opts.List {
		for _, n := range names {
			if o.Name == n {
				im.used[i] = true
				idx = i
				last = o
			}
		}
	}
	return last, idx >= 0
}

// skip records that the options called names set nothing, and why.
func (im *importer) skip(why string, names ...string) {
	for i, o := range im.opts.List {
		for _, n := range names {
			if o.Name == n {
				im.skipped[i] = why
			}
		}
	}
}

// fail records a malformed value of o.
func (im *importer) fail(o Option, format string, args ...any) {
	im.errs = append(im.errs, &arch.PosError{File: im.opts.File, Line: o.Line, Column: o.Column,
		Err: fmt.Errorf("%s %q: %s", o.Name, o.Value, fmt.Sprintf(format, args...))})
}

// note records that the fields at paths come from ops.
func (im *importer) note(text string, paths ...string) {
	for _, p := range paths {
		im.from[p] = text
	}
}

func written(ops ...Option) string {
	parts := make([]string, len(ops))
	for i, o := range ops {
		parts[i] = fmt.Sprintf("%s %s (line %d)", o.Name, o.Value, o.Line)
	}
	return strings.Join(parts, ", ")
}

// count reads a positive integer option; ok is false where it is absent
// or malformed (then reported).
func (im *importer) count(name string, aliases ...string) (int, Option, bool) {
	o, ok := im.get(append([]string{name}, aliases...)...)
	if !ok {
		return 0, o, false
	}
	n, err := strconv.Atoi(o.Value)
	if err != nil || n <= 0 || n > 1<<30 {
		im.fail(o, "want a positive integer, e.g. %s 8", o.Name)
		return 0, o, false
	}
	return n, o, true
}

// flag reads a 0/1 option; a bare flag is 1, as GPGPU-Sim reads it.
func (im *importer) flag(names ...string) (bool, Option, bool) {
	o, ok := im.get(names...)
	if !ok {
		return false, o, false
	}
	switch {
	case o.Bare || o.Value == "1":
		return true, o, true
	case o.Value == "0":
		return false, o, true
	}
	im.fail(o, "want 0 or 1")
	return false, o, false
}

// setInt sets *field from a positive integer option.
func (im *importer) setInt(field *int, path, name string, aliases ...string) {
	if n, o, ok := im.count(name, aliases...); ok {
		*field = n
		im.note(written(o), path)
	}
}

// ComputeCapability returns the compute capability the file gives,
// "major.minor": -gpgpu_compute_capability_major and _minor, or else
// -gpgpu_ptx_force_max_capability (20 is "2.0"). ok is false when it
// gives none.
func ComputeCapability(opts *Options) (cc string, ok bool) {
	maj, okMaj := opts.Last("-gpgpu_compute_capability_major")
	minor, okMin := opts.Last("-gpgpu_compute_capability_minor")
	if okMaj && okMin {
		return maj.Value + "." + minor.Value, true
	}
	if f, ok := opts.Last("-gpgpu_ptx_force_max_capability"); ok && len(f.Value) >= 2 {
		return f.Value[:len(f.Value)-1] + "." + f.Value[len(f.Value)-1:], true
	}
	return "", false
}

// BaseFor names the shipped config whose architecture is closest to
// compute capability cc: g80, gt200, fermi, kepler, or maxwell for 5.x
// and later.
func BaseFor(cc string) string {
	switch {
	case cc == "1.0" || cc == "1.1":
		return "g80"
	case strings.HasPrefix(cc, "1."):
		return "gt200"
	case strings.HasPrefix(cc, "2."):
		return "fermi"
	case strings.HasPrefix(cc, "3."):
		return "kepler"
	}
	return "maxwell"
}

func (im *importer) computeCapability() {
	cc, ok := ComputeCapability(im.opts)
	if !ok {
		return
	}
	at, okMaj := im.get("-gpgpu_compute_capability_major")
	minor, okMin := im.get("-gpgpu_compute_capability_minor")
	if okMaj && okMin {
		im.note(written(at, minor), "compute_capability")
	} else {
		at, _ = im.get("-gpgpu_ptx_force_max_capability")
		im.note(written(at), "compute_capability")
	}
	if !ccPattern(cc) {
		im.fail(at, "gives compute capability %q; want a digit 1-9 and a digit, e.g. -gpgpu_compute_capability_major 2 and _minor 0, or -gpgpu_ptx_force_max_capability 20", cc)
		return
	}
	im.d.ComputeCapability = cc
}

func ccPattern(cc string) bool {
	return len(cc) == 3 && cc[0] >= '1' && cc[0] <= '9' && cc[1] == '.' && cc[2] >= '0' && cc[2] <= '9'
}

// core translates the SM count, clocks, SM limits and warp schedulers.
func (im *importer) core() {
	d := im.d
	clusters, oc, ok1 := im.count("-gpgpu_n_clusters")
	cores, ocores, ok2 := im.count("-gpgpu_n_cores_per_cluster")
	switch {
	case ok1 && ok2:
		d.SMs = clusters * cores
		im.note(written(oc, ocores)+": clusters × cores per cluster (the clusters' shared interconnect ports are not modelled)", "sms")
	case ok1:
		im.fail(oc, "without -gpgpu_n_cores_per_cluster, whose GPGPU-Sim default (3, GT200's cores per TPC) describes few GPUs; hint: give it, e.g. -gpgpu_n_cores_per_cluster 1")
	case ok2:
		im.fail(ocores, "without -gpgpu_n_clusters; hint: give both, the SMs being clusters × cores per cluster")
	}
	im.clocks()
	if o, ok := im.get("-gpgpu_shader_core_pipeline"); ok {
		t, w, err := pair(o.Value)
		if err != nil || w != 32 || t%w != 0 {
			im.fail(o, "want <threads per SM>:<warp size>, the warp size 32 and the threads a multiple of it, e.g. 1536:32")
		} else {
			d.SM.MaxThreads, d.SM.MaxWarps, d.WarpSize = t, t/w, w
			im.note(written(o), "sm.max_threads", "sm.max_warps", "warp_size")
		}
	}
	im.setInt(&d.SM.Registers, "sm.registers", "-gpgpu_shader_registers")
	im.setInt(&d.SM.MaxBlocks, "sm.max_blocks", "-gpgpu_shader_cta")
	im.setInt(&d.Scheduler.PerSM, "scheduler.schedulers_per_sm", "-gpgpu_num_sched_per_core")
	im.setInt(&d.Scheduler.IssuePerCycle, "scheduler.issue_per_cycle", "-gpgpu_max_insn_issue_per_warp")
	if o, ok := im.get("-gpgpu_TB_launch_latency"); ok {
		if n, err := strconv.Atoi(o.Value); err != nil || n < 0 {
			im.fail(o, "want a non-negative number of core cycles")
		} else {
			d.Scheduler.BlockLaunchLatency = n
			im.note(written(o), "scheduler.block_launch_latency")
		}
	}
	im.scheduler()
	if o, ok := im.get("-gpgpu_coalesce_arch"); ok {
		n, err := strconv.Atoi(o.Value)
		switch {
		case err != nil || n < 13:
			im.fail(o, "want the compute capability whose coalescing GPGPU-Sim models, 13 or more, e.g. 20 (GPGPU-Sim aborts below 13)")
		default:
			d.Coalescer.Rule = coalescingRule(n)
			im.note(written(o)+fmt.Sprintf(": %v (GPGPU-Sim: 13-19 half-warp segments, 20-38 Fermi/Kepler, 40+ 32-byte sectors)", d.Coalescer.Rule), "coalescer.rule")
		}
	}
}

func (im *importer) scheduler() {
	o, ok := im.get("-gpgpu_scheduler")
	if !ok {
		return
	}
	switch o.Value {
	case "lrr":
		im.d.Scheduler.Policy = arch.PolicyLRR
	case "gto":
		im.d.Scheduler.Policy = arch.PolicyGTO
	default:
		im.fail(o, "gpumemsim models the lrr and gto warp schedulers; hint: GPGPU-Sim's two_level_active, rrr, old and warp_limiting have no counterpart, so pick lrr or gto")
		return
	}
	im.note(written(o), "scheduler.policy")
}

// coalescingRule maps -gpgpu_coalesce_arch to a rule as
// warp_inst_t::memory_coalescing_arch (src/abstract_hardware_model.cc)
// branches on it.
func coalescingRule(n int) arch.CoalescingRule {
	switch {
	case n < 20:
		return arch.RuleCC13
	case n < 30:
		return arch.RuleCC20
	case n < 40:
		return arch.RuleCC30
	}
	return arch.RuleCC50
}

// pair reads "a:b" as two positive integers.
func pair(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, ":")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || x <= 0 || y <= 0 {
		return 0, 0, fmt.Errorf("want two positive integers a:b")
	}
	return x, y, nil
}

// clocks reads -gpgpu_clock_domains <core>:<interconnect>:<L2>:<DRAM> in
// MHz. gpumemsim counts core cycles and runs the interconnect and the L2
// at the core clock.
func (im *importer) clocks() {
	o, ok := im.get("-gpgpu_clock_domains")
	if !ok {
		return
	}
	f := strings.Split(o.Value, ":")
	mhz := make([]float64, len(f))
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v > 1e5 || math.IsNaN(v) {
			mhz = nil
			break
		}
		mhz[i] = v
	}
	if len(mhz) != 4 {
		im.fail(o, "want <core>:<interconnect>:<L2>:<DRAM> clocks in MHz, e.g. 700.0:700.0:700.0:924.0")
		return
	}
	im.d.Clocks.Core = arch.Hz(math.Round(mhz[0] * 1e6))
	im.d.Clocks.DRAM = arch.Hz(math.Round(mhz[3] * 1e6))
	text := written(o)
	if mhz[1] != mhz[0] || mhz[2] != mhz[0] {
		text += fmt.Sprintf(" (the interconnect's %g MHz and the L2's %g MHz are not modelled: both run at the core clock)", mhz[1], mhz[2])
	}
	im.note(text+": the core clock", "clocks.core")
	im.note(written(o)+": the DRAM command clock", "clocks.dram")
}

// invalid names, for each problem Validate found, the options the field
// was translated from, or the base.
func (im *importer) invalid(err error) error {
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	out := make([]error, len(list))
	for i, e := range list {
		from := "configs/" + im.baseName + ".yaml (no option sets it)"
		var fe *arch.FieldError
		if errors.As(e, &fe) {
			for p := fe.Path; p != ""; p = p[:max(0, strings.LastIndexByte(p, '.'))] {
				if text, ok := im.from[p]; ok {
					from = text
					break
				}
			}
		}
		out[i] = fmt.Errorf("%s: the imported device is refused: %w; it comes from %s", im.opts.File, e, from)
	}
	return errors.Join(out...)
}
