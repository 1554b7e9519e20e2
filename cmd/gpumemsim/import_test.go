package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"gpumemsim/configs"
	"gpumemsim/internal/golden"
)

func TestDevicesImportGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"devices-import-gtx480", []string{"devices", "import", "testdata/gpgpusim/gtx480.config"}},
		{"devices-import-err-values", []string{"devices", "import", "testdata/gpgpusim/bad-values.config"}},
		{"devices-import-err-quote", []string{"devices", "import", "testdata/gpgpusim/open-quote.config"}},
		{"devices-import-err-missing", []string{"devices", "import", "testdata/gpgpusim/none.config"}},
		{"devices-import-kepler-titan", []string{"devices", "import", "testdata/gpgpusim/kepler-titan.config", "-name", "titan"}},
		{"devices-import-err-invalid", []string{"devices", "import", "testdata/gpgpusim/fermi-hash-16-sets.config"}},
		{"devices-import-err-no-cc", []string{"devices", "import", "testdata/gpgpusim/no-cc.config"}},
		{"devices-import-no-cc-base", []string{"devices", "import", "testdata/gpgpusim/no-cc.config", "-base", "gt200"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runGolden(t, tc.name, tc.args...) })
	}
}

// TestDevicesImportFile imports with -o and runs a kernel on the file.
func TestDevicesImportFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gtx480.yaml")
	var so, se strings.Builder
	if err := run(t.Context(), []string{"devices", "import", "testdata/gpgpusim/gtx480.config", "-o", out, "-name", "gtx480-gs"}, &so, &se); err != nil {
		t.Fatal(err)
	}
	if so.Len() != 0 {
		t.Errorf("-o wrote to stdout too: %q", so.String())
	}
	so.Reset()
	if err := run(t.Context(), []string{"run", "-device", out, "-kernel", "vecadd", "-set", "N=4096"}, &so, &se); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(so.String(), "Device   gtx480-gs (") {
		t.Errorf("run on the imported device printed %q", so.String()[:min(80, so.Len())])
	}
	// A refused import leaves an existing -o file as it was.
	before, _ := os.ReadFile(out)
	if err := run(t.Context(), []string{"devices", "import", "testdata/gpgpusim/bad-values.config", "-o", out}, &so, &se); err == nil {
		t.Fatal("bad-values.config imported")
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("a refused import changed the -o file")
	}
}

// TestGTX480VersusFermi writes the imported GTX 480 beside the shipped
// fermi.yaml, field by field: docs/design.md's table reads this golden.
func TestGTX480VersusFermi(t *testing.T) {
	var so, se strings.Builder
	if err := run(t.Context(), []string{"devices", "import", "testdata/gpgpusim/gtx480.config"}, &so, &se); err != nil {
		t.Fatal(err)
	}
	imported := leaves(t, []byte(so.String()))
	fermi, err := configs.Load("fermi")
	if err != nil {
		t.Fatal(err)
	}
	fy, err := yaml.Marshal(fermi)
	if err != nil {
		t.Fatal(err)
	}
	shipped := leaves(t, fy)
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %-22s %-22s %s\n", "FIELD", "IMPORTED (GS GTX480)", "FERMI.YAML", "")
	agree, differ := 0, 0
	for _, k := range shipped.keys {
		if strings.HasPrefix(k, "sources") || strings.HasPrefix(k, "l1_shared") {
			continue
		}
		mark := "agree"
		if imported.base[k] {
			mark = "base (no option)"
		}
		if imported.vals[k] != shipped.vals[k] {
			mark = "DIFFER"
			differ++
		} else if !imported.base[k] {
			agree++
		}
		fmt.Fprintf(&b, "%-36s %-22s %-22s %s\n", k, imported.vals[k], shipped.vals[k], mark)
	}
	fmt.Fprintf(&b, "\n%d fields translated from options agree, %d differ; the rest are fermi.yaml's (no GPGPU-Sim option sets them) (sources and fermi.yaml's l1_shared splits, which the import leaves out, not counted)\n", agree, differ)
	golden.Check(t, filepath.Join("testdata", "devices-import-gtx480-vs-fermi.txt"), []byte(b.String()))
}

// flat is a YAML document's scalar leaves by dotted path, in order.
type flat struct {
	keys []string
	vals map[string]string
	base map[string]bool // commented "base" by devices import
}

func leaves(t *testing.T, data []byte) flat {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f := flat{vals: map[string]string{}, base: map[string]bool{}}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			walk(n.Content[0], path)
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				v := n.Content[i+1]
				f.base[p] = n.Content[i].LineComment == "# base" || v.LineComment == "# base"
				walk(v, p)
			}
		case yaml.SequenceNode:
			var vs []string
			for _, c := range n.Content {
				vs = append(vs, c.Value)
			}
			f.keys = append(f.keys, path)
			f.vals[path] = "[" + strings.Join(vs, ", ") + "]"
		default:
			f.keys = append(f.keys, path)
			f.vals[path] = n.Value
		}
	}
	walk(&doc, "")
	return f
}
