package dram

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gpumemsim/arch"
)

// testDevice is a small hand-built device whose timing is easy to follow:
// core clock = DRAM clock, so a core cycle is a DRAM cycle; a 64-bit channel
// at 4 transfers per clock with BL 8 moves a 64-B burst in 2 cycles.
//
//	tCL 10, tRCD 12, tRP 11, tRAS 28, tCCD 2, tRRD 6, tWR 12, tWL 3, tWTR 4
//
// so a write column command may follow a read one after
// tCL + burst + 2 − tWL = 10 + 2 + 2 − 3 = 11 cycles, and a read one a
// write one after tWL + burst + tWTR = 3 + 2 + 4 = 9.
//
// With one channel and 4 banks of 1-KiB rows, address
// row·4096 + bank·1024 + column lies in that bank and row.
func testDevice(channels int, sched arch.DRAMScheduler) *arch.Device {
	return &arch.Device{
		Name:   "test",
		Clocks: arch.Clocks{Core: arch.GHz, DRAM: arch.GHz, DRAMDataRate: 4},
		DRAM: arch.DRAM{
			Type:         "GDDR5",
			Channels:     channels,
			Banks:        4,
			BankGroups:   1,
			BusWidthBits: 64,
			BurstLength:  8,
			RowSize:      arch.KiB,
			Timing:       arch.DRAMTiming{CL: 10, RCD: 12, RP: 11, RAS: 28, CCD: 2, RRD: 6, WR: 12, WL: 3, WTR: 4, CCDL: 2},
			Scheduler:    sched,
			QueueDepth:   8,
			Interleave:   256,
		},
	}
}

// gtx480 follows GPGPU-Sim's GTX 480 config: 6 channels of 64 bits, GDDR5
// at 924 MHz command clock with 4 transfers per clock, core at 700 MHz,
// Hynix H5GQ1H24AFR timing (WL=4, CDLR=5): read to write
// 12 + 2 + 2 − 4 = 12 cycles, write to read 4 + 2 + 5 = 11.
func gtx480(channels int) *arch.Device {
	d := testDevice(channels, arch.SchedFRFCFS)
	d.Clocks = arch.Clocks{Core: 700 * arch.MHz, DRAM: 924 * arch.MHz, DRAMDataRate: 4}
	d.DRAM.Banks = 16
	d.DRAM.RowSize = 2 * arch.KiB
	d.DRAM.QueueDepth = 16
	d.DRAM.Timing = arch.DRAMTiming{CL: 12, RCD: 12, RP: 12, RAS: 28, CCD: 2, RRD: 6, WR: 12, WL: 4, WTR: 5, CCDL: 2}
	return d
}

func addr(bank, row, col uint64) uint64 { return row*4096 + bank*1024 + col }

type completed struct {
	tag    int64
	finish int64
}

type push struct {
	at  int64
	req Request
}

func newMemory(t testing.TB, d *arch.Device) *Memory {
	t.Helper()
	m, err := NewMemory(d)
	if err != nil {
		t.Fatalf("NewMemory: %v", err)
	}
	return m
}

// simulate pushes each request at its cycle (in order, retrying while the
// queue is full) and runs the memory until idle.
func simulate(t testing.TB, m *Memory, pushes []push) []completed {
	t.Helper()
	var got []completed
	done := func(r Request, finish int64) { got = append(got, completed{r.Tag, finish}) }
	now := int64(0)
	for _, p := range pushes {
		for next := m.NextEvent(); next <= p.at; next = m.NextEvent() {
			now = next
			m.Advance(now, DoneFunc(done))
		}
		now = max(now, p.at)
		for !m.Push(now, p.req) {
			next := m.NextEvent()
			if next == math.MaxInt64 {
				t.Fatalf("Push(%d) refused by an idle memory", p.req.Tag)
			}
			now = max(now, next)
			m.Advance(now, DoneFunc(done))
		}
	}
	for next := m.NextEvent(); next != math.MaxInt64; next = m.NextEvent() {
		m.Advance(next, DoneFunc(done))
	}
	return got
}

func read(tag int64, a uint64, n int) Request { return Request{Addr: a, Bytes: n, Tag: tag} }
func write(tag int64, a uint64, n int) Request {
	return Request{Addr: a, Bytes: n, Write: true, Tag: tag}
}

