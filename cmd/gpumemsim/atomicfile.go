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
func writeAtomic(path string, write func(io.Writer) error) error {
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
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
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
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: no directory %s to write %s in", flagName, filepath.Dir(path), filepath.Base(path))
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s: %s is a directory; hint: name a file in it", flagName, path)
	}
	return nil
}
