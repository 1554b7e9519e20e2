package banks

import (
	"iter"
	"math/bits"
)

// degree returns the conflict degree of one sub-request: the most distinct
// rows any one bank must serve to the lanes in mask, each of which
// accesses width bytes.
func (g *geometry) degree(width int, mask uint32, addr *[32]uint64) int {
	if g.oneRow(mask, addr) {
		return 1 // the commonest case: no bank can be asked for two rows
	}
	words := max(1, width>>g.wordShift)
	if words == 1 {
		return g.wordDegree(mask, addr)
	}
	reads := g.reads(mask, addr, width, 0, words)
	if oneRowPerBank(reads) {
		return 1
	}
	var t tally
	for bank, row := range reads {
		t.add(bank, row)
	}
	return t.maxRows()
}

// wordDegree is degree for lanes that read one word each: an access no
// wider than a word has its word's bank and row at any of its bytes. One
// pass keeps up to two rows a bank, which settles the common cases, no
// conflict and two-way conflicts (a tile's two half-rows), without the
// tally; a third row in any bank tallies them all. A full warp of two
// runs of 16 words (halfRuns) is counted from the runs, before any pass.
func (g *geometry) wordDegree(mask uint32, addr *[32]uint64) int {
	if mask == 1<<32-1 {
		if d, ok := g.halfRuns(addr); ok {
			return d
		}
	}
	var first, second [32]uint64
	var one, two uint32 // banks read in one row, in a second
	for m := mask; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]
		b, r := g.bank(a), a>>g.rowShift
		switch bit := uint32(1) << b; {
		case one&bit == 0:
			one |= bit
			first[b] = r
		case first[b] == r:
		case two&bit == 0:
			two |= bit
			second[b] = r
		case second[b] != r:
			return g.tallyWords(mask, addr)
		}
	}
	if two != 0 {
		return 2
	}
	return 1
}

// halfRuns is the conflict degree of a full warp whose half-warps each
// read 16 consecutive words, a 16-wide tile's two rows that do not fit
// one row of the banks (stencil-shared's t[ty + 1][tx + 1] in a tile 18
// wide), and whether they do. A half's words are in 16 distinct banks,
// in one row or running on into the next, so a bank is asked for two
// words at most, one of each half: the degree is 2 where some bank's two
// words are in different rows, else 1.
func (g *geometry) halfRuns(addr *[32]uint64) (int, bool) {
	word := uint64(1) << g.wordShift
	a, b := addr[0], addr[16]
	if addr[1]-a != word || addr[17]-b != word { // the common misses, at once
		return 0, false
	}
	var diff uint64
	for i := 2; i < 16; i++ {
		o := uint64(i) << g.wordShift
		diff |= (addr[i] ^ (a + o)) | (addr[16+i] ^ (b + o))
	}
	if diff != 0 {
		return 0, false
	}
	return g.runsDegree(a, b), true
}

// runsDegree is halfRuns' degree for the runs of 16 words from a and
// from b: 2 when a bank holds words of both in different rows.
func (g *geometry) runsDegree(a, b uint64) int {
	ah, ahRow, at, atRow := g.run16(a)
	bh, bhRow, bt, btRow := g.run16(b)
	if clash(ah, ahRow, bh, bhRow) || clash(ah, ahRow, bt, btRow) ||
		clash(at, atRow, bh, bhRow) || clash(at, atRow, bt, btRow) {
		return 2
	}
	return 1
}

// clash says whether the words in banks p of row pRow and in banks q of
// row qRow share a bank in different rows.
func clash(p uint32, pRow uint64, q uint32, qRow uint64) bool {
	return p&q != 0 && pRow != qRow
}

// run16 is the 16 consecutive words from address a as the banks of
// those in a's row (head) and of those in the next (tail; none where
// all 16 are in a's row), with the two rows, of 32 banks, as every rule
// but CC 1.x's has. Four results, in registers: as an array of two
// parts they went back through memory, stored by fields and copied
// whole, which the host cannot forward from its store buffer.
func (g *geometry) run16(a uint64) (head uint32, headRow uint64, tail uint32, tailRow uint64) {
	w := a >> g.wordShift
	perRow := uint64(1) << (g.rowShift - g.wordShift)
	first := min(16, perRow-w%perRow) // the words in a's row
	all := bits.RotateLeft32(1<<16-1, int(w%32))
	head = bits.RotateLeft32(1<<first-1, int(w%32))
	return head, a >> g.rowShift, all &^ head, (a + first<<g.wordShift) >> g.rowShift
}

