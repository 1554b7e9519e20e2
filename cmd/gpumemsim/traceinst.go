package main

import (
	"fmt"
	"io"
	"math/bits"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/sim/banks"
	"gpumemsim/sim/coalesce"
	"gpumemsim/sim/constmem"
	"gpumemsim/traces"
)

// The classroom view of trace: block 0's first instructions, each with
// its lanes' addresses and what the coalescer or the banks make of them.

// shownInst is one instruction of the classroom view: a copy of the warp
// instruction and, for memory instructions, its transactions, or for
// shared-memory ones each lane's bank and the passes through the banks,
// or for constant-memory ones the passes through the constant cache, or
// for texture fetches the 32-byte lines looked up in the texture cache.
type shownInst struct {
	in                        traces.WarpInst
	txns                      []coalesce.Txn
	shared, constant, texture bool
	lines                     []uint64
	banks                     [traces.WarpSize]int
	passes                    int
	// degrees are the passes of each request the bank rule (or the
	// constant-memory rule) splits the warp into (one request: the warp;
	// CC 1.x: its half-warps), each one's conflict degree or distinct
	// addresses; requestLanes is the lanes of one request.
	degrees      []int
	requestLanes int
}

// firstInsts returns the first n memory instructions of block 0, warp 0's
// in issue order, then warp 1's, and so on, with the compute instructions
// between them.
func firstInsts(d *arch.Device, l *traces.Launch, co *sim.Coalescer, n int) ([]shownInst, error) {
	var out []shownInst
	if n == 0 || l.Blocks() == 0 {
		return nil, nil
	}
	rule, err := bankRule(d, l)
	if err != nil {
		return nil, err
	}
	cur := l.NewWarp()
	var in traces.WarpInst
	mem := 0
	for w := range l.WarpsPerBlock() {
		cur.Reset(0, w)
		for cur.NextTo(&in, &in.Addr) {
			s := shownInst{in: in}
			switch {
			case in.Op != traces.OpLoad && in.Op != traces.OpStore:
			case l.Refs[in.Ref].Space == kernel.SpaceShared:
				s.shared = true
				s.passes = banks.Transactions(rule, int(in.Width), in.Active, &in.Addr)
				s.requestLanes = banks.RequestLanes(rule, int(in.Width))
				span := uint32(1)<<s.requestLanes - 1 // 32 lanes: 0 - 1 wraps to all
				for lo := 0; lo < traces.WarpSize; lo += s.requestLanes {
					s.degrees = append(s.degrees, banks.Transactions(rule, int(in.Width), in.Active&(span<<lo), &in.Addr))
				}
				for lane := range traces.WarpSize {
					s.banks[lane] = banks.Bank(rule, in.Addr[lane])
				}
				mem++
			case l.Refs[in.Ref].Space == kernel.SpaceConstant:
				s.constant = true
				s.requestLanes = constmem.RequestLanes(d.Coalescer.Rule)
				span := uint32(1)<<s.requestLanes - 1
				for lo := 0; lo < traces.WarpSize; lo += s.requestLanes {
					s.degrees = append(s.degrees, len(constmem.Passes(d.Coalescer.Rule, in.Active&(span<<lo), &in.Addr, nil)))
					s.passes += s.degrees[len(s.degrees)-1]
				}
				mem++
			case l.Refs[in.Ref].Space == kernel.SpaceTexture || l.Refs[in.Ref].Space == kernel.SpaceReadOnly:
				s.texture = true
				s.lines = sim.TextureLines(in.Active, &in.Addr, nil)
				mem++
			default:
				_, txns := co.Coalesce(&in)
				s.txns = append([]coalesce.Txn(nil), txns...)
				mem++
			}
			out = append(out, s)
			if mem == n {
				return out, l.Err()
			}
		}
	}
	return out, l.Err()
}

