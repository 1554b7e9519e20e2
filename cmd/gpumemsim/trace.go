package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"text/tabwriter"

	"gpumemsim/arch"
	"gpumemsim/kernel"
	"gpumemsim/sim"
	"gpumemsim/sim/banks"
	"gpumemsim/sim/coalesce"
	"gpumemsim/traces"
)

// fastCount is the most warp instructions trace counts through the
// coalescer without -totals: about a second (45 million per second).
const fastCount = 5e7

func cmdTrace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace", "-device NAME|FILE -kernel NAME|FILE [-map i1=ty,i2=tx] [-block 16x16] [-grid XxY] [-set K=V,...] [-cache-config prefer-shared|prefer-l1|prefer-equal] [-warps N] [-totals] [-format text|json]", stderr)
	lf := addLaunchFlags(fs)
	lf.addGrid(fs)
	shown := fs.Int("warps", 8, "how many memory warp instructions of block 0 to show")
	totals := fs.Bool("totals", false, fmt.Sprintf("count the whole kernel through the coalescer even when it has more than %s warp instructions", sci(fastCount)))
	maxWork := workFlag(fs)
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args, 0); help || err != nil {
		return err
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	if err := checkCap(*maxWork); err != nil {
		return err
	}
	if *shown < 0 {
		return fmt.Errorf("-warps: must not be negative; got %d", *shown)
	}
	d, l, err := lf.load()
	if err != nil {
		return err
	}
	// Showing block 0's first instructions walks its warps, whose loops may
	// be long even where the kernel has few warps.
	work := l.WarpInstructions()
	perWarp := work / float64(max(1, l.ActiveWarps()))
	if err := checkWork("a warp of "+l.Kernel.Name+" with "+paramString(l), perWarp, *maxWork); err != nil {
		return err
	}
	count := *totals || work <= fastCount
	if *totals {
		if err := checkWork(l.Kernel.Name+" with "+paramString(l), work, *maxWork); err != nil {
			return err
		}
	}
	co, err := sim.NewCoalescer(d)
	if err != nil {
		return err
	}
	insts, err := firstInsts(d, l, co, *shown)
	if err != nil {
		return err
	}
	if *format == "text" {
		// The instructions go out before the kernel is counted.
		if err := writeTraceHead(stdout, d, l, insts, *shown); err != nil {
			return err
		}
		if !count {
			_, err := fmt.Fprintf(stdout, "\nTotals over the whole kernel: not counted, about %s warp instructions; -totals counts them (about a second per %s).\n", sci(work), sci(fastCount))
			return err
		}
	}
	var counts *sim.Counts
	var metrics []sim.Metric
	if count {
		if counts, err = sim.Count(ctx, d, l, nil); err != nil {
			return err
		}
		metrics = sim.CountMetrics(d.Coalescer.Rule, &counts.Loads, &counts.Stores)
		if l.Info().PerThread {
			metrics = append(metrics, sim.SharedMetrics(d, &counts.Shared)...)
		}
	}
	if *format == "json" {
		return writeJSON(stdout, traceJSON(d, l, insts, metrics, counts))
	}
	return writeTraceTotals(stdout, d, l, metrics, counts)
}

// shownInst is one instruction of the classroom view: a copy of the warp
// instruction and, for memory instructions, its transactions, or for
// shared-memory ones each lane's bank and the passes through the banks.
type shownInst struct {
	in     traces.WarpInst
	txns   []coalesce.Txn
	shared bool
	banks  [traces.WarpSize]int
	passes int
	// wholeWarp says the bank rule serves the warp as one request (not
	// per half- or quarter-warp).
	wholeWarp bool
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
				s.wholeWarp = rule != banks.CC1x && (in.Width <= 4 || rule == banks.CC3x64 && in.Width <= 8)
				for lane := range traces.WarpSize {
					s.banks[lane] = banks.Bank(rule, in.Addr[lane])
				}
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
			rule, err := banks.RuleFor(d.Coalescer.Rule, d.SM.BankWidth)
			if err != nil {
				return 0, fmt.Errorf("device %s: shared memory: %w", d.Name, err)
			}
			return rule, nil
		}
	}
	return 0, nil
}

// formatFloat prints a metric with at most two decimals and no trailing
// zeros.
func formatFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
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

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func activeText(active uint32) string {
	n := bits.OnesCount32(active)
	if n == traces.WarpSize {
		return "32 lanes"
	}
	return fmt.Sprintf("%d of 32 lanes active (mask %#08x: lanes %s)", n, active, laneRanges(active))
}