func TestLatency(t *testing.T) {
	tests := []struct {
		name   string
		pushes []push
		want   []completed
	}{
		// Row empty: ACT at 0, column at tRCD = 12, data after tCL = 10:
		// 32 B and 64 B are one burst (2 cycles), 96 B and 128 B two.
		{"read 32B idle bank", []push{{0, read(1, 0, 32)}}, []completed{{1, 12 + 10 + 2}}},
		{"read 64B idle bank", []push{{0, read(1, 0, 64)}}, []completed{{1, 12 + 10 + 2}}},
		{"read 96B idle bank", []push{{0, read(1, 0, 96)}}, []completed{{1, 12 + 10 + 4}}},
		{"read 128B idle bank", []push{{0, read(1, 0, 128)}}, []completed{{1, 12 + 10 + 4}}},
		// A write's data start tWL = 3 after its column command.
		{"write 32B idle bank", []push{{0, write(1, 0, 32)}}, []completed{{1, 12 + 3 + 2}}},
		{"write 128B idle bank", []push{{0, write(1, 0, 128)}}, []completed{{1, 12 + 2 + 3 + 2}}},
		// Row hit right behind: first column commands at 12 and 14
		// (128 B), the second request's at 16 and 18: data end 30.
		{"row hit 128B back to back",
			[]push{{0, read(1, 0, 128)}, {0, read(2, 128, 128)}},
			[]completed{{1, 26}, {2, 16 + 2 + 10 + 2}}},
		// 32-B row hits are tCCD = 2 apart: columns at 12 and 14.
		{"row hit 32B tCCD",
			[]push{{0, read(1, 0, 32)}, {0, read(2, 32, 32)}},
			[]completed{{1, 24}, {2, 14 + 10 + 2}}},
		// A row hit on an open row long after: tCL + burst.
		{"row hit later",
			[]push{{0, read(1, 0, 32)}, {100, read(2, 512, 32)}},
			[]completed{{1, 24}, {2, 100 + 10 + 2}}},
		// Conflict right behind a row-empty read: the precharge waits for
		// tRAS = 28 after the ACT at 0, ACT at 28+11 = 39, column at
		// 39+12 = 51, data end 51+10+2 = 63.
		{"row conflict tRAS",
			[]push{{0, read(1, addr(0, 0, 0), 32)}, {0, read(2, addr(0, 1, 0), 32)}},
			[]completed{{1, 24}, {2, 28 + 11 + 12 + 10 + 2}}},
		// Conflict once tRAS has passed: PRE at 100, ACT 111, column 123.
		{"row conflict later",
			[]push{{0, read(1, addr(0, 0, 0), 32)}, {100, read(2, addr(0, 1, 0), 32)}},
			[]completed{{1, 24}, {2, 100 + 11 + 12 + 10 + 2}}},
		// Two banks overlap: ACTs at 0 and tRRD = 6, columns at 12 and 18.
		{"two banks",
			[]push{{0, read(1, addr(0, 0, 0), 32)}, {0, read(2, addr(1, 0, 0), 32)}},
			[]completed{{1, 24}, {2, 6 + 12 + 10 + 2}}},
		// Four banks: ACTs at 0, 6, 12, 18 (tRRD); columns at 12, 18, 24, 30.
		{"four banks",
			[]push{{0, read(1, addr(0, 0, 0), 32)}, {0, read(2, addr(1, 0, 0), 32)},
				{0, read(3, addr(2, 0, 0), 32)}, {0, read(4, addr(3, 0, 0), 32)}},
			[]completed{{1, 24}, {2, 30}, {3, 36}, {4, 42}}},
		// Write to read: the write's column at 12, its data 15..17; the
		// read's column waits tWL + burst + tWTR = 9, to 21 (not tCCD, 14).
		{"write then row hit read",
			[]push{{0, write(1, 0, 32)}, {0, read(2, 32, 32)}},
			[]completed{{1, 17}, {2, 21 + 10 + 2}}},
		// Read to write: the read's column at 12, its data 22..24; the
		// write's column waits tCL + burst + 2 − tWL = 11, to 23: its data
		// 26..28 leave the bus idle 2 cycles after the read's.
		{"read then row hit write",
			[]push{{0, read(1, 0, 32)}, {0, write(2, 32, 32)}},
			[]completed{{1, 24}, {2, 23 + 3 + 2}}},
		// Same direction: writes are tCCD apart, columns at 12 and 14.
		{"write then row hit write",
			[]push{{0, write(1, 0, 32)}, {0, write(2, 32, 32)}},
			[]completed{{1, 17}, {2, 14 + 3 + 2}}},
		// Two bursts each: the turnaround counts from the last column
		// command. Write columns 12, 14 (data end 19); read columns
		// 14+9 = 23 and 25, data end 25+10+2 = 37.
		{"128B write then 128B read",
			[]push{{0, write(1, 0, 128)}, {0, read(2, 128, 128)}},
			[]completed{{1, 19}, {2, 37}}},
		// Read columns 12, 14 (data end 26); write columns 14+11 = 25
		// and 27, data end 27+3+2 = 32.
		{"128B read then 128B write",
			[]push{{0, read(1, 0, 128)}, {0, write(2, 128, 128)}},
			[]completed{{1, 26}, {2, 32}}},
		// The turnaround is channel-wide: a read to another bank waits
		// too. Write: ACT 0, column 12. Read: ACT at tRRD = 6, tRCD
		// allows its column at 18, the turnaround only at 12+9 = 21.
		{"write then read other bank",
			[]push{{0, write(1, addr(0, 0, 0), 32)}, {0, read(2, addr(1, 0, 0), 32)}},
			[]completed{{1, 17}, {2, 21 + 10 + 2}}},
		// Write recovery: the write's data end at 17, precharge at
		// max(17+tWR, tRAS) = max(29, 28) = 29, ACT 40, column 52.
		{"write then conflict tWR",
			[]push{{0, write(1, addr(0, 0, 0), 32)}, {0, read(2, addr(0, 1, 0), 32)}},
			[]completed{{1, 17}, {2, 29 + 11 + 12 + 10 + 2}}},
	}
	for _, tc := range tests {
		m := newMemory(t, testDevice(1, arch.SchedFRFCFS))
		got := simulate(t, m, tc.pushes)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: completions (tag, cycle) = %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestScheduler(t *testing.T) {
	// A opens row 0 of bank 0; B (row 1, conflict) is older than C (row 0).
	pushes := []push{
		{0, read(1, addr(0, 0, 0), 32)},   // A
		{0, read(2, addr(0, 1, 0), 32)},   // B
		{0, read(3, addr(0, 0, 128), 32)}, // C
	}
	tests := []struct {
		sched          arch.DRAMScheduler
		want           []completed
		hits, misses   int64
		conflicts, pre int64
	}{
		// FR-FCFS: A (ACT 0, column 12, done 24); bank free at 12 with row
		// 0 open, so C, the row hit, goes next: column 14, done 26; then B:
		// PRE at tRAS = 28, ACT 39, column 51, done 63.
		{arch.SchedFRFCFS, []completed{{1, 24}, {3, 26}, {2, 63}}, 1, 2, 1, 1},
		// FCFS: A done 24; B next: PRE 28, ACT 39, column 51, done 63; C
		// now conflicts with row 1: PRE at max(39+28, 51+2) = 67, ACT 78,
		// column 90, done 102.
		{arch.SchedFCFS, []completed{{1, 24}, {2, 63}, {3, 102}}, 0, 3, 2, 2},
	}
	for _, tc := range tests {
		m := newMemory(t, testDevice(1, tc.sched))
		got := simulate(t, m, pushes)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: completions (tag, cycle) = %v; want %v", tc.sched, got, tc.want)
		}
		s := m.Stats().Total
		if s.RowHits != tc.hits || s.RowMisses != tc.misses || s.RowConflicts != tc.conflicts || s.Precharges != tc.pre {
			t.Errorf("%s: row hits/misses/conflicts/precharges = %d/%d/%d/%d; want %d/%d/%d/%d",
				tc.sched, s.RowHits, s.RowMisses, s.RowConflicts, s.Precharges, tc.hits, tc.misses, tc.conflicts, tc.pre)
		}
	}
}

func TestQueueFull(t *testing.T) {
	m := newMemory(t, testDevice(2, arch.SchedFRFCFS))
	// Channel 0 holds addresses 0..255; the queue takes 8.
	for i := range 8 {
		if !m.Push(0, read(int64(i), uint64(i)*32, 32)) {
			t.Fatalf("Push #%d into an empty-enough queue of 8 = false; want true", i)
		}
	}
	if m.Push(0, read(8, 0, 32)) {
		t.Errorf("Push #8 into a full queue of 8 = true; want false")
	}
	if !m.Push(0, read(9, 256, 32)) {
		t.Errorf("Push to channel 1 while channel 0 is full = false; want true")
	}
	// At cycle 0 the oldest request goes to its bank, freeing a slot.
	m.Advance(0, DoneFunc(func(Request, int64) { t.Errorf("completion at cycle 0") }))
	if !m.Push(0, read(10, 0, 32)) {
		t.Errorf("Push after one request left the queue = false; want true")
	}
	s := m.Stats()
	// The one refused Push.
	if s.Channels[0].QueueFull != 1 || s.Total.QueueFull != 1 {
		t.Errorf("QueueFull = %d (channel 0), %d (total); want 1, 1", s.Channels[0].QueueFull, s.Total.QueueFull)
	}
	if s.Total.Reads != 10 || s.Channels[0].Reads != 9 {
		t.Errorf("Reads = %d (total), %d (channel 0); want 10, 9", s.Total.Reads, s.Channels[0].Reads)
	}
}

// TestSendBacklog follows eleven reads sent at once to one bank and row of
// channel 0, whose queue takes 8, and one to channel 1. The ninth is
// refused (one refusal), the tenth and eleventh wait behind it uncounted.
// Each Advance admits as many as left the queue and counts a refusal if
// any still wait: at cycle 0 the first read goes to its bank (the ninth
// enters, two wait: 2), at 12 its column command frees the bank for the
// second (the tenth enters, one waits: 3), at 14 the second's (the last
// enters). After the activate at 0 the column commands follow at
// tRCD = 12 and every tCCD = 2 cycles after, each read done tCL + one
// 2-cycle burst = 12 cycles later: read k at 24 + 2k.
func TestSendBacklog(t *testing.T) {
	m := newMemory(t, testDevice(2, arch.SchedFRFCFS))
	for i := range 11 {
		m.Send(0, read(int64(i), uint64(i%8)*32, 32))
	}
	m.Send(0, read(11, 256, 32))
	if got := m.Backlog(); got != 3 {
		t.Errorf("Backlog after the sends = %d; want 3", got)
	}
	if got := m.Stats().Total.QueueFull; got != 1 {
		t.Errorf("QueueFull after the sends = %d; want 1", got)
	}
	var got []completed
	done := func(r Request, finish int64) { got = append(got, completed{r.Tag, finish}) }
	m.Advance(0, DoneFunc(done))
	if b, r := m.Backlog(), m.Stats().Channels[0].Reads; b != 2 || r != 9 {
		t.Errorf("after Advance(0): backlog %d, channel 0 reads %d; want 2, 9", b, r)
	}
	for next := m.NextEvent(); next != math.MaxInt64; next = m.NextEvent() {
		m.Advance(next, DoneFunc(done))
	}
	want := []completed{{0, 24}, {11, 24}}
	for k := int64(1); k < 11; k++ {
		want = append(want, completed{k, 24 + 2*k})
	}
	if !slices.Equal(got, want) {
		t.Errorf("completions (tag, cycle) = %v; want %v", got, want)
	}
	if s := m.Stats().Total; s.QueueFull != 3 || s.Reads != 12 || m.Backlog() != 0 {
		t.Errorf("QueueFull %d, reads %d, backlog %d at the end; want 3, 12, 0", s.QueueFull, s.Reads, m.Backlog())
	}
}

// retrier is what Send stands for: a caller that keeps the requests a full
// queue refused, per channel in order, sends a request behind its
// channel's refused ones, and retries them after every Advance, channel by
// channel (the simulator's port did this until Send).
type retrier struct {
	m       *Memory
	waiting [][]Request
}

func (r *retrier) send(now int64, req Request) {
	ch := r.m.Channel(req.Addr)
	if len(r.waiting[ch]) > 0 || !r.m.Push(now, req) {
		r.waiting[ch] = append(r.waiting[ch], req)
	}
}

func (r *retrier) advance(now int64, done func(Request, int64)) {
	r.m.Advance(now, DoneFunc(done))
	for ch, q := range r.waiting {
		for len(q) > 0 && r.m.Push(now, q[0]) {
			q = q[1:]
		}
		r.waiting[ch] = q
	}
}

// TestSendAsRetrier drives Send and a retrier with the same random bursts
// of reads and writes, saturating the queues, and holds every completion
// and counter of the one against the other's.
func TestSendAsRetrier(t *testing.T) {
	for _, d := range []*arch.Device{testDevice(2, arch.SchedFRFCFS), testDevice(3, arch.SchedFCFS), gtx480(6)} {
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var pushes []push
			at := int64(0)
			for i := range 3000 {
				// Mostly several requests a cycle, now and then a pause
				// long enough to drain the queues.
				if rng.IntN(100) == 0 {
					at += int64(rng.IntN(300))
				} else if rng.IntN(8) == 0 {
					at++
				}
				a := uint64(rng.IntN(1<<16)) &^ 31
				if rng.IntN(8) == 0 {
					pushes = append(pushes, push{at, write(int64(i), a, 32)})
				} else {
					pushes = append(pushes, push{at, read(int64(i), a, 32)})
				}
			}
			sent, want := newMemory(t, d), newMemory(t, d)
			old := &retrier{m: want, waiting: make([][]Request, d.DRAM.Channels)}
			var gotDone, wantDone []completed
			order := rand.New(rand.NewPCG(seed, 11))
			next := 0
			for {
				ev := min(sent.NextEvent(), want.NextEvent())
				if next < len(pushes) && pushes[next].at <= ev && (pushes[next].at < ev || order.IntN(2) == 0) {
					p := pushes[next]
					sent.Send(p.at, p.req)
					old.send(p.at, p.req)
					next++
					continue
				}
				if ev == math.MaxInt64 {
					if next == len(pushes) {
						break
					}
					ev = pushes[next].at
				}
				sent.Advance(ev, DoneFunc(func(r Request, f int64) { gotDone = append(gotDone, completed{r.Tag, f}) }))
				old.advance(ev, func(r Request, f int64) { wantDone = append(wantDone, completed{r.Tag, f}) })
			}
			if !slices.Equal(gotDone, wantDone) {
				t.Errorf("%s, seed %d: Send's completions differ from the retrier's", d.DRAM.Scheduler, seed)
			}
			if g, w := sent.Stats(), want.Stats(); !slices.Equal(g.Channels, w.Channels) {
				t.Errorf("%s, seed %d: Send's counters %+v; the retrier's %+v", d.DRAM.Scheduler, seed, g.Total, w.Total)
			}
			if len(gotDone) != len(pushes) || sent.Stats().Total.QueueFull == 0 {
				t.Errorf("%s, seed %d: %d of %d completed, %d refusals: the stream should saturate a queue and finish",
					d.DRAM.Scheduler, seed, len(gotDone), len(pushes), sent.Stats().Total.QueueFull)
			}
		}
	}
}

