package coalesce

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// requestLanes is the number of consecutive lanes that form one request
// whose transactions must be distinct (§2.1–2.5).
func requestLanes(r Rule, path Path, w *Warp) int {
	switch r {
	case CC10, CC13:
		return 16
	case CC20:
		return 32 / fermiParts(w.Width)
	case CC30:
		if w.Op == Load && path == L1 {
			return 32 / fermiParts(w.Width)
		}
	}
	return 32
}

func fermiParts(width int) int {
	switch width {
	case 8:
		return 2
	case 16:
		return 4
	}
	return 1
}

// checkWarp asserts the invariants every rule keeps, and compares the
// transaction count with an oracle written from the guide's wording.
func checkWarp(r Rule, path Path, w *Warp, txns []Txn) error {
	if len(txns) > MaxTxns {
		return fmt.Errorf("%d transactions; want at most %d", len(txns), MaxTxns)
	}
	n := requestLanes(r, path, w)
	prevReq, prevAddr := -1, uint64(0)
	for i, t := range txns {
		if t.Size != 32 && t.Size != 64 && t.Size != 128 {
			return fmt.Errorf("txn %d %+v: size %d", i, t, t.Size)
		}
		if t.Addr%uint64(t.Size) != 0 {
			return fmt.Errorf("txn %d %+v: not aligned to its size", i, t)
		}
		if t.Lanes == 0 || t.Lanes&^w.Active != 0 {
			return fmt.Errorf("txn %d %+v: lanes outside active mask %#08x", i, t, w.Active)
		}
		first := (t.Addr >> 5) & 3
		inside := uint8((1<<(t.Size/32))-1) << first
		if t.Sectors == 0 || t.Sectors&^inside != 0 {
			return fmt.Errorf("txn %d %+v: sectors outside the transaction", i, t)
		}
		// Sectors is exactly the sectors of the transaction its lanes touch,
		// and every lane it lists touches it.
		var touched uint8
		for m := t.Lanes; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			var mine uint8
			for b := range uint64(w.Width) {
				x := w.Addr[l] + b
				if x-t.Addr < uint64(t.Size) {
					mine |= 1 << ((x >> 5) & 3)
				}
			}
			if mine == 0 {
				return fmt.Errorf("txn %d %+v: lists lane %d at %#x that it does not serve", i, t, l, w.Addr[l])
			}
			touched |= mine
		}
		if touched != t.Sectors {
			return fmt.Errorf("txn %d %+v: lanes touch sectors %04b", i, t, touched)
		}
		// All lanes of a transaction lie in one request; requests come in
		// lane order and, within one, addresses ascend.
		req := bits.TrailingZeros32(t.Lanes) / n
		if (bits.Len32(t.Lanes)-1)/n != req {
			return fmt.Errorf("txn %d %+v: lanes span requests of %d lanes", i, t, n)
		}
		perThread := r == CC10 && t.Size == 32 && bits.OnesCount32(t.Lanes) == 1
		switch {
		case req < prevReq:
			return fmt.Errorf("txn %d %+v: request %d after request %d", i, t, req, prevReq)
		case req == prevReq && !perThread && t.Addr < prevAddr:
			return fmt.Errorf("txn %d %+v: address below the previous end %#x in the same request", i, t, prevAddr)
		}
		prevReq, prevAddr = req, t.Addr+uint64(t.Size)
	}
	// Every byte of every active lane lies in a transaction that lists it.
	for m := w.Active; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		for b := range uint64(w.Width) {
			x := w.Addr[l] + b
			if !slices.ContainsFunc(txns, func(t Txn) bool {
				return t.Lanes&(1<<l) != 0 && x-t.Addr < uint64(t.Size)
			}) {
				return fmt.Errorf("lane %d byte %#x is in no transaction serving it", l, x)
			}
		}
	}
	if want := oracleCount(r, path, w); len(txns) != want {
		return fmt.Errorf("%d transactions; the oracle wants %d", len(txns), want)
	}
	return nil
}

