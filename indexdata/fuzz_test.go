package indexdata

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzMatrixMarket: the reader never panics, every error is positioned,
// and what it accepts is a consistent CSR structure.
func FuzzMatrixMarket(f *testing.F) {
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n3 2 -1\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 3\n1 1\n2 1\n3 1\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1 1\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMatrixMarket("f.mtx", bytes.NewReader(data))
		if err != nil {
			checkPositioned(t, err)
			return
		}
		checkCSR(t, "ReadMatrixMarket", m)
	})
}

// FuzzText: the reader never panics, errors are positioned, and the
// values it accepts lie in their Range.
func FuzzText(f *testing.F) {
	f.Add([]byte("1 2 3\n# c\n-4 5\n"))
	f.Add([]byte("0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadText("f.txt", bytes.NewReader(data))
		if err != nil {
			checkPositioned(t, err)
			return
		}
		lo, hi := v.Range()
		for _, x := range all(v) {
			if x < lo || x > hi {
				t.Fatalf("value %d outside Range [%d, %d]", x, lo, hi)
			}
		}
	})
}

// checkPositioned fails unless err is a ParseError with a position.
func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
		t.Fatalf("unpositioned error %v", err)
	}
}