// bankRule is the device's shared-memory bank rule when the launch has
// shared references.
func bankRule(d *arch.Device, l *traces.Launch) (banks.Rule, error) {
	for _, r := range l.Refs {
		if r.Space == kernel.SpaceShared {
			return sim.BankRule(d)
		}
	}
	return 0, nil
}

// laneRanges writes a lane (or sector) mask as ranges: "0-15,20,22-23".
func laneRanges(m uint32) string {
	if m == 0 {
		return "none"
	}
	var b strings.Builder
	for m != 0 {
		lo := bits.TrailingZeros32(m)
		hi := lo + bits.TrailingZeros32(^(m >> lo))
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if hi-1 == lo {
			fmt.Fprintf(&b, "%d", lo)
		} else {
			fmt.Fprintf(&b, "%d-%d", lo, hi-1)
		}
		if hi == 32 {
			break
		}
		m &^= 1<<hi - 1
	}
	return b.String()
}

// progression reports whether the active lanes of mask hold
// base + stride·(lane-lo), returning base and stride.
func progression(in *traces.WarpInst, mask uint32, lo int) (base uint64, stride int64, ok bool) {
	mask &= in.Active
	l0 := bits.TrailingZeros32(mask)
	rest := mask &^ (1 << l0)
	if rest == 0 {
		return 0, 0, false // a single lane is no progression
	}
	l1 := bits.TrailingZeros32(rest)
	d := int64(in.Addr[l1] - in.Addr[l0])
	if d%int64(l1-l0) != 0 {
		return 0, 0, false
	}
	stride = d / int64(l1-l0)
	base = in.Addr[l0] - uint64(stride*int64(l0-lo))
	for m := rest; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if in.Addr[l] != base+uint64(stride*int64(l-lo)) {
			return 0, 0, false
		}
	}
	return base, stride, true
}

// progressionText writes base + stride×lane, the lane counted from lo.
func progressionText(base uint64, stride int64, lo int) string {
	lane := "lane"
	if lo > 0 {
		lane = fmt.Sprintf("(lane-%d)", lo)
	}
	if stride < 0 {
		return fmt.Sprintf("%#x - %d×%s", base, -stride, lane)
	}
	return fmt.Sprintf("%#x + %d×%s", base, stride, lane)
}

// addressPattern describes the active lanes' addresses: one progression
// over the warp, else one per half-warp, else "" (the caller lists them).
func addressPattern(in *traces.WarpInst) string {
	if in.Active&(in.Active-1) == 0 {
		l := bits.TrailingZeros32(in.Active)
		return fmt.Sprintf("lane %d: %#x", l, in.Addr[l])
	}
	if base, stride, ok := progression(in, 0xFFFFFFFF, 0); ok {
		return progressionText(base, stride, 0)
	}
	var parts []string
	for _, lo := range []int{0, 16} {
		half := uint32(0xFFFF) << lo & in.Active
		switch {
		case half == 0:
			continue
		case half&(half-1) == 0:
			l := bits.TrailingZeros32(half)
			parts = append(parts, fmt.Sprintf("lane %d: %#x", l, in.Addr[l]))
		default:
			base, stride, ok := progression(in, half, lo)
			if !ok {
				return ""
			}
			parts = append(parts, fmt.Sprintf("lanes %d-%d: %s", lo, lo+15, progressionText(base, stride, lo)))
		}
	}
	return strings.Join(parts, "; ")
}

func activeText(active uint32) string {
	n := bits.OnesCount32(active)
	if n == traces.WarpSize {
		return "32 lanes"
	}
	return fmt.Sprintf("%d of 32 lanes active (mask %#08x: lanes %s)", n, active, laneRanges(active))
}

