package traces

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// What a launch needs of a device and where its arrays live: the block's
// limits, its registers and shared memory against the device's, and the
// arrays' extents and addresses.

// MaxBlockThreads bounds the threads of a block when no device does. Bind
// keeps a 4-byte lane mask per warp of a block, so this keeps a launch's
// tables within 128 KiB whatever -block says; GPUs run at most 1024 or
// 2048 threads per block, and the stream tests bind blocks of up to
// 76800 threads without a device.
const MaxBlockThreads = 1 << 20

// checkBlock checks that a block has positive extents and at most
// MaxBlockThreads threads, computing the product without overflow, and,
// with a device, that the device runs it.
func checkBlock(b arch.Dim3, dev *arch.Device) error {
	if b.X <= 0 || b.Y <= 0 || b.Z <= 0 {
		return errors.New("extents must be positive")
	}
	// Each factor is at most 2^20 when the check is reached, so no
	// product below exceeds 2^40.
	if n := int64(b.X); n > MaxBlockThreads || n*int64(b.Y) > MaxBlockThreads || n*int64(b.Y)*int64(b.Z) > MaxBlockThreads {
		return fmt.Errorf("more than %d threads; hint: GPUs run at most 1024 or 2048 threads per block", MaxBlockThreads)
	}
	if dev == nil {
		return nil
	}
	sm := dev.SM
	var errs []string
	if sm.MaxThreadsPerBlock > 0 && b.Threads() > sm.MaxThreadsPerBlock {
		errs = append(errs, fmt.Sprintf("%d threads; %s runs at most %d threads per block", b.Threads(), dev.Name, sm.MaxThreadsPerBlock))
	}
	md := sm.MaxBlockDim
	if md != (arch.Dim3{}) && (b.X > md.X || b.Y > md.Y || b.Z > md.Z) {
		errs = append(errs, fmt.Sprintf("%s exceeds the largest block extents of %s, %s", b, dev.Name, md))
	}
	if errs == nil {
		return nil
	}
	return errors.New(strings.Join(errs, "; ") + "; hint: use a smaller block")
}

// smemUse is a block's shared memory and where the file asks for it.
type smemUse struct {
	bytes arch.Bytes
	at    kernel.Pos
	what  string // what the bytes are, when not the file's smem alone
}

// checkResources checks the kernel's registers and shared memory against
// the device, alone and with the block (a block whose registers or
// shared memory exceed an SM's cannot run at all); an error names the
// file's regs or where it asks for the shared memory.
func checkResources(k *kernel.Kernel, su smemUse, b arch.Dim3, dev *arch.Device) error {
	if dev == nil {
		return nil
	}
	sm := dev.SM
	if sm.MaxRegistersPerThread > 0 && k.Regs > sm.MaxRegistersPerThread {
		return at(k.Where.Regs, fmt.Errorf("%d registers per thread; %s allows at most %d; hint: give at most %d", k.Regs, dev.Name, sm.MaxRegistersPerThread, sm.MaxRegistersPerThread))
	}
	smem, smemAt := su.bytes, su.at
	if sm.MaxSharedMemoryPerBlock > 0 && smem > sm.MaxSharedMemoryPerBlock {
		return at(smemAt, fmt.Errorf("%s of shared memory per block%s; %s allows at most %s; hint: ask for at most %s", smem, su.what, dev.Name, sm.MaxSharedMemoryPerBlock, sm.MaxSharedMemoryPerBlock))
	}
	if dev.WarpSize <= 0 {
		return nil // a partial device, as tests build: no occupancy
	}
	if _, err := dev.Occupancy(b, 0, 0); err != nil {
		return nil // the block's own limits are checkBlock's
	}
	if _, err := dev.Occupancy(b, k.Regs, 0); err != nil {
		return at(k.Where.Regs, fmt.Errorf("regs %d: %w; hint: use fewer registers per thread or a smaller block", k.Regs, err))
	}
	if _, err := dev.Occupancy(b, k.Regs, smem); err != nil {
		return at(smemAt, fmt.Errorf("smem %s: %w; hint: use less shared memory per block or a smaller block", smem, err))
	}
	return nil
}

