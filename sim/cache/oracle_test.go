package cache

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"gpumemsim/arch"
)

// The oracle is one simplelru.LRU per set, keyed by line number, holding
// the line's valid sector mask, with the set chosen by set-index functions
// written here independently of the cache's.

// oracleSet is the set of byte address a, computed from the definitions
// in the package documentation, bit by bit where the definition is bitwise.
func oracleSet(g Geometry, a uint64) int {
	line := a / uint64(g.LineBytes)
	switch g.SetIndex {
	case arch.IndexFermiHash:
		bit := func(i int) uint64 { return (a >> i) & 1 }
		lowerBits := []int{7, 8, 9, 10, 11}    // line-address bits 0..4 with 128-B lines
		upperBits := []int{13, 14, 15, 17, 19} // XORed onto them in this order
		set := 0
		for i := range 5 {
			set |= int(bit(lowerBits[i])^bit(upperBits[i])) << i
		}
		if g.Sets == 64 {
			set |= int(bit(12)) << 5
		}
		return set
	case arch.IndexXOR:
		s := uint64(g.Sets)
		return int((line%s ^ (line/s)%s) % s)
	}
	return int(line % uint64(g.Sets))
}

type oracle struct {
	g      Geometry
	fifo   bool
	sets   []*simplelru.LRU[uint64, uint32]
	victim uint64
	evict  bool
}

func newOracle(t testing.TB, g Geometry) *oracle {
	o := &oracle{g: g, fifo: g.Replacement == arch.ReplaceFIFO}
	for range g.Sets {
		l, err := simplelru.NewLRU[uint64, uint32](g.Ways, func(k uint64, _ uint32) {
			o.victim, o.evict = k, true
		})
		if err != nil {
			t.Fatal(err)
		}
		o.sets = append(o.sets, l)
	}
	return o
}

// read returns the sectors of mask that were valid, whether the line was
// present, and the evicted line number if any.
func (o *oracle) read(a uint64, mask uint32) (hit uint32, present bool, victim uint64, evicted bool) {
	line := a / uint64(o.g.LineBytes)
	l := o.sets[oracleSet(o.g, a)]
	o.evict = false
	var v uint32
	if o.fifo {
		// FIFO: Peek does not refresh recency, and Add is only called for
		// new keys, so the list order is the fill order.
		v, present = l.Peek(line)
		if !present {
			l.Add(line, mask)
		}
	} else {
		v, present = l.Get(line)
		l.Add(line, v|mask) // promotes again when present; evicts the LRU key when new
	}
	return v & mask, present, o.victim, o.evict
}

type stream struct {
	name string
	next func(r *rand.Rand, i int) uint64
}

func streams(g Geometry) []stream {
	capacity := uint64(g.SizeBytes())
	line := uint64(g.LineBytes)
	return []stream{
		{"random-4x-capacity", func(r *rand.Rand, _ int) uint64 { return r.Uint64N(4 * capacity) }},
		{"random-1.25x-capacity", func(r *rand.Rand, _ int) uint64 { return r.Uint64N(capacity + capacity/4) }},
		// Fermi's hash reads bits up to 19: spread over 4 MB as well.
		{"random-4MB", func(r *rand.Rand, _ int) uint64 { return r.Uint64N(4 << 20) }},
		{"hot-and-cold", func(r *rand.Rand, i int) uint64 {
			if r.IntN(4) != 0 {
				return r.Uint64N(capacity / 2)
			}
			return 1<<32 + uint64(i)*line
		}},
		{"stream", func(_ *rand.Rand, i int) uint64 { return uint64(i) * 4 }},
		{"stride-line", func(_ *rand.Rand, i int) uint64 { return uint64(i%(2*int(capacity/line))) * line }},
		{"stride-3-lines-ring", func(_ *rand.Rand, i int) uint64 {
			return uint64(i%max(1, int(3*capacity/line/4))) * 3 * line
		}},
		{"stride-4KB", func(_ *rand.Rand, i int) uint64 { return uint64(i%200) * 4096 }},
		{"stride-4160", func(_ *rand.Rand, i int) uint64 { return uint64(i%300) * 4160 }},
		{"stride-set-span", func(_ *rand.Rand, i int) uint64 { return uint64(i%(g.Ways+1)) * uint64(g.Sets) * line }},
	}
}

