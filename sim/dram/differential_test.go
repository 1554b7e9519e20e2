package dram

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
)

// The differential tests drive the Memory and the naive oracle of
// oracle_test.go, the model it was optimized from, with the same requests
// and compare everything a caller sees: every NextEvent answer, every
// Advance, every completion (tag and finish cycle) in order, every refused
// push and the final Stats of every channel. Any change to a scheduling
// decision, a timing or a counter shows up as the first event at which the
// two traces part, which says what changed, where a hash would only say
// that something did.

// model is what the drivers use of a DRAM model: both the Memory and the
// naive oracle satisfy it.
type model interface {
	Push(now int64, r Request) bool
	NextEvent() int64
	Advance(now int64, done Receiver)
	Stats() Stats
}

// Kinds of event in a trace.
const (
	evNext    = iota // NextEvent answered cycle
	evAdvance        // Advance to cycle
	evDone           // the request tagged tag completed at cycle
	evRefused        // Push of the request tagged tag at cycle was refused
	evRetried        // a retried Push of the request tagged tag at cycle was accepted
)

// traceEvent is one thing a caller saw of a model.
type traceEvent struct {
	kind  int
	cycle int64
	tag   int64
}

func (e traceEvent) String() string {
	switch e.kind {
	case evNext:
		if e.cycle == math.MaxInt64 {
			return "next event: idle"
		}
		return fmt.Sprintf("next event %d", e.cycle)
	case evAdvance:
		return fmt.Sprintf("advance to %d", e.cycle)
	case evDone:
		return fmt.Sprintf("completion tag %d finish %d", e.tag, e.cycle)
	case evRefused:
		return fmt.Sprintf("push of tag %d refused at %d", e.tag, e.cycle)
	default:
		return fmt.Sprintf("retried push of tag %d accepted at %d", e.tag, e.cycle)
	}
}

// trace records what a driver sees of a model. A model that keeps
// reporting events without finishing its requests would make a driver
// loop for ever: past limit NextEvent answers the trace sets err instead,
// and the drivers stop.
type trace struct {
	events []traceEvent
	nexts  int
	limit  int
	err    error
}

// nextsPerRequest bounds the NextEvent answers a request may cause: one
// per decision of its own (hand-over, activate, precharge, column
// commands, completion), one per refused push, and as many again for a
// closed loop's intermediate advances. The workloads here need at most
// about 9; the bound leaves a wide margin.
const nextsPerRequest = 40

func newTrace(requests int) *trace {
	return &trace{limit: nextsPerRequest * (requests + 1)}
}

