package main

import (
	"encoding/csv"
	"flag"
	"io"
	"strconv"

	"gpumemsim/sim"
)

// wavesFlag is run's -waves: a CSV file of the run's state at the end of
// each whole wave of blocks (sim.Wave), to see whether and when the
// waves are steady, what the sampler judges them by.
func wavesFlag(fs *flag.FlagSet) *string {
	return fs.String("waves", "", "write a CSV `file` with a row per whole wave of blocks finished (the blocks resident at once over the device): its cycle and the run's counts so far, the DRAM requests in flight and the caches' free lines; written whole after the run")
}

// waveColumns are the CSV's columns, each a field of sim.Wave.
var waveColumns = []struct {
	name string
	of   func(*sim.Wave) int64
}{
	{"wave", func(w *sim.Wave) int64 { return w.Wave }},
	{"cycle", func(w *sim.Wave) int64 { return w.Cycle }},
	{"blocks", func(w *sim.Wave) int64 { return w.Blocks }},
	{"skipped_blocks", func(w *sim.Wave) int64 { return w.SkippedBlocks }},
	{"warp_insts", func(w *sim.Wave) int64 { return w.WarpInsts }},
	{"mem_insts", func(w *sim.Wave) int64 { return w.MemInsts }},
	{"warp_cycles", func(w *sim.Wave) int64 { return w.WarpCycles }},
	{"l1_hits", func(w *sim.Wave) int64 { return w.L1Hits }},
	{"l1_misses", func(w *sim.Wave) int64 { return w.L1Misses }},
	{"l2_read_hit_sectors", func(w *sim.Wave) int64 { return w.L2ReadHitSectors }},
	{"l2_read_miss_sectors", func(w *sim.Wave) int64 { return w.L2ReadMissSectors }},
	{"l2_write_back_sectors", func(w *sim.Wave) int64 { return w.L2WriteBacks }},
	{"dram_reads_sent", func(w *sim.Wave) int64 { return w.DRAMReadsSent }},
	{"dram_writes_sent", func(w *sim.Wave) int64 { return w.DRAMWritesSent }},
	{"dram_accepted", func(w *sim.Wave) int64 { return w.DRAMAccepted }},
	{"dram_completed", func(w *sim.Wave) int64 { return w.DRAMCompleted }},
	{"dram_in_flight", func(w *sim.Wave) int64 { return w.DRAMInFlight }},
	{"dram_row_hits", func(w *sim.Wave) int64 { return w.DRAMRowHits }},
	{"dram_turnarounds", func(w *sim.Wave) int64 { return w.DRAMTurnarounds }},
	{"dram_bus_busy_transfers", func(w *sim.Wave) int64 { return w.DRAMBusBusy }},
	{"l1_free_lines", func(w *sim.Wave) int64 { return w.L1FreeLines }},
	{"l2_free_lines", func(w *sim.Wave) int64 { return w.L2FreeLines }},
}

// writeWavesCSV writes rows as CSV, a header first.
func writeWavesCSV(w io.Writer, rows []sim.Wave) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(waveColumns))
	for i, c := range waveColumns {
		rec[i] = c.name
	}
	cw.Write(rec)
	for i := range rows {
		for j, c := range waveColumns {
			rec[j] = strconv.FormatInt(c.of(&rows[i]), 10)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
