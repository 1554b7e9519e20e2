// Package indexdata gives index arrays their integer contents, element by
// element and deterministically: generators (a seeded permutation, seeded
// uniform values, a strided walk, banded and power-law sparse matrices in
// CSR form, the voxel lists of rays) that compute any element in O(1)
// memory or O(rows), and readers of Matrix
// Market files (converted to CSR) and of plain text arrays, which refuse a
// file larger than their bounds before allocating for it.
//
// A kernel reads an index array's element (V[COL[j]]) and the simulator
// asks the array's Contents for the value, so the addresses of the
// dependent reference, its trip counts and its branches follow the data.
//
// # Determinism
//
// Every generator is a pure function of its arguments and its seed: the
// randomness is a splitmix64 hash of the seed and the element's position,
// so element i is the same whatever order or how often it is asked for,
// and nothing depends on a global source. The readers keep the entries as
// the file gives them.
//
// # Generators
//
//   - Permutation(n, seed): a bijection of 0..n-1, a four-round Feistel
//     network on the smallest domain of 2^(2h) ≥ n values, cycle-walked
//     back into [0, n) (under four steps on average).
//   - Uniform(n, lo, hi, seed): n values in [lo, hi), each the hash of the
//     seed and its position scaled to the range.
//   - Strided(n, stride, mod): element i is i·stride mod mod (exactly, in
//     128-bit arithmetic): a permutation of 0..mod-1 when n = mod and
//     stride is coprime to mod.
//   - Banded(rows, width): the square rows×rows matrix whose row r holds
//     the columns r-a .. r+b clipped to [0, rows), a = (width-1)/2,
//     b = width-1-a: width diagonals centred on the main one. Row pointers
//     and column indices are closed forms.
//   - PowerLaw(rows, cols, avg, exponent, seed): row r holds
//     max(1, min(cols, round(avg·w_r/w̄))) nonzeros, w_r = (1-u_r)^(-1/(γ-1))
//     a Pareto weight of exponent γ from the hash u_r of the seed and the row,
//     w̄ their mean; so the row lengths follow a power law and average close
//     to avg (below it where the clipping at cols bites). The k columns of a
//     row are one hashed column in each of k equal strata of [0, cols):
//     distinct and sorted. Row pointers are kept (O(rows) memory); a column
//     index is found by a binary search over them.
//   - Boxes(b): the neighbour boxes of a b×b×b grid, as Rodinia's lavaMD
//     builds them: box n = z·b² + y·b + x, row n lists the boxes of the
//     3×3×3 cube around it that lie in the grid (n itself included),
//     ascending, 8 at a corner to 27 inside; (3b-2)³ nonzeros. Row
//     pointers and columns are closed forms (prefix sums along each axis).
//   - Rays(n, width, height): a cone beam through an n×n×n volume, a row
//     per detector cell holding the linear indices of the voxels its ray
//     crosses, in order (not sorted): an exact integer 3-D DDA
//     (Amanatides–Woo) on coordinates in units of 1/(8·width·height)
//     voxel, stepping one face at a time. Row lengths are closed forms,
//     the row pointers kept; a voxel index is found by binary searches
//     over the ray's crossings of each axis (see rays.go for the
//     geometry).
//
// # Files
//
// ReadMatrixMarket reads the coordinate format of the Matrix Market
// exchange format (real, integer, complex or pattern values, which it
// checks but discards; general, symmetric, skew-symmetric or hermitian
// symmetry) into CSR with the columns of each row sorted. A symmetric,
// skew-symmetric or hermitian file stores one triangle: each entry off
// the diagonal is mirrored, so the CSR is the whole matrix, as an SpMV
// multiplies it. ReadText reads whitespace-separated integers, with # or %
// starting a comment. Errors are file:line:col, what is wrong, and a hint.
package indexdata
