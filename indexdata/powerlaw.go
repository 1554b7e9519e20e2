package indexdata

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// PowerLaw is a rows×cols matrix whose row lengths follow a power law of
// the exponent and average about avg nonzeros (see the package doc); the
// seed selects it.
func PowerLaw(rows, cols int64, avg, exponent float64, seed uint64) (*CSR, error) {
	switch {
	case rows < 1 || rows > MaxStoredRows:
		return nil, fmt.Errorf("powerlaw: rows %d; want 1 to %d (its row pointers are kept in memory)", rows, int64(MaxStoredRows))
	case cols < 1 || cols > MaxGenerated:
		return nil, fmt.Errorf("powerlaw: cols %d; want 1 to 2^48", cols)
	case !(avg >= 1) || avg > float64(cols):
		return nil, fmt.Errorf("powerlaw: %v nonzeros per row on average; want 1 to cols (%d)", avg, cols)
	case !(exponent > 1) || exponent > 100:
		return nil, fmt.Errorf("powerlaw: exponent %v; want more than 1 (a Pareto tail), at most 100", exponent)
	}
	w := make([]float64, rows)
	var sum float64
	for r := range w {
		u := float64(hash2(seed, uint64(r))>>11) / (1 << 53)
		w[r] = math.Pow(1-u, -1/(exponent-1))
		sum += w[r]
	}
	mean := sum / float64(rows)
	ptr := make([]int64, rows+1)
	for r, x := range w {
		k := int64(math.Round(float64(avg*x) / mean))
		ptr[r+1] = ptr[r] + max(1, min(cols, k))
		if ptr[r+1] > MaxGenerated {
			return nil, fmt.Errorf("powerlaw: more than 2^48 nonzeros; use fewer rows or a smaller average")
		}
	}
	nnz := ptr[rows]
	return &CSR{Rows: rows, Cols: cols, NNZ: nnz, RowPtr: NewValues(ptr),
		Col: powerCol{ptr: ptr, cols: cols, seed: mix(seed ^ 0x636f6c73)}}, nil
}

// powerCol is the column indices of a power-law matrix: row r's k-th of
// n nonzeros is a hashed column of the stratum [k·cols/n, (k+1)·cols/n).
type powerCol struct {
	ptr  []int64
	cols int64
	seed uint64
}

func (c powerCol) Len() int64            { return c.ptr[len(c.ptr)-1] }
func (c powerCol) Range() (int64, int64) { return 0, c.cols - 1 }

func (c powerCol) At(j int64) int64 {
	r, found := slices.BinarySearch(c.ptr, j)
	if !found {
		r-- // ptr[r] < j < ptr[r+1]
	}
	for c.ptr[r+1] == j { // rows are never empty, but stay exact
		r++
	}
	n, k := c.ptr[r+1]-c.ptr[r], j-c.ptr[r]
	lo, hi := stratum(k, n, c.cols), stratum(k+1, n, c.cols)
	return lo + int64(scale(hash2(c.seed, uint64(j)), uint64(hi-lo)))
}

// stratum is ⌊k·cols/n⌋, exactly (k ≤ n ≤ cols).
func stratum(k, n, cols int64) int64 {
	hi, lo := bits.Mul64(uint64(k), uint64(cols))
	q, _ := bits.Div64(hi, lo, uint64(n))
	return int64(q)
}
