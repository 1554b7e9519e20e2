package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limitYAML is a kernel file over arrays A and B of N f32 and the source
// lines given; the source starts on line 7, indented 2.
func limitYAML(source string) string {
	var b strings.Builder
	b.WriteString("name: limits\nparams: {N: 64}\narrays:\n  A: {type: f32, dims: [N]}\n  B: {type: f32, dims: [N]}\nsource: |\n")
	for _, line := range strings.Split(source, "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("mapping: {i: tx}\n")
	return b.String()
}

// TestLimits checks each cap at its value (accepted) and one past it
// (refused at the position of the first thing past it, counted by hand
// from how the source is built).
func TestLimits(t *testing.T) {
	loop := "for (i = 0; i < N; i++) {\n"
	nested := func(n int) string { // n loops, the statement on line n+1
		var b strings.Builder
		for d := range n {
			fmt.Fprintf(&b, "for (l%d = 0; l%d < 2; l%d++)\n", d, d, d)
		}
		b.WriteString("A[0] = 1;")
		return b.String()
	}
	chain := func(n int) string { return "A[i] = " + strings.Repeat("1 + ", n) + "1;" } // n operators
	for _, tc := range []struct {
		name, source string
		want         string // "" when accepted; else the error's prefix after the file name
	}{
		// 64 statements of 2 references: 128; one more reference is the
		// 129th, the B[i] of line 7 + 1 + 64 = 72, column 3+7.
		{"refs", loop + strings.Repeat("A[i] = B[i];\n", MaxRefs/2) + "}", ""},
		{"refs+1", loop + strings.Repeat("A[i] = B[i];\n", MaxRefs/2) + "A[i] = B[i];\n}", "limits.yaml:72:10: more than 128 array references"},
		// The 1025th statement is on line 7 + 1 + 1024.
		{"stmts", loop + strings.Repeat("float x = 1;\n", MaxStmts) + "}", ""},
		{"stmts+1", loop + strings.Repeat("float x = 1;\n", MaxStmts+1) + "}", "limits.yaml:1032:3: more than 1024 statements"},
		// The 65th for is on line 7 + 64.
		{"loops", "for (i = 0; i < N; i++)\n" + nested(MaxLoops-1), ""},
		{"loops+1", "for (i = 0; i < N; i++)\n" + nested(MaxLoops), "limits.yaml:71:3: more than 64 loops"},
		// 256 chained additions are 256 deep; the 257th + is at column
		// 3 + len("A[i] = ") + 4·256 + 2.
		{"chain", loop + chain(MaxExprDepth) + "\n}", ""},
		{"chain+1", loop + chain(MaxExprDepth+1) + "\n}", fmt.Sprintf("limits.yaml:8:%d: expression nests more than 256 deep", 3+7+4*256+2)},
		// Parentheses and unary operators recurse: the 257th level of
		// the recursive descent starts at the 256th ( (the statement's
		// whole right-hand side is the first level).
		{"parens", loop + "A[i] = " + strings.Repeat("(", MaxExprDepth-1) + "1" + strings.Repeat(")", MaxExprDepth-1) + ";\n}", ""},
		{"parens+1", loop + "A[i] = " + strings.Repeat("(", MaxExprDepth) + "1" + strings.Repeat(")", MaxExprDepth) + ";\n}", fmt.Sprintf("limits.yaml:8:%d: expression nests more than 256 deep", 3+7+256)},
		{"minus+1", loop + "A[i] = " + strings.Repeat("- ", MaxExprDepth+1) + "1;\n}", fmt.Sprintf("limits.yaml:8:%d: expression nests more than 256 deep", 3+7+2*255)},
	} {
		_, err := Parse("limits.yaml", []byte(limitYAML(tc.source)))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Parse: %v; want it accepted", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "hint: ")):
			t.Errorf("%s: Parse error = %v; want %q... with a hint", tc.name, err, tc.want)
		}
	}
}

// TestLimitsStopEarly: a statement of 200,000 references is refused
// without building all of it: the chain of + is too deep long before the
// 129th reference.
func TestLimitsStopEarly(t *testing.T) {
	src := limitYAML("for (i = 0; i < N; i++)\n  A[i]=" + strings.Repeat("B[0]+", 200000) + "1;")
	if len(src) > MaxFileSize {
		t.Fatalf("the test kernel has %d bytes; want at most %d", len(src), MaxFileSize)
	}
	_, err := Parse("big.yaml", []byte(src))
	// A[i]= is 5 characters after the indent of 4, each B[0]+ is 5, and
	// a reference is 1 deep (its subscript), so the 256th + is 257 deep.
	if want := fmt.Sprintf("big.yaml:8:%d: expression nests more than 256 deep", 4+5+5*256); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Parse error = %v; want %s", err, want)
	}
}

// TestFileSizeLimit: Parse refuses more than MaxFileSize bytes, and Load
// reads at most one byte past the limit of a larger or endless file.
func TestFileSizeLimit(t *testing.T) {
	src := limitYAML("for (i = 0; i < N; i++)\n  A[i] = 1;") + "#"
	exact := src + strings.Repeat("x", MaxFileSize-len(src)-1) + "\n"
	if _, err := Parse("exact.yaml", []byte(exact)); err != nil {
		t.Errorf("Parse(%d bytes): %v; want it accepted", len(exact), err)
	}
	over := "#" + exact
	if _, err := Parse("over.yaml", []byte(over)); err == nil || !strings.HasPrefix(err.Error(), "over.yaml: larger than 1048576 bytes") {
		t.Errorf("Parse(%d bytes) error = %v; want over.yaml: larger than 1048576 bytes", len(over), err)
	}
	path := filepath.Join(t.TempDir(), "over.yaml")
	if err := os.WriteFile(path, []byte(over), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, "/dev/zero"} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if _, err := Load(f); err == nil || !strings.Contains(err.Error(), f+": larger than 1048576 bytes") {
			t.Errorf("Load(%s) error = %v; want it to name the file and the 1 MiB limit", f, err)
		}
	}
}
