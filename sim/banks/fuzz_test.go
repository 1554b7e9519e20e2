package banks

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// The oracle below counts passes by playing the guide's procedures out,
// lane by lane, with slices and maps, independently of the production
// code's closed forms (distinct rows per bank; the broadcast bound).

// oracleRequestLanes is the number of consecutive lanes that form one
// request, from the guide's text (doc.go): half-warps on CC 1.x; on
// CC 2.x half-warps for 8-byte and quarter-warps for 16-byte words; on
// Kepler half-warps for 16-byte words; on CC 5.x as on CC 2.x.
func oracleRequestLanes(r Rule, width int) int {
	switch {
	case r == CC1x:
		return 16
	case (r == CC2x || r == CC5x) && width == 8:
		return 16
	case (r == CC2x || r == CC5x) && width == 16:
		return 8
	case (r == CC3x32 || r == CC3x64) && width == 16:
		return 16
	}
	return 32
}

// oracle counts the transactions of one warp instruction.
func oracle(r Rule, width int, active uint32, addr *[32]uint64) int {
	n := oracleRequestLanes(r, width)
	total := 0
	for lo := 0; lo < 32; lo += n {
		var lanes []int
		for l := lo; l < lo+n; l++ {
			if active&(1<<l) != 0 {
				lanes = append(lanes, l)
			}
		}
		if len(lanes) == 0 {
			continue
		}
		if r == CC1x {
			// F.3.3.4: wider accesses are 32-bit requests, word k of each.
			for k := 0; k < width || k == 0; k += 4 {
				var words []uint64
				for _, l := range lanes {
					start := addr[l] - addr[l]%uint64(width)
					words = append(words, (start+uint64(k))/4)
				}
				total += fewestBroadcastSteps(words)
			}
			continue
		}
		total += simulatePasses(r, width, lanes, addr)
		if r == CC2x && width == 16 {
			total++ // F.4.3: "add 1" per quarter-warp
		}
	}
	return total
}

// unit is one bank word a lane needs: a 32-bit word, or a 64-bit word in
// Kepler's 64-bit mode.
type unit struct {
	bank int
	word uint64
}

// simulatePasses serves one request of CC 2.x or later pass by pass: in
// each pass every bank serves the first word still wanted from it, and
// with it every wanted word the guide says does not conflict with it.
func simulatePasses(r Rule, width int, lanes []int, addr *[32]uint64) int {
	wordSize := uint64(4)
	if r == CC3x64 {
		wordSize = 8
	}
	var pending []unit
	for _, l := range lanes {
		start := addr[l] - addr[l]%uint64(width)
		for k := range uint64(width) { // every byte
			w := (start + k) / wordSize
			u := unit{int(w % 32), w}
			if !slices.Contains(pending, u) {
				pending = append(pending, u)
			}
		}
	}
	passes := 0
	for len(pending) > 0 {
		passes++
		served := map[int]uint64{} // bank → the word it serves this pass
		var rest []unit
		for _, u := range pending {
			first, busy := served[u.bank]
			if !busy {
				served[u.bank] = u.word
				continue
			}
			if !shareRow(r, first, u.word) {
				rest = append(rest, u)
			}
		}
		pending = rest
	}
	return passes
}

// shareRow reports whether two words of one bank are served in one pass:
// the same word, or on Kepler's 32-bit mode "two 32-bit words whose
// indices i and j are in the same 64-word aligned segment ... and such
// that j=i+32" (PG42 F.5.3.2).
func shareRow(r Rule, i, j uint64) bool {
	if i == j {
		return true
	}
	return r == CC3x32 && i/64 == j/64 && (i+32 == j || j+32 == i)
}

