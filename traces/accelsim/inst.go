package accelsim

import (
	"bytes"
	"fmt"
	"math/bits"

	"gpumemsim/traces"
)

// Address modes of a memory instruction (enum address_format in
// trace_parser.h).
const (
	listAll    = 0
	baseStride = 1
	baseDelta  = 2
)

// maxRegs bounds dest_num and src_num (the tracer writes at most 1 and 4).
const maxRegs = 8

// maxAddr bounds a lane address: GPU virtual addresses have 49 bits, and
// local memory's interleaving multiplies offsets by the grid's threads.
const maxAddr = 1 << 56

// inst is one instruction line, decoded.
type inst struct {
	pc     uint64
	mask   uint32
	opcode []byte // aliases the line
	// width is mem_width, the bytes per lane; 0 for an instruction
	// without memory traffic.
	width int
	// addr holds the active lanes' addresses; inactive lanes hold 0.
	addr [traces.WarpSize]uint64
}

// tokens walks the space-separated fields of a line.
type tokens struct {
	b []byte
	i int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func (t *tokens) next() []byte {
	for t.i < len(t.b) && isSpace(t.b[t.i]) {
		t.i++
	}
	start := t.i
	for t.i < len(t.b) && !isSpace(t.b[t.i]) {
		t.i++
	}
	return t.b[start:t.i]
}

// left counts the fields not read yet.
func (t *tokens) left() int {
	n, in := 0, false
	for _, c := range t.b[t.i:] {
		if s := isSpace(c); s {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

// field reads the next field, named what for the error if there is none.
func (t *tokens) field(what string) ([]byte, error) {
	if f := t.next(); len(f) > 0 {
		return f, nil
	}
	return nil, fmt.Errorf("the line ends before its %s", what)
}

// parseInst decodes an instruction line of a trace of the given header.
func parseInst(line []byte, h *Header, in *inst) error {
	t := tokens{b: line}
	if h.LineInfo {
		f, err := t.field("source line number (-enable lineinfo = 1)")
		if err != nil {
			return err
		}
		if _, ok := parseCount(f, 1<<40); !ok {
			return fmt.Errorf("source line number %q: want a whole number (-enable lineinfo = 1)", f)
		}
	}
	f, err := t.field("PC")
	if err != nil {
		return err
	}
	var ok bool
	if in.pc, ok = parseHex(f, 16); !ok {
		return fmt.Errorf("PC %q: want a hex offset such as 00a0", f)
	}
	if f, err = t.field("active mask"); err != nil {
		return err
	}
	m, ok := parseHex(f, 8)
	if !ok {
		return fmt.Errorf("mask %q: want 8 hex digits, a bit per lane, e.g. ffffffff", f)
	}
	in.mask = uint32(m)
	if err := regs(&t, "dest_num", "destination register"); err != nil {
		return err
	}
	if in.opcode, err = t.field("opcode"); err != nil {
		return err
	}
	if c := in.opcode[0]; c < 'A' || c > 'Z' {
		return fmt.Errorf("opcode %q: want a SASS mnemonic such as LDG.E or IMAD.WIDE", in.opcode)
	}
	if err := regs(&t, "src_num", "source register"); err != nil {
		return err
	}
	if f, err = t.field("mem_width"); err != nil {
		return err
	}
	w, ok := parseCount(f, 1<<20)
	if !ok {
		return fmt.Errorf("mem_width %q: want the bytes per lane of a memory instruction, or 0", f)
	}
	in.width = int(w)
	if w != 0 {
		if w != 1 && w != 2 && w != 4 && w != 8 && w != 16 {
			return fmt.Errorf("mem_width %d: want 1, 2, 4, 8 or 16 bytes per lane (or 0 for an instruction without addresses)", w)
		}
		if err := in.addresses(&t, h.TracerVersion >= 5); err != nil {
			return err
		}
	}
	if h.TracerVersion >= 5 {
		f, err := t.field("immediate (tracer version 5 ends each line with one)")
		if err != nil {
			return err
		}
		if _, ok := parseInt(f); !ok {
			return fmt.Errorf("immediate %q: want a whole number", f)
		}
	}
	if f := t.next(); len(f) > 0 {
		return fmt.Errorf("unexpected %q after the instruction's fields (tracer version %d)", f, h.TracerVersion)
	}
	return nil
}

// regs reads a register count and that many registers (what: "source
// register").
func regs(t *tokens, count, what string) error {
	f, err := t.field(count)
	if err != nil {
		return err
	}
	n, ok := parseCount(f, maxRegs)
	if !ok {
		return fmt.Errorf("%s %q: want the number of %ss, 0 to %d", count, f, what, maxRegs)
	}
	for range n {
		r, err := t.field(what)
		if err != nil {
			return err
		}
		if !isReg(r) {
			return fmt.Errorf("%s %q: want Rn (%s = %d)", what, r, count, n)
		}
	}
	return nil
}

// isReg reports whether f names a register: Rn or URn.
func isReg(f []byte) bool {
	f = bytes.TrimPrefix(f, []byte("U"))
	if len(f) < 2 || f[0] != 'R' {
		return false
	}
	_, ok := parseCount(f[1:], 1<<16)
	return ok
}

// addresses reads the address mode and the active lanes' addresses; imm
// says an immediate follows them.
func (in *inst) addresses(t *tokens, imm bool) error {
	f, err := t.field("address mode (a memory instruction's mem_width is not 0)")
	if err != nil {
		return err
	}
	mode, ok := parseCount(f, 1<<20)
	if !ok || mode > baseDelta {
		return fmt.Errorf("address mode %q: want 0 (list_all), 1 (base_stride) or 2 (base_delta)", f)
	}
	active := bits.OnesCount32(in.mask)
	given, note := t.left(), ""
	if imm {
		given--
		note = " (the last field is tracer version 5's immediate)"
	}
	in.addr = [traces.WarpSize]uint64{}
	switch mode {
	case listAll:
		if given != active {
			return fmt.Errorf("mask %08x has %d active lanes; list_all (mode 0) gives %d addresses%s", in.mask, active, max(given, 0), note)
		}
		for l := range traces.WarpSize {
			if in.mask&(1<<l) != 0 {
				if in.addr[l], err = address(t.next()); err != nil {
					return err
				}
			}
		}
	case baseStride:
		if given != 2 {
			return fmt.Errorf("base_stride (mode 1) takes a base address and a stride; got %d fields%s", max(given, 0), note)
		}
		base, err := address(t.next())
		if err != nil {
			return err
		}
		f := t.next()
		stride, ok := parseInt(f)
		if !ok || stride < -1<<31 || stride >= 1<<31 {
			return fmt.Errorf("stride %q: want a whole number of bytes", f)
		}
		if run := in.mask >> bits.TrailingZeros32(in.mask); run&(run+1) != 0 {
			return fmt.Errorf("base_stride (mode 1) with mask %08x, whose active lanes are not one run; hint: Accel-Sim's tracer writes base_delta (mode 2) for such masks, and its reader gives the lanes after the gap address 0", in.mask)
		}
		a := base
		for l := range traces.WarpSize {
			if in.mask&(1<<l) != 0 {
				if err := checkAddr(a); err != nil {
					return err
				}
				in.addr[l] = a
				a += uint64(stride)
			}
		}
	case baseDelta:
		if want := max(active, 1); given != want {
			return fmt.Errorf("mask %08x has %d active lanes; base_delta (mode 2) takes a base address and %d deltas, got %d fields%s", in.mask, active, want-1, max(given, 0), note)
		}
		a, err := address(t.next())
		if err != nil {
			return err
		}
		first := true
		for l := range traces.WarpSize {
			if in.mask&(1<<l) == 0 {
				continue
			}
			if !first {
				f := t.next()
				d, ok := parseInt(f)
				if !ok {
					return fmt.Errorf("delta %q: want a whole number of bytes", f)
				}
				a += uint64(d)
				if err := checkAddr(a); err != nil {
					return err
				}
			}
			in.addr[l], first = a, false
		}
	}
	return nil
}

// address reads a hex lane address.
func address(f []byte) (uint64, error) {
	a, ok := parseHex(f, 16)
	if !ok {
		return 0, fmt.Errorf("address %q: want a hex address such as 0x7fb0fc430e00", f)
	}
	return a, checkAddr(a)
}

func checkAddr(a uint64) error {
	if a >= maxAddr {
		return fmt.Errorf("address 0x%x is beyond the 49-bit virtual address space of a GPU", a)
	}
	return nil
}
