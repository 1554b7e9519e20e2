package configs

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gpumemsim/arch"
)

//go:embed *.yaml
var files embed.FS

// Names lists the embedded device configs, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("configs: reading the embedded files: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Load returns the device called name (an embedded config such as
// "fermi") or stored at the path name (a file of the user's, recognised by
// a path separator or a .yaml/.yml suffix). A base is resolved the same
// way, a relative path against the directory of the file that names it.
func Load(name string) (*arch.Device, error) {
	return arch.Load(name, read)
}

// Source returns the YAML text of an embedded config.
func Source(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, unknownDevice(name)
	}
	return data, nil
}

func isPath(name string) bool {
	return strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) ||
		strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

func read(name, from string) (string, []byte, error) {
	if !isPath(name) {
		data, err := Source(name)
		if err != nil {
			return "", nil, err
		}
		return "configs/" + name + ".yaml", data, nil
	}
	path := name
	if from != "" && !filepath.IsAbs(path) && !strings.HasPrefix(from, "configs/") {
		path = filepath.Join(filepath.Dir(from), path)
	}
	data, err := readFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("device config %s: no such file", path)
		}
		return "", nil, fmt.Errorf("device config: %w", err)
	}
	return path, data, nil
}

// MaxFileSize is the largest device config read, in bytes; the shipped
// configs are under 10 KiB.
const MaxFileSize = 1 << 20

// readFile reads the file at path, and refuses one larger than
// MaxFileSize (or an endless one such as /dev/zero) without reading
// more of it.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes (1 MiB), the largest device config gpumemsim reads; hint: a device config is a few kilobytes of YAML", path, MaxFileSize)
	}
	return data, nil
}

func unknownDevice(name string) error {
	return fmt.Errorf("unknown device %q: want one of %s, or the path of a YAML file", name, strings.Join(Names(), ", "))
}
