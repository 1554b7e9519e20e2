package dram_test

import (
	"fmt"
	"math"

	"gpumemsim/arch"
	"gpumemsim/sim/dram"
)

// An engine pushes requests, asks for the next event and advances to it.
// In DRAM cycles (a core cycle is 924/700 of them): the first read opens
// its row (ACT at 0, columns at 12 and 14, data end 12+12+4 = 28); the
// second hits it (columns at 16 and 18, data end 32); the write on channel
// 1 has its column at 12 and its data tWL = 4 later, ending at 12+4+2 = 18.
// In core cycles: ceil(28·700/924) = 22, ceil(32·700/924) = 25,
// ceil(18·700/924) = 14.
func ExampleMemory() {
	d := &arch.Device{
		Clocks: arch.Clocks{Core: 700 * arch.MHz, DRAM: 924 * arch.MHz, DRAMDataRate: 4},
		DRAM: arch.DRAM{
			Channels: 6, Banks: 16, BankGroups: 1, BusWidthBits: 64, BurstLength: 8, RowSize: 2 * arch.KiB,
			Timing:    arch.DRAMTiming{CL: 12, RCD: 12, RP: 12, RAS: 28, CCD: 2, RRD: 6, WR: 12, WL: 4, WTR: 5, CCDL: 2},
			Scheduler: arch.SchedFRFCFS, QueueDepth: 16, Interleave: 256,
		},
	}
	m, err := dram.NewMemory(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Push(0, dram.Request{Addr: 0, Bytes: 128, Tag: 1})   // row empty
	m.Push(0, dram.Request{Addr: 128, Bytes: 128, Tag: 2}) // row hit
	m.Push(0, dram.Request{Addr: 256, Bytes: 32, Write: true, Tag: 3})
	for t := m.NextEvent(); t != math.MaxInt64; t = m.NextEvent() {
		m.Advance(t, dram.DoneFunc(func(r dram.Request, finish int64) {
			fmt.Printf("tag %d channel %d done at core cycle %d\n", r.Tag, m.Channel(r.Addr), finish)
		}))
	}
	s := m.Stats().Total
	fmt.Printf("reads %d writes %d row hits %d misses %d\n", s.Reads, s.Writes, s.RowHits, s.RowMisses)
	// Output:
	// tag 3 channel 1 done at core cycle 14
	// tag 1 channel 0 done at core cycle 22
	// tag 2 channel 0 done at core cycle 25
	// reads 2 writes 1 row hits 1 misses 2
}
