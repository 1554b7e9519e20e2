package sim

import (
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
		fill.set(e, f)
	}
	if got := reap(m, &fill, 4); got != 0 {
		t.Fatalf("reap at 4 = %d; want 0 (the entry back at 3 freed)", got)
	}
	if m.InUse(1) || fill.at[1] != -1 || m.Used() != 3 {
		t.Fatalf("after reap: entry 1 in use %v, fill %d, %d in use; want free, -1, 3", m.InUse(1), fill.at[1], m.Used())
	}
	if e, _ := m.Allocate(512, 0); e != 1 {
		t.Fatalf("allocate after reap: entry %d; want 1, the one freed", e)
	}
	if got := reap(m, &fill, 4); got != 5 {
		t.Errorf("reap at 4, full, nothing due = %d; want 5", got)
	}
	for i := range fill.at {
		fill.set(cache.MSHREntry(i), -1)
	}
	if got := reap(m, &fill, 100); got != never {
		t.Errorf("reap with every entry waiting below = %d; want never", got)
	}
}

// reap looks only at the entries whose fill is known, by their bits, and
// must free them in the order of their index, as a scan of every entry
// does: which entries are freed, and the order the table hands them out
// again, are compared with such a scan of a twin table. 130 entries span
// three words of bits; the fills known are at entries 3, 63, 64, 65 and
// 129, two of them later than the reap.
func TestReapInIndexOrder(t *testing.T) {
	const n = 130
	m, err := cache.NewMSHR(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	twin, _ := cache.NewMSHR(n, 1)
	fill := unknownFills(n)
	at := make([]int64, n) // the twin's fills
	known := map[int]int64{3: 5, 63: 40, 64: 2, 65: 50, 129: 1}
	for i := range n {
		e, _ := m.Allocate(uint64(128*i), 0)
		twin.Allocate(uint64(128*i), 0)
		at[e] = -1
		if f, ok := known[i]; ok {
			fill.set(e, f)
			at[e] = f
		}
	}
	if got := reap(m, &fill, 10); got != 0 {
		t.Fatalf("reap at 10 = %d; want 0", got)
	}
	for i, f := range at { // the scan of every entry, in index order
		if f >= 0 && f <= 10 {
			twin.Release(cache.MSHREntry(i))
		}
	}
	for i := range n {
		if m.InUse(cache.MSHREntry(i)) != twin.InUse(cache.MSHREntry(i)) {
			t.Errorf("entry %d in use %v; the scan leaves it %v", i, m.InUse(cache.MSHREntry(i)), twin.InUse(cache.MSHREntry(i)))
		}
	}
	if m.Used() != n-3 || fill.at[3] != -1 || fill.at[64] != -1 || fill.at[129] != -1 || fill.at[63] != 40 {
		t.Errorf("after reap at 10: %d in use, fills %d %d %d %d; want %d, -1 -1 -1 40", m.Used(), fill.at[3], fill.at[64], fill.at[129], fill.at[63], n-3)
	}
	for k := range 3 {
		e, _ := m.Allocate(uint64(128*(n+k)), 0)
		w, _ := twin.Allocate(uint64(128*(n+k)), 0)
		if e != w {
			t.Errorf("allocation %d after reap: entry %d; the scan gives %d", k, e, w)
		}
	}
	if got := reap(m, &fill, 10); got != 40 {
		t.Errorf("reap at 10, full again = %d; want 40, the first fill still known", got)
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
	sl := &slice{mshr: m, fill: unknownFills(2)}
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

// scanReap is reap as a scan of every entry in index order, the way it
// was written first: the oracle the order kept by fillTimes is held to.
func scanReap(m *cache.MSHR, at []int64, t int64) int64 {
	first := int64(never)
	for i, f := range at {
		if f < 0 {
			continue
		}
		if f <= t {
			m.Release(cache.MSHREntry(i))
			at[i] = -1
		} else {
			first = min(first, f)
		}
	}
	if !m.Full() {
		return 0
	}
	return first
}

// TestReapAgainstScan runs a table through 200,000 random steps, as
// levels and slices use one (allocate, learn or forget a fill, release an
// entry due, reap), beside a twin kept by scanReap: every reap must say
// the same, every entry be in use in both or neither, every fill the
// same, and the table hand out the same entries.
func TestReapAgainstScan(t *testing.T) {
	const n = 70
	m, _ := cache.NewMSHR(n, 1)
	twin, _ := cache.NewMSHR(n, 1)
	fill := unknownFills(n)
	at := slices.Repeat([]int64{-1}, n)
	rng := rand.New(rand.NewPCG(1, 2))
	var now int64
	line := uint64(0)
	for step := range 200000 {
		e := cache.MSHREntry(rng.IntN(n))
		switch op := rng.IntN(10); {
		case op < 3 && !m.Full():
			line += 128
			got, _ := m.Allocate(line, 0)
			want, _ := twin.Allocate(line, 0)
			if got != want {
				t.Fatalf("step %d: allocated entry %d; the scan's table gives %d", step, got, want)
			}
		case op < 6 && m.InUse(e):
			f := int64(-1)
			if rng.IntN(4) > 0 {
				f = now + int64(rng.IntN(60))
			}
			fill.set(e, f)
			at[e] = f
		case op < 7 && m.InUse(e) && at[e] >= 0 && at[e] <= now:
			release(m, &fill, e)
			twin.Release(e)
			at[e] = -1
		case op < 9:
			if got, want := reap(m, &fill, now), scanReap(twin, at, now); got != want {
				t.Fatalf("step %d: reap at %d = %d; the scan says %d", step, now, got, want)
			}
		default:
			now += int64(rng.IntN(6))
		}
		for i := range n {
			if m.InUse(cache.MSHREntry(i)) != twin.InUse(cache.MSHREntry(i)) || fill.at[i] != at[i] {
				t.Fatalf("step %d: entry %d in use %v, fill %d; the scan's %v, %d", step, i,
					m.InUse(cache.MSHREntry(i)), fill.at[i], twin.InUse(cache.MSHREntry(i)), at[i])
			}
		}
	}
}
