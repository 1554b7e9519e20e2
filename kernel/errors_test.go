package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/internal/golden"
)

// TestKernelErrors loads each bad kernel in testdata and compares the error
// with testdata/NAME.err. The positions are also checked against a table
// counted by hand from the files.
func TestKernelErrors(t *testing.T) {
	pos := map[string]string{ // file line:col, counted by hand
		"syntax":           "6:26", // the { where ) belongs
		"unknown-array":    "7:12", // D
		"wrong-indices":    "8:12", // A
		"nonaffine":        "9:17", // the * of i*j
		"unknown-loop":     "8:18", // k
		"mapped-twice":     "11:3", // second i
		"one-axis":         "9:21", // second tx
		"unknown-type":     "4:13", // f16
		"bad-dims":         "4:30", // Q
		"unknown-key":      "9:1",  // blocks
		"duplicate-key":    "5:3",  // second A
		"wrong-type":       "2:13", // sixty-four
		"nonaffine-bound":  "7:22", // the * of i*i
		"mapped-bound":     "9:11", // j
		"unknown-function": "9:12", // tanh
		"bad-block":        "8:13", // 0
		"unsupported":      "7:5",  // if
		"non-ascii":        "9:31", // → (characters, not bytes: é and à are two bytes each)
		"non-ascii-name":   "7:14", // the é of café
		"constant-store":   "8:5",  // c[i], a store to a constant array
		"texture-store":    "8:5",  // A[i], a store to a texture array
		"two-documents":    "10:1", // the ---, which a reader would stop at
	}
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(pos) {
		t.Errorf("%d bad kernels in testdata, %d in the position table", len(files), len(pos))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(f, data)
			if err == nil {
				t.Fatalf("Parse(%s) succeeded; want an error", f)
			}
			got := err.Error() + "\n"
			if want := f + ":" + pos[name] + ": "; !strings.HasPrefix(got, want) {
				t.Errorf("Parse(%s) = %q; want the position %s", f, got, want)
			}
			if !strings.Contains(got, "hint: ") && name != "bad-block" {
				t.Errorf("Parse(%s) = %q; want a hint", f, got)
			}
			golden.Check(t, strings.TrimSuffix(f, ".yaml")+".err", []byte(got))
		})
	}
}

func TestParseMappingErrors(t *testing.T) {
	for _, s := range []string{"", "i1", "i1=tw", "i1=tx,i1=ty", "i1=tx,i2=tx"} {
		if _, err := ParseMapping(s); err == nil {
			t.Errorf("ParseMapping(%q) succeeded; want an error", s)
		}
	}
}