func describeDevice(d *arch.Device) string {
	path := ""
	switch d.Coalescer.Rule {
	case arch.RuleCC20, arch.RuleCC30:
		if sim.LoadPath(d) == coalesce.L1 {
			path = ", loads cached in L1 (128-B lines)"
		} else {
			path = ", loads cached in L2 only (32-B segments)"
		}
	}
	return fmt.Sprintf("%s (%s, compute capability %s, coalescer %s%s)", d.Name, d.Board, d.ComputeCapability, d.Coalescer.Rule, path)
}

func arrayShape(a traces.BoundArray) string {
	var b strings.Builder
	b.WriteString(a.Type.String())
	for _, n := range a.Dims {
		fmt.Fprintf(&b, "[%d]", n)
	}
	if a.Layout == kernel.ColMajor {
		b.WriteString(" col-major")
	}
	return b.String()
}

func paramsText(ps []kernel.Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s=%d", p.Name, p.Value)
	}
	return strings.Join(parts, " ")
}

// writeTraceHead writes the launch and block 0's first n memory
// instructions with their transactions.
func writeTraceHead(w io.Writer, d *arch.Device, l *traces.Launch, insts []shownInst, n int) error {
	k := l.Kernel
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "device\t%s\n", describeDevice(d))
	if s := splitText(d); s != "" {
		fmt.Fprintf(tw, "cache config\t%s\n", s)
	}
	desc := ""
	if d := strings.TrimSpace(k.Description); d != "" {
		desc = ": " + d
	}
	fmt.Fprintf(tw, "kernel\t%s (%s; positions below are line:col there)%s\n", k.Name, k.File, desc)
	fmt.Fprintf(tw, "mapping\t%s\n", l.Mapping)
	fmt.Fprintf(tw, "block\t%s (%d threads, %d warps)\n", l.Block, l.Block.Threads(), l.WarpsPerBlock())
	fmt.Fprintf(tw, "grid\t%s (%s)\n", l.Grid(), plural(l.Blocks(), "block"))
	fmt.Fprintf(tw, "params\t%s\n", paramsText(l.Params))
	for i, a := range l.Arrays {
		label := ""
		if i == 0 {
			label = "arrays"
		}
		fmt.Fprintf(tw, "%s\t%s %s at %#x (%s)\n", label, a.Name, arrayShape(a), a.Base, arch.Bytes(a.Size))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nBlock 0, the first %d memory instructions in issue order (warp 0's, then warp 1's, ...); compute instructions are one line each, not counted:\n", n)
	mem := 0
	for i := range insts {
		s := &insts[i]
		switch s.in.Op {
		case traces.OpCompute:
			fmt.Fprintf(w, "      warp %d  compute %d\n", s.in.Warp, s.in.Count)
			continue
		case traces.OpBarrier:
			fmt.Fprintf(w, "      warp %d  __syncthreads()\n", s.in.Warp)
			continue
		}
		mem++
		writeInst(w, l, mem, s)
	}
	if mem < n {
		fmt.Fprintf(w, "  (block 0 has only %d memory instructions)\n", mem)
	}
	return nil
}

// writeTraceTotals writes the whole kernel's counts per reference and as
// profiler metrics.
func writeTraceTotals(w io.Writer, d *arch.Device, l *traces.Launch, metrics []sim.Metric, c *sim.Counts) error {
	fmt.Fprintf(w, "\nTotals over the whole kernel (%s):\n", plural(l.Blocks(), "block"))
	if err := writeRefTable(w, d, l, c); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nProfiler metrics (%s):\n", d.Coalescer.Rule)
	return writeMetricTable(w, metrics, true)
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
	if s.wholeWarp {
		// One request per warp: the passes are the conflict degree.
		degree = " (no bank conflict)"
		if s.passes > 1 {
			degree = fmt.Sprintf(" (a %d-way bank conflict)", s.passes)
		}
	}
	fmt.Fprintf(w, "      shared memory: %s through the banks%s for %d B requested\n", plural(s.passes, "transaction"), degree, requested)
}

func writeRefTable(w io.Writer, d *arch.Device, l *traces.Launch, c *sim.Counts) error {
	cc10 := d.Coalescer.Rule == arch.RuleCC10
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "REF\tAT\tOP\tREQUESTS\tTRANSACTIONS\t32B\t64B\t128B\tBYTES\tREQUESTED\tTXN/REQ\tEFFICIENCY %\t"
	if cc10 {
		head += "HALF-WARPS\tCOALESCED\t"
	}
	fmt.Fprintln(tw, head)
	row := func(name, at, op string, r *sim.RefCounts) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t", name, at, op,
			r.Requests, r.Transactions, r.Txn32, r.Txn64, r.Txn128, r.Bytes, r.RequestedBytes,
			formatFloat(r.TransactionsPerRequest()), formatFloat(r.Efficiency()))
		if cc10 {
			fmt.Fprintf(tw, "%d\t%d\t", r.HalfWarps, r.Coalesced)
		}
		fmt.Fprintln(tw)
	}
	for i := range l.Refs {
		r := &l.Refs[i]
		row(r.Text, fmt.Sprintf("%d:%d", r.Line, r.Col), r.Op.String(), &c.Refs[i])
	}
	row("all loads", "", "load", &c.Loads)
	row("all stores", "", "store", &c.Stores)
	return tw.Flush()
}

