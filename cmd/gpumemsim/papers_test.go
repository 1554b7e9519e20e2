package main

import "testing"

// TestPapersGolden: the papers' kernels over struct arrays and index
// data, in each of their layouts.
func TestPapersGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		heavy bool // skipUnderRace
	}{
		// Che's Nearest Neighbor (Rodinia's nn): latLong records as an
		// array of structures, then as Dymaxion's structure of arrays.
		{"run-nn-fermi-aos", []string{"run", "-device", "fermi", "-kernel", "nn", "-layout", "aos"}, false},
		{"run-nn-fermi-soa", []string{"run", "-device", "fermi", "-kernel", "nn", "-layout", "soa"}, false},
		// Peng's estimate of both: soa's 1 transaction a read is the
		// cheaper; the simulation, whose L1 serves lng from the lines lat
		// brought in, runs aos faster at 64 Ki records.
		{"validate-layouts-nn", []string{"validate", "-device", "fermi", "-kernel", "nn", "-layouts", "all"}, false},
		// Peng on lavaMD's layouts: the neighbour reads are indirect with a
		// known stride (a block-uniform base), and the table says so.
		// It simulates all four layouts on a 2×2×2 grid (every box a corner
		// listing all 8); the run golden shows aos's references, and
		// sim/lavamd_test.go counts each layout's reads by hand.
		{"validate-layouts-lavamd", []string{"validate", "-device", "fermi", "-kernel", "lavamd-peng", "-layouts", "all", "-set", "B=2"}, true},
		{"run-lavamd-peng-fermi-aos", []string{"run", "-device", "fermi", "-kernel", "lavamd-peng", "-layout", "aos", "-set", "B=2"}, true},
		// lavaMD's neighbour boxes as a matrix: a 27-point stencil on a
		// 3×3×3 grid, (3·3-2)³ = 343 nonzeros.
		{"run-spmv-boxes", []string{"run", "-device", "fermi", "-kernel", "spmv-csr", "-matrix", "boxes:boxes1d=3"}, false},
		{"indirect-err-boxes", []string{"run", "-kernel", "spmv-csr", "-matrix", "boxes:boxes1d=0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy {
				skipUnderRace(t)
			}
			runGolden(t, tc.name, tc.args...)
		})
	}
}
