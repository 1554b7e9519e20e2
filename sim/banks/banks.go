package banks

import (
	"fmt"

	"gpumemsim/arch"
)

// Rule is a compute-capability family's shared-memory bank rule. The zero
// Rule is invalid.
type Rule uint8

// The rules, one per compute-capability family (and Kepler bank mode).
const (
	CC1x   Rule = iota + 1 // 16 banks of 32 bits; per half-warp; one broadcast word per step
	CC2x                   // 32 banks of 32 bits; 64-bit per half-warp, 128-bit per quarter-warp
	CC3x32                 // Kepler in 32-bit bank mode: 64-bit bank rows hold words i and i+32
	CC3x64                 // Kepler in 64-bit bank mode: 32 banks of 64 bits
	CC5x                   // Maxwell: 32 banks of 32 bits
)

var names = [...]string{CC1x: "cc1x", CC2x: "cc2x", CC3x32: "cc3x-32", CC3x64: "cc3x-64", CC5x: "cc5x"}

// String returns the rule's name, such as "cc3x-64".
func (r Rule) String() string {
	if !r.valid() {
		return fmt.Sprintf("Rule(%d)", uint8(r))
	}
	return names[r]
}

func (r Rule) valid() bool { return r >= CC1x && r <= CC5x }

// RuleFor picks the bank rule of a device from its coalescing rule (which
// names its compute-capability family) and its shared-memory bank width.
// Only Kepler has a choice of bank width; every other family has 4-byte
// banks, and another width is an error.
func RuleFor(c arch.CoalescingRule, bankWidth arch.Bytes) (Rule, error) {
	var r Rule
	switch c {
	case arch.RuleCC10, arch.RuleCC13:
		r = CC1x
	case arch.RuleCC20:
		r = CC2x
	case arch.RuleCC30:
		switch bankWidth {
		case 4:
			return CC3x32, nil
		case 8:
			return CC3x64, nil
		}
		return 0, fmt.Errorf("sm.bank_width %v: compute capability 3.x has 4B or 8B banks", bankWidth)
	case arch.RuleCC50:
		r = CC5x
	default:
		return 0, fmt.Errorf("no shared-memory bank rule for coalescing rule %v", c)
	}
	if bankWidth != 4 {
		return 0, fmt.Errorf("sm.bank_width %v: %v devices have 4B banks", bankWidth, c)
	}
	return r, nil
}

// geometry is what a rule's banks are built from.
type geometry struct {
	// banks is the number of banks, a power of two.
	banks int
	// wordShift is log2 of a bank word: successive words map to successive
	// banks.
	wordShift uint
	// rowShift is log2 of a row: the bytes all banks together deliver in
	// one pass. In one pass a bank serves one row to any number of readers;
	// two addresses in one bank conflict when their rows differ.
	rowShift uint
}

// CC 1.x's banks as constants, for the half-warp rule's loops: a shift by
// a variable needs amd64's CX register, which spilled their counters.
const (
	cc1xBanks     = 16
	cc1xWordShift = 2
	cc1xRowShift  = 6
)

// geometries holds each rule's banks. Kepler's banks are 64 bits wide in
// both modes, so its rows are 256 B; in 32-bit mode a bank row holds words
// i and i+32 of a 64-word segment (PG42 F.5.3.2).
var geometries = [...]geometry{
	CC1x:   {banks: cc1xBanks, wordShift: cc1xWordShift, rowShift: cc1xRowShift},
	CC2x:   {banks: 32, wordShift: 2, rowShift: 7},
	CC3x32: {banks: 32, wordShift: 2, rowShift: 8},
	CC3x64: {banks: 32, wordShift: 3, rowShift: 8},
	CC5x:   {banks: 32, wordShift: 2, rowShift: 7},
}

// Banks returns the number of shared-memory banks under rule r: 16 on
// CC 1.x, else 32. It panics on an invalid rule.
func Banks(r Rule) int {
	mustBeValid(r)
	return geometries[r].banks
}

