package accelsim

import (
	"bytes"

	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// class is what replaying an instruction does.
type class uint8

const (
	compute class = iota // no memory traffic: an issue slot
	barrier              // BAR.SYNC: waits for the block's other warps
	globalLoad
	globalStore
	atomic // a global atomic or reduction, replayed as a store to the L2
	sharedLoad
	sharedStore
	localLoad // local memory, interleaved per thread in global memory
	localStore
	constLoad
	texLoad
)

// op is the warp instruction kind a memory class replays as.
func (c class) op() traces.Op {
	switch c {
	case globalStore, atomic, sharedStore, localStore:
		return traces.OpStore
	case compute:
		return traces.OpCompute
	case barrier:
		return traces.OpBarrier
	}
	return traces.OpLoad
}

// space is the memory space the simulator serves a memory class from.
func (c class) space() kernel.Space {
	switch c {
	case sharedLoad, sharedStore:
		return kernel.SpaceShared
	case constLoad:
		return kernel.SpaceConstant
	case texLoad:
		return kernel.SpaceTexture
	}
	return kernel.SpaceGlobal
}

// global says the class replays through the global path (coalescer, L1,
// L2): what the trace's own counts of global requests and sectors count.
func (c class) global() bool {
	switch c {
	case globalLoad, globalStore, atomic, localLoad, localStore:
		return true
	}
	return false
}

// localWindow is the size of the local window in the generic address
// space that a generic access is matched against: CUDA's largest local
// memory per thread, 512 KiB.
const localWindow = 512 << 10

// window is where a generic address lies.
type window uint8

const (
	inGlobal window = iota
	inShared
	inLocal
)

// windowOf is the window of the first active lane's address, as Accel-Sim
// resolves a generic access (trace_driven.cc, OP_LD/OP_ST): shared when it
// lies in [shmem base, shmem base + the block's shared memory), local in
// the local window, else global.
func windowOf(in *inst, h *Header) window {
	if in.mask == 0 {
		return inGlobal
	}
	for l := range traces.WarpSize {
		if in.mask&(1<<l) == 0 {
			continue
		}
		a := in.addr[l]
		switch {
		case h.ShmemBase != 0 && a >= h.ShmemBase && a-h.ShmemBase < uint64(h.Shmem):
			return inShared
		case h.LocalBase != 0 && a >= h.LocalBase && a-h.LocalBase < localWindow:
			return inLocal
		}
		return inGlobal
	}
	return inGlobal
}

// classify says what in does when replayed. Only instructions with
// addresses (mem_width > 0) move data; the others take an issue slot,
// but BAR, which but for BAR.ARV (arrive without waiting) waits.
func classify(in *inst, h *Header) class {
	base, mods, _ := bytes.Cut(in.opcode, []byte("."))
	if in.width == 0 {
		if string(base) == "BAR" && !hasMod(mods, "ARV") {
			return barrier
		}
		return compute
	}
	switch string(base) {
	case "LDG":
		return globalLoad
	case "STG":
		return globalStore
	case "ATOMG", "RED":
		return atomic
	case "LDS", "LDSM", "ATOMS":
		return sharedLoad
	case "STS":
		return sharedStore
	case "LDL":
		return localLoad
	case "STL":
		return localStore
	case "LDC":
		return constLoad
	case "TEX", "TLD", "TLD4", "TXD", "TEXS", "TLDS", "TLD4S":
		return texLoad
	case "SULD":
		return globalLoad
	case "SUST", "SURED", "SUATOM":
		return globalStore
	case "LD", "ST", "ATOM", "LDGSTS":
		return generic(string(base), windowOf(in, h))
	}
	// An address operand without data traffic the simulator models
	// (CCTL's cache control, for one).
	return compute
}

// generic resolves a generic instruction by the window of its addresses.
// LDGSTS copies global memory to shared memory: the tracer writes a line
// per address operand, the global one a load, the shared one a store.
func generic(base string, w window) class {
	store := base == "ST" || base == "LDGSTS" && w == inShared
	switch {
	case w == inShared && base == "ATOM":
		return sharedLoad
	case base == "ATOM":
		return atomic
	case w == inShared && store:
		return sharedStore
	case w == inShared:
		return sharedLoad
	case w == inLocal && store:
		return localStore
	case w == inLocal:
		return localLoad
	case store:
		return globalStore
	}
	return globalLoad
}

func hasMod(mods []byte, m string) bool {
	for len(mods) > 0 {
		var f []byte
		f, mods, _ = bytes.Cut(mods, []byte("."))
		if string(f) == m {
			return true
		}
	}
	return false
}

// generic reports whether the opcode's space depends on its addresses.
func isGeneric(opcode []byte) bool {
	base, _, _ := bytes.Cut(opcode, []byte("."))
	switch string(base) {
	case "LD", "ST", "ATOM", "LDGSTS":
		return true
	}
	return false
}
