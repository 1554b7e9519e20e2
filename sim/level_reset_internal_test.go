package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim/cache"
	"gpumemsim/sim/coalesce"
)

// A level emptied by reset behaves as one newLevel builds: after a run of
// loads, stores and fills has left lines, MSHR entries and fills behind,
// the same accesses give the same answers from both, and their caches
// end equal. fermi (128-B lines), maxwell (32-B sectors, an MSHR entry per
// sector) and a100 (512 MSHR entries of 64 requests).
func TestLevelResetIsNew(t *testing.T) {
	for _, name := range []string{"fermi", "maxwell", "a100"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		build := func(st *L1Stats) *level {
			lv, err := newLevel(dev.L1, dev.L1.Sets(), st)
			if err != nil {
				t.Fatal(err)
			}
			if dev.Coalescer.Rule == arch.RuleCC50 {
				lv.inFlight = lv.sector
			}
			return lv
		}
		var old, st, fresh L1Stats
		used := build(&old)
		drive(used, rand.New(rand.NewPCG(1, 2)), 20000)
		for e := range used.fill { // fills back for entries still held
			if used.mshr.InUse(cache.MSHREntry(e)) {
				used.filled(e, 30000)
			}
		}
		used.reset(&st)
		lv := build(&fresh)
		if !reflect.DeepEqual(*used.cache, *lv.cache) || !reflect.DeepEqual(used.fill, lv.fill) || used.miss != lv.miss || used.mshr.Used() != 0 {
			t.Errorf("%s: reset level differs from a new one before any access", name)
		}
		a := drive(used, rand.New(rand.NewPCG(3, 4)), 20000)
		b := drive(lv, rand.New(rand.NewPCG(3, 4)), 20000)
		if a != b || st != fresh || !reflect.DeepEqual(*used.cache, *lv.cache) || !reflect.DeepEqual(used.fill, lv.fill) {
			t.Errorf("%s: after reset: answers hash %#x, stats %+v; a new level %#x, %+v", name, a, st, b, fresh)
		}
		if st.Accesses == 0 || st.Hits == 0 || st.MSHRMerges == 0 {
			t.Errorf("%s: the accesses did not exercise the level: %+v", name, st)
		}
	}
}

// drive sends n random loads, stores and fills to lv, over a few hundred
// lines, and returns a hash of every answer.
func drive(lv *level, r *rand.Rand, n int) uint64 {
	var h uint64
	mix := func(v uint64) { h = (h ^ v) * 0x100000001b3 }
	var inFlight []int
	for i := range n {
		t := int64(i)
		tx := coalesce.Txn{Addr: uint64(r.IntN(512)) * 32, Size: 32, Sectors: 1}
		tx.Sectors = 1 << (tx.Addr / 32 % 4)
		switch r.IntN(4) {
		case 0:
			lv.store(&tx)
		case 1:
			if len(inFlight) > 0 {
				k := r.IntN(len(inFlight))
				for _, tok := range lv.filled(inFlight[k], t+int64(r.IntN(50))) {
					mix(tok)
				}
				inFlight = append(inFlight[:k], inFlight[k+1:]...)
			}
		default:
			kind, at := lv.load(&tx, uint64(i), t)
			mix(uint64(kind))
			mix(uint64(at))
			if kind == loadMiss {
				mix(uint64(lv.miss.entry))
				inFlight = append(inFlight, lv.miss.entry)
			}
		}
	}
	return h
}
