package validate

import (
	"fmt"
	"math/bits"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

func exactValidWidth(w int) bool { return w > 0 && w <= 16 && w&(w-1) == 0 }

// exactRule is a device's coalescing rule as this package reads it from
// the guide (hardware.md §2), an oracle independent of sim/coalesce:
//
//   - cc10 (§2.1): per half-warp, with 4-, 8- or 16-byte words, every
//     active lane k reading word k of a segment aligned to 64 B (4-byte
//     words) or 128 B gives one 64-B, one 128-B or two 128-B transactions;
//     otherwise one 32-B transaction per thread. Two choices the guide
//     leaves open follow sim/coalesce's documented decisions: an
//     uncoalesced half-warp costs one 32-B transaction per ACTIVE lane
//     (two when its word straddles a 32-B boundary), not 16; and with
//     16-byte words a 128-B half whose 8 lanes are all inactive is not
//     issued.
//   - cc13 (§2.2): per half-warp, one transaction per segment (32 B for
//     1-byte, 64 B for 2-byte, 128 B for wider words) holding an active
//     lane's bytes, reduced 128 → 64 → 32 while only one half is used.
//   - cc20 (§2.3): a warp of 8-byte words is split into two half-warp
//     requests, of 16-byte words into four quarter-warp requests. Loads
//     through L1 make one 128-B transaction per distinct 128-B line of each
//     request, loads through L2 only one 32-B transaction per distinct 32-B
//     segment. Stores bypass L1 (§2.6); the guide gives no granularity, so
//     they follow sim/coalesce's documented decision (GPGPU-Sim's
//     coalesce_arch 20): the cc13 segment protocol with its reduction,
//     applied to each request, with the segment sized by the word as in
//     §2.2 step 1 (32 B for 1-byte and 64 B for 2-byte words, as
//     sim/coalesce's code does).
//   - cc30 (§2.4, §2.6): one 32-B transaction per distinct 32-B segment of
//     the whole warp, for stores and for loads through L2; loads through an
//     opted-in L1 follow cc20.
//   - cc50 (§2.5, §2.6): one 32-B transaction per distinct 32-B sector of
//     the whole warp.
type exactRule struct {
	family arch.CoalescingRule
	// l1 says global loads are cached in L1 (128-B lines).
	l1 bool
}

func exactRuleOf(dev *arch.Device) (exactRule, error) {
	ru := exactRule{family: dev.Coalescer.Rule, l1: dev.Coalescer.CacheGlobalLoads}
	switch ru.family {
	case arch.RuleCC10, arch.RuleCC13, arch.RuleCC20, arch.RuleCC30, arch.RuleCC50:
		return ru, nil
	}
	return ru, fmt.Errorf("device %s: no coalescing rule this model knows (%v)", dev.Name, ru.family)
}

// exactWarpTxns are the transactions of one warp instruction.
type exactWarpTxns struct {
	t32, t64, t128 int64
	// coalesced counts the half-warps that met the cc10 conditions.
	coalesced int64
}

// warp applies the rule to one warp instruction whose active lanes (mask)
// access width bytes at rho + off[lane].
func (ru exactRule) warp(op traces.Op, width int64, mask uint32, off *[traces.WarpSize]int64, rho int64) exactWarpTxns {
	var addr [traces.WarpSize]int64
	for i := range addr {
		addr[i] = rho + off[i]
	}
	var t exactWarpTxns
	switch ru.family {
	case arch.RuleCC10:
		for _, half := range [2]uint32{0x0000FFFF, 0xFFFF0000} {
			if m := mask & half; m != 0 {
				exactStrictHalfWarp(&t, width, m, &addr)
			}
		}
	case arch.RuleCC13:
		for _, half := range [2]uint32{0x0000FFFF, 0xFFFF0000} {
			if m := mask & half; m != 0 {
				exactSegmentProtocol(&t, width, m, &addr)
			}
		}
	case arch.RuleCC20:
		exactFermi(&t, op, ru.l1, width, mask, &addr)
	case arch.RuleCC30:
		if op == traces.OpLoad && ru.l1 {
			exactFermi(&t, op, true, width, mask, &addr)
		} else {
			t.t32 += exactDistinctUnits(width, mask, &addr, 32)
		}
	default: // cc50
		t.t32 += exactDistinctUnits(width, mask, &addr, 32)
	}
	return t
}

// exactStrictHalfWarp applies §2.1 to the half-warp with active lanes m.
func exactStrictHalfWarp(t *exactWarpTxns, width int64, m uint32, addr *[traces.WarpSize]int64) {
	lo := bits.TrailingZeros32(m) &^ 15 // lane 0 or 16
	if width == 4 || width == 8 || width == 16 {
		align := int64(128)
		if width == 4 {
			align = 64
		}
		k0 := bits.TrailingZeros32(m)
		seg := addr[k0] - int64(k0-lo)*width
		ok := seg&(align-1) == 0
		for i := lo; i < lo+16 && ok; i++ {
			if m&(1<<i) != 0 && addr[i] != seg+int64(i-lo)*width {
				ok = false
			}
		}
		if ok {
			t.coalesced++
			switch width {
			case 4:
				t.t64++
			case 8:
				t.t128++
			default:
				if m&(0xFF<<lo) != 0 {
					t.t128++
				}
				if m&(0xFF00<<lo) != 0 {
					t.t128++
				}
			}
			return
		}
	}
	for i := lo; i < lo+16; i++ {
		if m&(1<<i) != 0 {
			t.t32 += (addr[i]+width-1)>>5 - addr[i]>>5 + 1
		}
	}
}

// exactSectorsOf returns the distinct 32-B sectors (address / 32) that the
// lanes of m touch, sorted.
func exactSectorsOf(width int64, m uint32, addr *[traces.WarpSize]int64, buf *[2 * traces.WarpSize]int64) []int64 {
	n := 0
	for i := range traces.WarpSize {
		if m&(1<<i) == 0 {
			continue
		}
		for s := addr[i] >> 5; s <= (addr[i]+width-1)>>5; s++ {
			// Insertion into the sorted prefix; affine lanes arrive in
			// order, so this is usually a single comparison.
			j := n
			for j > 0 && buf[j-1] > s {
				j--
			}
			if j > 0 && buf[j-1] == s {
				continue
			}
			copy(buf[j+1:n+1], buf[j:n])
			buf[j] = s
			n++
		}
	}
	return buf[:n]
}

// exactDistinctUnits counts the distinct aligned units of size bytes (32
// or 128) that the lanes of m touch.
func exactDistinctUnits(width int64, m uint32, addr *[traces.WarpSize]int64, size int64) int64 {
	var buf [2 * traces.WarpSize]int64
	s := exactSectorsOf(width, m, addr, &buf)
	shift := uint(bits.TrailingZeros64(uint64(size / 32)))
	var n int64
	for i := range s {
		if i == 0 || s[i]>>shift != s[i-1]>>shift {
			n++
		}
	}
	return n
}

// exactSegmentProtocol applies the §2.2 protocol to the lanes of m: one
// transaction per segment touched, reduced while only one half is used.
func exactSegmentProtocol(t *exactWarpTxns, width int64, m uint32, addr *[traces.WarpSize]int64) {
	var buf [2 * traces.WarpSize]int64
	s := exactSectorsOf(width, m, addr, &buf)
	shift := uint(2) // 128-B segments (4 sectors) for 4-, 8- and 16-byte words
	switch width {
	case 1:
		shift = 0
	case 2:
		shift = 1
	}
	for i := 0; i < len(s); {
		seg := s[i] >> shift
		var used uint8 // sectors used within the 128-B block
		j := i
		for ; j < len(s) && s[j]>>shift == seg; j++ {
			used |= 1 << (s[j] & 3)
		}
		i = j
		switch {
		case shift == 2 && used&0b0011 != 0 && used&0b1100 != 0:
			t.t128++ // both halves of the 128-B segment
		case bits.OnesCount8(used) == 2 && (used == 0b0011 || used == 0b1100):
			t.t64++ // both 32-B halves of one 64-B half
		default:
			t.t32++
		}
	}
}

// exactFermi applies the §2.3 request split and, per request, the L1 line
// rule, the L2 segment rule or (stores) the segment protocol.
func exactFermi(t *exactWarpTxns, op traces.Op, l1 bool, width int64, mask uint32, addr *[traces.WarpSize]int64) {
	lanes := 32
	switch width {
	case 8:
		lanes = 16
	case 16:
		lanes = 8
	}
	for lo := 0; lo < 32; lo += lanes {
		m := mask & uint32((uint64(1)<<lanes-1)<<lo)
		switch {
		case m == 0:
		case op == traces.OpStore:
			exactSegmentProtocol(t, width, m, addr)
		case l1:
			t.t128 += exactDistinctUnits(width, m, addr, 128)
		default:
			t.t32 += exactDistinctUnits(width, m, addr, 32)
		}
	}
}
