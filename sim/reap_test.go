package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gpumemsim/sim/cache"
)

// TestReap: a full table of four entries whose data is back at 5 and 3,
// one still waiting on the level below, and one back at 9. At cycle 4
// only the entry back at 3 is due: reap frees it, marks its fill unknown
// (every free entry's is) and says an entry is free now. Full again, at
// cycle 4 nothing is due and the first known fill, 5, frees one; with
// every entry waiting on the level below, none is known: never.
func TestReap(t *testing.T) {
	m, err := cache.NewMSHR(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	fill := unknownFills(4)
	for i, f := range []int64{5, 3, -1, 9} {
		e, ok := m.Allocate(uint64(128*i), 0)
		if !ok || int(e) != i { // entry 0 is handed out first
			t.Fatalf("allocate %d: entry %d, %v", i, e, ok)
		}
		fill[e] = f
	}
	if first, full := reap(m, fill, 4); full || first != 5 {
		t.Fatalf("reap at 4 = %d, full %v; want 5, not full (the entry back at 3 freed)", first, full)
	}
	if m.InUse(1) || fill[1] != -1 || m.Used() != 3 {
		t.Fatalf("after reap: entry 1 in use %v, fill %d, %d in use; want free, -1, 3", m.InUse(1), fill[1], m.Used())
	}
	if e, _ := m.Allocate(512, 0); e != 1 {
		t.Fatalf("allocate after reap: entry %d; want 1, the one freed", e)
	}
	if first, full := reap(m, fill, 4); !full || first != 5 {
		t.Errorf("reap at 4, full, nothing due = %d, full %v; want 5, full", first, full)
	}
	for i := range fill {
		fill[i] = -1
	}
	if first, full := reap(m, fill, 100); !full || first != never {
		t.Errorf("reap with every entry waiting below = %d, full %v; want never, full", first, full)
	}
}

// A slice answers a reap that frees nothing again without a scan, until
// a fill changes: a full table of two entries, one back at 10 and one
// waiting on DRAM. At 5 nothing is due and the first fill is 10; asked
// again at 7, still 10. When the entry back at 10 asks DRAM again (fill
// unknown), no fill is known: never, not the 10 of before. When the other
// is back at 6, at 7 it is freed.
func TestSliceReap(t *testing.T) {
	m, err := cache.NewMSHR(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	sl := &slice{mshr: *m}
	m = &sl.mshr
	sl.makeEntries(2)
	for i, at := range []int64{10, -1} {
		e, _ := m.Allocate(uint64(128*i), 0)
		sl.setFill(e, at)
	}
	for _, at := range []int64{5, 7} {
		if got := sl.reap(at); got != 10 {
			t.Fatalf("reap at %d = %d; want 10", at, got)
		}
	}
	sl.setFill(0, -1)
	if got := sl.reap(7); got != never {
		t.Fatalf("reap at 7 after entry 0 waits again = %d; want never", got)
	}
	sl.setFill(1, 6)
	if got := sl.reap(7); got != 0 || m.InUse(1) {
		t.Fatalf("reap at 7 with entry 1 back at 6 = %d, entry 1 in use %v; want 0, freed", got, m.InUse(1))
	}
}

// TestReapAgainstScan holds reap, which goes by groups of eight, and a
// slice's reap, which looks at the entries whose fill is known, to the
// plain rule on full tables of every size around a group's and a word's:
// each entry whose fill is known and due by t is freed, in entry order (a
// second table, freed one entry at a time in that order, hands out its
// free entries in the same order afterwards), the others are left alone,
// and the reap returns 0 when it freed one, else the least known fill,
// else never.
func TestReapAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 8, 9, 13, 16, 63, 64, 65, 67, 130, 256} {
		for trial := range 200 {
			fills := unknownFills(n)
			for i := range fills {
				if rng.IntN(4) > 0 { // a quarter wait on the level below
					fills[i] = rng.Int64N(40)
				}
			}
			if trial%3 == 0 { // some tables with nothing due
				for i := range fills {
					if fills[i] >= 0 {
						fills[i] += 20
					}
				}
			}
			checkReap(t, fmt.Sprintf("reap, n=%d trial %d", n, trial), fills, func(m *cache.MSHR, now int64) ([]int64, int64) {
				fill := slices.Clone(fills)
				first, full := reap(m, fill, now)
				if !full {
					first = 0
				}
				return fill, first
			})
			checkReap(t, fmt.Sprintf("slice reap, n=%d trial %d", n, trial), fills, func(m *cache.MSHR, now int64) ([]int64, int64) {
				// Every fill known first, so that one waiting again
				// must leave the known set; reaped twice, so that an
				// entry freed must have left it too.
				sl := &slice{mshr: *m}
				sl.makeEntries(n)
				for i, f := range fills {
					sl.setFill(cache.MSHREntry(i), 100)
					sl.setFill(cache.MSHREntry(i), f)
				}
				sl.reap(now)
				first := sl.reap(now)
				*m = sl.mshr // the table checkReap looks at
				return sl.fill, first
			})
		}
	}
}

