//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeAtomic replaces the file a symbolic link names and keeps the
// link; it keeps the mode of the file it replaces; and it writes into a
// FIFO in place, where a rename would have replaced the pipe (and, run
// as root, /dev/full or /dev/stdout) with a regular file.
func TestWriteAtomicTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.csv")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("target.csv", link); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v, %v", st, err)
	}
	st, err := os.Stat(target)
	if data, _ := os.ReadFile(target); err != nil || string(data) != "new\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("the target holds %q, mode %v; want \"new\\n\", -rw-------", data, st.Mode())
	}

	// A link to a file not yet there writes it where the link points.
	dangling := filepath.Join(dir, "dangling.csv")
	if err := os.Symlink("later.csv", dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(dangling, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "later.csv")); err != nil || string(data) != "x" {
		t.Errorf("later.csv holds %q (%v); want \"x\"", data, err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	if err := writeFileAtomic(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", st, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 5 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %s; want the five files made here, no temporary", strings.Join(names, ", "))
	}
}

// A path that reaches the process's standard output or error, by name
// or through links, is written to it, not renamed over: -o /dev/stdout
// replaced a redirected output with another file (and, run as root, the
// /dev/stdout link itself), and through a pipe found no such file.
func TestOutTargetStandardFiles(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "err")
	if err := os.Symlink("/proc/self/fd/2", link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want *os.File
	}{{"/dev/stdout", os.Stdout}, {"/dev/fd/1", os.Stdout}, {"/dev/stderr", os.Stderr}, {link, os.Stderr}, {filepath.Join(dir, "x.csv"), nil}} {
		if _, f, err := outTarget(c.path); err != nil || f != c.want {
			t.Errorf("outTarget(%s) = %v, %v; want %v", c.path, f, err, c.want)
		}
	}
}