func TestMapping(t *testing.T) {
	// 5 channels, 256-B interleave, 4 banks of 1-KiB rows: a channel's
	// local address advances 256 B for every 1280 B of address.
	m := newMemory(t, testDevice(5, arch.SchedFRFCFS))
	tests := []struct {
		addr     uint64
		ch, bank int
		row      int64
		note     string
	}{
		{0, 0, 0, 0, "first chunk"},
		{255, 0, 0, 0, "end of first chunk"},
		{256, 1, 0, 0, "second chunk"},
		{1024, 4, 0, 0, "fifth chunk"},
		{1280, 0, 0, 0, "wraps to channel 0, local 256"},
		{1280*4 - 1, 4, 0, 0, "channel 4, local 1023"},
		{1280 * 4, 0, 1, 0, "channel 0, local 1024: bank 1"},
		{1280*4*4 + 3*256 + 100, 3, 0, 1, "chunk 83 -> channel 3, local 16·256+100 = 4196: bank 0, row 1"},
		{1280*4*5 + 512, 2, 1, 1, "chunk 102 -> channel 2, local 20·256 = 5120: bank 1, row 1"},
	}
	for _, tc := range tests {
		if got := m.Channel(tc.addr); got != tc.ch {
			t.Errorf("Channel(%#x) = %d; want %d (%s)", tc.addr, got, tc.ch, tc.note)
		}
		ch, b, row := m.locate(tc.addr)
		if ch != tc.ch || b != tc.bank || row != tc.row {
			t.Errorf("locate(%#x) = channel %d bank %d row %d; want %d %d %d (%s)",
				tc.addr, ch, b, row, tc.ch, tc.bank, tc.row, tc.note)
		}
	}
}

