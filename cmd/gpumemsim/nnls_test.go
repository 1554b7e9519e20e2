package main

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// nnls is the non-negative least-squares solution x ≥ 0 of a·x ≈ b (a
// has one row per observation), by Lawson and Hanson's active-set
// method (Solving Least Squares Problems, 1974, ch. 23): a term enters
// the passive set while moving it off 0 would lower the residual, and the
// unconstrained solution on the passive set is taken as far as it stays
// non-negative. The columns are scaled to unit length first, which the
// rates' spread of magnitudes (warp instructions against transactions
// times thousands of warps) needs.
func nnls(a [][]float64, b []float64) []float64 {
	m, n := len(a), len(a[0])
	norm := make([]float64, n)
	for j := range n {
		for i := range m {
			norm[j] += a[i][j] * a[i][j]
		}
		norm[j] = math.Sqrt(norm[j])
	}
	A := mat.NewDense(m, n, nil)
	for i := range m {
		for j := range n {
			if norm[j] > 0 {
				A.Set(i, j, a[i][j]/norm[j])
			}
		}
	}
	B := mat.NewVecDense(m, b)
	x := make([]float64, n)
	passive := make([]bool, n)
	const tol = 1e-12
	for range 3 * n {
		w := gradient(A, B, x)
		j, best := -1, tol
		for k := range n {
			if !passive[k] && norm[k] > 0 && w[k] > best {
				j, best = k, w[k]
			}
		}
		if j < 0 {
			break
		}
		passive[j] = true
		for {
			z := solvePassive(A, B, passive)
			alpha, step := 1.0, false
			for k := range n {
				if passive[k] && z[k] <= tol {
					if f := x[k] / (x[k] - z[k]); f < alpha {
						alpha = f
					}
					step = true
				}
			}
			if !step {
				copy(x, z)
				break
			}
			for k := range n {
				x[k] += alpha * (z[k] - x[k])
				if passive[k] && x[k] <= tol {
					passive[k], x[k] = false, 0
				}
			}
		}
	}
	for j := range n {
		if norm[j] > 0 {
			x[j] /= norm[j]
		}
	}
	return x
}

// gradient is Aᵀ(b − Ax), the direction in which each term lowers the
// residual.
func gradient(A *mat.Dense, b *mat.VecDense, x []float64) []float64 {
	_, n := A.Dims()
	var r mat.VecDense
	r.MulVec(A, mat.NewVecDense(n, x))
	r.SubVec(b, &r)
	var w mat.VecDense
	w.MulVec(A.T(), &r)
	out := make([]float64, n)
	for j := range n {
		out[j] = w.AtVec(j)
	}
	return out
}

// solvePassive is the unconstrained least-squares solution on the passive
// columns, 0 on the others.
func solvePassive(A *mat.Dense, b *mat.VecDense, passive []bool) []float64 {
	m, n := A.Dims()
	var cols []int
	for j := range n {
		if passive[j] {
			cols = append(cols, j)
		}
	}
	sub := mat.NewDense(m, len(cols), nil)
	for i := range m {
		for k, j := range cols {
			sub.Set(i, k, A.At(i, j))
		}
	}
	var z mat.VecDense
	_ = z.SolveVec(sub, b) // a near-singular set still gives its least-squares answer
	out := make([]float64, n)
	for k, j := range cols {
		out[j] = z.AtVec(k)
	}
	return out
}

// An exact system with a non-negative solution is solved exactly, at the
// rates' magnitudes.
func TestNNLSExact(t *testing.T) {
	want := []float64{84e-9, 57e-9, 0, 365e-9}
	a := [][]float64{
		{1e8, 3e9, 2e6, 5e6},
		{2e7, 1e8, 9e6, 1e5},
		{5e8, 4e11, 1e3, 7e7},
		{3e6, 2e6, 4e7, 1e6},
		{9e7, 6e10, 3e5, 2e8},
	}
	b := make([]float64, len(a))
	for i, row := range a {
		for j, v := range row {
			b[i] += v * want[j]
		}
	}
	got := nnls(a, b)
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-9*want[0] {
			t.Errorf("x[%d] = %g; want %g (all: %g)", j, got[j], want[j], got)
		}
	}
}

// Where the unconstrained fit would make a term negative, the term is 0
// and the others are the least-squares fit without it; worked by hand:
// rows (1, 1), (1, 2), (1, 3) against b = 3, 2, 1 fit 4 − x
// unconstrained; with x ≥ 0 the second term is 0 and the first is the
// mean of b, 2.
func TestNNLSClamps(t *testing.T) {
	got := nnls([][]float64{{1, 1}, {1, 2}, {1, 3}}, []float64{3, 2, 1})
	if math.Abs(got[0]-2) > 1e-12 || got[1] != 0 {
		t.Errorf("nnls = %v; want [2 0]", got)
	}
	// A column of zeros gets 0.
	got = nnls([][]float64{{1, 0}, {2, 0}}, []float64{2, 4})
	if math.Abs(got[0]-2) > 1e-12 || got[1] != 0 {
		t.Errorf("nnls = %v; want [2 0]", got)
	}
}