func (tr *trace) add(kind int, cycle, tag int64) {
	tr.events = append(tr.events, traceEvent{kind, cycle, tag})
	if kind != evNext {
		return
	}
	tr.nexts++
	if tr.nexts > tr.limit && tr.err == nil {
		tr.err = fmt.Errorf("still busy after %d NextEvent answers: last %v", tr.nexts, tr.events[len(tr.events)-1])
	}
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

// openLoopPushes draws n requests of pattern at random, non-decreasing
// cycles, gaps of 0 to maxGap.
func openLoopPushes(seed uint64, pattern, n, maxGap int) []push {
	rng := rand.New(rand.NewPCG(seed, uint64(pattern)))
	pushes := make([]push, n)
	at := int64(0)
	var run uint64
	for i := range pushes {
		at += int64(rng.IntN(maxGap + 1))
		pushes[i] = push{at: at, req: diffRequest(rng, pattern, i, &run)}
	}
	return pushes
}

// openLoop pushes each request at its cycle, advancing the model to every
// event up to that cycle first and retrying a refused push at the next
// event, like an engine with an unbounded request source, then runs the
// model until idle.
func openLoop(m model, pushes []push) ([]traceEvent, error) {
	tr := newTrace(len(pushes))
	done := func(r Request, finish int64) { tr.add(evDone, finish, r.Tag) }
	next := func() int64 {
		t := m.NextEvent()
		tr.add(evNext, t, 0)
		return t
	}
	advance := func(now int64) {
		tr.add(evAdvance, now, 0)
		m.Advance(now, DoneFunc(done))
	}
	now := int64(0)
	for _, p := range pushes {
		for t := next(); t <= p.at && tr.err == nil; t = next() {
			now = t
			advance(now)
		}
		now = max(now, p.at)
		for tr.err == nil && !m.Push(now, p.req) {
			tr.add(evRefused, now, p.req.Tag)
			t := next()
			if t == math.MaxInt64 {
				return tr.events, fmt.Errorf("push of tag %d at %d refused by an idle memory", p.req.Tag, now)
			}
			now = max(now, t)
			advance(now)
		}
		if tr.err != nil {
			return tr.events, tr.err
		}
	}
	for t := next(); t != math.MaxInt64 && tr.err == nil; t = next() {
		advance(t)
	}
	return tr.events, tr.err
}

// closedLoop keeps `window` requests outstanding: each completion pushes
// a new request from the done callback (or, if its queue is full, after
// the Advance, retried at every later event), and the engine also
// advances at random intermediate cycles. Of the retries it records those
// accepted: the backlog can hold hundreds of requests, refused again at
// every event, and which are refused follows from which are accepted.
func closedLoop(m model, seed uint64, pattern, n, window int) ([]traceEvent, error) {
	tr := newTrace(n)
	rng := rand.New(rand.NewPCG(seed, 100+uint64(pattern)))
	var run uint64
	issued := 0
	var backlog []Request
	now := int64(0)
	done := func(r Request, finish int64) {
		tr.add(evDone, finish, r.Tag)
		if issued < n {
			nr := diffRequest(rng, pattern, issued, &run)
			issued++
			if !m.Push(now, nr) {
				tr.add(evRefused, now, nr.Tag)
				backlog = append(backlog, nr)
			}
		}
	}
	for ; issued < window && issued < n; issued++ {
		r := diffRequest(rng, pattern, issued, &run)
		if !m.Push(0, r) {
			tr.add(evRefused, 0, r.Tag)
			backlog = append(backlog, r)
		}
	}
	for tr.err == nil {
		next := m.NextEvent()
		tr.add(evNext, next, 0)
		if next == math.MaxInt64 {
			if len(backlog) > 0 {
				return tr.events, fmt.Errorf("backlog of %d requests with an idle memory", len(backlog))
			}
			break
		}
		if rng.IntN(4) == 0 && next > now+1 {
			now += 1 + rng.Int64N(next-now-1)
		} else {
			now = next
		}
		tr.add(evAdvance, now, 0)
		m.Advance(now, DoneFunc(done))
		kept := backlog[:0]
		for _, r := range backlog {
			if m.Push(now, r) {
				tr.add(evRetried, now, r.Tag)
			} else {
				kept = append(kept, r)
			}
		}
		backlog = kept
	}
	return tr.events, tr.err
}

// newOracle builds the naive model of d.
func newOracle(t testing.TB, d *arch.Device) *naiveMemory {
	t.Helper()
	m, err := newNaiveMemory(d)
	if err != nil {
		t.Fatalf("newNaiveMemory: %v", err)
	}
	return m
}

// compareWithOracle drives a new Memory and a new oracle of d with drive
// and reports, under label, the first event at which their traces part and
// every counter that differs.
func compareWithOracle(t testing.TB, label string, d *arch.Device, drive func(m model) ([]traceEvent, error)) {
	t.Helper()
	m, o := newMemory(t, d), newOracle(t, d)
	got, err := drive(m)
	if err != nil {
		t.Errorf("%s: Memory: %v", label, err)
	}
	want, oerr := drive(o)
	if oerr != nil {
		t.Errorf("%s: oracle: %v", label, oerr)
	}
	if i, ok := firstDifference(got, want); !ok {
		at := func(tr []traceEvent) string {
			if i < len(tr) {
				return tr[i].String()
			}
			return "trace ends"
		}
		before := ""
		if i > 0 {
			before = fmt.Sprintf(" (after %v)", got[i-1])
		}
		t.Errorf("%s: event %d%s: %s; oracle: %s", label, i, before, at(got), at(want))
	}
	if err != nil || oerr != nil {
		return
	}
	if diffs := statsDifferences(m.Stats(), o.Stats()); len(diffs) > 0 {
		t.Errorf("%s: stats differ:\n\t%s", label, strings.Join(diffs, "\n\t"))
	}
}

// firstDifference returns the index of the first event at which got and
// want differ, and false, or true if they are the same.
func firstDifference(got, want []traceEvent) (int, bool) {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return i, false
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want)), false
	}
	return 0, true
}

// statsDifferences names every counter of got that differs from the
// oracle's, per channel and in total.
func statsDifferences(got, want Stats) []string {
	var diffs []string
	fields := func(where string, g, w ChannelStats) {
		gv, wv := reflect.ValueOf(g), reflect.ValueOf(w)
		for i := range gv.NumField() {
			if a, b := gv.Field(i).Int(), wv.Field(i).Int(); a != b {
				diffs = append(diffs, fmt.Sprintf("%s %s %d; oracle %d", where, gv.Type().Field(i).Name, a, b))
			}
		}
	}
	if len(got.Channels) != len(want.Channels) {
		diffs = append(diffs, fmt.Sprintf("%d channels; oracle %d", len(got.Channels), len(want.Channels)))
	}
	for c := range min(len(got.Channels), len(want.Channels)) {
		fields(fmt.Sprintf("channel %d", c), got.Channels[c], want.Channels[c])
	}
	fields("total", got.Total, want.Total)
	return diffs
}