func TestCompletionOrder(t *testing.T) {
	// Both reads finish at cycle 26 on channels 1 and 0; channel 0 is
	// reported first although it arrived second.
	m := newMemory(t, testDevice(2, arch.SchedFRFCFS))
	got := simulate(t, m, []push{{0, read(1, 256, 128)}, {0, read(2, 0, 128)}})
	want := []completed{{2, 26}, {1, 26}}
	if !slices.Equal(got, want) {
		t.Errorf("completions (tag, cycle) = %v; want %v", got, want)
	}
}

func TestClockConversion(t *testing.T) {
	// GTX 480 clocks: a DRAM cycle is 4 slots, a core cycle 924·4/700 =
	// 5.28 slots. A 128-B read to an idle bank takes tRCD + tCL + 2 bursts
	// = 12 + 12 + 4 = 28 DRAM cycles = 112 slots.
	tests := []struct {
		at, want int64
	}{
		// ceil(112·700/3696) = ceil(21.21) = 22.
		{0, 22},
		// Arrival slot ceil(10·3696/700) = ceil(52.8) = 53; done at slot
		// 165; ceil(165·700/3696) = ceil(31.25) = 32.
		{10, 32},
		// Arrival slot 7·3696/700 = 36.96 -> 37; done 149 -> ceil(28.22) = 29.
		{7, 29},
	}
	for _, tc := range tests {
		m := newMemory(t, gtx480(1))
		got := simulate(t, m, []push{{tc.at, read(1, 0, 128)}})
		if len(got) != 1 || got[0].finish != tc.want {
			t.Errorf("128-B read pushed at core cycle %d completes %v; want at %d", tc.at, got, tc.want)
		}
	}
}