func writeInst(w io.Writer, l *traces.Launch, i int, s *shownInst) {
	in := &s.in
	r := &l.Refs[in.Ref]
	fmt.Fprintf(w, "#%-4d warp %d  %s %s (%d:%d)  %d B per lane, %s\n", i, in.Warp, in.Op, r.Text, r.Line, r.Col, in.Width, activeText(in.Active))
	if p := addressPattern(in); p != "" {
		fmt.Fprintf(w, "      addresses  %s\n", p)
	} else {
		fmt.Fprintln(w, "      addresses")
		var line []string
		for m := in.Active; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			line = append(line, fmt.Sprintf("%2d:%#x", l, in.Addr[l]))
			if len(line) == 4 || m&(m-1) == 0 {
				fmt.Fprintf(w, "        %s\n", strings.Join(line, "  "))
				line = line[:0]
			}
		}
	}
	requested := bits.OnesCount32(in.Active) * int(in.Width)
	if s.shared {
		writeBanks(w, s, requested)
		return
	}
	if s.constant {
		writeConstantPasses(w, s, requested)
		return
	}
	if s.texture {
		writeTextureLines(w, s, requested)
		return
	}
	var moved int
	for _, t := range s.txns {
		moved += int(t.Size)
	}
	fmt.Fprintf(w, "      %s, %d B moved for %d B requested\n", plural(len(s.txns), "transaction"), moved, requested)
	for _, t := range s.txns {
		fmt.Fprintf(w, "        %#x  %3d B  sectors %-7s  lanes %s\n", t.Addr, t.Size, laneRanges(uint32(t.Sectors)), laneRanges(t.Lanes))
	}
}

// writeBanks writes the bank of every active lane of a shared-memory
// instruction, eight lanes a line, and its passes through the banks.
func writeBanks(w io.Writer, s *shownInst, requested int) {
	fmt.Fprintln(w, "      banks (lane:bank)")
	var line []string
	for m := s.in.Active; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		line = append(line, fmt.Sprintf("%2d:%-2d", l, s.banks[l]))
		if len(line) == 8 || m&(m-1) == 0 {
			fmt.Fprintf(w, "        %s\n", strings.Join(line, "  "))
			line = line[:0]
		}
	}
	degree := ""
	if len(s.degrees) == 1 {
		degree = " (" + conflictText(s.degrees[0]) + ")"
	}
	fmt.Fprintf(w, "      shared memory: %s through the banks%s for %d B requested\n", plural(s.passes, "transaction"), degree, requested)
	if len(s.degrees) == 1 {
		return
	}
	part := map[int]string{16: "half-warp", 8: "quarter-warp"}[s.requestLanes]
	for i, d := range s.degrees {
		if d > 0 {
			fmt.Fprintf(w, "        %s %d (lanes %d-%d): %s\n", part, i, i*s.requestLanes, (i+1)*s.requestLanes-1, conflictText(d))
		}
	}
}

// writeTextureLines writes the lookups of a texture fetch: one per
// distinct 32-byte line its active lanes touch.
func writeTextureLines(w io.Writer, s *shownInst, requested int) {
	fmt.Fprintf(w, "      texture memory: %s of 32-byte lines in the texture cache for %d B requested\n", plural(len(s.lines), "lookup"), requested)
	for _, a := range s.lines {
		fmt.Fprintf(w, "        %#x\n", a)
	}
}

// writeConstantPasses writes the passes of a constant-memory instruction
// through the constant cache: one per distinct address of each request.
func writeConstantPasses(w io.Writer, s *shownInst, requested int) {
	fmt.Fprintf(w, "      constant memory: %s through the constant cache, one per distinct address, for %d B requested\n", plural(s.passes, "pass"), requested)
	if len(s.degrees) == 1 {
		return
	}
	for i, d := range s.degrees {
		if d > 0 {
			fmt.Fprintf(w, "        half-warp %d (lanes %d-%d): %s\n", i, i*s.requestLanes, (i+1)*s.requestLanes-1, plural(d, "address"))
		}
	}
}

// conflictText names the conflict degree of one request that takes
// passes through the banks.
func conflictText(passes int) string {
	if passes == 1 {
		return "no bank conflict"
	}
	return fmt.Sprintf("a %d-way bank conflict", passes)
}
