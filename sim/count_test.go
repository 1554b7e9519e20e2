package sim_test

import (
	"context"
	"fmt"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// One device per compute-capability family: its coalescing rule decides
// the counts below (shared/reference/hardware.md §2).
var ccFamilies = []struct {
	dev  string
	rule arch.CoalescingRule
}{
	{"g80", arch.RuleCC10},     // §2.1: strict half-warp rule
	{"gt200", arch.RuleCC13},   // §2.2: half-warp segment protocol, 128→64→32
	{"fermi", arch.RuleCC20},   // §2.3: loads through L1, 128-B lines; stores §2.6
	{"kepler", arch.RuleCC30},  // §2.4: 32-B segments through L2
	{"maxwell", arch.RuleCC50}, // §2.5: 32-B sectors
}

// txnClass is a kind of warp instruction of one reference: how many of them
// the kernel executes and what each costs. The expected totals are sums of
// insts × per-instruction cost, which keeps every number below a product
// of a closed-form instruction count and a per-instruction transaction
// count read off the rule.
type txnClass struct {
	insts          int64 // warp instructions of this kind
	lanes          int64 // active lanes in each
	t32, t64, t128 int64 // transactions of each size per instruction
	halves         int64 // half-warps with an active lane, per instruction
	coalesced      int64 // cc10: of those, half-warps coalesced (64- or 128-B transactions)
}

// fullWarps is a class of fully active warp instructions.
func fullWarps(insts, t32, t64, t128, coalesced int64) txnClass {
	return txnClass{insts: insts, lanes: 32, t32: t32, t64: t64, t128: t128, halves: 2, coalesced: coalesced}
}

// countWant is the expected classes of one reference, named as written.
type countWant struct {
	text    string
	classes []txnClass
}

// sumClasses sums the classes into the counts sim.Count must report for f32
// (4-byte) references.
func sumClasses(cs []txnClass) sim.RefCounts {
	var r sim.RefCounts
	for _, c := range cs {
		n := c.insts
		r.Requests += n
		r.Transactions += n * (c.t32 + c.t64 + c.t128)
		r.Txn32 += n * c.t32
		r.Txn64 += n * c.t64
		r.Txn128 += n * c.t128
		r.Bytes += n * (32*c.t32 + 64*c.t64 + 128*c.t128)
		r.Sectors += n * (c.t32 + 2*c.t64 + 4*c.t128)
		r.ActiveLanes += n * c.lanes
		r.RequestedBytes += n * c.lanes * 4
		r.HalfWarps += n * c.halves
		r.Coalesced += n * c.coalesced
	}
	return r
}

// wantMatmulBeta is matmul under mapping β (i1→ty, i2→tx), 16×16 blocks, f32,
// A M×P, B P×N, C M×N, all row-major at 256-B aligned bases. It needs N a
// multiple of 16, M even (the last block row may be partial: its warps
// are then either full or empty, since a warp is two whole rows of 16
// threads) and 4·P ≥ 128 bytes.
//
// Warp: lanes 0-15 are row r (i1 = r), columns c0..c0+15 (c0 a multiple
// of 16); lanes 16-31 row r+1, same columns. W = M·N/32 warps, each runs P
// iterations of i3 (one load of A and one of B each), then stores C once.
//
//   - A[i1][i3]: lanes 0-15 all read word r·P+i3, lanes 16-31 all word
//     (r+1)·P+i3, 4P ≥ 128 bytes further: two words in two different
//     128-B lines (and 32-B sectors).
//     cc10: a broadcast is not "thread k reads word k": each half-warp is
//     uncoalesced, 16 × 32 B, 32 per warp instruction.
//     cc13: per half-warp one segment, one 32-B chunk used: 128→64→32, so
//     2 × 32 B. cc20: 2 lines × 128 B. cc30/cc50: 2 sectors × 32 B.
//   - B[i3][i2]: each half-warp reads the 16 consecutive words
//     i3·N+c0 .. +15, 64 bytes at a 64-B aligned address (N, c0 multiples
//     of 16); both half-warps read the same 64 bytes.
//     cc10: coalesced, one 64-B transaction per half-warp, 2.
//     cc13: per half-warp a 128-B segment with one half used: 64 B, 2.
//     cc20: one 128-B line for the warp. cc30/cc50: 2 sectors × 32 B.
//   - C[i1][i2] (store, once per warp): rows r and r+1, 16 consecutive
//     words each, 64-B aligned, 4N ≥ 64 bytes apart.
//     cc10, cc13: per half-warp 64 B as for B, 2 × 64 B.
//     cc20 (stores: 128-B segments per warp, reduced as on cc13, §2.6):
//     rows r, r+1 lie in one 128-B segment only if 4N < 128; with N ≥ 32
//     they are two segments with one half used, 2 × 64 B — for N = 16 one
//     segment, both halves used, 1 × 128 B. cc30/cc50: 2 × 2 sectors.
func wantMatmulBeta(rule arch.CoalescingRule, M, N, P int64) []countWant {
	W := M * N / 32 // warps
	R := W * P      // warp instructions per load reference
	var a, b, c txnClass
	switch rule {
	case arch.RuleCC10:
		a, b, c = fullWarps(R, 32, 0, 0, 0), fullWarps(R, 0, 2, 0, 2), fullWarps(W, 0, 2, 0, 2)
	case arch.RuleCC13:
		a, b, c = fullWarps(R, 2, 0, 0, 0), fullWarps(R, 0, 2, 0, 0), fullWarps(W, 0, 2, 0, 0)
	case arch.RuleCC20:
		a, b, c = fullWarps(R, 0, 0, 2, 0), fullWarps(R, 0, 0, 1, 0), fullWarps(W, 0, 2, 0, 0)
		if 4*N < 128 {
			c = fullWarps(W, 0, 0, 1, 0)
		}
	default: // cc30, cc50
		a, b, c = fullWarps(R, 2, 0, 0, 0), fullWarps(R, 2, 0, 0, 0), fullWarps(W, 4, 0, 0, 0)
	}
	return []countWant{{"A[i1][i3]", []txnClass{a}}, {"B[i3][i2]", []txnClass{b}}, {"C[i1][i2]", []txnClass{c}}}
}

// wantMatmulAlpha is matmul under mapping α (i1→tx, i2→ty), 16×16 blocks. It
// needs N a multiple of 16 (so warps are whole), 4P ≥ 128 and 4N ≥ 128,
// and M a multiple of 16 or 8 more than one (a partial last block column).
//
// Warp: lanes 0-15 are rows i1 = r0..r0+15 at column i2 = c (c even);
// lanes 16-31 the same rows at column c+1. With M ≡ 8 (mod 16) the last
// block column has tx = 0..7 only: lanes 0-7 and 16-23 active, 16 lanes.
// Full warps: ⌊M/16⌋·16 rows × N columns / 32 = ⌊M/16⌋·N/2; partial
// warps: N/2.
//
//   - A[i1][i3]: lane k reads word (r0+k)·P+i3: per half-warp 16 (8)
//     words 4P ≥ 128 bytes apart, the same words in both halves.
//     cc10: not word k of one segment: 32 (16) × 32 B.
//     cc13: per half-warp 16 (8) segments, one chunk each: 32 (16) × 32 B.
//     cc20: 16 (8) lines × 128 B. cc30/cc50: 16 (8) sectors.
//   - B[i3][i2]: lanes 0-15 all read word i3·N+c, lanes 16-31 word
//     i3·N+c+1; with c even both lie in one 8-byte pair, one 32-B sector.
//     cc10: broadcasts are uncoalesced: 32 (16) × 32 B. cc13: one 32-B
//     transaction per half-warp, 2. cc20: 1 line. cc30/cc50: 1 sector.
//   - C[i1][i2] (store, once per warp): lane k writes word (r0+k)·N+c,
//     lane k+16 the next word: 16 (8) word pairs 4N ≥ 128 bytes apart.
//     cc10: 32 (16) × 32 B. cc13: 16 (8) segments per half-warp, 32 B
//     each: 32 (16). cc20: per warp 16 (8) segments with 8 bytes in one
//     chunk: 32 B each. cc30/cc50: 16 (8) sectors.
func wantMatmulAlpha(rule arch.CoalescingRule, M, N, P int64) []countWant {
	Wf := M / 16 * N / 2 // full warps
	var Wp int64         // warps with 16 active lanes
	if M%16 == 8 {
		Wp = N / 2
	}
	var a, b, c [2]txnClass // full, partial
	part := func(insts, t32, t128, halfLanes int64) txnClass {
		return txnClass{insts: insts, lanes: 2 * halfLanes, t32: t32, t128: t128, halves: 2}
	}
	for i, w := range []struct{ n, lanes int64 }{{Wf, 16}, {Wp, 8}} {
		// lanes is per half-warp; rows per warp instruction = lanes.
		h := w.lanes
		switch rule {
		case arch.RuleCC10:
			a[i], b[i], c[i] = part(w.n*P, 2*h, 0, h), part(w.n*P, 2*h, 0, h), part(w.n, 2*h, 0, h)
		case arch.RuleCC13:
			a[i], b[i], c[i] = part(w.n*P, 2*h, 0, h), part(w.n*P, 2, 0, h), part(w.n, 2*h, 0, h)
		case arch.RuleCC20:
			a[i], b[i], c[i] = part(w.n*P, 0, h, h), part(w.n*P, 0, 1, h), part(w.n, h, 0, h)
		default:
			a[i], b[i], c[i] = part(w.n*P, h, 0, h), part(w.n*P, 1, 0, h), part(w.n, h, 0, h)
		}
	}
	return []countWant{{"A[i1][i3]", a[:]}, {"B[i3][i2]", b[:]}, {"C[i1][i2]", c[:]}}
}

// wantVecadd: C[i] = A[i] + B[i], i→tx, blocks of 128, N threads. Warp w
// reads the 32 consecutive words 32w..32w+31, 128 bytes at a 128-B
// aligned address. Full warps F = ⌊N/32⌋; with t = N mod 32 in 1..16 one
// more warp has lanes 0..t-1 active (4t ≤ 64 bytes from a 128-B aligned
// address, all in half-warp 0); warps past N are empty.
//
// Full warp, each of A, B (loads) and C (store):
// cc10: per half-warp word k at word k of a 64-B segment: 2 × 64 B.
// cc13: per half-warp one 128-B segment, one half used: 2 × 64 B.
// cc20: one 128-B line; the store, one 128-B segment fully used: 128 B.
// cc30/cc50: 4 sectors.
// Tail warp: cc10: half-warp 0 is coalesced (inactive lanes do not break
// it): 1 × 64 B. cc13 and cc20 stores: the 128-B segment reduces to 32 B
// when 4t ≤ 32, else 64 B. cc20 loads: 1 line. cc30/cc50: ⌈4t/32⌉ sectors.
func wantVecadd(rule arch.CoalescingRule, N int64) []countWant {
	F, t := N/32, N%32
	reduced := func() txnClass { // cc13 segment after the 128→64→32 reduction
		if 4*t <= 32 {
			return txnClass{insts: 1, lanes: t, t32: 1, halves: 1}
		}
		return txnClass{insts: 1, lanes: t, t64: 1, halves: 1}
	}
	var ld, st []txnClass
	switch rule {
	case arch.RuleCC10:
		ld = []txnClass{fullWarps(F, 0, 2, 0, 2), {insts: 1, lanes: t, t64: 1, halves: 1, coalesced: 1}}
		st = ld
	case arch.RuleCC13:
		ld = []txnClass{fullWarps(F, 0, 2, 0, 0), reduced()}
		st = ld
	case arch.RuleCC20:
		ld = []txnClass{fullWarps(F, 0, 0, 1, 0), {insts: 1, lanes: t, t128: 1, halves: 1}}
		st = []txnClass{fullWarps(F, 0, 0, 1, 0), reduced()}
	default:
		ld = []txnClass{fullWarps(F, 4, 0, 0, 0), {insts: 1, lanes: t, t32: (4*t + 31) / 32, halves: 1}}
		st = ld
	}
	if t == 0 {
		ld, st = ld[:1], st[:1]
	}
	return []countWant{{"A[i]", ld}, {"B[i]", ld}, {"C[i]", st}}
}

// wantTranspose: out[i2][i1] = in[i1][i2], i1→ty, i2→tx, 16×16 blocks, N a
// multiple of 16 with 4N ≥ 128. Warp: lanes 0-15 are i1 = r, i2 =
// c0..c0+15; lanes 16-31 i1 = r+1 (r even). W = N²/32 warps, one load
// and one store each.
//
//   - in[i1][i2]: each half-warp reads 16 consecutive words of its row,
//     64 B at a 64-B aligned address; the rows are 4N ≥ 128 bytes apart.
//     cc10, cc13: 2 × 64 B. cc20: 2 lines. cc30/cc50: 4 sectors.
//   - out[i2][i1]: lane k writes word (c0+k)·N+r, lane k+16 the next word:
//     16 word pairs, 4N ≥ 128 bytes apart, each pair in one sector.
//     cc10: uncoalesced, 32 × 32 B. cc13: 16 segments per half-warp, one
//     chunk each: 32 × 32 B. cc20: per warp 16 segments, one chunk each:
//     16 × 32 B. cc30/cc50: 16 sectors.
func wantTranspose(rule arch.CoalescingRule, N int64) []countWant {
	W := N * N / 32
	var in, out txnClass
	switch rule {
	case arch.RuleCC10:
		in, out = fullWarps(W, 0, 2, 0, 2), fullWarps(W, 32, 0, 0, 0)
	case arch.RuleCC13:
		in, out = fullWarps(W, 0, 2, 0, 0), fullWarps(W, 32, 0, 0, 0)
	case arch.RuleCC20:
		in, out = fullWarps(W, 0, 0, 2, 0), fullWarps(W, 16, 0, 0, 0)
	default:
		in, out = fullWarps(W, 4, 0, 0, 0), fullWarps(W, 16, 0, 0, 0)
	}
	return []countWant{{"in[i1][i2]", []txnClass{in}}, {"out[i2][i1]", []txnClass{out}}}
}

// wantCopyRowMajor: des[cols*tid + i] = src[cols*tid + i], tid→tx, cols = 16
// (in-thread loop), rows a multiple of 32. W = rows/32 warps, each runs 16
// iterations of one load and one store. Lane k accesses word 16k+i: lanes
// 64 bytes apart, offset 4i < 64 inside their 64-B block.
//
// cc10: not word k: 32 × 32 B. cc13: per half-warp 8 segments of 128 B,
// each holding lanes 2j and 2j+1 at offsets 4i (lower half) and 64+4i
// (upper half): no reduction, 16 × 128 B per warp. cc20 loads: 16 lines;
// stores: 16 segments with both halves used, 16 × 128 B. cc30/cc50: every
// lane its own sector, 32 × 32 B.
func wantCopyRowMajor(rule arch.CoalescingRule, rows int64) []countWant {
	R := rows / 32 * 16
	var c txnClass
	switch rule {
	case arch.RuleCC10, arch.RuleCC30, arch.RuleCC50:
		c = fullWarps(R, 32, 0, 0, 0)
	default: // cc13, cc20
		c = fullWarps(R, 0, 0, 16, 0)
	}
	return []countWant{{"src[cols*tid+i]", []txnClass{c}}, {"des[cols*tid+i]", []txnClass{c}}}
}

// wantCopyColMajor: des[rows*i + tid] = src[rows*i + tid], tid→tx, rows a
// multiple of 32. A warp reads 32 consecutive words, 128 bytes at a 128-B
// aligned address (4·rows·i is a multiple of 128): vecadd's full warp.
// W = rows/32 warps × cols iterations.
func wantCopyColMajor(rule arch.CoalescingRule, rows, cols int64) []countWant {
	R := rows / 32 * cols
	var c txnClass
	switch rule {
	case arch.RuleCC10:
		c = fullWarps(R, 0, 2, 0, 2)
	case arch.RuleCC13:
		c = fullWarps(R, 0, 2, 0, 0)
	case arch.RuleCC20:
		c = fullWarps(R, 0, 0, 1, 0)
	default:
		c = fullWarps(R, 4, 0, 0, 0)
	}
	return []countWant{{"src[rows*i+tid]", []txnClass{c}}, {"des[rows*i+tid]", []txnClass{c}}}
}

// countKernel binds kernel with mapping (empty: the kernel's) and params on dev
// and counts it.
func countKernel(t testing.TB, dev *arch.Device, kernel, mapping string, params map[string]int64) (*traces.Launch, *sim.Counts) {
	t.Helper()
	l := bindOn(t, dev, kernel, mapping, "", params)
	c, err := sim.Count(context.Background(), dev, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l, c
}

func checkRefCounts(t *testing.T, what string, rule arch.CoalescingRule, got, want sim.RefCounts) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want int64
	}{
		{"requests", got.Requests, want.Requests},
		{"transactions", got.Transactions, want.Transactions},
		{"32-B transactions", got.Txn32, want.Txn32},
		{"64-B transactions", got.Txn64, want.Txn64},
		{"128-B transactions", got.Txn128, want.Txn128},
		{"bytes", got.Bytes, want.Bytes},
		{"sectors", got.Sectors, want.Sectors},
		{"requested bytes", got.RequestedBytes, want.RequestedBytes},
		{"active lanes", got.ActiveLanes, want.ActiveLanes},
		{"half-warps", got.HalfWarps, want.HalfWarps},
	} {
		if f.got != f.want {
			t.Errorf("%s: %s = %d; want %d", what, f.name, f.got, f.want)
		}
	}
	// Coalesced half-warps mean something on CC 1.0/1.1 only.
	if rule == arch.RuleCC10 && got.Coalesced != want.Coalesced {
		t.Errorf("%s: coalesced half-warps = %d; want %d", what, got.Coalesced, want.Coalesced)
	}
}

