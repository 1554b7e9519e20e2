package kernel

import (
	"strings"
	"testing"
)

func TestParseSpace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Space
		err  string // a prefix of the error, "" when accepted
	}{
		{"global", SpaceGlobal, ""},
		{"constant", SpaceConstant, ""},
		{"texture", SpaceTexture, ""},
		{"shared", 0, `space "shared": an array of the kernel file lives in device memory; hint: `},
		{"readonly", SpaceReadOnly, ""},
		{"Constant", 0, `unknown space "Constant"; hint: want global, constant, texture or readonly`},
	} {
		got, err := ParseSpace(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseSpace(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("ParseSpace(%q) error = %v; want %q...", tc.in, err, tc.err)
		}
	}
}

// TestSetSpaces: -spaces moves arrays between spaces; a name that is no
// array of the file, or a store to an array made constant, is refused.
func TestSetSpaces(t *testing.T) {
	src := "for (i = 0; i < N; i++)\n  B[i] = A[i] + c[0];"
	load := func() *Kernel { return mustParse(t, "N: 64", "A=N;B=N;c=4", src, "mapping: {i: tx}\n") }
	k := load()
	if err := k.SetSpaces(map[string]Space{"c": SpaceConstant, "A": SpaceConstant}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range k.Arrays {
		got = append(got, a.Name+"="+a.Space.String())
	}
	if s := strings.Join(got, ","); s != "A=constant,B=global,c=constant" {
		t.Errorf("spaces %s; want A=constant,B=global,c=constant", s)
	}
	if err := load().SetSpaces(map[string]Space{"q": SpaceConstant, "c": SpaceConstant, "p": SpaceGlobal}); err == nil ||
		err.Error() != "unknown array p, q; hint: the arrays of t are A, B, c" {
		t.Errorf("unknown arrays: %v", err)
	}
	// kernelYAML's source starts on line 8 (after three arrays); B[i] is
	// on its line 2, after two spaces of the file and two of the body.
	want := "t.yaml:9:5: store to constant array B (B[i]); hint: "
	if err := load().SetSpaces(map[string]Space{"B": SpaceConstant}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("store to a constant array: %v; want %q...", err, want)
	}
}
