package accelsim

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// ParseError is a problem at one line of a trace or kernel list.
type ParseError struct {
	File string
	Line int64 // 1-based
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// Header is what a .traceg says of its kernel before its thread blocks.
type Header struct {
	// Name is the kernel's (mangled) name; ID its launch number in the
	// traced program.
	Name string
	ID   int
	// Grid and Block are the launch geometry.
	Grid, Block arch.Dim3
	// Shmem is the shared memory per block (static and dynamic) and Regs
	// the registers per thread, as the driver reported them.
	Shmem int64
	Regs  int
	// BinaryVersion is the SASS's compute capability, e.g. 80 for sm_80.
	BinaryVersion int
	// StreamID is the CUDA stream the kernel ran on.
	StreamID uint64
	// ShmemBase and LocalBase are where the shared and local windows start
	// in the generic address space (0: not recorded).
	ShmemBase, LocalBase uint64
	NVBitVersion         string
	// TracerVersion is Accel-Sim's trace format version (3, 4 or 5).
	TracerVersion int
	// LineInfo says each instruction line starts with a source line number.
	LineInfo bool
}

// Tracer versions read: 3 and 4 (no immediate at the end of a line) and 5
// (an immediate). Before version 3 lines began with the block and warp.
const (
	minTracerVersion = 3
	maxTracerVersion = 5
)

// Launch limits: CUDA's grid (2^31-1 blocks) and no block larger than any
// device allows (traces.MaxBlockThreads is larger; 4096 is arch's bound).
const (
	maxGridBlocks   = 1<<31 - 1
	maxBlockThreads = 4096
)

// header reads the header lines of a .traceg.
type header struct {
	Header
	seen map[string]bool
}

// line reads one header line ("-key = value"); keys it does not know are
// skipped, as Accel-Sim skips them.
func (h *header) line(text []byte) error {
	key, value, ok := bytes.Cut(text[1:], []byte("="))
	if !ok {
		return fmt.Errorf("header line %q: want -key = value", text)
	}
	k := strings.Join(strings.Fields(string(key)), " ")
	v := strings.TrimSpace(string(value))
	if h.seen == nil {
		h.seen = map[string]bool{}
	}
	if h.seen[k] {
		return fmt.Errorf("-%s given twice", k)
	}
	h.seen[k] = true
	var err error
	switch k {
	case "kernel name":
		h.Name = v
	case "kernel id":
		h.ID, err = headerInt(k, v, 0, 1<<31-1)
	case "grid dim":
		h.Grid, err = headerDim(k, v)
	case "block dim":
		h.Block, err = headerDim(k, v)
	case "shmem":
		var n int
		n, err = headerInt(k, v, 0, 1<<30)
		h.Shmem = int64(n)
	case "nregs":
		h.Regs, err = headerInt(k, v, 0, 1<<16)
	case "binary version":
		h.BinaryVersion, err = headerInt(k, v, 0, 1<<16)
	case "cuda stream id":
		h.StreamID, err = strconv.ParseUint(v, 10, 64)
		if err != nil {
			err = fmt.Errorf("-%s = %s: want a number", k, v)
		}
	case "shmem base_addr":
		h.ShmemBase, err = headerAddr(k, v)
	case "local mem base_addr":
		h.LocalBase, err = headerAddr(k, v)
	case "nvbit version":
		h.NVBitVersion = v
	case "accelsim tracer version":
		h.TracerVersion, err = headerInt(k, v, 0, 1<<16)
		if err == nil && (h.TracerVersion < minTracerVersion || h.TracerVersion > maxTracerVersion) {
			err = fmt.Errorf("-accelsim tracer version = %d: gpumemsim reads versions %d to %d; hint: re-trace with Accel-Sim's current tracer (version 5)",
				h.TracerVersion, minTracerVersion, maxTracerVersion)
		}
	case "enable lineinfo":
		var n int
		n, err = headerInt(k, v, 0, 1)
		h.LineInfo = n == 1
	}
	return err
}

// check reports what the body needs and the header lacks.
func (h *header) check() error {
	var errs []error
	for _, k := range []string{"grid dim", "block dim", "accelsim tracer version"} {
		if !h.seen[k] {
			errs = append(errs, fmt.Errorf("no -%s line before the first thread block", k))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if n := int64(h.Block.X) * int64(h.Block.Y) * int64(h.Block.Z); n > maxBlockThreads {
		return fmt.Errorf("-block dim = (%d,%d,%d): %d threads, more than any GPU runs in a block (%d)", h.Block.X, h.Block.Y, h.Block.Z, n, maxBlockThreads)
	}
	if n := int64(h.Grid.X) * int64(h.Grid.Y) * int64(h.Grid.Z); n > maxGridBlocks {
		return fmt.Errorf("-grid dim = (%d,%d,%d): %d blocks, more than CUDA launches (%d)", h.Grid.X, h.Grid.Y, h.Grid.Z, n, maxGridBlocks)
	}
	return nil
}

func headerInt(key, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("-%s = %s: want a whole number from %d to %d", key, v, lo, hi)
	}
	return n, nil
}

func headerAddr(key, v string) (uint64, error) {
	n, ok := parseHex([]byte(v), 16)
	if !ok {
		return 0, fmt.Errorf("-%s = %s: want a hex address, e.g. 0x00007fb139000000", key, v)
	}
	return n, nil
}

// headerDim reads "(x,y,z)" with positive extents below 2^31.
func headerDim(key, v string) (arch.Dim3, error) {
	bad := fmt.Errorf("-%s = %s: want (x,y,z) with positive whole numbers below 2^31, e.g. (196,1,1)", key, v)
	inner, ok := strings.CutPrefix(v, "(")
	if inner, ok = strings.CutSuffix(inner, ")"); !ok {
		return arch.Dim3{}, bad
	}
	parts := strings.Split(inner, ",")
	if len(parts) != 3 {
		return arch.Dim3{}, bad
	}
	var d [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || n > 1<<31-1 {
			return arch.Dim3{}, bad
		}
		d[i] = n
	}
	return arch.Dim3{X: d[0], Y: d[1], Z: d[2]}, nil
}

// parseHex reads a hex number of at most digits digits, with or without
// 0x, as Accel-Sim's std::hex extraction accepts both.
func parseHex(b []byte, digits int) (uint64, bool) {
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		b = b[2:]
	}
	if len(b) == 0 || len(b) > digits {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(d)
	}
	return n, true
}

// parseInt reads a signed decimal number that fits in 63 bits.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseCount reads a non-negative decimal number no larger than most.
func parseCount(b []byte, most int64) (int64, bool) {
	n, ok := parseInt(b)
	return n, ok && n >= 0 && n <= most && b[0] != '-' && b[0] != '+'
}