// fewestBroadcastSteps runs the CC 1.x procedure of PG42 F.3.3.2 on one
// half-warp request (the 32-bit word each active lane reads), trying every
// choice it leaves open, and returns the fewest steps. Each step picks a
// broadcast word, serves all its lanes, and serves one lane in every
// other bank with lanes left. Words with equally many lanes left are
// interchangeable, so a state is, per bank, the sorted lane counts of its
// words, and the banks sorted.
func fewestBroadcastSteps(words []uint64) int {
	lanesOf := map[uint64]int{}
	for _, w := range words {
		lanesOf[w]++
	}
	byBank := map[uint64][]int{}
	for w, n := range lanesOf {
		byBank[w%16] = append(byBank[w%16], n)
	}
	var start [][]int
	for _, counts := range byBank {
		start = append(start, counts)
	}
	memo := map[string]int{}
	return searchSteps(canonical(start), memo)
}

func canonical(s [][]int) [][]int {
	var out [][]int
	for _, counts := range s {
		var c []int
		for _, n := range counts {
			if n > 0 {
				c = append(c, n)
			}
		}
		if len(c) > 0 {
			slices.Sort(c)
			out = append(out, c)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

func searchSteps(s [][]int, memo map[string]int) int {
	if len(s) == 0 {
		return 0
	}
	var key []byte // counts are at most 16 lanes
	for _, counts := range s {
		for _, n := range counts {
			key = append(key, byte(n))
		}
		key = append(key, 0xFF)
	}
	if n, ok := memo[string(key)]; ok {
		return n
	}
	best := 1 << 30
	for b, counts := range s {
		for i, n := range counts {
			if i > 0 && counts[i-1] == n {
				continue // same as the word before
			}
			next := withCount(s, b, i, 0) // broadcast: all its lanes served
			for _, after := range serveOneLaneEach(next, b, 0) {
				best = min(best, 1+searchSteps(canonical(after), memo))
			}
		}
	}
	memo[string(key)] = best
	return best
}

// serveOneLaneEach returns every way to serve one lane in each bank from
// index from on, skipping the broadcast bank.
func serveOneLaneEach(s [][]int, broadcast, from int) [][][]int {
	if from == len(s) {
		return [][][]int{s}
	}
	if from == broadcast {
		return serveOneLaneEach(s, broadcast, from+1)
	}
	var out [][][]int
	counts := s[from]
	for i, n := range counts {
		if n == 0 || (i > 0 && counts[i-1] == n) {
			continue
		}
		next := withCount(s, from, i, n-1)
		out = append(out, serveOneLaneEach(next, broadcast, from+1)...)
	}
	if len(out) == 0 { // the bank has no lane left
		return serveOneLaneEach(s, broadcast, from+1)
	}
	return out
}

// withCount returns a copy of s in which word i of bank b has n lanes
// left; s is left as it was.
func withCount(s [][]int, b, i, n int) [][]int {
	out := slices.Clone(s)
	out[b] = slices.Clone(s[b])
	out[b][i] = n
	return out
}

// randomAccess draws lane addresses from a seeded source in one of several
// shapes, so that conflicts and broadcasts are common.
func randomAccess(rng *rand.Rand, mode uint8, width int, start uint64, step int64) [32]uint64 {
	var a [32]uint64
	pool := [4]uint64{start, start + rng.Uint64N(1024), start + 4*rng.Uint64N(64), rng.Uint64()}
	for l := range a {
		switch mode % 6 {
		case 0: // affine
			a[l] = start + uint64(step*int64(l))
		case 1: // clustered in 256 B: many shared words
			a[l] = start + rng.Uint64N(256)
		case 2: // clustered in 4 KiB: many conflicts
			a[l] = start + rng.Uint64N(4096)
		case 3: // scattered
			a[l] = rng.Uint64()
		case 4: // a few addresses shared by many lanes
			a[l] = pool[rng.IntN(len(pool))]
		case 5: // affine with a row-sized jitter: same banks, other rows
			a[l] = start + uint64(step*int64(l)) + 128*rng.Uint64N(4)
		}
		if mode&8 == 0 {
			a[l] &^= uint64(width) - 1
		}
	}
	return a
}

// checkAccess compares Transactions with the oracle on every rule, and
// checks that moving the whole access by a multiple of every row changes
// nothing.
func checkAccess(width int, active uint32, addr *[32]uint64) error {
	for _, r := range rules {
		got := Transactions(r, width, active, addr)
		if want := oracle(r, width, active, addr); got != want {
			return fmt.Errorf("Transactions(%v, width=%d, active=%#08x, addr=%#x) = %d; the oracle wants %d",
				r, width, active, *addr, got, want)
		}
		moved := *addr
		for l := range moved {
			moved[l] += 1 << 20
		}
		if again := Transactions(r, width, active, &moved); again != got {
			return fmt.Errorf("Transactions(%v, width=%d, active=%#08x, addr=%#x) = %d, but %d 1 MiB higher",
				r, width, active, *addr, got, again)
		}
	}
	return nil
}

func TestTransactionsMatchOracle(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		for range 10 {
			active := rng.Uint32()
			switch rng.IntN(4) {
			case 0:
				active = all
			case 1:
				active &= rng.Uint32() // sparse
			}
			width := 1 << rng.IntN(5)
			addr := randomAccess(rng, uint8(rng.IntN(16)), width, rng.Uint64N(1<<16), rng.Int64N(300)-100)
			if err := checkAccess(width, active, &addr); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}

func FuzzTransactions(f *testing.F) {
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0), int64(4), uint64(1))          // unit f32
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0), int64(128), uint64(1))        // tile column
	f.Add(uint32(all), uint8(2), uint8(0), uint64(0), int64(132), uint64(1))        // padded column
	f.Add(uint32(all), uint8(0), uint8(0), uint64(0), int64(1), uint64(1))          // char shared[tid]
	f.Add(uint32(all), uint8(3), uint8(0), uint64(0), int64(16), uint64(1))         // double stride 2
	f.Add(uint32(all), uint8(4), uint8(0), uint64(0x100), int64(0), uint64(1))      // float4 broadcast
	f.Add(uint32(0xFFFF), uint8(2), uint8(4), uint64(0x40), int64(0), uint64(3))    // shared words
	f.Add(uint32(all), uint8(2), uint8(1), uint64(0), int64(0), uint64(5))          // clustered
	f.Add(uint32(0xAAAAAAAA), uint8(4), uint8(5), uint64(0), int64(16), uint64(2))  // row jitter
	f.Add(uint32(all), uint8(1), uint8(8+3), uint64(0), int64(0), uint64(9))        // scattered, misaligned
	f.Add(uint32(1<<31), uint8(4), uint8(0), uint64(1<<64-16), int64(0), uint64(0)) // top of the address space
	f.Add(uint32(0), uint8(2), uint8(0), uint64(0), int64(4), uint64(0))            // no lanes
	f.Fuzz(func(t *testing.T, active uint32, widthSel, mode uint8, start uint64, step int64, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0))
		width := 1 << (widthSel % 5)
		addr := randomAccess(rng, mode, width, start, step)
		if err := checkAccess(width, active, &addr); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOneRowMatchesOracle: accesses whose active lanes all lie in one
// row (the shortcut degree takes before finding banks) while inactive
// lanes, or the last active one, lie in other rows; every width, rows
// of each rule's size, lane masks with holes. The oracle plays the
// passes out, so a shortcut that took a row too wide, or missed the one
// lane leaving it, would disagree with it.
func TestOneRowMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for range 600 {
		width := 1 << rng.IntN(5)
		row := uint64(64) << rng.IntN(3) // CC 1.x, 2.x and Kepler rows
		start := row * rng.Uint64N(1<<10)
		active := uint32(all)
		if rng.IntN(2) == 0 {
			active = rng.Uint32() | 1<<rng.IntN(32)
		}
		var addr [32]uint64
		for l := range addr {
			addr[l] = start + rng.Uint64N(row)&^uint64(width-1)
			if active&(1<<l) == 0 {
				addr[l] = rng.Uint64() // garbage no rule may read
			}
		}
		if rng.IntN(3) == 0 { // the last active lane leaves the row
			addr[31-bits.LeadingZeros32(active)] += row
		}
		if err := checkAccess(width, active, &addr); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHalfWarpShortcuts: the CC 1.x half-warp whose lanes read one
// address, or each the next 4-byte word, takes one step without counting
// banks; the same addresses read 8 or 16 bytes wide, or starting off a
// row, must still be counted. Every case against the oracle.
func TestHalfWarpShortcuts(t *testing.T) {
	for _, width := range []int{1, 2, 4, 8, 16} {
		for _, start := range []uint64{0, 4, 64, 0x1000 + 32} {
			for _, step := range []uint64{0, 4} {
				var addr [32]uint64
				for l := range addr {
					addr[l] = start + uint64(l%16)*step + uint64(l/16)*256
				}
				if err := checkAccess(width, all, &addr); err != nil {
					t.Errorf("width %d, start %#x, step %d: %v", width, start, step, err)
				}
			}
		}
	}
}

// TestStrideBrokenAtOneLane: warps at a constant stride of words, the
// tile columns and reduction trees that take the stride rule, from
// starts at each quarter of a Kepler row and near the top of the address
// space, with one lane moved off the stride (by an access, or by a whole
// row into the same bank): the two lanes the stride is taken from, the
// last, and some between; negative strides and strides so large that
// lanes share an address too; full warps, runs of lanes from lane 0 and
// from others, masks with holes, and masks whose first two lanes are
// not neighbours. The oracle plays the passes out, so
// a stride rule applied to lanes that are not strided, or a degree off
// for some stride, start or mask, disagrees with it.
func TestStrideBrokenAtOneLane(t *testing.T) {
	var steps []int64
	for _, words := range []int64{2, 3, 4, 8, 12, 16, 24, 32, 33, 64, 96, 128} {
		steps = append(steps, words, -words)
	}
	huge := []int64{1 << 57, 1 << 58, 1 << 59, 1 << 60, 1 << 62, -1 << 63}
	starts := []uint64{1 << 16, 1<<16 + 4, 1<<16 + 64, 1<<16 + 128, 1<<16 + 132, 1<<16 + 252, 1<<64 - 256}
	masks := []uint32{all, 0xFFFF, 0xFF, 0x3, 0xFFFF0000, 0x0FF00000, 0xC0000000, 0xF0F0F0F3, 0x80018003,
		0xAAAAAAAA, 0x88888888, 0x22222224, 0x80000101}
	for i, mask := range masks {
		for j, start := range starts {
			if i > 0 && j%2 == 1 {
				continue // the partial masks from every other start
			}
			for _, width := range []int{1, 2, 4, 8} {
				for _, step := range steps {
					if err := strideBroken(width, mask, start, step*int64(width)); err != nil {
						t.Fatal(err)
					}
				}
				for _, step := range huge {
					if err := strideBroken(width, mask, start, step); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// strideBroken checks the lanes in mask at a stride of step bytes from
// start, and each of some of the lanes moved off the stride, against the
// oracle on every rule of 32 banks (CC 1.x's half-warps never take the
// stride rule).
func strideBroken(width int, mask uint32, start uint64, step int64) error {
	var addr [32]uint64
	for l := range addr {
		addr[l] = start + uint64(step*int64(l))
	}
	check := func(addr *[32]uint64) error {
		for _, r := range rules[1:] {
			got, want := Transactions(r, width, mask, addr), oracle(r, width, mask, addr)
			if got != want {
				return fmt.Errorf("Transactions(%v, width=%d, active=%#08x, addr=%#x) = %d; the oracle wants %d",
					r, width, mask, *addr, got, want)
			}
		}
		return nil
	}
	if err := check(&addr); err != nil {
		return fmt.Errorf("stride %d B from %#x: %v", step, start, err)
	}
	first := bits.TrailingZeros32(mask)
	second := bits.TrailingZeros32(mask & (mask - 1))
	for _, l := range []int{first, second, second + 1, 7, 16, 30, 31} {
		for _, by := range []uint64{uint64(width), 128, 256} {
			moved := addr
			moved[l%32] += by
			if err := check(&moved); err != nil {
				return fmt.Errorf("stride %d B from %#x, lane %d moved by %d B: %v", step, start, l%32, by, err)
			}
		}
	}
	return nil
}

// TestStrideDegreeTaken: the stride rule is a shortcut, and where it
// declines the tally gives the same count, so the oracle alone cannot
// tell whether it is taken. Lanes at a stride of whole words must take
// it, under every mask of two lanes or more, the first lanes not
// neighbours included, and give the oracle's degree; lanes off the stride must not,
// nor may a lone lane fail.
func TestStrideDegreeTaken(t *testing.T) {
	masks := []uint32{all, 0xFFFF0000, 0xAAAAAAAA, 0x88888888, 0x22222224, 0x80000101, 0x3, 0x5, 0x10}
	for _, r := range rules[1:] {
		g := &geometries[r]
		for _, words := range []int64{2, 3, 4, 8, 16, 32, 64, 96, -32, -16, -12} {
			step := words << g.wordShift
			for _, mask := range masks {
				for _, start := range []uint64{1 << 16, 1<<16 + 128, 1<<16 + 132} {
					var addr [32]uint64
					for l := range addr {
						addr[l] = start + uint64(step*int64(l))
					}
					d, ok := g.strideDegree(mask, &addr)
					if !ok && mask&(mask-1) != 0 {
						t.Fatalf("%v: stride of %d words from %#x, active %#08x: the stride rule declined", r, words, start, mask)
					}
					if want := oracle(r, 4, mask, &addr); ok && d != want {
						t.Fatalf("%v: stride of %d words from %#x, active %#08x: degree %d; the oracle wants %d", r, words, start, mask, d, want)
					}
					if bits.OnesCount32(mask) < 3 {
						continue
					}
					for _, l := range []int{bits.TrailingZeros32(mask & (mask - 1)), 31 - bits.LeadingZeros32(mask)} {
						moved := addr
						moved[l] += 4 // the second active lane, the last
						if _, ok := g.strideDegree(mask, &moved); ok {
							t.Fatalf("%v: stride of %d words from %#x, active %#08x, lane %d moved: the stride rule taken", r, words, start, mask, l)
						}
					}
				}
			}
		}
	}
}

// TestHalfRunsMatchOracle: full warps whose half-warps each read 16
// consecutive words, a 16-wide tile's two rows, from starts in one row,
// in the rows before and after, in the same banks and in other banks,
// running past a row's end or not, near the top of the address space
// and across it;
// and the same with one lane moved (by an access, a word, a row). The
// rule's shortcut must be taken on the runs, and every count must be
// the oracle's.
func TestHalfRunsMatchOracle(t *testing.T) {
	starts := []uint64{0, 4, 60, 64, 72, 120, 124, 128, 136, 188, 192, 248, 252, 256, 1 << 20, 1<<64 - 64, 1<<64 - 32}
	for _, r := range rules[1:] {
		g := &geometries[r]
		word := uint64(1) << g.wordShift
		for _, width := range []int{1, 2, 4, 8} {
			if uint64(width) > word {
				continue
			}
			for _, a := range starts {
				for _, b := range starts {
					a, b := a/4*word, b/4*word // the same words, in Kepler's 64-bit mode too
					var addr [32]uint64
					for i := range 16 {
						addr[i], addr[16+i] = a+uint64(i)*word, b+uint64(i)*word
					}
					if d, ok := g.halfRuns(&addr); !ok || d != oracle(r, 4, all, &addr) {
						t.Fatalf("%v: halves from %#x and %#x: taken as two runs %v, degree %d; the oracle wants %d", r, a, b, ok, d, oracle(r, 4, all, &addr))
					}
					if got, want := Transactions(r, width, all, &addr), oracle(r, width, all, &addr); got != want {
						t.Fatalf("%v, width %d: halves from %#x and %#x: %d; the oracle wants %d", r, width, a, b, got, want)
					}
					for _, l := range []int{1, 9, 15, 16, 17, 31} {
						for _, by := range []uint64{uint64(width), word, 1 << g.rowShift} {
							moved := addr
							moved[l] += by
							if got, want := Transactions(r, width, all, &moved), oracle(r, width, all, &moved); got != want {
								t.Fatalf("%v, width %d: halves from %#x and %#x, lane %d moved by %d: %d; the oracle wants %d", r, width, a, b, l, by, got, want)
							}
						}
					}
				}
			}
		}
	}
}
