package accelsim

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gpumemsim/traces"
)

// indexBuffer is the index pass's read buffer.
const indexBuffer = 256 << 10

// indexer is the state of the pass that reads a .traceg once, checks
// every line and records where each warp's instructions are.
type indexer struct {
	k    *Kernel
	h    header
	body bool // past the header

	// The thread block being read: inTB after #BEGIN_TB; blockLine its
	// #BEGIN_TB line; block its linear id once "thread block =" is read
	// (-1 before); seen the warps given so far.
	inTB      bool
	blockLine int64
	block     int64
	blockText string
	seen      []bool
	// The warp being read: warp its number (-1: none), insts its count
	// (-1 before "insts = N"), got the instruction lines so far.
	warp       int
	warpLine   int64
	insts, got int64

	in   inst
	addr [traces.WarpSize]uint64
	// keys and names describe the references in the order found.
	keys  []refKey
	names []string
	// blocksSeen marks the traced blocks by linear id (a sorted check is
	// made at the end; a map keeps memory to the blocks traced).
	blocksSeen map[int64]int64
}

func (k *Kernel) index() error {
	x := &indexer{k: k, block: -1, warp: -1, blocksSeen: map[int64]int64{}}
	var lr lineReader
	lr.reset(k.r, k.size, 0, min(indexBuffer, int(max(k.size, 64))))
	var n int64
	for {
		line, off, err := lr.next()
		if err == io.EOF {
			break
		}
		n++
		if err == nil {
			err = x.line(line, off, n)
		}
		if err != nil {
			return &ParseError{File: k.File, Line: n, Err: err}
		}
	}
	if err := x.end(); err != nil {
		return &ParseError{File: k.File, Line: n + 1, Err: err}
	}
	return nil
}

// line reads line n, which starts at byte off.
func (x *indexer) line(line []byte, off, n int64) error {
	t := tokens{b: line}
	first := t.next()
	switch {
	case len(first) == 0:
		return nil
	case first[0] == '-' && !x.body:
		return x.h.line(bytes.TrimSpace(line))
	case string(first) == "#BEGIN_TB":
		return x.begin(n)
	case string(first) == "#END_TB":
		return x.endTB()
	case first[0] == '#':
		return nil // the format line and other comments
	case first[0] == '-':
		return errors.New("a header line after the first thread block; hint: a .traceg's header comes first")
	}
	if !x.inTB {
		return fmt.Errorf("%q outside a thread block; hint: is this a raw .trace? gpumemsim reads the .traceg files Accel-Sim's post-traces-processing writes from them", abbrev(line))
	}
	if w := string(first); w == "thread" || w == "warp" || w == "insts" {
		key, value, ok := strings.Cut(string(line), "=")
		key = strings.Join(strings.Fields(key), " ")
		value = strings.TrimSpace(value)
		switch {
		case ok && key == "thread block":
			return x.threadBlock(value, n)
		case ok && key == "warp":
			return x.startWarp(value, n)
		case ok && key == "insts":
			return x.setInsts(value, n)
		}
		return fmt.Errorf("%q: want thread block = x,y,z, warp = N or insts = N", abbrev(line))
	}
	if x.insts >= 0 && x.got < x.insts {
		return x.instruction(line, off, n)
	}
	switch {
	case x.warp >= 0 && x.insts >= 0:
		return fmt.Errorf("warp %d of thread block %s has insts = %d, and this is instruction line %d of it; hint: the count and the lines disagree", x.warp, x.blockText, x.insts, x.insts+1)
	case x.block < 0:
		return fmt.Errorf("%q before the \"thread block = x,y,z\" line of the thread block begun at line %d", abbrev(line), x.blockLine)
	case x.warp < 0:
		return fmt.Errorf("%q before the first \"warp = N\" line of thread block %s", abbrev(line), x.blockText)
	}
	return fmt.Errorf("%q before the \"insts = N\" line of warp %d of thread block %s", abbrev(line), x.warp, x.blockText)
}

// begin starts a thread block at #BEGIN_TB on line n.
func (x *indexer) begin(n int64) error {
	if !x.body {
		if err := x.h.check(); err != nil {
			return err
		}
		x.k.Header = x.h.Header
		x.k.wpb = (x.k.threadsPerBlock() + traces.WarpSize - 1) / traces.WarpSize
		x.body = true
	}
	if x.inTB {
		return fmt.Errorf("#BEGIN_TB inside the thread block begun at line %d, which has no #END_TB; hint: the trace is damaged", x.blockLine)
	}
	x.inTB, x.blockLine, x.block, x.blockText, x.warp, x.insts = true, n, -1, "", -1, -1
	x.seen = append(x.seen[:0], make([]bool, x.k.wpb)...)
	return nil
}

