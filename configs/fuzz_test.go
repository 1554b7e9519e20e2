package configs

import (
	"os"
	"path/filepath"
	"testing"

	"gpumemsim/arch"
)

// FuzzLoad feeds arbitrary text to the loader as a user's config file: it
// must return a device that validates or an error, and never panic.
func FuzzLoad(f *testing.F) {
	for _, name := range Names() {
		data, err := Source(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("base: fermi\nl1: {size: 48KiB, associativity: 6}\n"))
	f.Add([]byte("base: kepler\nl1_shared: {size: 96KiB, prefer_equal: {shared_memory: 48KiB, l1_associativity: 3}}\n"))
	f.Add([]byte("base: fermi\nsms: [1, 2]\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Load(path)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Load returned a device that does not validate: %v", err)
		}
	})
}

// FuzzParseBytes checks that every size the parser accepts prints back to
// the same value.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"128B", "48KiB", "1.5MiB", "2GiB", "0.5KiB", "1e3B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := arch.ParseBytes(s)
		if err != nil {
			return
		}
		back, err := arch.ParseBytes(b.String())
		if err != nil || back != b {
			t.Fatalf("ParseBytes(%q) = %d, which prints as %q and parses back to %d, %v", s, b, b.String(), back, err)
		}
	})
}
