package dram

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

// The differential test pins the exact behaviour of the model on long
// random workloads: every NextEvent answer, every Advance, every
// completion (tag and finish cycle) in order, and the final Stats of every
// channel are folded into one FNV-1a hash per workload. The hashes were
// recorded from the straightforward implementation (scan the whole queue
// for every decision, step from one legal command to the next) before it
// was optimized; any change to a scheduling decision, a timing or a
// counter changes them.

// traceHash folds int64 values into an FNV-1a hash.
type traceHash struct {
	h   hash.Hash64
	buf [8]byte
}

func newTraceHash() *traceHash { return &traceHash{h: fnv.New64a()} }

func (t *traceHash) add(vs ...int64) {
	for _, v := range vs {
		binary.LittleEndian.PutUint64(t.buf[:], uint64(v))
		t.h.Write(t.buf[:])
	}
}

func (t *traceHash) addStats(s Stats) {
	for _, c := range append([]ChannelStats{s.Total}, s.Channels...) {
		t.add(c.Reads, c.Writes, c.ReadBytes, c.WriteBytes, c.ReadSectors, c.WriteSectors, c.Completed,
			c.RowHits, c.RowMisses, c.RowConflicts, c.Activates, c.Precharges, c.BusBusyTransfers,
			c.Turnarounds, c.QueueFull)
	}
}

// model is what the drivers use of a DRAM model: both the Memory and the
// naive oracle it was optimized from satisfy it.
type model interface {
	Push(now int64, r Request) bool
	NextEvent() int64
	Advance(now int64, done func(r Request, finish int64))
	Stats() Stats
}

// diffRequest draws a request of kind pattern: 0 random lines over a
// small range (hits and conflicts), 1 random lines over 2 GiB, 2 three
// interleaved streams (two read, one written), 3 short sequential runs
// at random places.
func diffRequest(rng *rand.Rand, pattern int, i int, run *uint64) Request {
	var line uint64
	switch pattern {
	case 0:
		line = rng.Uint64N(1<<14) * 128
	case 1:
		line = rng.Uint64N(1<<24) * 128
	case 2:
		line = uint64(i%3)<<24 + uint64(i/3)*128
	default:
		if rng.IntN(16) == 0 {
			*run = rng.Uint64N(1<<20) * 128
		}
		*run += 128
		line = *run
	}
	sectors := 1 + rng.IntN(4)
	if rng.IntN(2) == 0 {
		sectors = 4
	}
	first := rng.IntN(5 - sectors)
	w := rng.IntN(4) == 0
	if pattern == 2 {
		w = i%3 == 2
	}
	return Request{Addr: line + uint64(first*32), Bytes: sectors * 32, Write: w, Tag: int64(i)}
}

// openLoop pushes n requests at random, non-decreasing cycles (gaps of 0
// to maxGap), advancing the memory to every event before each push time
// and retrying refused pushes at the next event, like an engine with an
// unbounded request source.
func openLoop(t *testing.T, m model, seed uint64, pattern, n, maxGap int) uint64 {
	h := newTraceHash()
	rng := rand.New(rand.NewPCG(seed, uint64(pattern)))
	done := func(r Request, finish int64) { h.add(r.Tag, finish) }
	now, at := int64(0), int64(0)
	var run uint64
	for i := range n {
		at += int64(rng.IntN(maxGap + 1))
		r := diffRequest(rng, pattern, i, &run)
		for next := m.NextEvent(); next <= at; next = m.NextEvent() {
			h.add(next)
			now = next
			m.Advance(now, done)
		}
		now = max(now, at)
		for !m.Push(now, r) {
			next := m.NextEvent()
			if next == math.MaxInt64 {
				t.Fatalf("Push(%d) refused by an idle memory", r.Tag)
			}
			h.add(-1, next)
			now = max(now, next)
			m.Advance(now, done)
		}
	}
	for next := m.NextEvent(); next != math.MaxInt64; next = m.NextEvent() {
		h.add(next)
		m.Advance(next, done)
	}
	h.addStats(m.Stats())
	return h.h.Sum64()
}

