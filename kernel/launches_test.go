package kernel

import (
	"fmt"
	"strings"
	"testing"
)

// launchesYAML is a per-thread kernel file (params N and M, source on
// lines 8 to 10) with a grid on line 11 unless noGrid, then launches
// from the next line on.
func launchesYAML(launches string, noGrid bool) string {
	extra := "grid: [1]\n"
	if noGrid {
		extra = ""
	}
	return cudaYAML(sig+"A[0] = 1;\n}", extra+"launches:"+launches)
}

func TestLaunchesParse(t *testing.T) {
	src := launchesYAML(`
  - for: {var: i, from: 1, to: N / 16}
    grid: [i]
    set: {M: i, N: 2 * i}
  - for: {var: d, from: N / 16 - 1, to: 1, step: -1}
    set: {M: d}
  - {}
`, false)
	k, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	if len(k.Launches) != 3 {
		t.Fatalf("%d entries in launches; want 3", len(k.Launches))
	}
	var got []string
	for _, h := range k.Launches {
		s := fmt.Sprintf("line %d: ", h.Pos.Line)
		if h.Var != "" {
			s += fmt.Sprintf("for %s = %s .. %s step %d; ", h.Var, h.From, h.To, h.Step)
		}
		s += fmt.Sprintf("grid %v; set", h.Grid)
		for _, p := range h.Set {
			s += fmt.Sprintf(" %s=%s", p.Name, p.Value)
		}
		got = append(got, s)
	}
	want := []string{
		"line 13: for i = 1 .. N / 16 step 1; grid [i]; set M=i N=2 * i",
		"line 16: for d = N / 16 - 1 .. 1 step -1; grid []; set M=d",
		"line 18: grid []; set",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("launches:\n%s\nwant\n%s", g, w)
	}
}

// TestLaunchesErrors: every bad launches entry fails at what is at fault
// (file line and column, counted by hand from launchesYAML: the key
// launches is on line 12), with a hint.
func TestLaunchesErrors(t *testing.T) {
	many := strings.Repeat("\n  - {}", MaxHostLoops+1)
	for _, tc := range []struct {
		launches string
		noGrid   bool
		want     string
	}{
		{" 3", false, "t.yaml:12:11: launches must be a list of one or more launches"},
		{" []", false, "t.yaml:12:11: launches must be a list of one or more launches"},
		{many, false, fmt.Sprintf("t.yaml:%d:5: more than %d entries in launches", 13+MaxHostLoops, MaxHostLoops)},
		{"\n  - 7", false, "t.yaml:13:5: a launch must be a mapping"},
		{"\n  - {bogus: 1}", false, `t.yaml:13:6: unknown key "bogus" in a launch`},
		{"\n  - {grid: [1], grid: [2]}", false, `t.yaml:13:17: duplicate key "grid" in a launch`},
		{"\n  - for: {var: i, from: 1}", false, "t.yaml:13:10: for: missing to"},
		{"\n  - for: {var: i, to: 1}", false, "t.yaml:13:10: for: missing from"},
		{"\n  - for: {vars: i, from: 1, to: 2}", false, `t.yaml:13:11: unknown key "vars" in for`},
		{"\n  - for: [i, 1, 2]", false, "t.yaml:13:10: for must be a mapping"},
		{"\n  - for: {var: i, from: 1.5, to: 4}", false, "t.yaml:13:25: from is an integer; 1.5 is not"},
		{"\n  - for: {var: i, from: 1, to: N / 2.0}", false, "t.yaml:13:36: to is an integer; N / 2.0 is not"},
		{"\n  - for: {var: i, from: 1, to: i}", false, "t.yaml:13:32: unknown param i"},
		{"\n  - for: {var: i, from: blockIdx.x, to: 4}", false, "t.yaml:13:25: blockIdx is not known when the grid is set"},
		{"\n  - for: {var: i, from: 1, to: 4, step: 0}", false, "t.yaml:13:41: step must not be 0"},
		{"\n  - for: {var: i, from: 1, to: 4, step: 1.5}", false, `t.yaml:13:41: step must be an integer, got "1.5"`},
		{"\n  - for: {var: i, from: 1, to: 4, step: N}", false, `t.yaml:13:41: step must be an integer, got "N"`},
		{"\n  - for: {var: N, from: 1, to: 4}", false, "t.yaml:13:16: the loop variable N has the name of a param"},
		{"\n  - for: {var: blockDim, from: 1, to: 4}", false, "t.yaml:13:16: the loop variable blockDim has a name C or CUDA gives a meaning"},
		{"\n  - for: {var: 2x, from: 1, to: 4}", false, `t.yaml:13:16: the loop variable "2x" is not a name`},
		{"\n  - for: {var: i, from: 1, to: 4}\n    grid: [threadIdx.x]", false, "t.yaml:14:12: threadIdx is not known when the grid is set"},
		{"\n  - for: {var: i, from: 1, to: 4}\n    grid: [i, 1, 1, 1]", false, "t.yaml:14:11: grid must be a list of one to three extents"},
		{"\n  - grid: [i]", false, "t.yaml:13:12: unknown param i"},
		{"\n  - for: {var: i, from: 1, to: 4}\n    grid: [i + 0.5]", false, "t.yaml:14:16: a grid entry is an integer; i + 0.5 is not"},
		{"\n  - set: {Q: 1}", false, "t.yaml:13:11: set: Q is not a param of the kernel file"},
		{"\n  - set: {N: i}", false, "t.yaml:13:14: unknown param i"},
		{"\n  - set: {N: [1]}", false, "t.yaml:13:14: set: the value of N must be an integer or an expression"},
		{"\n  - set: {N: 1, N: 2}", false, `t.yaml:13:17: duplicate key "N" in set`},
		{"\n  - set: {N: alpha}", false, "t.yaml:13:14: unknown param alpha"},
		{"\n  - set: {N: 2}", true, "t.yaml:12:5: this launch has no grid, and the file gives none"},
	} {
		file := launchesYAML(tc.launches, tc.noGrid)
		cudaError{}.checkErr(t, file, tc.want)
	}
}

// A loop nest may have launches (set gives params per launch) but no grid
// in them: its grid follows from its mapping.
func TestLoopNestLaunches(t *testing.T) {
	nest := func(launches string) string {
		return kernelYAML("N: 16", "A=N", "for (i = 0; i < N; i++)\n  A[i] = 0;", "mapping: {i: tx}\nlaunches:"+launches)
	}
	k, err := Parse("t.yaml", []byte(nest("\n  - for: {var: t, from: 1, to: 3}\n    set: {N: 16 * t}\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Launches) != 1 || k.Launches[0].Set[0].Value.String() != "16 * t" {
		t.Errorf("launches %+v; want one loop setting N to 16 * t", k.Launches)
	}
	// kernelYAML's source is lines 6 and 7, mapping line 8, launches 9.
	cudaError{}.checkErr(t, nest("\n  - grid: [4]\n"), "t.yaml:10:5: grid is for __global__ kernels")
}