// checkReap runs reap, given a full table whose entries' fills are
// fills, at cycle 19, and checks what it freed and returned against the
// plain scan (TestReapAgainstScan).
func checkReap(t *testing.T, name string, fills []int64, reap func(m *cache.MSHR, now int64) (fill []int64, first int64)) {
	t.Helper()
	const now = 19
	got, want := fullTable(t, len(fills)), fullTable(t, len(fills))
	fill, ret := reap(got, now)
	wantRet, first := int64(never), int64(never)
	for i, f := range fills {
		switch {
		case f >= 0 && f <= now:
			want.Release(cache.MSHREntry(i))
			wantRet = 0
			if fill[i] != -1 || got.InUse(cache.MSHREntry(i)) {
				t.Fatalf("%s: entry %d back at %d, due at %d, not freed (fill %d)", name, i, f, now, fill[i])
			}
		case fill[i] != f || !got.InUse(cache.MSHREntry(i)):
			t.Fatalf("%s: entry %d back at %d, not due at %d, changed (fill %d, in use %v)", name, i, f, now, fill[i], got.InUse(cache.MSHREntry(i)))
		case f >= 0:
			first = min(first, f)
		}
	}
	if wantRet != 0 {
		wantRet = first
	}
	if ret != wantRet {
		t.Fatalf("%s: reap at %d of %v = %d; want %d", name, now, fills, ret, wantRet)
	}
	for k := 0; !want.Full(); k++ {
		w, _ := want.Allocate(uint64(1<<20+128*k), 0)
		g, _ := got.Allocate(uint64(1<<20+128*k), 0)
		if g != w {
			t.Fatalf("%s: allocation %d after reap gets entry %d; freed in entry order it is %d", name, k, g, w)
		}
	}
}

// fullTable is an MSHR table of n entries, each holding a line.
func fullTable(t *testing.T, n int) *cache.MSHR {
	t.Helper()
	m, err := cache.NewMSHR(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, ok := m.Allocate(uint64(128*i), 0); !ok {
			t.Fatalf("allocate %d of %d refused", i, n)
		}
	}
	return m
}

// TestLevelReapAgainstScan holds a level's reap, which answers without a
// scan while no known fill is due and the least of them is known, to the
// plain scan on a twin table, over random runs of what happens to an
// SM's table: entries given with their fill known or not, fills coming
// back, due entries freed by a lookup, and reaps of the full table at
// times back and forth. Each reap must return what the scan returns
// (0 when it freed an entry, else the least known fill, else never) and
// leave both tables alike.
func TestLevelReapAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 8, 9, 64} {
		for trial := range 100 {
			m, err := cache.NewMSHR(n, 1)
			if err != nil {
				t.Fatal(err)
			}
			twin, _ := cache.NewMSHR(n, 1)
			lv := &level{mshr: *m, fill: unknownFills(n), firstFill: never, firstExact: true}
			m = &lv.mshr
			fill := unknownFills(n)
			fillAt := func() int64 {
				if rng.IntN(3) == 0 {
					return -1
				}
				return rng.Int64N(60)
			}
			for step, key := 0, uint64(0); step < 300; step++ {
				now := rng.Int64N(60)
				e := cache.MSHREntry(rng.IntN(n))
				switch op := rng.IntN(4); {
				case op == 0 && !m.Full():
					key += 128
					a, _ := m.Allocate(key, 0)
					b, _ := twin.Allocate(key, 0)
					if a != b {
						t.Fatalf("n=%d trial %d step %d: entries %d and %d given", n, trial, step, a, b)
					}
					f := fillAt()
					lv.setFill(int(a), f)
					fill[b] = f
				case op == 1 && m.InUse(e) && fill[e] < 0:
					f := rng.Int64N(60)
					lv.setFill(int(e), f)
					fill[e] = f
				case op == 2 && m.InUse(e) && fill[e] >= 0 && fill[e] <= now:
					lv.release(e)
					release(twin, fill, e)
				case op == 3 && m.Full():
					got := lv.reap(now)
					want, full := reap(twin, fill, now)
					if !full {
						want = 0
					}
					if got != want {
						t.Fatalf("n=%d trial %d step %d: reap at %d = %d; the scan gives %d", n, trial, step, now, got, want)
					}
				}
				if !slices.Equal(lv.fill, fill) {
					t.Fatalf("n=%d trial %d step %d: fills %v; the scan's %v", n, trial, step, lv.fill, fill)
				}
			}
		}
	}
}