// placeArrays evaluates each array's extents and places it in memory.
func (l *Launch) placeArrays(env map[string]int64) error {
	next := DefaultBase
	var constant []BoundArray // the constant arrays so far
	for _, a := range l.Kernel.Arrays {
		ba, err := boundArray(a, func(e *kernel.Expr) (int64, error) { return eval(e, env) })
		if err != nil {
			return err
		}
		if a.Remap != nil {
			if err := l.remapArray(&ba, a, func(e *kernel.Expr) (int64, error) { return eval(e, env) }); err != nil {
				return err
			}
		}
		if l.Kernel.Program.CUDAArray(a.Name) {
			if err := padCUDAArray(&ba); err != nil {
				return at(kernel.Pos{Line: a.Line, Col: a.Col}, err)
			}
		}
		bound := []BoundArray{ba}
		if a.Struct != nil {
			if bound, err = groupArrays(l.Kernel, a, ba); err != nil {
				return at(kernel.Pos{Line: a.Line, Col: a.Col}, err)
			}
		}
		for _, ba := range bound {
			if a.Space == kernel.SpaceConstant {
				constant = append(constant, ba)
				if err := fitConstant(constant); err != nil {
					return at(kernel.Pos{Line: a.Line, Col: a.Col}, err)
				}
			}
			if err := placeArray(&ba, a, next); err != nil {
				return err
			}
			next = max(next, ba.Base+uint64(ba.Size))
			l.Arrays = append(l.Arrays, ba)
		}
	}
	order := make([]int, len(l.Arrays))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(l.Arrays[i].Base, l.Arrays[j].Base) })
	for i := 1; i < len(order); i++ {
		p, q := l.Arrays[order[i-1]], l.Arrays[order[i]]
		if p.Base+uint64(p.Size) > q.Base {
			a := l.Kernel.Arrays[order[i]]
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("arrays %s [%#x, %#x) and %s [%#x, %#x) overlap; hint: change base",
				p.Name, p.Base, p.Base+uint64(p.Size), q.Name, q.Base, q.Base+uint64(q.Size)))
		}
	}
	return nil
}

// placeArray gives ba, bound from a, its base: a's own, or the first
// multiple of a's alignment at or after next.
func placeArray(ba *BoundArray, a *kernel.Array, next uint64) error {
	if a.HasBase {
		if ba.Name != a.Name {
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("array %s has a base, but its layout splits it into groups (%s among them); hint: drop base, or choose a layout that keeps %s whole", a.Name, ba.Name, a.Name))
		}
		ba.Base = a.Base
	} else {
		al := uint64(a.Align)
		rounded, carry := bits.Add64(next, al-1, 0)
		if carry != 0 {
			return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("array %s does not fit below address 2^64 after the arrays before it", ba.Name))
		}
		ba.Base = rounded / al * al
	}
	if _, carry := bits.Add64(ba.Base, uint64(ba.Size), 0); carry != 0 {
		return at(kernel.Pos{Line: a.Line, Col: a.Col}, fmt.Errorf("array %s at %#x of %d bytes ends past address 2^64; hint: give it a lower base", ba.Name, ba.Base, ba.Size))
	}
	return nil
}

// fitConstant checks that the constant arrays fit in constant memory
// together (the last one is the one just added).
func fitConstant(arrays []BoundArray) error {
	last := arrays[len(arrays)-1]
	if last.Size > kernel.ConstantMemory {
		return fmt.Errorf("constant array %s has %d bytes; constant memory holds %d (64 KiB); hint: keep %s in global memory, or use smaller params",
			last.Name, last.Size, kernel.ConstantMemory, last.Name)
	}
	var total int64
	names := make([]string, len(arrays))
	for i, a := range arrays {
		total += a.Size // each at most 64 KiB: no overflow
		names[i] = a.Name
	}
	if total > kernel.ConstantMemory {
		return fmt.Errorf("constant arrays %s have %d bytes together; constant memory holds %d (64 KiB); hint: keep some of them in global memory, or use smaller params",
			strings.Join(names, ", "), total, kernel.ConstantMemory)
	}
	return nil
}

// boundArray evaluates the extents of a with value and its size in
// bytes.
func boundArray(a *kernel.Array, value func(*kernel.Expr) (int64, error)) (BoundArray, error) {
	ba := BoundArray{Name: a.Name, Type: a.Type, Layout: a.Layout, Space: a.Space}
	n := int64(1)
	for _, d := range a.Dims {
		v, err := value(d)
		if err != nil {
			return ba, within("array "+a.Name+": dims", err)
		}
		if v <= 0 {
			return ba, exprError(d, "array %s: dims: %s; extents must be positive; hint: check the params", a.Name, valueText(d, v))
		}
		if n > math.MaxInt64/a.ElemSize()/v {
			return ba, exprError(d, "array %s: dims: the array has more than 2^63 bytes; hint: use smaller params", a.Name)
		}
		n *= v
		ba.Dims = append(ba.Dims, v)
	}
	ba.Size = n * a.ElemSize()
	return ba, nil
}

// valueText writes expression e and its value v, or only the value for
// a constant.
func valueText(e *kernel.Expr, v int64) string {
	if e.Kind == kernel.ExprConst {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%s = %d", e, v)
}

// padCUDAArray sizes a, a 2-D array that tex2D reads, as the cudaArray
// it is: block-linear, padded to whole GOBs (blocklinear.go).
func padCUDAArray(a *BoundArray) error {
	size, ok := BlockLinearSize(a.Dims[1], a.Dims[0], int64(a.Type.Size()))
	if !ok {
		return fmt.Errorf("cudaArray %s of %d×%d texels has 2^63 bytes or more laid out block-linear; hint: use smaller params", a.Name, a.Dims[1], a.Dims[0])
	}
	a.Size, a.BlockLinear = size, true
	return nil
}
