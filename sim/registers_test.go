package sim

import (
	"reflect"
	"testing"

	"gpumemsim/sim/cache"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/dram"
)

// The values the hot paths build and pass on, once per instruction,
// transaction, request or event, stay values the compiler keeps in
// registers: at most four fields of 32 bytes in all, Go's limits for an
// SSA-able struct. One past them is built in memory field by field and
// copied whole with wider loads, which wait on the narrower stores before
// them: a store-forwarding stall no instruction count shows. Two such
// copies, in the DRAM backlog and the event queue, held 3 to 5% of the
// time of every BenchmarkRun case, and a third, the bank rule's two runs
// of 16 words, 2 to 5% of the shared-memory cases' (docs/design.md,
// "Stalls no instruction count shows"). A type that must grow is filled
// in place instead, and leaves this list with the reason.
func TestHotValuesFitRegisters(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[event](),        // every event pushed and popped
		reflect.TypeFor[packed](),       // every request the port holds
		reflect.TypeFor[dram.Request](), // every DRAM request and completion
		reflect.TypeFor[cache.Result](), // every tag lookup
		reflect.TypeFor[coalesce.Txn](), // every transaction the coalescers append
	} {
		if typ.NumField() > 4 || typ.Size() > 32 {
			t.Errorf("%v has %d fields, %d bytes; want at most 4 and 32, or fill it in place and take it off this list",
				typ, typ.NumField(), typ.Size())
		}
	}
}