// Whole-kernel totals equal the closed forms above, per reference and in
// the load and store totals, on every family.
func TestCountClosedForm(t *testing.T) {
	p3 := func(m, n, p int64) map[string]int64 { return map[string]int64{"M": m, "N": n, "P": p} }
	cases := []struct {
		name, kernel, mapping string
		params                map[string]int64
		want                  func(rule arch.CoalescingRule) []countWant
	}{
		{"matmul-beta-32", "matmul", "i1=ty,i2=tx", p3(32, 32, 32), func(r arch.CoalescingRule) []countWant { return wantMatmulBeta(r, 32, 32, 32) }},
		{"matmul-beta-64", "matmul", "i1=ty,i2=tx", p3(64, 64, 64), func(r arch.CoalescingRule) []countWant { return wantMatmulBeta(r, 64, 64, 64) }},
		{"matmul-beta-16x48x40", "matmul", "i1=ty,i2=tx", p3(16, 48, 40), func(r arch.CoalescingRule) []countWant { return wantMatmulBeta(r, 16, 48, 40) }},
		{"matmul-beta-partial-40x32x32", "matmul", "i1=ty,i2=tx", p3(40, 32, 32), func(r arch.CoalescingRule) []countWant { return wantMatmulBeta(r, 40, 32, 32) }},
		{"matmul-beta-n16", "matmul", "i1=ty,i2=tx", p3(32, 16, 32), func(r arch.CoalescingRule) []countWant { return wantMatmulBeta(r, 32, 16, 32) }},
		{"matmul-alpha-32", "matmul", "i1=tx,i2=ty", p3(32, 32, 32), func(r arch.CoalescingRule) []countWant { return wantMatmulAlpha(r, 32, 32, 32) }},
		{"matmul-alpha-64", "matmul", "i1=tx,i2=ty", p3(64, 64, 64), func(r arch.CoalescingRule) []countWant { return wantMatmulAlpha(r, 64, 64, 64) }},
		{"matmul-alpha-32x64x48", "matmul", "i1=tx,i2=ty", p3(32, 64, 48), func(r arch.CoalescingRule) []countWant { return wantMatmulAlpha(r, 32, 64, 48) }},
		{"matmul-alpha-partial-40x32x32", "matmul", "i1=tx,i2=ty", p3(40, 32, 32), func(r arch.CoalescingRule) []countWant { return wantMatmulAlpha(r, 40, 32, 32) }},
		{"vecadd-4096", "vecadd", "", map[string]int64{"N": 4096}, func(r arch.CoalescingRule) []countWant { return wantVecadd(r, 4096) }},
		{"vecadd-partial-4136", "vecadd", "", map[string]int64{"N": 4096 + 40}, func(r arch.CoalescingRule) []countWant { return wantVecadd(r, 4096+40) }},
		{"vecadd-partial-4108", "vecadd", "", map[string]int64{"N": 4096 + 12}, func(r arch.CoalescingRule) []countWant { return wantVecadd(r, 4096+12) }},
		{"transpose-32", "transpose", "", map[string]int64{"N": 32}, func(r arch.CoalescingRule) []countWant { return wantTranspose(r, 32) }},
		{"transpose-128", "transpose", "", map[string]int64{"N": 128}, func(r arch.CoalescingRule) []countWant { return wantTranspose(r, 128) }},
		{"copy-rowmajor", "copy-rowmajor", "", map[string]int64{"rows": 1024, "cols": 16}, func(r arch.CoalescingRule) []countWant { return wantCopyRowMajor(r, 1024) }},
		{"copy-colmajor", "copy-colmajor", "", map[string]int64{"rows": 1024, "cols": 16}, func(r arch.CoalescingRule) []countWant { return wantCopyColMajor(r, 1024, 16) }},
		{"copy-colmajor-cols5", "copy-colmajor", "", map[string]int64{"rows": 512, "cols": 5}, func(r arch.CoalescingRule) []countWant { return wantCopyColMajor(r, 512, 5) }},
	}
	for _, f := range ccFamilies {
		dev, err := configs.Load(f.dev)
		if err != nil {
			t.Fatal(err)
		}
		if dev.Coalescer.Rule != f.rule {
			t.Fatalf("device %s has coalescer rule %s; this test expects %s", f.dev, dev.Coalescer.Rule, f.rule)
		}
		for _, tc := range cases {
			t.Run(f.dev+"/"+tc.name, func(t *testing.T) {
				l, c := countKernel(t, dev, tc.kernel, tc.mapping, tc.params)
				want := tc.want(f.rule)
				if len(l.Refs) != len(want) {
					t.Fatalf("%s has %d references; the closed form has %d", tc.kernel, len(l.Refs), len(want))
				}
				var loads, stores []txnClass
				for i, w := range want {
					r := l.Refs[i]
					if r.Text != w.text {
						t.Fatalf("reference %d is %s; the closed form is for %s", i, r.Text, w.text)
					}
					checkRefCounts(t, fmt.Sprintf("Count(%s on %s) %s %s", tc.name, f.dev, r.Op, r.Text), f.rule, c.Refs[i], sumClasses(w.classes))
					if r.Op == traces.OpStore {
						stores = append(stores, w.classes...)
					} else {
						loads = append(loads, w.classes...)
					}
				}
				checkRefCounts(t, fmt.Sprintf("Count(%s on %s) all loads", tc.name, f.dev), f.rule, c.Loads, sumClasses(loads))
				checkRefCounts(t, fmt.Sprintf("Count(%s on %s) all stores", tc.name, f.dev), f.rule, c.Stores, sumClasses(stores))
			})
		}
	}
}