// TestAdvanceLate holds Advance to report a completion at the core cycle
// its data are done, whatever cycles it is called at: an Advance later
// than the memory's next event (the engine's, when a push comes first)
// must not report it at its own cycle. On TestClockConversion's clocks a
// core cycle is 5.28 slots, and cycle c's last slot is floor(5.28c): 110
// for 21, 116 for 22. The 128-B read pushed at cycle 0 is done at slot
// 112, core cycle ceil(112/5.28) = 22. A 64-B read (one burst: tRCD +
// tCL + 2 = 26 DRAM cycles, 104 slots) pushed at cycle 1 arrives at slot
// ceil(5.28) = 6 and is done at slot 110, the last of cycle 21: ceil(110
// / 5.28) = 21, so an Advance at 22 must not count it as 22's.
func TestAdvanceLate(t *testing.T) {
	tests := []struct {
		name     string
		at       int64 // the push's cycle
		bytes    int
		advances []int64
		want     int64
	}{
		{"at its cycle after the cycle before", 0, 128, []int64{21, 22}, 22},
		{"every cycle", 0, 128, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}, 22},
		{"one cycle late", 0, 128, []int64{21, 23}, 22},
		{"late, alone", 0, 128, []int64{23}, 22},
		{"far late", 0, 128, []int64{5, 1000}, 22},
		{"twice at one cycle", 0, 128, []int64{22, 22}, 22},
		{"done at the last slot of the cycle before", 1, 64, []int64{22}, 21},
		{"done at the last slot of its cycle", 1, 64, []int64{20, 21}, 21},
	}
	for _, tc := range tests {
		m := newMemory(t, gtx480(1))
		if !m.Push(tc.at, read(1, 0, tc.bytes)) {
			t.Fatalf("%s: an idle memory refused a push", tc.name)
		}
		var got []completed
		done := DoneFunc(func(r Request, finish int64) { got = append(got, completed{r.Tag, finish}) })
		for _, at := range tc.advances {
			m.Advance(at, done)
		}
		if want := []completed{{1, tc.want}}; !slices.Equal(got, want) {
			t.Errorf("%s (Advance at %v): completions (tag, cycle) = %v; want %v", tc.name, tc.advances, got, want)
		}
	}
}

