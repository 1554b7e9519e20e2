package sim

import "math"

// Rates of the window other than of counters: cycles and resident
// warp-cycles, per block finished.
const (
	rateCycles     = -1
	rateWarpCycles = -2
)

// rate is the rate over the waves ds of counter i per instruction, or of
// rateCycles or rateWarpCycles per block. Each is taken where it happens:
// counters at issue (the SMs, L1 and L2 count as an instruction issues)
// per instruction issued; time per block finished, since the blocks'
// completions, not the issue that may run ahead of them, mark the
// progress of time; and DRAM's counters, which lag the instructions that
// cause them (requests wait in queues, and on devices without an L2
// nothing bounds those queues), as the DRAM's own per request accepted
// times the requests sent per instruction (the reads, writes, bytes and
// sectors the caches send are counted as they are sent). A window in which
// a backlog grows or drains then still gives the rates of the steady
// state. What stores cause (writes at L2 and DRAM, write-backs) is per
// store instruction: stores come in bursts (a block's results at its
// end), which a rate per memory instruction would follow. A reference's
// own counts are per its own instructions: a reference a block issues
// once, at its start or end, would otherwise follow where the window's
// boundaries cut the blocks.
func (sp *sampler) rate(ds []snapshot, i int) float64 {
	var num, insts, sent, sentI float64
	for j := range ds {
		d := &ds[j]
		switch {
		case i >= 0 && sp.refOf[i] >= 0:
			insts += float64(d.counts[sp.refReqs[sp.refOf[i]]])
		case i >= 0 && sp.store[i]:
			insts += float64(d.stores)
		default:
			insts += float64(d.counts[sp.inst])
		}
		sent += float64(d.sent[0] + d.sent[1])
		if i >= 0 && sp.sentIndex[i] >= 0 {
			sentI += float64(d.sent[sp.sentIndex[i]])
		}
		switch i {
		case rateCycles:
			num += float64(d.t)
		case rateWarpCycles:
			num += float64(d.warpCycles)
		default:
			num += float64(d.counts[i])
		}
	}
	switch {
	case i < 0:
		return num / float64(int64(len(ds))*sp.per)
	case insts == 0:
		return 0
	case sp.sentIndex[i] >= 0:
		return sentI / insts
	case sp.dram[i]:
		return sp.perAccepted(ds, i) * sent / insts
	}
	return num / insts
}

// perAccepted is the rate over the waves ds of DRAM's own counter i per
// request DRAM accepted.
func (sp *sampler) perAccepted(ds []snapshot, i int) float64 {
	var num, accepted float64
	for j := range ds {
		num += float64(ds[j].counts[i])
		accepted += float64(ds[j].counts[sp.dramReads] + ds[j].counts[sp.dramWrites])
	}
	if accepted == 0 {
		return 0
	}
	return num / accepted
}

// steady reports whether skipping m waves now would leave the
// extrapolated cycles and each main counter within its tolerance at 95%
// confidence: the half-width of the rate over the batches, times the
// instructions (blocks, for cycles) skipped, against the projected total;
// and whether the rate has stopped moving: the first half of the
// window's against the second half's, likewise.
func (sp *sampler) steady(deltas []snapshot, m int64, g *grid) bool {
	last := &sp.snaps[len(sp.snaps)-1]
	perBlock := float64(last.counts[sp.inst]) / float64(g.done)
	storesPerBlock := float64(last.stores) / float64(g.done)
	skipBlocks, leftBlocks := float64(m*sp.wave), float64(g.total-g.done)
	xs := make([]float64, len(deltas))
	h := len(deltas) / 2
	ok := func(i int, sofar int64, tol float64) bool {
		for j := range deltas {
			xs[j] = sp.rate(deltas[j:j+1], i)
		}
		_, half := meanCI(xs)
		drift := math.Abs(sp.rate(deltas[:h], i) - sp.rate(deltas[len(deltas)-h:], i))
		skip, left := skipBlocks, leftBlocks
		switch {
		case i >= 0 && sp.store[i]:
			skip, left = skip*storesPerBlock, left*storesPerBlock
		case i >= 0:
			skip, left = skip*perBlock, left*perBlock
		}
		total := float64(sofar) + sp.rate(deltas, i)*left
		return max(half, drift)*skip <= tol*total
	}
	if !ok(rateCycles, last.t, sp.opts.CyclesTolerance) {
		return false
	}
	for _, i := range sp.keyIndex {
		if !ok(i, last.counts[i], sp.opts.CountTolerance) {
			return false
		}
	}
	return true
}

// meanCI is the mean of xs and the half-width of its 95% confidence
// interval by Student's t.
func meanCI(xs []float64) (mean, half float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	return mean, studentT95(len(xs)-1) * sd / math.Sqrt(n)
}

// studentT95 is the two-sided 95% quantile of Student's t with df degrees
// of freedom (df ≥ 1), from the standard table.
func studentT95(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228}
	if df <= len(table) {
		return table[df-1]
	}
	return 1.96
}