// threadBlock reads "thread block = x,y,z".
func (x *indexer) threadBlock(v string, n int64) error {
	if x.block >= 0 {
		return fmt.Errorf("a second \"thread block =\" line in thread block %s", x.blockText)
	}
	parts := strings.Split(v, ",")
	g := x.k.Grid
	var c [3]int64
	if len(parts) != 3 {
		return fmt.Errorf("thread block = %s: want x,y,z", v)
	}
	for i, p := range parts {
		var err error
		if c[i], err = strconv.ParseInt(strings.TrimSpace(p), 10, 64); err != nil || c[i] < 0 {
			return fmt.Errorf("thread block = %s: want x,y,z with whole numbers", v)
		}
	}
	if c[0] >= int64(g.X) || c[1] >= int64(g.Y) || c[2] >= int64(g.Z) {
		return fmt.Errorf("thread block = %s lies outside the grid (%d,%d,%d)", v, g.X, g.Y, g.Z)
	}
	id := c[0] + int64(g.X)*(c[1]+int64(g.Y)*c[2])
	x.blockText = fmt.Sprintf("%d,%d,%d", c[0], c[1], c[2])
	if at, dup := x.blocksSeen[id]; dup {
		return fmt.Errorf("thread block %s again (first at line %d)", x.blockText, at)
	}
	x.blocksSeen[id] = n
	x.block = id
	if len(x.k.warps) > math.MaxInt32-x.k.wpb {
		return errors.New("more than 2^31 warps; hint: is this one kernel's trace?")
	}
	x.k.blocks = append(x.k.blocks, tracedBlock{id: int32(id), first: int32(len(x.k.warps))})
	x.k.counts.Blocks++
	return nil
}

// startWarp reads "warp = N".
func (x *indexer) startWarp(v string, n int64) error {
	if x.block < 0 {
		return fmt.Errorf("warp = %s before the \"thread block = x,y,z\" line of the thread block begun at line %d", v, x.blockLine)
	}
	if err := x.endWarp(); err != nil {
		return err
	}
	w, err := strconv.Atoi(v)
	switch {
	case err != nil || w < 0:
		return fmt.Errorf("warp = %s: want a warp number", v)
	case w >= x.k.wpb:
		return fmt.Errorf("warp = %d, but a block of (%d,%d,%d) threads has %d warps", w, x.k.Block.X, x.k.Block.Y, x.k.Block.Z, x.k.wpb)
	case x.seen[w]:
		return fmt.Errorf("warp %d of thread block %s again", w, x.blockText)
	}
	x.seen[w] = true
	x.warp, x.warpLine, x.insts, x.got = w, n, -1, 0
	x.k.warps = append(x.k.warps, span{warp: int32(w)})
	x.k.counts.Warps++
	return nil
}

// setInsts reads "insts = N" on line n.
func (x *indexer) setInsts(v string, n int64) error {
	if x.warp < 0 {
		return fmt.Errorf("insts = %s before a \"warp = N\" line", v)
	}
	if x.insts >= 0 {
		return fmt.Errorf("a second \"insts =\" line for warp %d of thread block %s", x.warp, x.blockText)
	}
	c, err := strconv.ParseInt(v, 10, 64)
	if err != nil || c < 0 {
		return fmt.Errorf("insts = %s: want a count of instructions", v)
	}
	x.insts = c
	// A warp of no instructions keeps the line of its count; the first
	// instruction line sets it.
	sp := &x.k.warps[len(x.k.warps)-1]
	sp.line, sp.insts = n, c
	return nil
}

