package sim_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// configLeaf is one scalar of a resolved device config: its key path and
// its YAML node.
type configLeaf struct {
	path string
	node *yaml.Node
}

// configLeaves is every scalar of n, in document order.
func configLeaves(n *yaml.Node, path string, out []configLeaf) []configLeaf {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			out = configLeaves(c, path, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = configLeaves(n.Content[i+1], path+"."+n.Content[i].Value, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			out = configLeaves(c, fmt.Sprintf("%s[%d]", path, i), out)
		}
	case yaml.ScalarNode:
		out = append(out, configLeaf{path, n})
	}
	return out
}

// mutated is the value a fuzzed field takes: raw when given, else n
// written in the field's own form (a size, a frequency, a number, or one
// of the spellings of an enumeration or a nonsense word).
func mutated(old string, n int64, raw string) string {
	if raw != "" {
		return raw
	}
	switch {
	case strings.HasSuffix(old, "B"):
		return strconv.FormatInt(n, 10) + "B"
	case strings.HasSuffix(old, "Hz"):
		return strconv.FormatInt(n, 10) + "Hz"
	case old == "true" || old == "false":
		return strconv.FormatBool(n&1 == 1)
	}
	if _, err := strconv.ParseInt(old, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	words := []string{"lrr", "gto", "block", "warp", "cc10", "cc13", "cc20", "cc30", "cc50", "lru", "fifo",
		"linear", "fermi_hash", "xor", "write_evict", "write_through", "write_back", "read_only", "frfcfs", "fcfs", "bogus"}
	return words[uint64(n)%uint64(len(words))]
}

// FuzzConfigRun changes up to two fields of a shipped config, fully
// resolved, to fuzzed values and runs a small kernel on the result. The
// config must either be refused with an error at a file position, or the
// run must finish with its self-check passed (sim.Run checks that every
// level's counters are conserved); a launch the changed device cannot run
// (too many threads for its blocks, say) may be refused too, but nothing
// may panic. The kernel runs again with its array A in constant memory,
// through the constant cache, and in texture memory, through the
// texture caches (shared per TPC and backed by a texture-only L2 on g80
// and gt200). Every other input also runs a longer grid sampled.
func FuzzConfigRun(f *testing.F) {
	names := configs.Names()
	type doc struct {
		root   *yaml.Node
		leaves []configLeaf
	}
	docs := make([]doc, len(names))
	for i, name := range names {
		d, err := configs.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		data, err := yaml.Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			f.Fatal(err)
		}
		docs[i] = doc{&root, configLeaves(&root, "", nil)}
	}
	for i, d := range docs {
		for j := range d.leaves {
			if j%7 == i%7 {
				f.Add(uint8(i), uint16(j), int64(j*37%300), "", uint16(0), int64(0), "")
			}
		}
	}
	f.Add(uint8(2), uint16(0), int64(0), "base: fermi", uint16(1), int64(64), "")
	// An L1 whose sectors are narrower than the rule's transactions, once
	// refused (a100 with cc30 and cc10 failed the self-check when a fill
	// of several sectors was counted as one): a100's rule (leaf 37) and
	// fermi's L1 sector (leaf 42).
	for _, c := range []struct {
		cfg  uint8
		leaf uint16
		raw  string
	}{{0, 37, "cc30"}, {0, 37, "cc10"}, {0, 37, "cc20"}, {1, 42, "32B"}, {1, 42, "64B"}} {
		f.Add(c.cfg, c.leaf, int64(0), c.raw, uint16(0), int64(0), "")
	}
	dir := f.TempDir()
	k, err := kernel.Load("vecadd")
	if err != nil {
		f.Fatal(err)
	}
	kc, err := kernel.Load("vecadd")
	if err != nil {
		f.Fatal(err)
	}
	kc.Arrays[0].Space = kernel.SpaceConstant
	kt, err := kernel.Load("vecadd")
	if err != nil {
		f.Fatal(err)
	}
	kt.Arrays[0].Space = kernel.SpaceTexture
	f.Fuzz(func(t *testing.T, cfg uint8, leaf1 uint16, n1 int64, raw1 string, leaf2 uint16, n2 int64, raw2 string) {
		if !utf8.ValidString(raw1) || !utf8.ValidString(raw2) {
			return // FuzzLoad feeds the loader bytes; here a field takes text
		}
		d := docs[int(cfg)%len(docs)]
		var changed []string
		for _, m := range []struct {
			leaf uint16
			n    int64
			raw  string
		}{{leaf1, n1, raw1}, {leaf2, n2, raw2}} {
			lf := d.leaves[int(m.leaf)%len(d.leaves)]
			old := lf.node.Value
			lf.node.Value = mutated(old, m.n, m.raw)
			changed = append(changed, lf.path+" = "+strconv.Quote(lf.node.Value))
			defer func() { lf.node.Value = old }()
		}
		data, err := yaml.Marshal(d.root)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "mutated.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dev, err := configs.Load(path)
		if err != nil {
			var pe *arch.PosError
			if !errors.As(err, &pe) || pe.File == "" {
				t.Fatalf("%s with %s: refused without a file position: %v", names[int(cfg)%len(names)], strings.Join(changed, ", "), err)
			}
			return
		}
		l, err := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 3000}, dev)
		if err != nil {
			return // the changed SM limits refuse the launch
		}
		if _, err := sim.Run(context.Background(), dev, l, sim.Options{}); err != nil {
			if strings.HasPrefix(err.Error(), "launch:") {
				return // the occupancy calculator refuses the block
			}
			t.Fatalf("%s with %s: %v", names[int(cfg)%len(names)], strings.Join(changed, ", "), err)
		}
		for _, ro := range []struct {
			k       *kernel.Kernel
			present bool
		}{{kc, dev.Constant.Present()}, {kt, dev.Texture.Present()}} {
			space := ro.k.Arrays[0].Space
			_, err := sim.Run(context.Background(), dev, spaceVecadd(t, ro.k, dev), sim.Options{})
			if !ro.present {
				// The run would be refused: it reads the space without
				// its cache. Test that instead of running it.
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("has no %s cache", space)) {
					t.Fatalf("%s with %s, A %s: %v; want a refusal without a %[3]s cache", names[int(cfg)%len(names)], strings.Join(changed, ", "), space, err)
				}
			} else if err != nil {
				t.Fatalf("%s with %s, A %s: %v", names[int(cfg)%len(names)], strings.Join(changed, ", "), space, err)
			}
		}
		// A sampled run of a grid of many waves on the same device must
		// pass the self-check too, and keep the closed-form counts.
		if n1%2 == 0 {
			return
		}
		l, err = traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 60000}, dev)
		if err != nil {
			return
		}
		r, err := sim.Run(context.Background(), dev, l, sim.Options{Sample: sim.SampleOptions{On: true}})
		if err != nil {
			t.Fatalf("%s with %s, sampled: %v", names[int(cfg)%len(names)], strings.Join(changed, ", "), err)
		}
		if r.Sampling == nil || float64(r.WarpInsts) != l.WarpInstructions() {
			t.Fatalf("%s with %s, sampled: %d warp instructions, want the closed form's %v", names[int(cfg)%len(names)], strings.Join(changed, ", "), r.WarpInsts, l.WarpInstructions())
		}
	})
}

// spaceVecadd binds vecadd, whose A is in constant or texture memory in
// k, with 3000 elements (12 KB of constant memory) on dev, which runs
// the plain vecadd at that size.
func spaceVecadd(t *testing.T, k *kernel.Kernel, dev *arch.Device) *traces.Launch {
	t.Helper()
	l, err := traces.Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 3000}, dev)
	if err != nil {
		t.Fatalf("binding vecadd with A %s: %v", k.Arrays[0].Space, err)
	}
	return l
}
