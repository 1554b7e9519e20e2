package gpgpusim

import (
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// dramTiming is -gpgpu_dram_timing_opt, as memory_config::init
// (src/gpgpu-sim/gpu-sim.h) reads it: named fields "nbk=16:CCD=2:..."
// separated by = : ; or spaces, or, without any '=', the legacy ordered
// form nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL].
type dramTiming struct {
	banks, bankGroups int
	t                 arch.DRAMTiming
	rc                int // tRC: not modelled (gpumemsim enforces tRAS + tRP)
}

// timingOrder is the legacy order and the names of the named form.
var timingOrder = []string{"nbk", "CCD", "RRD", "RCD", "RAS", "RP", "RC", "CL", "WL", "CDLR", "WR", "nbkgrp", "CCDL", "RTPL"}

// timingRequired are the fields GPGPU-Sim registers without a default.
const timingRequired = 11

const timingHint = "want named fields nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12[:nbkgrp=4:CCDL=3:RTPL=2], or the same numbers in that order without names"

func parseDRAMTiming(s string) (dramTiming, error) {
	vals := map[string]int{"nbkgrp": 1, "CCDL": 0, "RTPL": 0}
	given := map[string]bool{}
	set := func(name, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<20 {
			return fmt.Errorf("%s=%q is not a count of DRAM cycles (a non-negative integer); %s", name, v, timingHint)
		}
		vals[name], given[name] = n, true
		return nil
	}
	if !strings.Contains(s, "=") {
		f := strings.Split(s, ":")
		if len(f) < timingRequired || len(f) > len(timingOrder) {
			return dramTiming{}, fmt.Errorf("%d ordered fields, want %d to %d; %s", len(f), timingRequired, len(timingOrder), timingHint)
		}
		for i, v := range f {
			if err := set(timingOrder[i], strings.TrimSpace(v)); err != nil {
				return dramTiming{}, err
			}
		}
	} else {
		f := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("=:; \t", r) })
		if len(f)%2 != 0 {
			return dramTiming{}, fmt.Errorf("%q: a name without a value; %s", s, timingHint)
		}
		for i := 0; i < len(f); i += 2 {
			if !known(f[i]) {
				return dramTiming{}, fmt.Errorf("unknown timing %q; %s", f[i], timingHint)
			}
			if err := set(f[i], f[i+1]); err != nil {
				return dramTiming{}, err
			}
		}
	}
	for _, name := range timingOrder[:timingRequired] {
		if !given[name] {
			return dramTiming{}, fmt.Errorf("%s is missing; %s", name, timingHint)
		}
	}
	if vals["nbkgrp"] == 0 {
		return dramTiming{}, fmt.Errorf("nbkgrp=0: the number of bank groups must be at least 1 (GPGPU-Sim asserts it)")
	}
	d := dramTiming{banks: vals["nbk"], bankGroups: vals["nbkgrp"], rc: vals["RC"]}
	d.t = arch.DRAMTiming{CL: vals["CL"], RCD: vals["RCD"], RP: vals["RP"], RAS: vals["RAS"], CCD: vals["CCD"],
		RRD: vals["RRD"], WR: vals["WR"], WL: vals["WL"], WTR: vals["CDLR"], CCDL: vals["CCDL"], RTPL: vals["RTPL"]}
	if d.t.CCDL == 0 {
		// Without bank groups GPGPU-Sim leaves tCCDL 0 and applies tCCD;
		// gpumemsim's tCCDL is tCCD then.
		d.t.CCDL = d.t.CCD
	}
	return d, nil
}

func known(name string) bool {
	for _, n := range timingOrder {
		if n == name {
			return true
		}
	}
	return false
}

// addrMapping is what gpumemsim takes from -gpgpu_mem_addr_mapping: the
// channel interleave and the row size of one bank.
type addrMapping struct {
	interleave arch.Bytes
	rowSize    arch.Bytes
}

const mappingHint = "want dramid@<bit>;<64 address bits, most significant first: R row, B bank, C column, S burst, D channel, 0 unused; . | and spaces separate>, e.g. dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS"

// parseAddrMapping reads the mapping as linear_to_raw_address_translation
// (src/gpgpu-sim/addrdec.cc) does: an optional dramid@N puts the channel
// bits at bit N (N = 8: 256-byte interleave); otherwise the lowest D bit
// of the mask does. A row holds the bytes that the column (C) and burst
// (S) bits address.
func parseAddrMapping(s string) (addrMapping, error) {
	mask := s
	channelBit := -1
	if rest, ok := strings.CutPrefix(s, "dramid@"); ok {
		num, m, found := strings.Cut(rest, ";")
		if !found {
			return addrMapping{}, fmt.Errorf("dramid@%s: no ';' before the mask; %s", rest, mappingHint)
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > 40 {
			return addrMapping{}, fmt.Errorf("dramid@%q: want a bit position 0 to 40; %s", num, mappingHint)
		}
		channelBit, mask = n, m
	}
	var m addrMapping
	var colBits, bit int
	lowestD := -1
	for i := len(mask) - 1; i >= 0; i-- {
		switch c := mask[i]; c {
		case '.', '|', ' ':
			continue
		case 'C', 'S':
			colBits++
		case 'D':
			if lowestD < 0 {
				lowestD = bit
			}
		case 'R', 'B', '0':
		default:
			return addrMapping{}, fmt.Errorf("mask letter %q; %s", c, mappingHint)
		}
		bit++
	}
	if bit > 64 {
		return addrMapping{}, fmt.Errorf("the mask has %d address bits, more than 64; %s", bit, mappingHint)
	}
	if channelBit < 0 {
		channelBit = lowestD
	}
	if channelBit < 0 {
		return addrMapping{}, fmt.Errorf("no channel bits: neither dramid@<bit> nor a D in the mask; %s", mappingHint)
	}
	if colBits > 30 {
		return addrMapping{}, fmt.Errorf("%d column and burst bits: a row larger than any DRAM's", colBits)
	}
	m.interleave = arch.Bytes(1) << channelBit
	m.rowSize = arch.Bytes(1) << colBits
	return m, nil
}