// closedLoop keeps `window` requests outstanding: each completion pushes
// a new request from the done callback (or, if its queue is full, after
// the Advance, retried at every later event), and the engine also
// advances at random intermediate cycles.
func closedLoop(t *testing.T, m model, seed uint64, pattern, n, window int) uint64 {
	h := newTraceHash()
	rng := rand.New(rand.NewPCG(seed, 100+uint64(pattern)))
	var run uint64
	issued := 0
	var backlog []Request
	now := int64(0)
	done := func(r Request, finish int64) {
		h.add(r.Tag, finish)
		if issued < n {
			nr := diffRequest(rng, pattern, issued, &run)
			issued++
			if !m.Push(now, nr) {
				backlog = append(backlog, nr)
			}
		}
	}
	for ; issued < window && issued < n; issued++ {
		r := diffRequest(rng, pattern, issued, &run)
		if !m.Push(0, r) {
			backlog = append(backlog, r)
		}
	}
	for {
		next := m.NextEvent()
		if next == math.MaxInt64 {
			if len(backlog) > 0 {
				t.Fatalf("backlog of %d with an idle memory", len(backlog))
			}
			break
		}
		h.add(next)
		if rng.IntN(4) == 0 && next > now+1 {
			now += 1 + rng.Int64N(next-now-1)
		} else {
			now = next
		}
		m.Advance(now, done)
		kept := backlog[:0]
		for _, r := range backlog {
			if !m.Push(now, r) {
				kept = append(kept, r)
			}
		}
		backlog = kept
	}
	h.addStats(m.Stats())
	return h.h.Sum64()
}

func diffDevices(t *testing.T) []struct {
	name string
	d    *arch.Device
} {
	t.Helper()
	load := func(name, sched string) *arch.Device {
		d, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		d.DRAM.Scheduler = sched
		return d
	}
	fcfsGroups := groupDevice()
	fcfsGroups.DRAM.Scheduler = arch.SchedFCFS
	return []struct {
		name string
		d    *arch.Device
	}{
		{"test frfcfs", testDevice(3, arch.SchedFRFCFS)},
		{"test fcfs", testDevice(3, arch.SchedFCFS)},
		{"groups frfcfs", groupDevice()},
		{"groups fcfs", fcfsGroups},
		{"gtx480", gtx480(6)},
		{"g80", load("g80", arch.SchedFRFCFS)},
		{"gt200", load("gt200", arch.SchedFRFCFS)},
		{"gt200 fcfs", load("gt200", arch.SchedFCFS)},
		{"fermi", load("fermi", arch.SchedFRFCFS)},
		{"fermi fcfs", load("fermi", arch.SchedFCFS)},
		{"kepler", load("kepler", arch.SchedFRFCFS)},
		{"maxwell", load("maxwell", arch.SchedFRFCFS)},
	}
}

