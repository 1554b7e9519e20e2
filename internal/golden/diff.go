package golden

import (
	"bytes"
	"fmt"
	"strings"
)

// maxDiffLines bounds the lines Diff prints; a larger change says how many
// lines it left out.
const maxDiffLines = 60

// context is the unchanged lines Diff shows around each change.
const context = 2

// Diff is a line diff of want and got: lines only in want start with "-",
// lines only in got with "+", and each hunk is headed by the line numbers
// in want and in got it starts at, as in a unified diff.
func Diff(want, got []byte) string {
	a, b := lines(want), lines(got)
	ops := edits(a, b)
	// show marks the changes and the context lines around them.
	show := make([]bool, len(ops))
	for i, op := range ops {
		if op.kind != ' ' {
			for k := max(0, i-context); k <= min(len(ops)-1, i+context); k++ {
				show[k] = true
			}
		}
	}
	var out strings.Builder
	printed, skipped := 0, 0
	emit := func(format string, args ...any) {
		if printed == maxDiffLines {
			skipped++
			return
		}
		fmt.Fprintf(&out, format, args...)
		printed++
	}
	for i, op := range ops {
		if !show[i] {
			continue
		}
		if i == 0 || !show[i-1] {
			emit("@@ want line %d, got line %d @@\n", op.ai+1, op.bi+1)
		}
		if op.kind == '+' {
			emit("+ %s\n", b[op.bi])
		} else {
			emit("%c %s\n", op.kind, a[op.ai])
		}
	}
	if skipped > 0 {
		fmt.Fprintf(&out, "... and %d more lines of diff\n", skipped)
	}
	if out.Len() == 0 && !bytes.Equal(want, got) {
		return "(the files differ only in their final newline)\n"
	}
	return out.String()
}

func lines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// edit is one line of the diff: kind ' ' (in both), '-' (want only) or
// '+' (got only), with the line's index in want (ai) and in got (bi).
type edit struct {
	kind   byte
	ai, bi int
}

// edits is a shortest edit script from a to b: the common prefix and
// suffix are matched first, and the middle by longest common subsequence,
// which is quadratic only in the changed region.
func edits(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []edit
	for i := range pre {
		ops = append(ops, edit{' ', i, i})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for k := suf; k > 0; k-- {
		ops = append(ops, edit{' ', len(a) - k, len(b) - k})
	}
	return ops
}

// maxMiddle bounds the table of the longest-common-subsequence step; a
// larger changed region is shown as all removed, then all added.
const maxMiddle = 4 << 20

func middle(a, b []string, off int) []edit {
	var ops []edit
	if len(a)*len(b) > maxMiddle {
		for i := range a {
			ops = append(ops, edit{'-', off + i, off})
		}
		for j := range b {
			ops = append(ops, edit{'+', off + len(a), off + j})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, edit{' ', off + i, off + j})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i*w+j+1] > lcs[(i+1)*w+j]):
			ops = append(ops, edit{'+', off + i, off + j})
			j++
		default:
			ops = append(ops, edit{'-', off + i, off + j})
			i++
		}
	}
	return ops
}