// Bank returns the bank that serves the byte address addr under rule r.
// It panics on an invalid rule.
func Bank(r Rule, addr uint64) int {
	mustBeValid(r)
	return geometries[r].bank(addr)
}

func (g *geometry) bank(addr uint64) int {
	return int(addr>>g.wordShift) & (g.banks - 1)
}

func mustBeValid(r Rule) {
	if !r.valid() {
		panic(fmt.Sprintf("banks: invalid rule %v", r))
	}
}

// validWidth reports whether width is 1, 2, 4, 8 or 16 bytes.
func validWidth(width int) bool {
	return uint(width-1) < 16 && width&(width-1) == 0
}

// RequestLanes returns how many lanes one request through the banks
// covers under rule r for accesses of width bytes: a half-warp on CC 1.x;
// later, as many lanes as one row of data holds, up to the warp (the whole
// warp for words of up to 4 bytes, on Kepler's 64-bit mode up to 8, else
// half- or quarter-warps). Transactions of the lanes of one request are
// its conflict degree. It panics on an invalid rule or width.
func RequestLanes(r Rule, width int) int {
	if !r.valid() || !validWidth(width) {
		panic(fmt.Sprintf("banks: invalid input: rule %v, width %d", r, width))
	}
	if r == CC1x {
		return 16
	}
	return min(32, 1<<geometries[r].rowShift/width)
}

// Halves returns Transactions for a full warp whose lanes access 4-byte
// words, lane l at lo + l·stride and lane 16+l at hi + l·stride, and
// true, where the passes have a closed form: each half-warp reading one
// word (stride 0) or 16 consecutive words (stride 4; not in Kepler's
// 64-bit mode, whose words are 8 bytes). Otherwise false, and
// Transactions on the addresses decides. The lanes' addresses are taken
// not to wrap past 2^64.
func Halves(r Rule, width int, lo, hi, stride uint64) (int, bool) {
	if !r.valid() || width != 4 || (stride != 0 && stride != 4) {
		return 0, false
	}
	if r == CC1x {
		// Each half-warp is one request: one word broadcast, or 16
		// words in 16 banks, one step either way.
		return 2, true
	}
	g := &geometries[r]
	if stride == 0 {
		// Two words for the warp: a conflict where they are in one bank
		// and not in one row.
		if g.bank(lo) == g.bank(hi) && lo>>g.rowShift != hi>>g.rowShift {
			return 2, true
		}
		return 1, true
	}
	if g.wordShift != 2 {
		return 0, false
	}
	return g.runsDegree(lo, hi), true
}

// Transactions returns the number of shared-memory transactions, passes
// through the banks, that rule r needs to serve one warp instruction:
// width is the bytes each lane accesses (1, 2, 4, 8 or 16), active has bit
// l set when lane l takes part, and addr holds each lane's byte address
// within the block's shared memory (only active lanes are read). A lane's
// address is rounded down to a multiple of width, as the hardware requires
// it to be aligned. Loads and stores follow the same rule. A warp with no
// active lane needs 0 transactions. Transactions allocates nothing; it
// panics on an invalid rule or width.
func Transactions(r Rule, width int, active uint32, addr *[32]uint64) int {
	if !r.valid() || !validWidth(width) {
		panic(fmt.Sprintf("banks: invalid input: rule %v, width %d", r, width))
	}
	if active == 0 {
		return 0
	}
	g := &geometries[r]
	if r == CC1x {
		return g.halfWarps(width, active, addr)
	}
	lanes := RequestLanes(r, width)
	if lanes == 32 {
		return g.degree(width, active, addr)
	}
	total := 0
	span := uint32(1)<<lanes - 1
	for lo := 0; lo < 32; lo += lanes {
		m := active & (span << lo)
		if m == 0 {
			continue
		}
		total += g.degree(width, m, addr)
		if r == CC2x && width == 16 {
			// PG42 F.4.3: "to determine the ways of bank conflicts, one
			// must add 1 to the maximum number of threads in a
			// quarter-warp that access different addresses belonging to
			// the same bank".
			total++
		}
	}
	return total
}
