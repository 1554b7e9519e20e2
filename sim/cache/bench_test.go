package cache

import (
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"gpumemsim/arch"
)

// Benchmarks replay a pre-generated random address ring, so that the
// generator's cost stays out of the measurement, or stream through memory
// in 32-B steps (one line miss then three hits per 128-B line, never
// wrapping); one op is one access.

const ringLen = 1 << 16

func benchGeometries() []Geometry {
	return []Geometry{
		// Fermi L1, 16 KB mode.
		{Sets: 32, Ways: 4, LineBytes: 128, SetIndex: arch.IndexFermiHash, WritePolicy: arch.WriteEvict},
		// One GTX480 L2 slice, sectored.
		{Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 32, WritePolicy: arch.WriteBack, WriteAllocate: true},
		// 2 MB, 8-way.
		{Sets: 2048, Ways: 8, LineBytes: 128, WritePolicy: arch.WriteBack, WriteAllocate: true},
	}
}

func benchRings(g Geometry) map[string][]uint64 {
	r := rand.New(rand.NewPCG(7, 7))
	random := make([]uint64, ringLen)
	stream := make([]uint64, ringLen)
	for i := range random {
		random[i] = r.Uint64N(2 * uint64(g.SizeBytes())) // about half hits
		stream[i] = uint64(i) * 32                       // four accesses per 128-B line
	}
	return map[string][]uint64{"random": random, "stream": stream}
}

func BenchmarkRead(b *testing.B) {
	for _, g := range benchGeometries() {
		ring := benchRings(g)["random"]
		for _, pattern := range []string{"random", "stream"} {
			addr := func(i int) uint64 { return ring[i&(ringLen-1)] }
			if pattern == "stream" {
				addr = func(i int) uint64 { return uint64(i) * 32 }
			}
			b.Run(name(g)+"/"+pattern, func(b *testing.B) {
				c := mustNew(b, g)
				full := c.FullMask()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					c.Read(addr(i), full)
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
			})
		}
	}
}

func BenchmarkReadWrite(b *testing.B) {
	g := benchGeometries()[1]
	ring := benchRings(g)["random"]
	c := mustNew(b, g)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := ring[i&(ringLen-1)]
		if i&3 == 0 {
			c.Write(a, 1<<(a>>5&3))
		} else {
			c.Read(a, 1<<(a>>5&3))
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}

// BenchmarkSimpleLRU is the oracle on the same streams: one simplelru per
// set, Get then Add on a miss. It takes the set from Cache.Set so that only
// the replacement bookkeeping differs.
func BenchmarkSimpleLRU(b *testing.B) {
	for _, g := range benchGeometries() {
		ring := benchRings(g)["random"]
		for _, pattern := range []string{"random", "stream"} {
			addr := func(i int) uint64 { return ring[i&(ringLen-1)] }
			if pattern == "stream" {
				addr = func(i int) uint64 { return uint64(i) * 32 }
			}
			b.Run(name(g)+"/"+pattern, func(b *testing.B) {
				sets := make([]*simplelru.LRU[uint64, uint32], g.Sets)
				for s := range sets {
					sets[s], _ = simplelru.NewLRU[uint64, uint32](g.Ways, nil)
				}
				c := mustNew(b, g)
				lineBytes := uint64(g.LineBytes)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					a := addr(i)
					l := sets[c.Set(a)]
					if _, ok := l.Get(a / lineBytes); !ok {
						l.Add(a/lineBytes, 1)
					}
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
			})
		}
	}
}

func BenchmarkMSHR(b *testing.B) {
	m, _ := NewMSHR(64, 8)
	ring := benchRings(benchGeometries()[0])["random"]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		line := ring[i&(ringLen-1)] &^ 127
		if e, ok := m.Lookup(line); ok {
			if !m.Merge(e, uint64(i)) {
				m.Release(e)
			}
		} else if _, ok := m.Allocate(line, uint64(i)); !ok {
			m.Release(MSHREntry(i & 63))
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}