func TestDifferential(t *testing.T) {
	// want[device][workload], recorded from the reference implementation.
	want := map[string][6]uint64{
		"test frfcfs":   {0x3b0a958f8e3d2e4d, 0xb66a31491d3fa73d, 0xa05e57d7dee5a950, 0xeb392bf71988aee2, 0xf3dbbb9e64d957c2, 0xf61d8f140b927ad8},
		"test fcfs":     {0xd4bb9f0b1cf91745, 0x95ac4e3424101e74, 0x254176433b732058, 0xc0cdf1d033b81d6f, 0xe1aef85a8d696af9, 0xced353ed4142eb6d},
		"groups frfcfs": {0xaba8431e52f4b88f, 0xabea2937e8e4ae15, 0x59f25136ae5a7395, 0x44458d9acf33d48e, 0xf0242dc1bf6f1de2, 0x9d5e0073ebcf313f},
		"groups fcfs":   {0xe42ad70e89bd80ef, 0x3c402d6229ef1a1a, 0x7dde25a69c58d8f5, 0x320d9ce80879f3ab, 0xb915f1ee9829249b, 0x69e70f6671851b1b},
		"gtx480":        {0x5e4390d10e7efe74, 0x26735a0afa19a042, 0xf66e24d43c897b67, 0x49aa1bc2bff056d4, 0x1a2d6e66d175ce9d, 0x304419e1364a4c79},
		"g80":           {0x69f46854d939b257, 0xace3736de2b5b5a3, 0x7e26046c4a86bffa, 0xabe1a7bfffa97714, 0xd545333d90cc5bc7, 0x2a03dd9778680f08},
		"gt200":         {0xb234c2127bdc17c6, 0xfcced07d698bce86, 0xbe824bb5f432903c, 0x9a5f8350d9ccb4dc, 0xb9f241cfa96d6184, 0x3dfcb07a27acf267},
		"gt200 fcfs":    {0x76ebbd2822ac2eca, 0x8e7ef4bc108b877d, 0xf867b969f0d855f4, 0xe6695adfec5b9dcf, 0xc3f4d61097175f37, 0x8b04444d43227c03},
		"fermi":         {0xa72df2d08506cb2c, 0xbd45a88aff5d6e22, 0x167559888a9696bd, 0x2c5df504a6e1babe, 0x16d4284673245805, 0xa6c989e638b6bf94},
		"fermi fcfs":    {0x20f2f12f2235f1d2, 0xa8643a12bccf0dfa, 0x2b09a8f996910fa5, 0xcae4defa9157a4fb, 0xdb9f0c6f68dcf4a4, 0x5bef65b887067432},
		"kepler":        {0xc5577ce5b37103de, 0x3652f788b0bd5228, 0x114e1d50af8eef8b, 0x15fd9337654eb542, 0x6379cacbba18fc0, 0xbabbbf50377911a1},
		"maxwell":       {0xc4b705561a29a4f1, 0x779f467ded91df9a, 0x463408456a160375, 0x77482ac255c9895, 0x197ce4d59f32aad0, 0x36ee6fc0f2bdfe3},
	}
	// The oracle is the reference implementation restored: it must
	// reproduce the recorded hashes too.
	oracle := func(t *testing.T, d *arch.Device) model {
		m, err := newNaiveMemory(d)
		if err != nil {
			t.Fatalf("newNaiveMemory: %v", err)
		}
		return m
	}
	models := []struct {
		name string
		new  func(t *testing.T, d *arch.Device) model
	}{
		{"Memory", func(t *testing.T, d *arch.Device) model { return newMemory(t, d) }},
		{"oracle", oracle},
	}
	const n = 4000
	for _, md := range models {
		matched := 0
		for di, dv := range diffDevices(t) {
			fresh := func() model { return md.new(t, dv.d) }
			hashes := [6]uint64{
				openLoop(t, fresh(), uint64(di), 0, n, 3),
				openLoop(t, fresh(), uint64(di), 1, n, 0),
				openLoop(t, fresh(), uint64(di), 2, n, 1),
				openLoop(t, fresh(), uint64(di), 3, n, 2),
				closedLoop(t, fresh(), uint64(di), 0, n, 48),
				closedLoop(t, fresh(), uint64(di), 3, n, 200),
			}
			w, ok := want[dv.name]
			if !ok {
				t.Errorf("no recorded hashes for %s: %q: {%#x, %#x, %#x, %#x, %#x, %#x},",
					dv.name, dv.name, hashes[0], hashes[1], hashes[2], hashes[3], hashes[4], hashes[5])
				continue
			}
			for k := range hashes {
				if hashes[k] != w[k] {
					t.Errorf("%s, %s workload %d: trace hash %#x; want %#x", md.name, dv.name, k, hashes[k], w[k])
					continue
				}
				matched++
			}
		}
		t.Logf("%s: %d of the recorded hashes matched", md.name, matched)
	}
}