// namedDevice is a device of the differential tests.
type namedDevice struct {
	name string
	d    *arch.Device
}

func diffDevices(t testing.TB) []namedDevice {
	t.Helper()
	load := func(name string, sched arch.DRAMScheduler) *arch.Device {
		d, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		d.DRAM.Scheduler = sched
		return d
	}
	return append(fuzzDevices(),
		namedDevice{"gtx480", gtx480(6)},
		namedDevice{"g80", load("g80", arch.SchedFRFCFS)},
		namedDevice{"gt200", load("gt200", arch.SchedFRFCFS)},
		namedDevice{"gt200 fcfs", load("gt200", arch.SchedFCFS)},
		namedDevice{"fermi", load("fermi", arch.SchedFRFCFS)},
		namedDevice{"fermi fcfs", load("fermi", arch.SchedFCFS)},
		namedDevice{"kepler", load("kepler", arch.SchedFRFCFS)},
		namedDevice{"maxwell", load("maxwell", arch.SchedFRFCFS)},
	)
}

// TestDifferential compares the Memory with the oracle on six long
// workloads per device: every pattern open loop, with gaps of at most
// 3 cycles so that the queues fill, and a shallow and a deep closed loop.
func TestDifferential(t *testing.T) {
	const n = 4000
	for di, dv := range diffDevices(t) {
		t.Run(dv.name, func(t *testing.T) {
			t.Parallel()
			seed := uint64(di)
			for _, w := range []struct{ pattern, maxGap int }{{0, 3}, {1, 0}, {2, 1}, {3, 2}} {
				pushes := openLoopPushes(seed, w.pattern, n, w.maxGap)
				compareWithOracle(t, fmt.Sprintf("%s, open loop pattern %d", dv.name, w.pattern), dv.d,
					func(m model) ([]traceEvent, error) { return openLoop(m, pushes) })
			}
			for _, w := range []struct{ pattern, window int }{{0, 48}, {3, 200}} {
				compareWithOracle(t, fmt.Sprintf("%s, closed loop pattern %d window %d", dv.name, w.pattern, w.window), dv.d,
					func(m model) ([]traceEvent, error) { return closedLoop(m, seed, w.pattern, n, w.window) })
			}
		})
	}
}

// TestDifferentialRandom compares the Memory with the oracle on many
// short workloads whose pattern, driver, gaps, window and length are drawn
// per seed and device, to reach states the fixed workloads miss.
func TestDifferentialRandom(t *testing.T) {
	const seeds = 20
	for di, dv := range diffDevices(t) {
		t.Run(dv.name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(seeds) {
				rng := rand.New(rand.NewPCG(seed, 1000+uint64(di)))
				pattern := rng.IntN(4)
				n := 100 + rng.IntN(400)
				wseed := seed<<8 | uint64(di)
				if rng.IntN(2) == 0 {
					maxGap := []int{0, 1, 2, 4, 8, 32, 200}[rng.IntN(7)]
					pushes := openLoopPushes(wseed, pattern, n, maxGap)
					compareWithOracle(t, fmt.Sprintf("%s, seed %d: open loop pattern %d max gap %d, %d requests", dv.name, seed, pattern, maxGap, n), dv.d,
						func(m model) ([]traceEvent, error) { return openLoop(m, pushes) })
					continue
				}
				window := 1 + rng.IntN(256)
				compareWithOracle(t, fmt.Sprintf("%s, seed %d: closed loop pattern %d window %d, %d requests", dv.name, seed, pattern, window, n), dv.d,
					func(m model) ([]traceEvent, error) { return closedLoop(m, wseed, pattern, n, window) })
			}
		})
	}
}

// fuzzDevices are the devices FuzzMemoryAgainstOracle chooses from: the
// small test device with three channels (not a power of two, so the
// Memory maps addresses by division, not by shifts) and the one-channel
// device with two bank groups, each under both schedulers. Their queues
// of 8 fill quickly, so refusals are common.
func fuzzDevices() []namedDevice {
	fcfsGroups := groupDevice()
	fcfsGroups.DRAM.Scheduler = arch.SchedFCFS
	return []namedDevice{
		{"test frfcfs", testDevice(3, arch.SchedFRFCFS)},
		{"test fcfs", testDevice(3, arch.SchedFCFS)},
		{"groups frfcfs", groupDevice()},
		{"groups fcfs", fcfsGroups},
	}
}

// fuzzRequestBytes is how many fuzz bytes describe one request.
const fuzzRequestBytes = 4

