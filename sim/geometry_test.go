package sim_test

import (
	"context"
	"fmt"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
)

// A config may change the sector and line sizes of the L2 (and the L1's
// sector), and the simulator honours them: the stride kernel with S = 32
// makes every lane read one 32-byte atom at the start of its own 128-byte
// block, each block once, so on Kepler (no L1 for global loads, one 32-B
// transaction per lane) the counts follow from the geometry alone, for N
// threads:
//   - every request misses and fetches its whole sector: DRAM reads N ×
//     sector/32 atoms; the L2 counts N read sectors, all misses;
//   - with 256-byte lines of 32-byte sectors, two blocks share a line but
//     not a sector: the same N misses and N atoms from DRAM;
//   - with unsectored 256-byte lines, the first block of each line fetches
//     the line (8 atoms) and the second hits: N/2 misses, N/2 hits, 4N
//     atoms from DRAM.
//
// On Fermi, whose L1 caches global loads in unsectored 128-byte lines,
// every lane misses in L1 and the L1 asks the L2 for its 4 atoms: with
// 64-byte L2 sectors, 4N read sectors at L2, all missing, 4N from DRAM.
// On Maxwell with global loads cached in an L1 of 64-byte sectors, each
// L1 miss asks for the lane's sector, 2 atoms: 2N at L2 and DRAM.
func TestGeometryHonoured(t *testing.T) {
	const n = 4096
	for _, tc := range []struct {
		name, yaml                string
		l2Reads, l2Miss, dramRead int64
	}{
		{"kepler 32B sectors", "base: kepler\nname: k32\n", n, n, n},
		{"kepler 64B sectors", "base: kepler\nname: k64\nl2: {sector: 64B}\n", n, n, 2 * n},
		{"kepler unsectored", "base: kepler\nname: k128\nl2: {sector: 128B}\n", n, n, 4 * n},
		{"kepler 256B lines", "base: kepler\nname: k256\nl2: {line: 256B, associativity: 8}\n", n, n, n},
		{"kepler 256B unsectored", "base: kepler\nname: k256u\nl2: {line: 256B, sector: 256B, associativity: 8}\n", n, n / 2, 4 * n},
		{"fermi 64B L2 sectors", "base: fermi\nname: f64\nl2: {sector: 64B}\n", 4 * n, 4 * n, 4 * n},
		{"maxwell 64B L1 sectors", "base: maxwell\nname: m64\ncoalescer: {cache_global_loads: true}\nl1: {sector: 64B}\nl2: {sector: 64B}\n", 2 * n, 2 * n, 2 * n},
	} {
		dev := deviceFrom(t, tc.name, tc.yaml)
		l := bindOn(t, dev, "stride", "", "", map[string]int64{"N": n, "S": 32, "O": 0})
		r := run(t, dev, l, sim.Options{})
		if r.L2.ReadSectors != tc.l2Reads || r.L2.ReadMissSectors != tc.l2Miss || r.DRAM.ReadSectors != tc.dramRead {
			t.Errorf("%s: L2 read sectors %d (%d missed), DRAM read sectors %d; want %d (%d), %d", tc.name,
				r.L2.ReadSectors, r.L2.ReadMissSectors, r.DRAM.ReadSectors, tc.l2Reads, tc.l2Miss, tc.dramRead)
		}
	}
}

// An L1 under the cc50 rule gets one 32-byte transaction per sector of a
// warp's request, so the second sector of a line whose first is in flight
// is a miss of its own, fetched from the L2; it once merged into the
// first's MSHR entry, and a coalesced vecadd read a quarter of its data
// from DRAM. Every sector vecadd reads is read once: the L2 and DRAM see
// every one.
func TestSectoredL1FetchesEverySector(t *testing.T) {
	const n = 1 << 14
	a100, err := configs.Load("a100")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []*arch.Device{deviceFrom(t, "maxwell-ca", "base: maxwell\nname: maxwell-ca\ncoalescer: {cache_global_loads: true}\n"), a100} {
		r := run(t, dev, bindOn(t, dev, "vecadd", "", "", map[string]int64{"N": n}), sim.Options{})
		const sectors = 2 * n * 4 / 32
		if r.Loads.Sectors != sectors || r.L1.MSHRMerges != 0 || r.L2.ReadSectors != sectors || r.DRAM.ReadSectors != sectors {
			t.Errorf("%s: %d load sectors, %d L1 MSHR merges, L2 read sectors %d, DRAM read sectors %d; want %d, 0, %d, %d",
				dev.Name, r.Loads.Sectors, r.L1.MSHRMerges, r.L2.ReadSectors, r.DRAM.ReadSectors, sectors, sectors, sectors)
		}
	}
}

// noL2 takes a device's L2 away, in a config file that starts from it.
const noL2 = "l2: {size: 0B, slices: 0, queue_depth: 0}\n"

