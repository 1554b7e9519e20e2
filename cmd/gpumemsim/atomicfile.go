package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeAtomic writes what write produces to path through a temporary
// file in path's directory and a rename, so that path holds either its
// old contents or all of the new ones: an output flag (-o, -plot) never
// leaves a half-written file, and a failed write leaves no temporary one.
// A symbolic link is followed (the file it names is replaced, the link
// kept); a path that names the process's standard output or error
// (/dev/stdout, /proc/self/fd/2) is written to it, at its offset, as the
// shell's >&1 would; and one that is not a regular file (a FIFO, a
// device) is written in place. A rename would replace the link, the pipe
// or the device node with a file, or a redirected output with another.
func writeAtomic(path string, write func(io.Writer) error) error {
	path, std, err := outTarget(path)
	if err != nil {
		return err
	}
	if std != nil {
		return write(std)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return writeInPlace(path, write)
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(path), err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// stdFiles are the process's own outputs by the names a path reaches
// them through.
var stdFiles = map[string]*os.File{
	"/dev/stdout": os.Stdout, "/proc/self/fd/1": os.Stdout, "/dev/fd/1": os.Stdout,
	"/dev/stderr": os.Stderr, "/proc/self/fd/2": os.Stderr, "/dev/fd/2": os.Stderr,
}

// outTarget is the file path names once its symbolic links are followed,
// the last of them dangling or not (a link to a file yet to be written
// names where it will be), or the process's standard output or error
// when the links pass through one of their names.
func outTarget(path string) (string, *os.File, error) {
	for range 40 { // as many links as Linux follows
		if f := stdFiles[filepath.Clean(path)]; f != nil {
			return path, f, nil
		}
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeInPlace writes to an existing file that is not a regular one.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFileAtomic is writeAtomic of data.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// checkOutDir checks, before any work, that the directory path is to be
// written in exists and that path is not a directory, so that a long run
// does not end in a failed write; flagName is the output flag, for the
// message.
func checkOutDir(flagName, path string) error {
	path, std, err := outTarget(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flagName, err)
	}
	if std != nil {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: no directory %s to write %s in", flagName, filepath.Dir(path), filepath.Base(path))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s: %s is a directory; hint: name a file in it", flagName, path)
	}
	return nil
}