// fuzzMaxRequests caps a fuzzed stream: 64 requests fill every queue of
// the fuzz devices several times over, and longer inputs only slow the
// fuzzer's minimization of each new interesting input.
const fuzzMaxRequests = 64

// fuzzPushes turns fuzz bytes into at most fuzzMaxRequests timed
// requests, four bytes each: the line (16 bits, 128 B each, so 8 MiB:
// many rows of every bank); sectors − 1 (bits 0–1), the first sector
// (bits 2–3, modulo the room left in the line) and whether it is a write
// (bit 4); the gap to the previous request in core cycles (bits 0–6,
// times 16 if bit 7 is set, so the memory also goes idle).
func fuzzPushes(data []byte) []push {
	data = data[:min(len(data), fuzzMaxRequests*fuzzRequestBytes)]
	pushes := make([]push, 0, len(data)/fuzzRequestBytes)
	at := int64(0)
	for i := 0; i+fuzzRequestBytes <= len(data); i += fuzzRequestBytes {
		b := data[i : i+fuzzRequestBytes]
		line := uint64(b[0]) | uint64(b[1])<<8
		sectors := 1 + int(b[2]&3)
		first := int(b[2]>>2&3) % (5 - sectors)
		at += fuzzGap(b[3])
		pushes = append(pushes, push{at: at, req: Request{
			Addr:  line*lineBytes + uint64(first*sectorBytes),
			Bytes: sectors * sectorBytes,
			Write: b[2]&0x10 != 0,
			Tag:   int64(len(pushes)),
		}})
	}
	return pushes
}

// fuzzGap is the gap in core cycles that b encodes: bits 0–6, times 16
// if bit 7 is set.
func fuzzGap(b byte) int64 {
	if b&0x80 != 0 {
		return int64(b&0x7f) * 16
	}
	return int64(b)
}

// fuzzBytes encodes pushes as fuzzPushes reads them, for the seed corpus.
func fuzzBytes(device byte, pushes []push) []byte {
	data := []byte{device}
	at := int64(0) // the cycle fuzzPushes will read: long gaps round down
	for _, p := range pushes {
		line := p.req.Addr / lineBytes
		first := p.req.Addr % lineBytes / sectorBytes
		c := byte(p.req.Bytes/sectorBytes-1) | byte(first)<<2
		if p.req.Write {
			c |= 0x10
		}
		gap := byte(p.at - at)
		if p.at-at > 0x7f {
			gap = 0x80 | byte(min((p.at-at)/16, 0x7f))
		}
		at += fuzzGap(gap)
		data = append(data, byte(line), byte(line>>8), c, gap)
	}
	return data
}

// FuzzMemoryAgainstOracle drives the Memory and the oracle open loop with
// short request streams made of the fuzz bytes: the first picks the
// device, each next four a request (see fuzzPushes).
func FuzzMemoryAgainstOracle(f *testing.F) {
	// Seeds: every pattern of the differential tests on every device,
	// shortened; a row hit, turnaround and conflict in one bank and a
	// burst of writes that overflows the queue, both on the one-channel
	// bank-group device, where addr gives bank and row.
	for pattern := range 4 {
		for dev := range len(fuzzDevices()) {
			f.Add(fuzzBytes(byte(dev), openLoopPushes(uint64(dev), pattern, 48, 3)))
		}
	}
	f.Add(fuzzBytes(2, []push{
		{0, read(0, addr(1, 2, 0), 128)},
		{1, write(1, addr(1, 2, 32), 32)},
		{1, read(2, addr(1, 3, 64), 64)},
		{300, read(3, addr(1, 3, 0), 96)},
	}))
	writes := make([]push, 24)
	for i := range writes {
		writes[i] = push{0, write(int64(i), addr(uint64(i%4), uint64(i), 0), 128)}
	}
	f.Add(fuzzBytes(3, writes))
	devices := fuzzDevices()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1+fuzzRequestBytes {
			return
		}
		dv := devices[int(data[0])%len(devices)]
		pushes := fuzzPushes(data[1:])
		// The oracle maps addresses with plain divisions where the
		// Memory uses shifts where it can: the channel of every request
		// must agree.
		memory, oracle := newMemory(t, dv.d), newOracle(t, dv.d)
		for _, p := range pushes {
			if got, want := memory.Channel(p.req.Addr), oracle.Channel(p.req.Addr); got != want {
				t.Errorf("%s: Channel(%#x) = %d; oracle %d", dv.name, p.req.Addr, got, want)
			}
		}
		compareWithOracle(t, fmt.Sprintf("%s, %d fuzzed requests", dv.name, len(pushes)), dv.d,
			func(m model) ([]traceEvent, error) { return openLoop(m, pushes) })
	})
}