func TestStreamingBandwidth(t *testing.T) {
	tests := []struct {
		name string
		d    *arch.Device
	}{
		{"GTX 480, 6 channels", gtx480(6)},
		{"K20c-like, 5 channels", func() *arch.Device {
			d := gtx480(5)
			d.Clocks = arch.Clocks{Core: 706 * arch.MHz, DRAM: 1300 * arch.MHz, DRAMDataRate: 4}
			return d
		}()},
	}
	for _, tc := range tests {
		m := newMemory(t, tc.d)
		channels := tc.d.DRAM.Channels
		n := channels * 2048
		pushes := make([]push, n)
		for i := range pushes {
			pushes[i] = push{0, read(int64(i), uint64(i)*128, 128)}
		}
		got := simulate(t, m, pushes)
		if len(got) != n {
			t.Fatalf("%s: %d completions; want %d", tc.name, len(got), n)
		}
		last := got[len(got)-1].finish
		bytes := float64(n * 128)
		achieved := bytes * float64(tc.d.Clocks.Core) / float64(last)
		frac := achieved / tc.d.PeakDRAMBandwidth()
		t.Logf("%s: %d 128-B reads in %d core cycles: %.2f%% of peak", tc.name, n, last, 100*frac)
		if frac < 0.90 || frac > 1.0 {
			t.Errorf("%s: streaming %d 128-B reads in %d core cycles = %.1f%% of peak; want 90%%..100%%",
				tc.name, n, last, 100*frac)
		}
		s := m.Stats()
		// Each 2-KiB row of a channel is opened once: n·128/2048 misses.
		wantMisses := int64(n * 128 / 2048)
		if s.Total.RowMisses != wantMisses || s.Total.RowHits != int64(n)-wantMisses {
			t.Errorf("%s: row misses/hits = %d/%d; want %d/%d", tc.name, s.Total.RowMisses, s.Total.RowHits, wantMisses, int64(n)-wantMisses)
		}
		if tot := m.Total(); tot.Reads != int64(n) || tot.ReadSectors != 4*int64(n) || tot.BusBusyTransfers != 16*int64(n) || tot.RowMisses != wantMisses {
			t.Errorf("%s: Total() reads/sectors/bus transfers/row misses = %d/%d/%d/%d; want %d/%d/%d/%d",
				tc.name, tot.Reads, tot.ReadSectors, tot.BusBusyTransfers, tot.RowMisses, n, 4*n, 16*n, wantMisses)
		}
		for c, cs := range s.Channels {
			// 2048 requests of 2 bursts of 8 transfers.
			if cs.BusBusyTransfers != 2048*16 || cs.ReadSectors != 2048*4 || cs.Completed != 2048 {
				t.Errorf("%s: channel %d bus transfers/sectors/completed = %d/%d/%d; want %d/%d/%d",
					tc.name, c, cs.BusBusyTransfers, cs.ReadSectors, cs.Completed, 2048*16, 2048*4, 2048)
			}
		}
		if u := m.BusUtilization(last); u < 0.9 || u > 1.0 {
			t.Errorf("%s: BusUtilization(%d) = %.3f; want 0.9..1.0", tc.name, last, u)
		}
	}
}

