package coalesce

import (
	"fmt"
	"math/bits"

	"gpumemsim/arch"
)

// Rule is a compute-capability family's coalescing rule, as a device
// config gives it.
type Rule = arch.CoalescingRule

// The rules, one per compute-capability family. The zero Rule is invalid.
const (
	CC10 = arch.RuleCC10 // CC 1.0/1.1: strict half-warp rule
	CC13 = arch.RuleCC13 // CC 1.2/1.3: half-warp segment protocol
	CC20 = arch.RuleCC20 // CC 2.x: 128-B lines (L1) or 32-B segments (L2)
	CC30 = arch.RuleCC30 // CC 3.x: 32-B segments through L2
	CC50 = arch.RuleCC50 // CC 5.x: 32-B sectors
)

// Op is the direction of a memory instruction.
type Op uint8

// Memory operations.
const (
	Load Op = iota
	Store
)

// String returns "load" or "store".
func (o Op) String() string {
	switch o {
	case Load:
		return "load"
	case Store:
		return "store"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Path says how a global load is served.
type Path uint8

// Load paths.
const (
	// L1: cached in L1 and L2 (Fermi's default -dlcm=ca; opt-in on Kepler
	// and Maxwell).
	L1 Path = iota
	// L2: cached in L2 only (-dlcm=cg; the default on Kepler and Maxwell).
	L2
)

// String returns "l1" or "l2".
func (p Path) String() string {
	switch p {
	case L1:
		return "l1"
	case L2:
		return "l2"
	}
	return fmt.Sprintf("Path(%d)", uint8(p))
}

// MaxTxns is the most transactions Coalesce emits for one warp: 32 lanes
// whose bytes each straddle two 32-B units. Naturally aligned accesses make
// at most 32.
const MaxTxns = 64

// Txn is one memory transaction.
type Txn struct {
	// Addr is the first byte; it is aligned to Size.
	Addr uint64
	// Size is 32, 64 or 128 bytes.
	Size uint32
	// Sectors has bit i set when some lane served by this transaction
	// touches the i-th 32-B sector of the aligned 128-B block holding Addr.
	// Bits outside the transaction are never set.
	Sectors uint8
	// Lanes has bit l set when lane l is served by this transaction.
	Lanes uint32
}

// Warp is one warp-level memory instruction.
type Warp struct {
	Op Op
	// Width is the bytes each lane accesses: 1, 2, 4, 8 or 16.
	Width int
	// Active has bit l set when lane l takes part.
	Active uint32
	// Addr is each lane's byte address; only active lanes are read.
	Addr [32]uint64
}

// Validate reports whether w can be coalesced: a known Op and a Width of
// 1, 2, 4, 8 or 16 bytes. Coalesce and Requests panic on a warp that fails
// it, so producers of warps from user input check it first.
func (w *Warp) Validate() error {
	if w.Op != Load && w.Op != Store {
		return fmt.Errorf("warp instruction: unknown op %d", uint8(w.Op))
	}
	if !validWidth(w.Width) {
		return fmt.Errorf("warp instruction: width %d bytes: want 1, 2, 4, 8 or 16", w.Width)
	}
	return nil
}

func validWidth(width int) bool {
	return uint(width-1) < 16 && width&(width-1) == 0
}

// validInput reports whether Coalesce and Requests accept r, path and w:
// a known rule, path and op and a width Validate accepts.
func validInput(r Rule, path Path, w *Warp) bool {
	return uint8(r-CC10) <= uint8(CC50-CC10) && path <= L2 && w.Op <= Store && validWidth(w.Width)
}

// invalidInput panics on input that validInput rejects.
func invalidInput(r Rule, path Path, w *Warp) {
	panic(fmt.Sprintf("coalesce: invalid input: rule %v, path %v, op %v, width %d",
		r, path, w.Op, w.Width))
}

// Coalesce appends to dst the transactions rule r makes of w and returns
// the extended slice. path matters for loads on CC20 and CC30 (L1: 128-B
// lines; L2: 32-B segments); CC10, CC13 and CC50 ignore it, and so do
// stores. With cap(dst)-len(dst) >= MaxTxns it allocates nothing. It panics
// on an invalid rule, path, op or width (see Warp.Validate).
func Coalesce(r Rule, path Path, w *Warp, dst []Txn) []Txn {
	if !validInput(r, path, w) {
		invalidInput(r, path, w)
	}
	if w.Active == 0 {
		return dst
	}
	if r == CC10 {
		return cc10(w, dst)
	}
	switch r {
	case CC13:
		seg := cc13Segment(w.Width)
		for _, m := range [2]uint32{0x0000FFFF, 0xFFFF0000} {
			if m &= w.Active; m != 0 {
				n := len(dst)
				dst = appendUnits(dst, w, m, seg)
				reduce(dst[n:])
			}
		}
		return dst
	case CC30, CC50:
		if r == CC50 || w.Op == Store || path == L2 {
			return appendUnits(dst, w, w.Active, 32)
		}
	}
	// CC20, and CC30 loads through an opted-in L1: Fermi's request split,
	// which keeps words of up to 4 bytes in one request.
	if w.Width <= 4 {
		switch {
		case w.Op == Store:
			n := len(dst)
			dst = appendUnits(dst, w, w.Active, cc13Segment(w.Width))
			reduce(dst[n:])
			return dst
		case path == L1:
			return appendUnits(dst, w, w.Active, 128)
		}
		return appendUnits(dst, w, w.Active, 32)
	}
	parts, span := fermiRequests(w.Width)
	lanes := bits.OnesCount32(span) // a division here costs more than the rest of the loop
	for q := range parts {
		m := w.Active & (span << (q * lanes))
		if m == 0 {
			continue
		}
		switch {
		case w.Op == Store:
			n := len(dst)
			dst = appendUnits(dst, w, m, cc13Segment(w.Width))
			reduce(dst[n:])
		case path == L1:
			dst = appendUnits(dst, w, m, 128)
		default:
			dst = appendUnits(dst, w, m, 32)
		}
	}
	return dst
}

// fermiRequests returns how many requests a Fermi warp instruction is split
// into (PG42 §F.4.2: two half-warp requests for 8-byte words, four
// quarter-warp requests for 16-byte words) and the lane mask of the first.
func fermiRequests(width int) (parts int, span uint32) {
	switch width {
	case 8:
		return 2, 0xFFFF
	case 16:
		return 4, 0xFF
	}
	return 1, 0xFFFFFFFF
}

// cc13Segment is the CC 1.2/1.3 segment size for a word size (§2.2 step 1).
func cc13Segment(width int) uint64 {
	switch width {
	case 1:
		return 32
	case 2:
		return 64
	}
	return 128
}

// Requests returns how many hardware sub-requests rule r splits w into
// before transactions are formed, counting only sub-requests with an active
// lane (0 for a warp with none):
//
//   - CC10, CC13: half-warps with an active lane (0, 1 or 2): "a global
//     memory request for a warp is split into two memory requests, one for
//     each half-warp".
//   - CC20 (and CC30 loads on path L1): the 128-B requests of §2.3 with an
//     active lane: 1 for words of up to 4 bytes, up to 2 half-warp requests
//     for 8-byte words, up to 4 quarter-warp requests for 16-byte words.
//     Stores are split the same way.
//   - CC30 on path L2 and CC30 stores: 1.
//   - CC50: the requests the L1/TEX unit forms before its tag lookup, groups
//     of 8 lanes for words of up to 4 bytes, 4 lanes for 8-byte words and 2
//     lanes for 16-byte words (FORUM-MP: "local and global instructions were
//     broken into multiple requests prior to the tag lookup"). Every global
//     access on CC 5.x passes through the L1/TEX unit, which acts as the
//     coalescing buffer even when it does not cache (MTG), so this holds for
//     loads and stores on both paths. It is the number of L1/TEX tag-stage
//     passes the instruction needs.
//
// These are not the profiler's requests, which are one per warp instruction.
func Requests(r Rule, path Path, w *Warp) int {
	if !validInput(r, path, w) {
		invalidInput(r, path, w)
	}
	if w.Active == 0 {
		return 0
	}
	lanes := 32 // lanes per sub-request
	switch r {
	case CC10, CC13:
		lanes = 16
	case CC20:
		lanes = fermiLanes(w.Width)
	case CC30:
		if w.Op == Load && path == L1 {
			lanes = fermiLanes(w.Width)
		}
	case CC50:
		lanes = 8
		switch w.Width {
		case 8:
			lanes = 4
		case 16:
			lanes = 2
		}
	}
	return activeGroups(w.Active, lanes)
}

func fermiLanes(width int) int {
	parts, _ := fermiRequests(width)
	return 32 / parts
}

// activeGroups counts the groups of n consecutive lanes (n a power of two)
// that hold an active lane.
func activeGroups(active uint32, n int) int {
	// Fold each group onto its lowest bit.
	for s := 1; s < n; s <<= 1 {
		active |= active >> s
	}
	var low uint32
	for l := 0; l < 32; l += n {
		low |= 1 << l
	}
	return bits.OnesCount32(active & low)
}