// A sectored L1 under a rule whose transactions span several of its
// sectors (fermi's cc20 with l1.sector 32B) fetches the sectors a
// transaction misses, and only those; an unsectored one fetches the line.
// Thread (i, j) reads a[16i + 8j], a warp per j: warp 0's 32 lanes fall in
// 16 lines of 128 bytes on atoms 0 and 2 of each, warp 1's in the same
// lines on atoms 1 and 3, so each warp makes 16 transactions, every line
// cold. Warp 1's issue while warp 0's fills are in flight (the LSU sends
// one transaction a cycle): on the unsectored L1 they merge with them; on
// the sectored one those fills do not bring their sectors, so each waits
// for its line's fill (an MSHR stall) and then misses. With warp 0 alone
// the sectored L1 reads half the sectors.
func TestSectoredL1UnderWideRule(t *testing.T) {
	kernel := func(warps int) string {
		return fmt.Sprintf("name: halves\nparams: {N: 32, W: %d}\narrays:\n  a: {type: f32, dims: [16*N]}\nsource: |\n"+
			"  for (j = 0; j < W; j++)\n    for (i = 0; i < N; i++)\n      float v = a[16*i + 8*j];\nmapping: {i: tx, j: ty}\nblock: [32, %d]\n", warps, warps)
	}
	one, both := kernel(1), kernel(2)
	lines := deviceFrom(t, "lines", "base: fermi\nname: fermi-l1-lines\n")
	sectors := deviceFrom(t, "sectors", "base: fermi\nname: fermi-l1-sectors\nl1: {sector: 32B}\n")
	linesDRAM := deviceFrom(t, "lines-dram", "base: fermi\nname: fermi-l1-lines-no-l2\n"+noL2)
	sectorsDRAM := deviceFrom(t, "sectors-dram", "base: fermi\nname: fermi-l1-sectors-no-l2\nl1: {sector: 32B}\n"+noL2)
	for _, c := range []struct {
		dev                              *arch.Device
		src                              string
		accesses, fills, merges, sectors int64
		stalls                           bool
	}{
		{lines, one, 16, 16, 0, 64, false},
		{sectors, one, 16, 16, 0, 32, false},
		{lines, both, 32, 16, 16, 64, false},
		{sectors, both, 32, 32, 0, 64, true},
		// Without an L2 the fills go to DRAM, one request each (a
		// sectored fill of sectors 0 and 2 is one request of two).
		{linesDRAM, one, 16, 16, 0, 64, false},
		{sectorsDRAM, one, 16, 16, 0, 32, false},
		{linesDRAM, both, 32, 16, 16, 64, false},
		{sectorsDRAM, both, 32, 32, 0, 64, true},
	} {
		r := run(t, c.dev, bindSource(t, c.dev, c.src), sim.Options{})
		l1 := r.L1
		// What the level below the L1 was asked for: the L2's read
		// requests and sectors, or DRAM's.
		requests, read := r.L2.ReadRequests, r.L2.ReadSectors
		if !c.dev.L2.Present() {
			requests, read = r.DRAM.Reads, r.DRAM.ReadSectors
		}
		if l1.Accesses != c.accesses || l1.Misses != c.accesses || l1.Fills != c.fills || l1.MSHRMerges != c.merges ||
			l1.FillSectors != c.sectors || requests != c.fills || read != c.sectors || (l1.MSHRStalls > 0) != c.stalls {
			t.Errorf("%s, %d loads: L1 %d accesses, %d misses, %d fills, %d merges, %d fill sectors, %d MSHR stalls, below %d requests of %d sectors; want %d, %d, %d, %d, %d, stalls %v, %d of %d",
				c.dev.Name, c.accesses/16, l1.Accesses, l1.Misses, l1.Fills, l1.MSHRMerges, l1.FillSectors, l1.MSHRStalls, requests, read,
				c.accesses, c.accesses, c.fills, c.merges, c.sectors, c.stalls, c.fills, c.sectors)
		}
	}
}

// Every combination of the fields that decide an L1's part in global
// loads (the coalescing rule, whether the L1 caches global loads, its
// sector, and whether an L2 stands behind it) on the devices with an L1
// is a device that runs with the self-check passed: the combinations FuzzConfigRun reaches two fields at
// a time, all at once (a100 with cc10 and cc30 failed it, then were
// refused, until the L1 counted its fill sectors). A stride of 16 floats
// touches two sectors of each line, so a sectored L1 under a wide rule
// fetches part of a line.
func TestL1ConfigCombinations(t *testing.T) {
	for _, base := range []string{"a100", "fermi", "kepler", "maxwell"} {
		for _, rule := range []string{"cc10", "cc13", "cc20", "cc30", "cc50"} {
			for _, caching := range []bool{false, true} {
				for _, sector := range []string{"32B", "64B", "128B"} {
					for _, l2 := range []string{"", noL2} {
						name := fmt.Sprintf("%s-%s-%v-%s-%v", base, rule, caching, sector, l2 == "")
						dev := deviceFrom(t, name, fmt.Sprintf("base: %s\nname: %s\ncoalescer: {rule: %s, cache_global_loads: %v}\nl1: {sector: %s}\n%s", base, name, rule, caching, sector, l2))
						l := bindOn(t, dev, "stride", "", "", map[string]int64{"N": 2048, "S": 16, "O": 0})
						if _, err := sim.Run(context.Background(), dev, l, sim.Options{}); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
				}
			}
		}
	}
}