// The stride example: thread i reads word S·i, so a warp's 32 lanes span
// 4S·31+4 bytes from a 128·S-byte aligned start, lanes 4S bytes apart.
// With S ≤ 32 the step is at most 128 bytes, so every 128-B line from the
// first to the last is touched: ⌊124S/128⌋+1 = S lines (31S/32 lies in
// [S-1, S)). With 32-B sectors and S ≤ 8 every sector is touched:
// ⌊124S/32⌋+1 = 4S (31S/8 lies in [4S-1, 4S)); with S > 8 the lanes are
// more than 32 bytes apart, one sector each: 32. So
// gld_transactions_per_request = S on a 128-byte-line rule and
// min(4S, 32) on a 32-byte rule.
func TestCountStride(t *testing.T) {
	for _, tc := range []struct {
		dev  string
		want func(S int64) int64
	}{
		{"fermi", func(S int64) int64 { return S }},              // cc20, loads through L1: 128-B lines
		{"kepler", func(S int64) int64 { return min(4*S, 32) }},  // cc30: 32-B segments
		{"maxwell", func(S int64) int64 { return min(4*S, 32) }}, // cc50: 32-B sectors
	} {
		dev, err := configs.Load(tc.dev)
		if err != nil {
			t.Fatal(err)
		}
		const N = 4096 // 128 warps
		for S := int64(1); S <= 32; S++ {
			_, c := countKernel(t, dev, "stride", "", map[string]int64{"N": N, "S": S, "O": 0})
			if c.Loads.Requests != N/32 {
				t.Errorf("stride S=%d on %s: %d load requests; want %d", S, tc.dev, c.Loads.Requests, N/32)
			}
			got := float64(c.Loads.Transactions) / float64(c.Loads.Requests)
			if want := tc.want(S); got != float64(want) {
				t.Errorf("stride S=%d on %s: gld_transactions_per_request = %g; want %d", S, tc.dev, got, want)
			}
			if c.Stores.Requests != 0 {
				t.Errorf("stride S=%d on %s: %d store requests; want 0", S, tc.dev, c.Stores.Requests)
			}
		}
	}
}
