package dram

import (
	"errors"
	"fmt"

	"gpumemsim/arch"
)

// check validates what the model needs of d.
func check(d *arch.Device) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("dram: "+format, args...))
	}
	dr := d.DRAM
	if d.Clocks.Core <= 0 {
		bad("clocks.core must be positive, got %d Hz", int64(d.Clocks.Core))
	}
	if d.Clocks.DRAM <= 0 {
		bad("clocks.dram must be positive, got %d Hz", int64(d.Clocks.DRAM))
	}
	if d.Clocks.DRAMDataRate < 1 {
		bad("clocks.dram_data_rate must be at least 1 transfer per DRAM clock, got %d", d.Clocks.DRAMDataRate)
	}
	if dr.Channels < 1 {
		bad("channels must be at least 1, got %d", dr.Channels)
	}
	if dr.Banks < 1 {
		bad("banks must be at least 1, got %d", dr.Banks)
	}
	if dr.BankGroups < 1 || (dr.Banks >= 1 && dr.Banks%dr.BankGroups != 0) {
		bad("bank_groups must be at least 1 and divide banks %d, got %d", dr.Banks, dr.BankGroups)
	}
	if dr.BusWidthBits < 8 || dr.BusWidthBits%8 != 0 {
		bad("bus_width_bits must be a positive multiple of 8, got %d", dr.BusWidthBits)
	}
	if dr.BurstLength < 1 {
		bad("burst_length must be at least 1, got %d", dr.BurstLength)
	}
	req := arch.Bytes(maxRequest(d))
	if dr.RowSize < req || dr.RowSize%req != 0 {
		bad("row_size must be a positive multiple of the largest request, %v, got %v", req, dr.RowSize)
	}
	if dr.Interleave < req || dr.Interleave&(dr.Interleave-1) != 0 {
		bad("interleave must be a power of two of at least the largest request, %v, got %v", req, dr.Interleave)
	}
	if dr.QueueDepth < 1 {
		bad("queue_depth must be at least 1, got %d", dr.QueueDepth)
	}
	if dr.Scheduler == 0 {
		bad("no scheduler (%s or %s)", arch.SchedFRFCFS, arch.SchedFCFS)
	}
	tg := dr.Timing
	for _, p := range []struct {
		name string
		v    int
	}{{"tCL", tg.CL}, {"tRCD", tg.RCD}, {"tRP", tg.RP}, {"tRAS", tg.RAS}, {"tCCD", tg.CCD}, {"tRRD", tg.RRD}, {"tWR", tg.WR},
		{"tWL", tg.WL}, {"tWTR", tg.WTR}, {"tCCDL", tg.CCDL}, {"tRTPL", tg.RTPL}} {
		if p.v < 0 {
			bad("timing.%s must not be negative, got %d", p.name, p.v)
		}
	}
	return errors.Join(errs...)
}
