package arch

import "fmt"

// PosError is an error at a position in a YAML file. File may be empty
// while the error travels up to the loader, which fills it in.
type PosError struct {
	File         string
	Line, Column int // 1-based; 0 when unknown
	Err          error
}

func (e *PosError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.File != "":
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return e.Err.Error()
}

func (e *PosError) Unwrap() error { return e.Err }