// oracleCount counts transactions from the guide's wording, by brute force
// over bytes and maps, independently of the package's grouping code.
func oracleCount(r Rule, path Path, w *Warp) int {
	n := requestLanes(r, path, w)
	total := 0
	for lo := 0; lo < 32; lo += n {
		var lanes []int
		for l := lo; l < lo+n; l++ {
			if w.Active&(1<<l) != 0 {
				lanes = append(lanes, l)
			}
		}
		if len(lanes) == 0 {
			continue
		}
		switch {
		case r == CC10:
			total += oracleCC10(w, lo, lanes)
		case r == CC13 || (r == CC20 && w.Op == Store):
			total += len(oracleSegments(w, lanes))
		case (r == CC20 || r == CC30) && w.Op == Load && path == L1:
			total += distinctUnits(w, lanes, 128)
		default:
			total += distinctUnits(w, lanes, 32)
		}
	}
	return total
}

// distinctUnits counts the aligned units of the given size holding a byte
// of some lane.
func distinctUnits(w *Warp, lanes []int, size uint64) int {
	units := map[uint64]bool{}
	for _, l := range lanes {
		for b := range uint64(w.Width) {
			units[(w.Addr[l]+b)/size] = true
		}
	}
	return len(units)
}

// oracleCC10 counts a CC 1.0/1.1 half-warp's transactions (§2.1).
func oracleCC10(w *Warp, lo int, lanes []int) int {
	word := uint64(w.Width)
	var seg uint64
	switch w.Width {
	case 4:
		seg = 64
	case 8:
		seg = 128
	case 16:
		seg = 256
	}
	ok := seg != 0
	start := w.Addr[lanes[0]] - uint64(lanes[0]-lo)*word // word 0's address
	for _, l := range lanes {
		ok = ok && w.Addr[l] == start+uint64(l-lo)*word
	}
	ok = ok && start%min(seg, 128) == 0
	if !ok {
		return distinctPerThread(w, lanes)
	}
	if w.Width != 16 {
		return 1
	}
	halves := map[bool]bool{}
	for _, l := range lanes {
		halves[l-lo >= 8] = true
	}
	return len(halves)
}

// distinctPerThread is one 32-B transaction per sector of each thread.
func distinctPerThread(w *Warp, lanes []int) int {
	total := 0
	for _, l := range lanes {
		total += distinctUnits(w, []int{l}, 32)
	}
	return total
}

// oracleSegments runs the CC 1.2/1.3 protocol of §2.2 literally: the segment
// of the lowest unserved lane, every lane touching it, the reduction by byte
// ranges (halve while all touched bytes fit in one half, down to 32 B).
// A lane whose bytes straddle two segments is served by both.
func oracleSegments(w *Warp, lanes []int) []Txn {
	size := uint64(128)
	switch w.Width {
	case 1:
		size = 32
	case 2:
		size = 64
	}
	type piece struct {
		lane int
		addr uint64 // one byte of the lane
	}
	var pending []piece
	for _, l := range lanes {
		for b := range uint64(w.Width) {
			pending = append(pending, piece{l, w.Addr[l] + b})
		}
	}
	var txns []Txn
	for len(pending) > 0 {
		seg := pending[0].addr &^ (size - 1)
		lo, hi := ^uint64(0), uint64(0)
		var rest []piece
		for _, p := range pending {
			if p.addr&^(size-1) == seg {
				lo, hi = min(lo, p.addr), max(hi, p.addr)
			} else {
				rest = append(rest, p)
			}
		}
		addr, sz := seg, size
		for sz > 32 {
			half := sz / 2
			if hi < addr+half {
				sz = half
			} else if lo >= addr+half {
				addr, sz = addr+half, half
			} else {
				break
			}
		}
		txns = append(txns, Txn{Addr: addr, Size: uint32(sz)})
		pending = rest
	}
	return txns
}

// randomWarp draws a warp from a seeded source: affine, clustered or
// scattered addresses, naturally aligned or not, any active mask.
func randomWarp(rng *rand.Rand, active uint32, widthSel, mode uint8, start uint64, stride int64) Warp {
	w := Warp{Op: Op(mode >> 7), Width: 1 << (widthSel % 5), Active: active}
	for l := range 32 {
		var a uint64
		switch mode % 4 {
		case 0:
			a = start + uint64(stride*int64(l))
		case 1:
			a = start + rng.Uint64N(512)
		case 2:
			a = rng.Uint64()
		case 3:
			a = start + uint64(stride*int64(l)) + rng.Uint64N(64)
		}
		if mode&4 == 0 {
			a &^= uint64(w.Width) - 1
		}
		w.Addr[l] = a
	}
	return w
}