// tallyWords is degree's tally for lanes that read one word each, in a
// plain loop; lanes at a constant stride of whole words, such as a
// tile's column, take the stride rule instead.
func (g *geometry) tallyWords(mask uint32, addr *[32]uint64) int {
	if d, ok := g.strideDegree(mask, addr); ok {
		return d
	}
	var t tally
	for m := mask; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]
		t.add(g.bank(a), a>>g.rowShift)
	}
	return t.maxRows()
}

// strideDegree is the conflict degree of the lanes in mask when each
// reads the word a constant number of words past the lane before's, a
// tile's column or a stride loop, and whether they do (lanes not in mask
// aside). The words are then all distinct, and by the guide's stride rule
// (PG42 F.4.3.1) lanes at a stride of s words fall into the 32 banks
// gcd(32, s) to a bank: lanes l and l + 32/gcd(32, s) share one. Where a
// bank row holds one word of each bank (CC 2.x, 3.x's 64-bit mode, 5.x),
// each lane of a bank reads a row of its own, and the degree is the most
// active lanes in one bank. The tally would walk a bank's list of rows
// for each lane, 496 steps for a column's 32 rows in one bank.
func (g *geometry) strideDegree(mask uint32, addr *[32]uint64) (int, bool) {
	const logBanks = 5 // every rule but CC 1.x's, which never asks
	first, rest := bits.TrailingZeros32(mask), mask&(mask-1)
	if rest == 0 {
		return 0, false
	}
	// The stride from the first two lanes; the loop below checks it.
	s := addr[bits.TrailingZeros32(rest)] - addr[first]
	if gap := bits.TrailingZeros32(rest) - first; gap > 1 {
		s = uint64(int64(s) / int64(gap))
	}
	// Whole words apart, and distinct: lanes i and j share an address
	// when (i−j)·s wraps to 0, and i−j has at most 4 trailing zeros.
	tz := uint(bits.TrailingZeros64(s))
	if tz < g.wordShift || tz >= 60 {
		return 0, false
	}
	base := addr[first] - uint64(first)*s // lane 0's, on the stride
	if last := 31 - bits.LeadingZeros32(mask); addr[last] != base+uint64(last)*s {
		return 0, false // most lanes off a stride show it in the last
	}
	var diff uint64
	for m := rest; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		diff |= addr[l] ^ (base + uint64(l)*s)
	}
	if diff != 0 {
		return 0, false
	}
	share := min(tz-g.wordShift, logBanks)
	// The lanes of one bank are 32/gcd(32, s) apart and their words 32·m
	// apart: rows of their own where m is ±2 or more even in Kepler's
	// 32-bit mode, whose 64-bit banks hold words i and i + 32 in a row.
	m := int64(s) >> (g.wordShift + share)
	if g.rowShift == g.wordShift+logBanks || m < -1 || m > 1 {
		return busiestBank(mask, 32>>share), true
	}
	return pairedRows(mask, addr, g.rowShift, 32>>share), true
}

// busiestBank is the most lanes of mask in one bank when lanes l and
// l + period share a bank: the most of mask's bits in one class of
// lanes modulo period (a power of two up to 32).
func busiestBank(mask uint32, period int) int {
	every := uint64(1<<32-1) / (1<<period - 1) // bits 0, period, 2·period, …
	most := 0
	for r := range period {
		most = max(most, bits.OnesCount32(mask&uint32(every<<r)))
	}
	return most
}

// pairedRows is strideDegree in Kepler's 32-bit mode where the lanes of
// a bank read words 32 apart (m = ±1), lanes l and l + period sharing a
// bank, so that two of them may share a row. A bank's words rise (or
// fall) with its lanes, so the lanes that read one row are neighbours
// among the bank's active lanes, and each change of row is one more row
// for the bank to serve. (That holds at any stride; busiestBank is the
// shortcut where no two share a row.)
func pairedRows(mask uint32, addr *[32]uint64, rowShift uint, period int) int {
	var last [32]uint64 // the row of each bank's latest lane, by lane modulo period
	var rows [32]uint8
	var seen uint32
	most := uint8(0)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		c, row := l&(period-1), addr[l]>>rowShift
		if bit := uint32(1) << c; seen&bit == 0 || last[c] != row {
			seen |= bit
			last[c] = row
			rows[c]++
			most = max(most, rows[c])
		}
	}
	return int(most)
}

