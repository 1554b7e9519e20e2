package sim

import (
	"reflect"

	"gpumemsim/sim/dram"
)

// sentCounts is the number of sentFields.
const sentCounts = 6

// sentFields are the counts of DRAM requests that the port knows as it
// sends them: reads and writes first, then their bytes and sectors.
func sentFields(s *dram.ChannelStats) [sentCounts]int64 {
	var out [sentCounts]int64
	for i, p := range sentPointers(s) {
		out[i] = *p
	}
	return out
}

func sentPointers(s *dram.ChannelStats) []*int64 {
	return []*int64{&s.Reads, &s.Writes, &s.ReadBytes, &s.WriteBytes, &s.ReadSectors, &s.WriteSectors}
}

// counterFields are the additive counters of r that sampling extrapolates,
// in a fixed order: every int64 of the result except the launch's shape
// and occupancy and what is worked out at the end of a run (Cycles, idle
// SM cycles, dirty L2 sectors left, and the load and store totals, which
// are sums over the references).
func counterFields(r *Result) []*int64 {
	return int64Fields(reflect.ValueOf(r).Elem(), "", notExtrapolated)
}

var notExtrapolated = map[string]bool{
	".Occupancy": true, ".Block": true, ".Grid": true,
	".Cycles": true, ".Stalls.Idle": true, ".L2.DirtySectorsAtEnd": true,
}

func init() {
	for _, f := range reflect.VisibleFields(reflect.TypeOf(RefCounts{})) {
		notExtrapolated[".Loads."+f.Name] = true
		notExtrapolated[".Stores."+f.Name] = true
	}
}

// keyCounters are the indices, among counterFields, of the counters whose
// steadiness decides (the hits and misses of each level and DRAM's reads
// and writes) and of the instructions rates are per: memory
// instructions if mem, else all.
func keyCounters(r *Result, mem bool) (key []int, inst int) {
	per := &r.WarpInsts
	if mem {
		per = &r.MemInsts
	}
	want := []*int64{&r.L1.Hits, &r.L1.Misses, &r.L2.ReadHitSectors, &r.L2.ReadMissSectors,
		&r.L2.WriteSectors, &r.DRAM.Reads, &r.DRAM.Writes}
	for i, f := range counterFields(r) {
		if f == per {
			inst = i
		}
		for _, k := range want {
			if f == k {
				key = append(key, i)
			}
		}
	}
	return key, inst
}

// storeSide are the counters of r that stores cause: writes at L2 and
// DRAM and their write-backs, and the L1 lines stores evict. (A store
// reference's own counts are per its own instructions, as every
// reference's are: refCounters.)
func storeSide(r *Result) []*int64 {
	return []*int64{&r.L2.WriteRequests, &r.L2.WriteSectors, &r.L2.WriteBackSectors, &r.L1.StoreEvictions,
		&r.DRAM.Writes, &r.DRAM.WriteBytes, &r.DRAM.WriteSectors}
}

// refCounters are, per counter of counterFields(r), the reference whose
// count it is, or -1; and per reference, the index of its Requests among
// those counters.
func refCounters(r *Result) (refOf, reqs []int) {
	of := map[*int64]int{}
	for k := range r.Refs {
		for _, f := range int64Fields(reflect.ValueOf(&r.Refs[k]).Elem(), ".Refs[]", notExtrapolated) {
			of[f] = k
		}
	}
	reqs = make([]int, len(r.Refs))
	for i, f := range counterFields(r) {
		k, ok := of[f]
		if !ok {
			refOf = append(refOf, -1)
			continue
		}
		refOf = append(refOf, k)
		if f == &r.Refs[k].Requests {
			reqs[k] = i
		}
	}
	return refOf, reqs
}