func geometries() []Geometry {
	lru := func(sets, ways, line, sector int, index arch.SetIndex) Geometry {
		return Geometry{Sets: sets, Ways: ways, LineBytes: line, SectorBytes: sector,
			Replacement: arch.ReplaceLRU, SetIndex: index, WritePolicy: arch.WriteBack, WriteAllocate: true}
	}
	return []Geometry{
		lru(32, 4, 128, 0, arch.IndexLinear),
		lru(32, 4, 128, 0, arch.IndexFermiHash),
		lru(64, 6, 128, 0, arch.IndexLinear),
		lru(64, 6, 128, 0, arch.IndexFermiHash),
		lru(4, 48, 128, 32, arch.IndexLinear),
		lru(1, 16, 128, 0, arch.IndexLinear),
		lru(2048, 8, 128, 0, arch.IndexLinear),
		lru(2048, 8, 128, 32, arch.IndexXOR),
		lru(24, 3, 64, 0, arch.IndexLinear),
		lru(64, 8, 32, 0, arch.IndexXOR),
	}
}

func name(g Geometry) string {
	index, replacement := cmp.Or(g.SetIndex, arch.IndexLinear), cmp.Or(g.Replacement, arch.ReplaceLRU)
	return fmt.Sprintf("%dx%dx%d/%d-%s-%s", g.Sets, g.Ways, g.LineBytes, g.Sectors(), index, replacement)
}

func accesses(g Geometry) int {
	if testing.Short() {
		return 20_000
	}
	return max(60_000, 8*g.Sets*g.Ways)
}

// compare runs one stream through the cache and the oracle and reports the
// first disagreement; mask picks the sectors of each access.
func compare(t *testing.T, g Geometry, s stream, mask func(r *rand.Rand) uint32) (hits, lineMisses, sectorMisses, evictions int) {
	t.Helper()
	c := mustNew(t, g)
	o := newOracle(t, g)
	r := rand.New(rand.NewPCG(1, uint64(len(s.name))))
	lineBytes := uint64(g.LineBytes)
	for i := range accesses(g) {
		a := s.next(r, i)
		m := mask(r)
		got := read(c, a, m)
		hit, present, victim, evicted := o.read(a, m)
		want := outcome{Hit: hit, Miss: m &^ hit, Fetch: m &^ hit, Status: Hit}
		switch {
		case !present:
			want.Status = Miss
		case hit != m:
			want.Status = SectorMiss
		}
		if evicted {
			want.Evicted, want.Victim = true, victim*lineBytes
		}
		if got != want {
			t.Fatalf("%s %s access %d: Read(%#x, %#b) = %+v; oracle %+v", name(g), s.name, i, a, m, got, want)
		}
		switch want.Status {
		case Hit:
			hits++
		case Miss:
			lineMisses++
		default:
			sectorMisses++
		}
		if evicted {
			evictions++
		}
	}
	return
}

func TestAgainstSimpleLRU(t *testing.T) {
	for _, g := range geometries() {
		for _, s := range streams(g) {
			t.Run(name(g)+"/"+s.name, func(t *testing.T) {
				full := uint32(1)<<g.Sectors() - 1
				hits, misses, _, evictions := compare(t, g, s, func(*rand.Rand) uint32 { return full })
				t.Logf("%d hits, %d misses, %d evictions", hits, misses, evictions)
			})
		}
	}
}

// Sectored reads: random non-empty sector masks, compared sector by sector
// with the oracle's valid masks.
func TestAgainstSimpleLRUSectored(t *testing.T) {
	for _, g := range geometries() {
		if g.Sectors() == 1 {
			continue
		}
		sectors := g.Sectors()
		for _, s := range streams(g)[:4] {
			t.Run(name(g)+"/"+s.name, func(t *testing.T) {
				_, _, sectorMisses, _ := compare(t, g, s, func(r *rand.Rand) uint32 {
					return uint32(r.IntN(1<<sectors-1)) + 1
				})
				if sectorMisses == 0 {
					t.Errorf("no sector misses: the stream does not exercise sectors")
				}
			})
		}
	}
}

func TestAgainstFIFOOracle(t *testing.T) {
	for _, g := range geometries()[:6] {
		g.Replacement = arch.ReplaceFIFO
		for _, s := range streams(g) {
			t.Run(name(g)+"/"+s.name, func(t *testing.T) {
				compare(t, g, s, func(*rand.Rand) uint32 { return uint32(1)<<g.Sectors() - 1 })
			})
		}
	}
}

// The oracle's set functions must themselves agree with the hand-derived
// cases, or the comparison would prove nothing about the hash.
func TestOracleSetFunctions(t *testing.T) {
	g := Geometry{Sets: 64, LineBytes: 128, SetIndex: arch.IndexFermiHash}
	if s := oracleSet(g, 0x3f80); s != 62 {
		t.Errorf("oracle fermi_hash(0x3f80) = %d; want 62", s)
	}
	g = Geometry{Sets: 8, LineBytes: 128, SetIndex: arch.IndexXOR}
	if s := oracleSet(g, 0xe80); s != 6 {
		t.Errorf("oracle xor(0xe80) = %d; want 6", s)
	}
}
