package golden

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n",
			"@@ want line 2, got line 2 @@\n  b\n  c\n- d\n+ X\n  e\n  f\n"},
		{"added at end", "a\n", "a\nb\n", "@@ want line 1, got line 1 @@\n  a\n+ b\n"},
		{"removed at start", "a\nb\n", "b\n", "@@ want line 1, got line 1 @@\n- a\n  b\n"},
		{"from empty", "", "x\n", "@@ want line 1, got line 1 @@\n+ x\n"},
		{"to empty", "x\n", "", "@@ want line 1, got line 1 @@\n- x\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "0\n2\n3\n4\n5\n6\n7\n8\n0\n",
			"@@ want line 1, got line 1 @@\n- 1\n+ 0\n  2\n  3\n@@ want line 7, got line 7 @@\n  7\n  8\n- 9\n+ 0\n"},
		{"final newline", "a", "a\n", "(the files differ only in their final newline)\n"},
	} {
		if got := Diff([]byte(tc.want), []byte(tc.got)); got != tc.diff {
			t.Errorf("%s: Diff =\n%s\nwant\n%s", tc.name, got, tc.diff)
		}
	}
}

// A long change is cut at maxDiffLines and says how much it left out.
func TestDiffBounded(t *testing.T) {
	want := strings.Repeat("a\n", 100)
	got := strings.Repeat("b\n", 100)
	d := Diff([]byte(want), []byte(got))
	if n := strings.Count(d, "\n"); n != maxDiffLines+1 {
		t.Errorf("Diff of 200 changed lines has %d lines; want %d and a tail", n, maxDiffLines+1)
	}
	if !strings.HasSuffix(d, "... and 141 more lines of diff\n") {
		t.Errorf("Diff ends %q; want the count of lines left out", d[len(d)-40:])
	}
}
