package sim_test

import (
	"encoding/json"
	"testing"

	"gpumemsim/sim"
)

// Each wave row of vecadd 2^16 on gt200, against hand counts. Blocks of
// 128 threads (4 warps), 8 resident per SM (1,024 threads, 8 blocks: the
// calculator's limits) on 30 SMs: waves of 240, so the grid's 512 blocks
// end 2 whole waves (rows at 240 and 480 blocks finished). Each block
// issues 4 warps × 3 memory instructions (two loads, a store) = 12, and
// each of them makes 2 DRAM requests, one 64-B segment per half-warp
// (CC 1.3, no L2 for global memory): 16 reads and 8 writes a block. At a
// boundary the blocks finished have issued all theirs, and those resident
// (at most a wave) some: so each count lies between blocks finished and
// blocks finished plus a wave, times its count per block. Requests sent
// and not completed are the port's in flight, counted apart.
func TestWaveRows(t *testing.T) {
	dev, l := bind(t, "gt200", "vecadd", "", "", map[string]int64{"N": 1 << 16})
	var rows []sim.Wave
	res := run(t, dev, l, sim.Options{Waves: func(w sim.Wave) { rows = append(rows, w) }})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (512 blocks in waves of 240)", len(rows))
	}
	const wave = 240
	prev := sim.Wave{}
	for i, w := range rows {
		k := int64(i + 1)
		if w.Wave != k || w.Blocks != k*wave || w.SkippedBlocks != 0 {
			t.Errorf("row %d: wave %d, %d blocks, %d skipped; want wave %d, %d blocks, none skipped", i, w.Wave, w.Blocks, w.SkippedBlocks, k, k*wave)
		}
		within := func(name string, v, perBlock int64) {
			if lo, hi := w.Blocks*perBlock, (w.Blocks+wave)*perBlock; v < lo || v > hi {
				t.Errorf("row %d: %s %d, want %d to %d", i, name, v, lo, hi)
			}
		}
		within("memory instructions", w.MemInsts, 12)
		within("DRAM reads sent", w.DRAMReadsSent, 16)
		within("DRAM writes sent", w.DRAMWritesSent, 8)
		if sent := w.DRAMReadsSent + w.DRAMWritesSent; w.DRAMCompleted > w.DRAMAccepted || w.DRAMAccepted > sent || w.DRAMRowHits > w.DRAMAccepted {
			t.Errorf("row %d: %d sent, %d accepted, %d completed, %d row hits", i, sent, w.DRAMAccepted, w.DRAMCompleted, w.DRAMRowHits)
		}
		// At most 32 warps (1,024 threads) resident on each of 30 SMs.
		if w.WarpCycles <= prev.WarpCycles || w.WarpCycles > w.Cycle*30*32 {
			t.Errorf("row %d: %d warp-cycles after %d, in %d cycles of 960 warp slots", i, w.WarpCycles, prev.WarpCycles, w.Cycle)
		}
		if w.Cycle <= prev.Cycle || w.Cycle >= res.Cycles || w.WarpInsts < w.MemInsts {
			t.Errorf("row %d: cycle %d after %d, run %d cycles; %d warp instructions, %d memory", i, w.Cycle, prev.Cycle, res.Cycles, w.WarpInsts, w.MemInsts)
		}
		prev = w
	}
	// GT200 has no L1 for global loads, and its L2 (256 KiB of 256-B
	// lines) caches textures only: all 1,024 lines stay free.
	if rows[1].DRAMReadsSent > res.DRAM.Reads || rows[1].L1FreeLines != 0 || rows[1].L2FreeLines != 1024 {
		t.Errorf("last row: %d reads sent of the run's %d; free lines %d in L1s, %d in L2, want 0 and 1,024",
			rows[1].DRAMReadsSent, res.DRAM.Reads, rows[1].L1FreeLines, rows[1].L2FreeLines)
	}
}

// Reporting waves changes nothing in the run, full or sampled; a sampled
// run's rows go on after the skip, the first of them a skip and a wave
// further on, and its rows before the skip are the full run's.
func TestWaveRowsLeaveTheRunAlone(t *testing.T) {
	dev, l := bind(t, "fermi", "vecadd", "", "", map[string]int64{"N": 1 << 20})
	for _, sample := range []bool{false, true} {
		opts := sim.Options{Sample: sim.SampleOptions{On: sample}}
		plain := run(t, dev, l, opts)
		var rows []sim.Wave
		opts.Waves = func(w sim.Wave) { rows = append(rows, w) }
		got := run(t, dev, l, opts)
		a, _ := json.Marshal(plain)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("sample %v: the run with waves reported differs from the run without", sample)
		}
		if !sample {
			continue
		}
		s := got.Sampling
		if s == nil || s.SkippedBlocks == 0 {
			t.Fatalf("sampling %s: want a skip", describe(s))
		}
		var full []sim.Wave
		run(t, dev, l, sim.Options{Waves: func(w sim.Wave) { full = append(full, w) }})
		jumped := false
		for i, w := range rows {
			if w.SkippedBlocks == 0 {
				if w != full[i] {
					t.Errorf("row %d before the skip: %+v, the full run's %+v", i, w, full[i])
				}
				continue
			}
			if !jumped {
				jumped = true
				if p := rows[i-1]; w.SkippedBlocks != s.SkippedBlocks || w.Blocks != p.Blocks+s.SkippedBlocks+s.WaveBlocks || w.Wave != w.Blocks/s.WaveBlocks {
					t.Errorf("first row after the skip: wave %d, %d blocks, %d skipped; before it %d blocks; want %d skipped and a wave of %d further",
						w.Wave, w.Blocks, w.SkippedBlocks, p.Blocks, s.SkippedBlocks, s.WaveBlocks)
				}
			}
		}
		if !jumped {
			t.Error("no row after the skip")
		}
	}
}
