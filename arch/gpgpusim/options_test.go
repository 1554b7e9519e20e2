package gpgpusim

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := "# whole-line comment\n" +
		"-gpgpu_n_clusters 15   # trailing comment\n" +
		"-gpgpu_dram_timing_opt \"nbk=16:CCD=2:  # a comment inside the quotes is cut too\n" +
		"    CL=12:WL=4\"\n" +
		"-bare_flag\n" +
		"-offset -1\n" +
		"-gpgpu_n_clusters 14\n"
	opts, err := Parse("f.config", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Option{
		{Name: "-gpgpu_n_clusters", Value: "15", Line: 2, Column: 1},
		// GPGPU-Sim joins the words of a quoted value with single spaces.
		{Name: "-gpgpu_dram_timing_opt", Value: "nbk=16:CCD=2: CL=12:WL=4", Line: 3, Column: 1},
		{Name: "-bare_flag", Bare: true, Line: 5, Column: 1},
		{Name: "-offset", Value: "-1", Line: 6, Column: 1},
		{Name: "-gpgpu_n_clusters", Value: "14", Line: 7, Column: 1},
	}
	if len(opts.List) != len(want) {
		t.Fatalf("got %d options %+v, want %d", len(opts.List), opts.List, len(want))
	}
	for i, w := range want {
		if opts.List[i] != w {
			t.Errorf("option %d: got %+v, want %+v", i, opts.List[i], w)
		}
	}
	if o, _ := opts.Last("-gpgpu_n_clusters"); o.Value != "14" {
		t.Errorf("Last: got %q, want the later value 14", o.Value)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"-a 1\n-b \"x:y\n-c 3\n", `f.config:2:4: a quoted value opens here and never closes`},
		{"-a 1 2\n", `f.config:1:6: "2": want an option name starting with -`},
		{"15\n", `f.config:1:1: "15": want an option name`},
		{"-a 1\n  -config other.config\n", `f.config:2:3: -config: an option file that includes another is not followed`},
		{"-a \x00\n", `f.config:1:4: not text`},
	} {
		_, err := Parse("f.config", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q): got %v, want %s...", tc.src, err, tc.want)
		}
	}
}

// FuzzParse checks that Parse never panics and that what it accepts
// formats to a file that parses to the same options.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"gtx480", "kepler-titan", "qv100"} {
		f.Add(readTestdata(f, name+".config"))
	}
	f.Add([]byte("-a \"\n-b\" -c\n-d \"\" -e \"\"x\" y\"\n"))
	f.Add([]byte("-a \" b\" -c -.5 \"-d\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, err := Parse("f", data)
		if err != nil {
			return
		}
		text := opts.Format()
		again, err := Parse("f", []byte(text))
		if err != nil {
			t.Fatalf("Format wrote %q, which does not parse: %v", text, err)
		}
		if len(again.List) != len(opts.List) {
			t.Fatalf("%d options, %d after Format %q", len(opts.List), len(again.List), text)
		}
		for i, o := range opts.List {
			a := again.List[i]
			if a.Name != o.Name || a.Value != o.Value || a.Bare != o.Bare {
				t.Fatalf("option %d: %+v, after Format %+v", i, o, a)
			}
		}
	})
}
