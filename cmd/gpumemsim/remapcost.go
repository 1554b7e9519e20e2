package main

import (
	"flag"
	"fmt"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// remapCostFlag is run's -remap-cost.
func remapCostFlag(fs *flag.FlagSet) *string {
	return fs.String("remap-cost", "exclude", "the Dymaxion remap kernels of the arrays declared remap: — `exclude`: leave them out, as Che overlaps them with the PCIe transfer; include: simulate each before the kernel, in one sequence, shown as its own launch and in the total")
}

// checkRemapCost checks the value of -remap-cost.
func checkRemapCost(cost string) error {
	if cost != "include" && cost != "exclude" {
		return fmt.Errorf("-remap-cost: want include or exclude; got %q", cost)
	}
	return nil
}

// withRemaps prepends to ls the remap launches that -remap-cost include
// asks for.
func withRemaps(cost string, dev *arch.Device, ls []*traces.Launch) ([]*traces.Launch, error) {
	if cost != "include" {
		return ls, nil
	}
	rls, err := traces.RemapLaunches(ls[0], dev)
	if err != nil {
		return nil, err
	}
	if len(rls) == 0 {
		return nil, fmt.Errorf("-remap-cost include: %s declares no remap, so there is no remap kernel to simulate; hint: give an array remap: (row2col, col2row, diagonal, {tile: [TH, TW]} or {gather: INDEX}), or leave out -remap-cost", ls[0].Kernel.Name)
	}
	return append(rls, ls...), nil
}

// kernelLaunch is the first launch of ls that is the kernel file's, not
// a remap.
func kernelLaunch(ls []*traces.Launch) *traces.Launch {
	for _, l := range ls {
		if l.RemapOf == "" {
			return l
		}
	}
	return ls[0]
}

// remaps counts the remap launches of ls.
func remaps(ls []*traces.Launch) int {
	n := 0
	for _, l := range ls {
		if l.RemapOf != "" {
			n++
		}
	}
	return n
}

// setRemaps gives k's arrays the remaps of -remap A=KIND,....
func setRemaps(k *kernel.Kernel, list string) error {
	if list == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		name, spec, ok := strings.Cut(strings.TrimSpace(s), "=")
		if !ok {
			return fmt.Errorf("-remap: want A=KIND, e.g. S=diagonal or V=gather:COL; got %q", s)
		}
		name, spec = strings.TrimSpace(name), strings.TrimSpace(spec) // as -set's names are
		if seen[name] {
			return fmt.Errorf("-remap: array %s set twice; hint: give each array one remap", name)
		}
		seen[name] = true
		if err := k.SetRemap(name, spec); err != nil {
			return err
		}
	}
	return nil
}
