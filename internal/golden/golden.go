package golden

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path. With -update it writes
// got to path instead (creating its directory), or removes the file when
// got is empty, so that an output that went away leaves no stale file; a
// missing file then reads as empty.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if errors.Is(err, fs.ErrNotExist) && len(got) > 0 {
		t.Errorf("%s: no golden file; run go test -update to create it", path)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (- want, + got; go test -update rewrites it):\n%s", path, Diff(want, got))
	}
}

func write(path string, data []byte) error {
	if len(data) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