// instruction checks the warp's next instruction line and counts it.
func (x *indexer) instruction(line []byte, off, n int64) error {
	k := x.k
	sp := &k.warps[len(k.warps)-1]
	if x.got == 0 {
		sp.off, sp.line = off, n
	}
	x.got++
	k.counts.Insts++
	in := &x.in
	if err := parseInst(line, &k.Header, in); err != nil {
		return err
	}
	c := classify(in, &k.Header)
	if c == compute || c == barrier {
		return nil
	}
	k.counts.MemInsts++
	op, ok := k.opcodes[string(in.opcode)]
	if !ok {
		if len(k.opcodes) == 1<<16-1 {
			return errors.New("more than 65535 distinct opcodes in one kernel; hint: is this a trace?")
		}
		op = uint16(len(k.opcodes))
		k.opcodes[string(in.opcode)] = op
	}
	key := refKey{in.pc, op, c}
	r, ok := k.refOf[key]
	if !ok {
		r = int32(len(x.keys))
		k.refOf[key] = r
		x.keys = append(x.keys, key)
		x.names = append(x.names, string(in.opcode))
		k.counts.Refs = append(k.counts.Refs, 0)
	}
	k.counts.Refs[r]++
	if c.global() {
		k.replayAddr(in, c, int(x.block), x.warp, &x.addr)
		if c.op() == traces.OpLoad {
			k.counts.GlobalLoads++
			k.counts.GlobalLoadSectors += sectors(in, &x.addr)
		} else {
			k.counts.GlobalStores++
			k.counts.GlobalStoreSectors += sectors(in, &x.addr)
		}
	}
	return nil
}

// endWarp checks that the warp being read got its insts lines.
func (x *indexer) endWarp() error {
	switch {
	case x.warp < 0:
		return nil
	case x.insts < 0:
		return fmt.Errorf("warp %d of thread block %s (line %d) has no \"insts = N\" line", x.warp, x.blockText, x.warpLine)
	case x.got < x.insts:
		return fmt.Errorf("warp %d of thread block %s (line %d) has insts = %d but %d instruction lines; hint: the count and the lines disagree, or the trace is truncated", x.warp, x.blockText, x.warpLine, x.insts, x.got)
	}
	x.warp = -1
	return nil
}

// endTB ends the thread block at #END_TB.
func (x *indexer) endTB() error {
	if !x.inTB {
		return errors.New("#END_TB without a #BEGIN_TB")
	}
	if x.block < 0 {
		return fmt.Errorf("the thread block begun at line %d has no \"thread block = x,y,z\" line", x.blockLine)
	}
	if err := x.endWarp(); err != nil {
		return err
	}
	// Warps in another order than the post-processor's are sorted.
	ws := x.k.warps[x.k.blocks[len(x.k.blocks)-1].first:]
	slices.SortFunc(ws, func(a, b span) int { return cmp.Compare(a.warp, b.warp) })
	x.inTB = false
	return nil
}

// end checks the end of the file and finishes the index.
func (x *indexer) end() error {
	if !x.body {
		if err := x.h.check(); err != nil {
			return err
		}
		x.k.Header = x.h.Header
		x.k.wpb = (x.k.threadsPerBlock() + traces.WarpSize - 1) / traces.WarpSize
	}
	switch {
	case x.inTB && x.warp >= 0 && x.insts > x.got:
		return fmt.Errorf("the file ends inside warp %d of thread block %s (line %d), after %d of its insts = %d instruction lines; hint: the trace is truncated",
			x.warp, x.blockText, x.warpLine, x.got, x.insts)
	case x.inTB:
		what := "thread block " + x.blockText
		if x.block < 0 {
			what = "a thread block"
		}
		return fmt.Errorf("the file ends inside %s (begun at line %d), before its #END_TB; hint: the trace is truncated", what, x.blockLine)
	}
	k := x.k
	if k.Name == "" {
		k.Name = k.File
	}
	if !slices.IsSortedFunc(k.blocks, func(a, b tracedBlock) int { return cmp.Compare(a.id, b.id) }) {
		sortBlocks(k)
	}
	k.sortRefs(x.keys, x.names)
	return nil
}

// sortBlocks orders the traced blocks (and their warps) by id, for a trace
// written in another order than the post-processor's.
func sortBlocks(k *Kernel) {
	idx := make([]int, len(k.blocks))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(k.blocks[a].id, k.blocks[b].id) })
	blocks := make([]tracedBlock, 0, len(k.blocks))
	warps := make([]span, 0, len(k.warps))
	for _, from := range idx {
		blocks = append(blocks, tracedBlock{id: k.blocks[from].id, first: int32(len(warps))})
		warps = append(warps, k.blockWarps(from)...)
	}
	k.blocks, k.warps = blocks, warps
}

// abbrev shortens a line quoted in an error.
func abbrev(line []byte) string {
	if len(line) > 60 {
		return string(line[:57]) + "..."
	}
	return string(line)
}
