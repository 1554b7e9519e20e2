package arch

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateReportsEverything(t *testing.T) {
	d := &Device{
		WarpSize: 16,
		L1:       Cache{Size: 16 * KiB, Line: 128, Sector: 128, Associativity: 5, Replacement: ReplaceLRU, SetIndex: IndexLinear, WritePolicy: WriteEvict, HitLatency: 1, MSHREntries: 1, MSHRMerges: 1},
		L2: L2Cache{Slices: 6, QueueDepth: 8, Cache: Cache{Size: 768 * KiB, Line: 128, Sector: 32, Associativity: 8,
			Replacement: ReplaceLRU, SetIndex: IndexFermiHash, WritePolicy: WriteBack, HitLatency: 1, MSHREntries: 1, MSHRMerges: 1}},
		Constant: Cache{Size: 8 * KiB, Line: 256, Sector: 256, Associativity: 2, Replacement: ReplaceLRU, SetIndex: IndexLinear, WritePolicy: ReadOnly, HitLatency: 1},
	}
	err := d.Validate()
	if err == nil {
		t.Fatal("Validate() = nil; want errors")
	}
	msgs := err.Error()
	for _, want := range []string{
		"name: required",
		"warp_size: must be 32",
		"clocks.core: required",
		"coalescer.rule: required: one of cc10, cc13, cc20, cc30 or cc50",
		// 16 KiB / (128 B × 5) = 25.6: not whole.
		"l1.size: 16KiB is not divisible by line × associativity (128B × 5 = 640B)",
		// 768 KiB / 6 slices = 128 KiB per slice; / (128 B × 8) = 128 sets.
		"l2.set_index: fermi_hash needs 32 or 64 sets; size / (line × associativity) gives 128",
		"dram.scheduler: required: one of frfcfs or fcfs",
		// The constant cache is simulated: it needs MSHRs, and lines a
		// single request below can read.
		"constant.mshr_entries: required",
		"constant.mshr_merges: required",
		"constant.line: 256B: the simulator reads a constant-cache line from below as one request of at most 128 bytes",
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("Validate() does not report %q; got:\n%s", want, msgs)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Errorf("Validate() errors are not *FieldError")
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n < 40 {
		t.Errorf("Validate() reported %d problems; an empty device has at least 40", n)
	}
}
