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
	return fs.String("waves", "", "write a CSV `file` with a row per whole wave of blocks finished (the blocks resident at once over the device): its cycle and the run's counts so far, the DRAM requests in flight and the caches' free lines, and in a sampled run each wave's part (warm-up, window, tail); written whole after the run")
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

// writeWavesCSV writes rows as CSV, a header first; s is the run's
// sampling, nil for a full run, by which each row's phase is named.
func writeWavesCSV(w io.Writer, rows []sim.Wave, s *sim.Sampling) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(waveColumns)+1)
	rec[0] = "phase"
	for i, c := range waveColumns {
		rec[i+1] = c.name
	}
	cw.Write(rec)
	phase := wavePhases(rows, s)
	for i := range rows {
		rec[0] = phase(&rows[i])
		for j, c := range waveColumns {
			rec[j+1] = strconv.FormatInt(c.of(&rows[i]), 10)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// wavePhases names what a sampled run that skipped made of each wave:
// "warm-up" (never part of a window), "window" (the waves whose rates
// stand for the skipped ones), "tail" (after the skip), or "" (a full
// run's, or the oldest after the warm-up, left out of the window).
func wavePhases(rows []sim.Wave, s *sim.Sampling) func(*sim.Wave) string {
	if s == nil || s.SkippedBlocks == 0 {
		return func(*sim.Wave) string { return "" }
	}
	var decided int64 // the wave at whose end the sampler skipped
	for i := range rows {
		if rows[i].SkippedBlocks == 0 {
			decided = rows[i].Wave
		}
	}
	return func(w *sim.Wave) string {
		switch {
		case w.SkippedBlocks > 0:
			return "tail"
		case w.Wave <= int64(s.WarmupWaves):
			return "warm-up"
		case w.Wave > decided-int64(s.WindowWaves):
			return "window"
		}
		return ""
	}
}