func TestWriteStats(t *testing.T) {
	m := newMemory(t, testDevice(1, arch.SchedFRFCFS))
	simulate(t, m, []push{{0, write(1, 0, 32)}, {0, write(2, 128, 128)}, {0, read(3, 64, 64)}, {0, write(4, 96, 32)}})
	s := m.Stats().Total
	want := ChannelStats{
		Reads: 1, Writes: 3, ReadBytes: 64, WriteBytes: 192, ReadSectors: 2, WriteSectors: 6,
		Completed: 4, RowHits: 3, RowMisses: 1, Activates: 1,
		// Bursts: 1 + 2 + 1 + 1 of 8 transfers each.
		BusBusyTransfers: 5 * 8,
		// One row, served oldest first: write, write, read, write turns
		// the bus around twice.
		Turnarounds: 2,
	}
	if s != want {
		t.Errorf("Stats().Total = %+v; want %+v", s, want)
	}
}

// randomPushes is a mixed read/write pattern over a small address range, so
// rows are both hit and conflicted.
func randomPushes(seed uint64, n int) []push {
	rng := rand.New(rand.NewPCG(seed, 1))
	pushes := make([]push, n)
	at := int64(0)
	for i := range pushes {
		at += int64(rng.IntN(4))
		line := rng.Uint64N(1<<16) * 128
		sectors := 1 + rng.IntN(4)
		first := rng.IntN(5 - sectors)
		pushes[i] = push{at, Request{Addr: line + uint64(first*32), Bytes: sectors * 32, Write: rng.IntN(4) == 0, Tag: int64(i)}}
	}
	return pushes
}