// oneRow reports whether the lanes in mask (not empty) all address
// bytes of one row: a warp reading consecutive words, or broadcasting
// a few in one row, as a tiled kernel's shared tiles mostly are. Every
// word a lane reads is then in that row too, as a row holds a whole
// aligned access of any width. It compares the addresses alone, a few
// instructions a lane, where wordDegree finds each lane's bank.
func (g *geometry) oneRow(mask uint32, addr *[32]uint64) bool {
	a0 := addr[bits.TrailingZeros32(mask)]
	var diff uint64
	if mask == 1<<32-1 {
		for i := 0; i < 32; i += 4 { // four lanes a step
			q := (*[4]uint64)(addr[i : i+4])
			diff |= (q[0] ^ a0) | (q[1] ^ a0) | (q[2] ^ a0) | (q[3] ^ a0)
		}
	} else {
		for m := mask; m != 0; m &= m - 1 {
			diff |= addr[bits.TrailingZeros32(m)] ^ a0
		}
	}
	return diff>>g.rowShift == 0
}

// halfWarps applies the CC 1.x rule (PG42 F.3.3): each half-warp is a
// request of its own, an access wider than 32 bits is split into 32-bit
// requests, and each request takes as many steps as the limited broadcast
// needs.
func (g *geometry) halfWarps(width int, active uint32, addr *[32]uint64) int {
	parts := max(1, width/4) // 32-bit requests per access (F.3.3.4)
	total := 0
	for lo := 0; lo < 32; lo += 16 {
		m := active & (0xFFFF << lo)
		if m == 0 {
			continue
		}
		if m == 0xFFFF<<lo { // a whole half-warp: one pass over its lanes
			if steps, ok := halfInOneRow(addr, lo, width); ok {
				total += parts * steps
				continue
			}
		} else if g.oneRow(m, addr) {
			total += parts * oneRowSteps(m, addr, width)
			continue
		}
		for part := range parts {
			if lanes, ok := g.oneWordPerBank(m, addr, width, uint64(4*part)); ok {
				total += broadcastStepsOneWordPerBank(&lanes)
				continue
			}
			var t tally
			for bank, row := range g.reads(m, addr, width, uint64(4*part), 1) {
				t.add(bank, row)
			}
			total += t.broadcastSteps()
		}
	}
	return total
}

// bankBit is 1 << b for each CC 1.x bank b, read from a table: a shift
// by a variable needs amd64's CX register, and the loops that mark banks
// run out of registers around it.
var bankBit = [cc1xBanks]uint32{1, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7,
	1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15}

// cc1xBank is the CC 1.x bank of the word at addr rounded down by align,
// ^(width−1) for accesses of width bytes (worked out once by the caller:
// the compiler leaves it in the loop).
func cc1xBank(addr, align uint64) uint64 {
	return addr & align >> cc1xWordShift & (cc1xBanks - 1)
}

// oneRowSteps is the steps of a CC 1.x request by the lanes in mask that
// all address one row (oneRow), so that each bank is asked for one word
// at most: one when at most one bank serves more than one lane, that
// bank's word being broadcast, else those countedSteps finds. Each 32-bit
// part of a wider access takes as many: its words are the first part's
// moved by the same offset, which permutes the banks of one row and
// leaves the lanes per bank as they were.
func oneRowSteps(mask uint32, addr *[32]uint64, width int) int {
	var seen, shared uint32
	align := ^uint64(width - 1)
	for m := mask; m != 0; m &= m - 1 {
		bit := bankBit[cc1xBank(addr[bits.TrailingZeros32(m)], align)]
		shared |= seen & bit
		seen |= bit
	}
	if shared&(shared-1) == 0 {
		return 1
	}
	return countedSteps(mask, addr, align)
}

// halfInOneRow is oneRow and oneRowSteps in one pass for the CC 1.x
// half-warp from lane lo, its 16 lanes all active: the steps, and whether
// the lanes all address one row (when they do not, the steps are not
// counted).
func halfInOneRow(addr *[32]uint64, lo, width int) (steps int, ok bool) {
	h := (*[16]uint64)(addr[lo : lo+16])
	a0 := h[0]
	if ((h[1]^a0)|(h[15]^a0))>>cc1xRowShift != 0 { // a column, a stride: rows apart at once
		return 0, false
	}
	// One address in every lane (a broadcast) or, for words, each lane
	// the next word (an array read by thread index): with the ends in one
	// row, every lane is in it, and the lanes ask one bank for one word
	// or each bank once: one step.
	one, run := broadcastOrRun(h)
	if one || run && width == 4 {
		return 1, true
	}
	var seen, shared uint32
	var diff uint64
	align := ^uint64(width - 1)
	for _, a := range h {
		diff |= a ^ a0
		bit := bankBit[cc1xBank(a, align)]
		shared |= seen & bit
		seen |= bit
	}
	switch {
	case diff>>cc1xRowShift != 0:
		return 0, false
	case shared&(shared-1) == 0:
		return 1, true
	}
	return countedSteps(0xFFFF<<lo, addr, align), true
}

