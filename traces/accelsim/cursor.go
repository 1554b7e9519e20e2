package accelsim

import (
	"fmt"
	"io"
	"math"

	"gpumemsim/traces"
)

// cursorBuffer is a cursor's read buffer: a few warp instructions (a line
// with listed addresses takes about 700 bytes); it grows for longer lines.
const cursorBuffer = 2 << 10

// cursor reads one warp's instructions back from the trace. Consecutive
// compute instructions become one OpCompute; the memory or barrier
// instruction that ends such a run is held and comes next.
type cursor struct {
	k           *Kernel
	lr          lineReader
	block, warp int
	left        int64 // instruction lines not read yet
	line        int64 // line number of the line read last
	in          inst

	held  bool // a memory or barrier instruction waits in hold
	hold  traces.WarpInst
	haddr [traces.WarpSize]uint64
}

// Reset moves the cursor to the start of warp w of block b; a warp the
// trace does not have has no instructions.
func (c *cursor) Reset(b, w int) {
	c.block, c.warp, c.held, c.left = b, w, false, 0
	sp, ok := c.k.spanOf(b, w)
	if !ok || sp.insts == 0 {
		return
	}
	c.left, c.line = sp.insts, sp.line-1
	c.lr.reset(c.k.r, c.k.size, sp.off, cursorBuffer)
}

// NextTo fills dst with the warp's next instruction and the lane addresses
// of a memory instruction to addr.
func (c *cursor) NextTo(dst *traces.WarpInst, addr *[traces.WarpSize]uint64) bool {
	if c.held {
		c.held = false
		c.emit(dst, addr)
		return true
	}
	var n int32
	for c.left > 0 && n < math.MaxInt32 {
		cl, ok := c.read()
		if !ok {
			c.left = 0
			break
		}
		c.left--
		if cl == compute {
			n++
			continue
		}
		if !c.holdInst(cl) {
			c.left = 0
			break
		}
		if n == 0 {
			c.held = false
			c.emit(dst, addr)
			return true
		}
		c.held = true
		break
	}
	if n == 0 {
		return false
	}
	// Field by field: an OpCompute's addresses are unspecified, and dst's
	// 32 are not worth clearing.
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width, dst.Active, dst.Count = c.block, c.warp, -1, traces.OpCompute, 0, 0, n
	return true
}

// emit copies the held instruction to dst and addr.
func (c *cursor) emit(dst *traces.WarpInst, addr *[traces.WarpSize]uint64) {
	h := &c.hold
	dst.Block, dst.Warp, dst.Ref, dst.Op, dst.Width, dst.Active, dst.Count = c.block, c.warp, h.Ref, h.Op, h.Width, h.Active, 0
	if h.Op != traces.OpBarrier {
		*addr = c.haddr
	}
}

// holdInst keeps the memory or barrier instruction just read.
func (c *cursor) holdInst(cl class) bool {
	h := &c.hold
	if cl == barrier {
		h.Op, h.Ref, h.Width, h.Active = traces.OpBarrier, -1, 0, c.in.mask
		return true
	}
	r, ok := c.k.ref(&c.in, cl)
	if !ok {
		c.fail(fmt.Errorf("%s at PC 0x%04x was not in the trace when gpumemsim read it; hint: the file changed", c.in.opcode, c.in.pc))
		return false
	}
	h.Op, h.Ref, h.Width, h.Active = cl.op(), int(r), uint8(c.in.width), c.in.mask
	c.k.replayAddr(&c.in, cl, c.block, c.warp, &c.haddr)
	return true
}

// read parses the next instruction line into c.in and classifies it.
func (c *cursor) read() (class, bool) {
	for {
		line, _, err := c.lr.next()
		c.line++
		if err == io.EOF {
			err = fmt.Errorf("the file ends inside warp %d; hint: it changed after gpumemsim read it", c.warp)
		}
		if err != nil {
			c.fail(err)
			return 0, false
		}
		if len(tokensOf(line)) == 0 {
			continue
		}
		if err := parseInst(line, &c.k.Header, &c.in); err != nil {
			c.fail(fmt.Errorf("%w; hint: the file changed after gpumemsim read it", err))
			return 0, false
		}
		return classify(&c.in, &c.k.Header), true
	}
}

// fail records err at the cursor's line with the kernel.
func (c *cursor) fail(err error) {
	c.k.fail(&ParseError{File: c.k.File, Line: c.line, Err: err})
}

// tokensOf is the first field of a line (empty for a blank one).
func tokensOf(line []byte) []byte {
	t := tokens{b: line}
	return t.next()
}
