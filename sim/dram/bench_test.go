package dram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchmarkPattern feeds the GTX 480 memory one request per iteration,
// advancing time whenever the target queue is full, as an engine would.
func benchmarkPattern(b *testing.B, next func(i uint64) uint64) {
	m, err := NewMemory(gtx480(6))
	if err != nil {
		b.Fatal(err)
	}
	var completed int64
	done := func(Request, int64) { completed++ }
	now := int64(0)
	i := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		r := Request{Addr: next(i), Bytes: 128, Tag: int64(i)}
		for !m.Push(now, r) {
			now = m.NextEvent()
			m.Advance(now, DoneFunc(done))
		}
		i++
	}
	for t := m.NextEvent(); t != math.MaxInt64; t = m.NextEvent() {
		m.Advance(t, DoneFunc(done))
	}
	if completed != int64(i) {
		b.Fatalf("%d of %d requests completed", completed, i)
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "requests/s")
}

func BenchmarkStreaming(b *testing.B) {
	benchmarkPattern(b, func(i uint64) uint64 { return i * 128 })
}

func BenchmarkRandom(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	benchmarkPattern(b, func(uint64) uint64 { return rng.Uint64N(1<<24) * 128 })
}