// ordered is a JSON object whose keys keep their order.
type ordered []keyValue

type keyValue struct {
	key   string
	value any
}

// MarshalJSON writes the pairs as one object, in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type launchJSON struct {
	Mapping       string  `json:"mapping"`
	Block         string  `json:"block"`
	Grid          string  `json:"grid"`
	Blocks        int     `json:"blocks"`
	WarpsPerBlock int     `json:"warps_per_block"`
	Params        ordered `json:"params"`
}

type txnJSON struct {
	Addr    uint64 `json:"addr"`
	Size    uint32 `json:"size"`
	Sectors uint8  `json:"sectors"`
	Lanes   uint32 `json:"lanes"`
}

type instJSON struct {
	Block  int    `json:"block"`
	Warp   int    `json:"warp"`
	Op     string `json:"op"`
	Ref    string `json:"ref,omitempty"`
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"`
	Width  int    `json:"width,omitempty"`
	Active uint32 `json:"active"`
	// Count is the instructions of a compute step.
	Count int32 `json:"count,omitempty"`
	// Addresses has one entry per lane, null for inactive lanes.
	Addresses    []*uint64 `json:"addresses,omitempty"`
	Pattern      string    `json:"pattern,omitempty"`
	Transactions []txnJSON `json:"transactions,omitempty"`
}

type refJSON struct {
	Ref   string `json:"ref"`
	Array string `json:"array"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Op    string `json:"op"`
	Width int    `json:"width"`
	sim.RefCounts
	TxnPerRequest float64 `json:"transactions_per_request"`
	Efficiency    float64 `json:"efficiency"`
}

func traceJSON(d *arch.Device, l *traces.Launch, insts []shownInst, metrics []sim.Metric, c *sim.Counts) any {
	params := make(ordered, len(l.Params))
	for i, p := range l.Params {
		params[i] = keyValue{p.Name, p.Value}
	}
	warps := make([]instJSON, 0, len(insts))
	for i := range insts {
		in := &insts[i].in
		j := instJSON{Block: in.Block, Warp: in.Warp, Op: in.Op.String(), Active: in.Active}
		if in.Op == traces.OpCompute {
			j.Count = in.Count
			warps = append(warps, j)
			continue
		}
		r := &l.Refs[in.Ref]
		j.Ref, j.Line, j.Col, j.Width = r.Text, r.Line, r.Col, int(in.Width)
		j.Addresses = make([]*uint64, traces.WarpSize)
		for lane := range traces.WarpSize {
			if in.Active&(1<<lane) != 0 {
				a := in.Addr[lane]
				j.Addresses[lane] = &a
			}
		}
		j.Pattern = addressPattern(in)
		j.Transactions = []txnJSON{}
		for _, t := range insts[i].txns {
			j.Transactions = append(j.Transactions, txnJSON{t.Addr, t.Size, t.Sectors, t.Lanes})
		}
		warps = append(warps, j)
	}
	var ms ordered
	for _, m := range metrics {
		ms = append(ms, keyValue{m.Name, m.Value})
	}
	// Without whole-kernel counts (not asked for, and large), metrics and
	// references are null.
	var refs []refJSON
	if c != nil {
		refs = make([]refJSON, len(l.Refs))
		for i := range l.Refs {
			r, rc := &l.Refs[i], &c.Refs[i]
			refs[i] = refJSON{r.Text, r.Array, r.Line, r.Col, r.Op.String(), r.Width, *rc,
				rc.TransactionsPerRequest(), rc.Efficiency()}
		}
	}
	return struct {
		Device            string              `json:"device"`
		CacheConfig       arch.CacheConfig    `json:"cache_config,omitempty"`
		ComputeCapability string              `json:"compute_capability"`
		Coalescer         arch.CoalescingRule `json:"coalescer"`
		Kernel            string              `json:"kernel"`
		Launch            launchJSON          `json:"launch"`
		Warps             []instJSON          `json:"warps"`
		Metrics           ordered             `json:"metrics"`
		References        []refJSON           `json:"references"`
	}{
		d.Name, d.CacheConfig, d.ComputeCapability, d.Coalescer.Rule, l.Kernel.Name,
		launchJSON{l.Mapping.String(), l.Block.String(), l.Grid().String(), l.Blocks(), l.WarpsPerBlock(), params},
		warps, ms, refs,
	}
}