func checkAllRules(w *Warp, dst []Txn) error {
	for r := CC10; r <= CC50; r++ {
		for _, path := range []Path{L1, L2} {
			txns := Coalesce(r, path, w, dst[:0])
			if err := checkWarp(r, path, w, txns); err != nil {
				return fmt.Errorf("Coalesce(%v, %v, %v, width=%d, active=%#08x, addr=%#x): %v",
					r, path, w.Op, w.Width, w.Active, w.Addr, err)
			}
			if r == CC13 {
				if err := sameSegments(w, txns); err != nil {
					return fmt.Errorf("Coalesce(cc13, width=%d, active=%#08x, addr=%#x): %v", w.Width, w.Active, w.Addr, err)
				}
			}
		}
	}
	return nil
}

// sameSegments compares CC13's transactions with the literal protocol's,
// per half-warp, as sets of (address, size).
func sameSegments(w *Warp, txns []Txn) error {
	for lo := 0; lo < 32; lo += 16 {
		var lanes []int
		for l := lo; l < lo+16; l++ {
			if w.Active&(1<<l) != 0 {
				lanes = append(lanes, l)
			}
		}
		var want []Txn
		if len(lanes) > 0 {
			want = oracleSegments(w, lanes)
		}
		var got []Txn
		for _, t := range txns {
			if bits.TrailingZeros32(t.Lanes)/16 == lo/16 {
				got = append(got, Txn{Addr: t.Addr, Size: t.Size})
			}
		}
		slices.SortFunc(want, func(a, b Txn) int {
			if c := cmp.Compare(a.Addr, b.Addr); c != 0 {
				return c
			}
			return cmp.Compare(a.Size, b.Size)
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("half-warp %d: %v; the literal protocol gives %v", lo/16, got, want)
		}
	}
	return nil
}

func TestCoalesceRandomWarps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dst := make([]Txn, 0, MaxTxns)
	for range 3000 {
		active := rng.Uint32()
		switch rng.IntN(4) {
		case 0:
			active = all
		case 1:
			active &= rng.Uint32() // sparse
		}
		w := randomWarp(rng, active, uint8(rng.IntN(5)), uint8(rng.IntN(256)),
			rng.Uint64N(1<<40), rng.Int64N(300)-100)
		if err := checkAllRules(&w, dst); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzCoalesce(f *testing.F) {
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0x1000), int64(4), uint64(1))    // unit f32
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0x1004), int64(4), uint64(1))    // misaligned
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0x1000), int64(128), uint64(1))  // stride 32
	f.Add(uint32(all), uint8(3), uint8(128), uint64(0x1000), int64(0), uint64(1))  // broadcast f64 store
	f.Add(uint32(0xAAAAAAAA), uint8(4), uint8(0), uint64(0), int64(16), uint64(1)) // odd lanes 16 B
	f.Add(uint32(0xFFFF), uint8(0), uint8(1), uint64(0x2000), int64(0), uint64(7)) // clustered bytes
	f.Add(uint32(all), uint8(4), uint8(6), uint64(0), int64(0), uint64(9))         // scattered, unaligned
	f.Add(uint32(all), uint8(3), uint8(7), uint64(0x3000), int64(-8), uint64(3))   // descending, jittered
	f.Add(uint32(1<<31), uint8(4), uint8(4), uint64(1<<64-8), int64(0), uint64(0)) // wraps past 2^64
	f.Add(uint32(0), uint8(1), uint8(0), uint64(0), int64(2), uint64(0))           // no lanes
	f.Fuzz(func(t *testing.T, active uint32, widthSel, mode uint8, start uint64, stride int64, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0))
		w := randomWarp(rng, active, widthSel, mode, start, stride)
		if err := checkAllRules(&w, make([]Txn, 0, MaxTxns)); err != nil {
			t.Fatal(err)
		}
	})
}
