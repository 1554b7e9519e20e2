package accelsim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Copy is a host-to-device copy a kernel list records (MemcpyHtoD): the
// simulator does not model it, and the report says what it was.
type Copy struct {
	Addr  uint64
	Bytes int64
}

// List is a kernel list (kernelslist.g): its copies and kernel trace
// files in order.
type List struct {
	Copies []Copy
	// Kernels are the trace files, joined to the list's directory, and
	// KernelLines the lines that name them.
	Kernels     []string
	KernelLines []int64
}

// maxListSize bounds a kernel list read whole: a line per command.
const maxListSize = 16 << 20

// ReadList reads the kernel list named name (errors say file:line) with
// contents data. Kernel files are relative to name's directory, as
// Accel-Sim's parse_commandlist_file joins them. Other Memcpy lines
// (MemcpyDtoH) are skipped, as Accel-Sim skips them.
func ReadList(name string, data []byte) (*List, error) {
	l := &List{}
	dir := filepath.Dir(name)
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := int64(i + 1)
		s := strings.TrimSpace(string(line))
		switch {
		case s == "":
		case strings.HasPrefix(s, "MemcpyHtoD"):
			c, err := parseCopy(s)
			if err != nil {
				return nil, &ParseError{File: name, Line: n, Err: err}
			}
			l.Copies = append(l.Copies, c)
		case strings.HasPrefix(s, "Memcpy"):
		case strings.HasPrefix(s, "kernel"):
			if err := checkTraceName(s); err != nil {
				return nil, &ParseError{File: name, Line: n, Err: err}
			}
			path := s
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, s)
			}
			l.Kernels = append(l.Kernels, path)
			l.KernelLines = append(l.KernelLines, n)
		default:
			return nil, &ParseError{File: name, Line: n, Err: fmt.Errorf("%q: want MemcpyHtoD,ADDRESS,BYTES or the name of a kernel's trace file (kernel-1.traceg)", abbrev([]byte(s)))}
		}
	}
	if len(l.Kernels) == 0 {
		return nil, fmt.Errorf("%s: lists no kernel trace file (kernel-1.traceg); hint: is it Accel-Sim's kernelslist.g?", name)
	}
	return l, nil
}

// parseCopy reads "MemcpyHtoD,0x00007fb0fc400000,200000".
func parseCopy(s string) (Copy, error) {
	bad := fmt.Errorf("%q: want MemcpyHtoD,ADDRESS,BYTES, e.g. MemcpyHtoD,0x00007fb0fc400000,200000", abbrev([]byte(s)))
	parts := strings.Split(s, ",")
	if len(parts) != 3 || parts[0] != "MemcpyHtoD" {
		return Copy{}, bad
	}
	addr, ok := parseHex([]byte(strings.TrimSpace(parts[1])), 16)
	n, err := strconv.ParseInt(strings.TrimSpace(parts[2]), 10, 64)
	if !ok || err != nil || n < 0 {
		return Copy{}, bad
	}
	return Copy{Addr: addr, Bytes: n}, nil
}

// checkTraceName refuses trace files gpumemsim cannot read by their name.
func checkTraceName(name string) error {
	if strings.HasSuffix(name, ".xz") || strings.HasSuffix(name, ".xzg") {
		return fmt.Errorf("%s is xz-compressed; hint: decompress it (xz -dk %s) and name the .traceg", name, strings.TrimSuffix(name, "g"))
	}
	if strings.HasSuffix(name, ".tracez") {
		return fmt.Errorf("%s is an Accel-Sim 2 .tracez (zstd-compressed, per warp), which gpumemsim does not read; hint: trace with the tracer's text output (.traceg)", name)
	}
	return nil
}

// Trace is a traced program: the copies and the kernels a kernel list
// names, indexed, or the one kernel of a .traceg.
type Trace struct {
	File    string
	Copies  []Copy
	Kernels []*Kernel
}

// Open reads the kernel list or the .traceg at path (a .traceg starts
// with its header, "-kernel name = ..."), and indexes each kernel. Close
// releases the files.
func Open(path string) (*Trace, error) {
	if err := checkTraceName(path); err != nil {
		return nil, err
	}
	isTrace, err := sniff(path)
	if err != nil {
		return nil, err
	}
	t := &Trace{File: path}
	if isTrace {
		k, err := OpenKernel(path)
		if err != nil {
			return nil, err
		}
		t.Kernels = []*Kernel{k}
		return t, nil
	}
	data, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	l, err := ReadList(path, data)
	if err != nil {
		return nil, err
	}
	t.Copies = l.Copies
	for i, p := range l.Kernels {
		k, err := OpenKernel(p)
		if errors.Is(err, os.ErrNotExist) {
			err = &ParseError{File: path, Line: l.KernelLines[i], Err: fmt.Errorf("kernel trace %s: no such file", p)}
		}
		if err != nil {
			t.Close()
			return nil, err
		}
		t.Kernels = append(t.Kernels, k)
	}
	return t, nil
}

// Close closes the kernels' files.
func (t *Trace) Close() error {
	var errs []error
	for _, k := range t.Kernels {
		errs = append(errs, k.Close())
	}
	return errors.Join(errs...)
}

// sniff reports whether the file at path is a .traceg: its first line that
// is not blank starts with '-'.
func sniff(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	first := bytes.TrimLeft(buf[:n], " \t\r\n")
	return len(first) > 0 && first[0] == '-' || strings.HasSuffix(path, ".traceg"), nil
}

// readSmall reads a kernel list, refusing one larger than maxListSize.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxListSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxListSize {
		return nil, fmt.Errorf("%s: larger than %d MiB, more than a kernel list; hint: -trace takes Accel-Sim's kernelslist.g or one kernel's .traceg", path, maxListSize>>20)
	}
	return data, nil
}