func TestDeterminism(t *testing.T) {
	for _, sched := range []arch.DRAMScheduler{arch.SchedFRFCFS, arch.SchedFCFS} {
		pushes := randomPushes(7, 3000)
		var runs [2][]completed
		var stats [2]Stats
		for r := range runs {
			m := newMemory(t, testDevice(3, sched))
			runs[r] = simulate(t, m, pushes)
			stats[r] = m.Stats()
		}
		if !slices.Equal(runs[0], runs[1]) {
			t.Errorf("%s: two identical runs gave different completion sequences", sched)
		}
		if !slices.Equal(stats[0].Channels, stats[1].Channels) {
			t.Errorf("%s: two identical runs gave different stats", sched)
		}
		// Conservation: every request completes once, no earlier than a
		// row hit allows (tCL + one burst = 12 cycles after its push for
		// a read, tWL + one burst = 5 for a write).
		seen := make([]bool, len(pushes))
		for _, c := range runs[0] {
			if seen[c.tag] {
				t.Fatalf("%s: request %d completed twice", sched, c.tag)
			}
			seen[c.tag] = true
			least := int64(12)
			if pushes[c.tag].req.Write {
				least = 5
			}
			if min := pushes[c.tag].at + least; c.finish < min {
				t.Errorf("%s: request %d pushed at %d completed at %d; want >= %d", sched, c.tag, pushes[c.tag].at, c.finish, min)
			}
		}
		s := stats[0].Total
		if int(s.Completed) != len(pushes) || int(s.Reads+s.Writes) != len(pushes) || s.RowHits+s.RowMisses != s.Completed {
			t.Errorf("%s: completed %d, reads+writes %d, hits+misses %d; want all %d",
				sched, s.Completed, s.Reads+s.Writes, s.RowHits+s.RowMisses, len(pushes))
		}
		if s.Activates != s.RowMisses || s.Precharges != s.RowConflicts {
			t.Errorf("%s: activates %d precharges %d; want row misses %d and conflicts %d",
				sched, s.Activates, s.Precharges, s.RowMisses, s.RowConflicts)
		}
		// Completions come out in non-decreasing cycle order.
		for i := 1; i < len(runs[0]); i++ {
			if runs[0][i].finish < runs[0][i-1].finish {
				t.Fatalf("%s: completion %d at %d after one at %d", sched, i, runs[0][i].finish, runs[0][i-1].finish)
			}
		}
	}
}

func TestNewMemoryErrors(t *testing.T) {
	d := testDevice(0, 0)
	d.Clocks.DRAMDataRate = 0
	d.DRAM.Banks = 0
	d.DRAM.BusWidthBits = 12
	d.DRAM.BurstLength = 0
	d.DRAM.RowSize = 100
	d.DRAM.Interleave = 0
	d.DRAM.QueueDepth = 0
	d.DRAM.Timing.RP = -1
	d.DRAM.Timing.WTR = -1
	_, err := NewMemory(d)
	if err == nil {
		t.Fatalf("NewMemory(bad device) = nil error; want errors")
	}
	for _, want := range []string{"dram_data_rate", "channels", "banks", "bus_width_bits", "burst_length",
		"row_size", "interleave", "queue_depth", "no scheduler (frfcfs or fcfs)", "timing.tRP", "timing.tWTR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("NewMemory(bad device) error does not mention %q:\n%v", want, err)
		}
	}
	if _, err := NewMemory(nil); err == nil {
		t.Errorf("NewMemory(nil) = nil error; want an error")
	}
	if _, err := NewMemory(testDevice(5, arch.SchedFCFS)); err != nil {
		t.Errorf("NewMemory(good device) = %v; want nil", err)
	}
}

// TestRequestChecks holds Push and Send to their contract on the test
// device, whose largest request is a 128-B line: from 1 to 128 bytes
// within one 128-B block, at a cycle no earlier than the last Advance,
// else a panic (a bug of the caller).
func TestRequestChecks(t *testing.T) {
	cases := []struct {
		name  string
		now   int64
		r     Request
		panic bool
	}{
		{"one byte", 10, Request{Addr: 127, Bytes: 1}, false},
		{"a whole line", 10, Request{Addr: 128, Bytes: 128}, false},
		{"no bytes", 10, Request{Addr: 0, Bytes: 0}, true},
		{"negative bytes", 10, Request{Addr: 0, Bytes: -1}, true},
		{"more than a line", 10, Request{Addr: 0, Bytes: 129}, true},
		{"across two lines", 10, Request{Addr: 96, Bytes: 64}, true},
		{"before the last Advance", 4, Request{Addr: 0, Bytes: 32}, true},
	}
	for _, c := range cases {
		for _, send := range []bool{false, true} {
			m, err := NewMemory(testDevice(1, arch.SchedFRFCFS))
			if err != nil {
				t.Fatal(err)
			}
			m.Advance(5, DoneFunc(func(Request, int64) {}))
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				if send {
					m.Send(c.now, c.r)
				} else {
					m.Push(c.now, c.r)
				}
				return false
			}()
			if panicked != c.panic {
				t.Errorf("%s (Send %v): panicked %v, want %v", c.name, send, panicked, c.panic)
			}
		}
	}
}
