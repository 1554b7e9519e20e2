package cache

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMSHR(t *testing.T) {
	m, err := NewMSHR(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Lookup(0x1000); ok {
		t.Fatalf("Lookup(0x1000) on an empty table found an entry")
	}
	a, ok := m.Allocate(0x1000, 10)
	if !ok || a != 0 {
		t.Fatalf("Allocate(0x1000) = %d, %v; want entry 0, true", a, ok)
	}
	b, ok := m.Allocate(0x2000, 20)
	if !ok || b != 1 {
		t.Fatalf("Allocate(0x2000) = %d, %v; want entry 1, true", b, ok)
	}
	// Two entries: the table is full.
	if _, ok := m.Allocate(0x3000, 30); ok || !m.Full() || m.Used() != 2 {
		t.Errorf("Allocate on a full table = ok %v, Full %v, Used %d; want false, true, 2", ok, m.Full(), m.Used())
	}
	if e, ok := m.Lookup(0x2000); !ok || e != b || m.Line(e) != 0x2000 {
		t.Errorf("Lookup(0x2000) = %d, %v; want %d, true", e, ok, b)
	}
	// merges = 3 counts the allocating request: two more merge, the third is refused.
	for i, want := range []bool{true, true, false} {
		if got := m.Merge(a, uint64(11+i)); got != want {
			t.Errorf("Merge #%d into entry %d = %v; want %v", i+1, a, got, want)
		}
	}
	if got := m.Requests(a); !slices.Equal(got, []uint64{10, 11, 12}) {
		t.Errorf("Requests(%d) = %v; want [10 11 12]", a, got)
	}
	m.Release(a)
	if _, ok := m.Lookup(0x1000); ok {
		t.Errorf("Lookup(0x1000) after Release found an entry")
	}
	// The freed entry is reused, starting empty.
	c, ok := m.Allocate(0x3000, 30)
	if !ok || c != a {
		t.Errorf("Allocate after Release = %d, %v; want %d, true", c, ok, a)
	}
	if got := m.Requests(c); !slices.Equal(got, []uint64{30}) {
		t.Errorf("Requests(%d) = %v; want [30]", c, got)
	}
	if m.Entries() != 2 || m.Merges() != 3 {
		t.Errorf("Entries, Merges = %d, %d; want 2, 3", m.Entries(), m.Merges())
	}
}

func TestMSHRErrors(t *testing.T) {
	if _, err := NewMSHR(0, 0); err == nil {
		t.Errorf("NewMSHR(0, 0) = nil error; want entries and merges errors")
	}
	m, _ := NewMSHR(4, 1)
	m.Allocate(0x80, 1)
	for name, f := range map[string]func(){
		"Allocate twice":  func() { m.Allocate(0x80, 2) },
		"Release free":    func() { m.Release(3) },
		"Merge free":      func() { m.Merge(2, 0) },
		"Release invalid": func() { m.Release(-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// The index must find exactly the tracked lines through any sequence of
// allocations and releases, including lines that collide in the index.
func TestMSHRIndexAgainstScan(t *testing.T) {
	m, err := NewMSHR(16, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tracked := map[uint64]MSHREntry{}
	for i := range 20000 {
		line := uint64(rng.IntN(40)) * 128
		if e, ok := tracked[line]; ok && rng.IntN(2) == 0 {
			m.Release(e)
			delete(tracked, line)
		} else if !ok {
			if e, ok := m.Allocate(line, uint64(i)); ok {
				tracked[line] = e
			}
		}
		probe := uint64(rng.IntN(40)) * 128
		e, ok := m.Lookup(probe)
		want, wantOK := tracked[probe]
		if ok != wantOK || (ok && e != want) {
			t.Fatalf("step %d: Lookup(%#x) = %d, %v; want %d, %v", i, probe, e, ok, want, wantOK)
		}
	}
}

// The tokens grow with the entries handed out, first 16 entries' worth,
// then the table's: every entry keeps its requests across each growth,
// and a slice Requests gave before one keeps what it held.
func TestMSHRTokensGrow(t *testing.T) {
	const entries, merges = 40, 3
	m, err := NewMSHR(entries, merges)
	if err != nil {
		t.Fatal(err)
	}
	var held []uint64
	for e := range entries {
		line := uint64(e) * 128
		got, ok := m.Allocate(line, uint64(1000*e))
		if !ok || got != MSHREntry(e) {
			t.Fatalf("Allocate(line %d) = %d, %v; want entry %d", e, got, ok, e)
		}
		if !m.Merge(got, uint64(1000*e+1)) {
			t.Fatalf("Merge into entry %d refused", e)
		}
		if e == 15 {
			held = m.Requests(got) // before the table grows past 16 entries
		}
		if want := min(entries, 16); e < 16 && len(m.tokens) != want*merges {
			t.Errorf("after entry %d: %d tokens; want %d", e, len(m.tokens), want*merges)
		}
	}
	if len(m.tokens) != entries*merges {
		t.Errorf("%d tokens with every entry used; want %d", len(m.tokens), entries*merges)
	}
	for e := range entries {
		if got, want := m.Requests(MSHREntry(e)), []uint64{uint64(1000 * e), uint64(1000*e + 1)}; !slices.Equal(got, want) {
			t.Errorf("Requests(%d) = %v; want %v", e, got, want)
		}
	}
	if want := []uint64{15000, 15001}; !slices.Equal(held, want) {
		t.Errorf("Requests(15) taken before the growth = %v; want %v", held, want)
	}
}