// broadcastOrRun reports whether the 16 addresses of h are all h[0], and
// whether each is the 4-byte word after the one before: the differences
// ORed together, written out so that no index needs a check. h[1] tells
// which of the two the half-warp can be, so only that one is tested.
func broadcastOrRun(h *[16]uint64) (one, run bool) {
	a := h[0]
	if h[1] == a {
		o := (h[2] ^ a) | (h[3] ^ a) | (h[4] ^ a) | (h[5] ^ a) | (h[6] ^ a) | (h[7] ^ a) |
			(h[8] ^ a) | (h[9] ^ a) | (h[10] ^ a) | (h[11] ^ a) | (h[12] ^ a) | (h[13] ^ a) | (h[14] ^ a) | (h[15] ^ a)
		return o == 0, false
	}
	r := (h[1] ^ (a + 4)) | (h[2] ^ (a + 8)) | (h[3] ^ (a + 12)) | (h[4] ^ (a + 16)) | (h[5] ^ (a + 20)) |
		(h[6] ^ (a + 24)) | (h[7] ^ (a + 28)) | (h[8] ^ (a + 32)) | (h[9] ^ (a + 36)) | (h[10] ^ (a + 40)) |
		(h[11] ^ (a + 44)) | (h[12] ^ (a + 48)) | (h[13] ^ (a + 52)) | (h[14] ^ (a + 56)) | (h[15] ^ (a + 60))
	return false, r == 0
}

// countedSteps is broadcastStepsOneWordPerBank of the lanes in mask, which
// ask each CC 1.x bank for one word at most (at their address rounded
// down by align): the lanes of each bank counted.
func countedSteps(mask uint32, addr *[32]uint64, align uint64) int {
	var lanes [32]uint8
	for m := mask; m != 0; m &= m - 1 {
		lanes[cc1xBank(addr[bits.TrailingZeros32(m)], align)]++
	}
	return broadcastStepsOneWordPerBank(&lanes)
}

// reads yields the bank and row of each bank word that the lanes in mask
// read: words successive words from each lane's address, rounded down to
// width, plus offset bytes.
func (g *geometry) reads(mask uint32, addr *[32]uint64, width int, offset uint64, words int) iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		for m := mask; m != 0; m &= m - 1 {
			a := addr[bits.TrailingZeros32(m)]&^uint64(width-1) + offset
			for range words {
				if !yield(g.bank(a), a>>g.rowShift) {
					return
				}
				a += 1 << g.wordShift
			}
		}
	}
}

// oneWordPerBank is oneRowPerBank for lanes that read one bank word each
// (at their address rounded down to width, plus offset), in a plain loop:
// the hot case, kept free of the iterator. lanes counts the lanes each
// bank serves; it is complete only when ok.
func (g *geometry) oneWordPerBank(mask uint32, addr *[32]uint64, width int, offset uint64) (lanes [32]uint8, ok bool) {
	var row [32]uint64
	var touched uint32
	for m := mask; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]&^uint64(width-1) + offset
		b, r := g.bank(a), a>>g.rowShift
		switch bit := uint32(1) << b; {
		case touched&bit == 0:
			touched |= bit
			row[b] = r
		case row[b] != r:
			return lanes, false
		}
		lanes[b]++
	}
	return lanes, true
}

// oneRowPerBank reports whether no bank is asked for two rows.
func oneRowPerBank(reads iter.Seq2[int, uint64]) bool {
	var row [32]uint64
	var touched uint32
	for b, r := range reads {
		switch bit := uint32(1) << b; {
		case touched&bit == 0:
			touched |= bit
			row[b] = r
		case row[b] != r:
			return false
		}
	}
	return true
}

// broadcastStepsOneWordPerBank is tally.broadcastSteps for a CC 1.x
// request that asks each bank for one word: s steps suffice when at most
// s banks have more than s lanes, as each of those must be the broadcast
// bank once.
func broadcastStepsOneWordPerBank(lanes *[32]uint8) int {
	for steps := 1; ; steps++ {
		over := 0
		for _, n := range lanes {
			if int(n) > steps {
				over++
			}
		}
		if over <= steps {
			return steps
		}
	}
}
