package sim

import (
	"iter"

	"gpumemsim/traces"
)

// Blocks of a loop nest that are regular (traces.Launch.BlockOffsets: no
// divergent loops, every thread inside the extents) run the same warp
// instructions and differ only in where each reference's addresses start.
// Moving one instruction's addresses by a multiple of memoPeriod leaves
// its counts as they were (coalesce.TestTranslate), so two regular blocks
// whose offsets agree modulo memoPeriod, reference by reference, count
// the same: the class of a block. The counter counts one block of each
// class and adds its counts for the others. A matmul's grid has few
// classes (Ryoo's 4096² on g80: two, B's offset being 0 or 64 modulo
// 128), so its count costs two blocks, not 65,536.

// maxClasses bounds the classes a counter keeps; the blocks of a class
// met past it are counted one by one.
const maxClasses = 1 << 12

// blockOffsetter is a source whose blocks can be told alike.
type blockOffsetter interface {
	BlockOffsets(b int, off []int64) bool
}

// blockClasses are the counts of one block of each class met.
type blockClasses struct {
	src    blockOffsetter // nil: the source's blocks are never alike
	off    []int64
	key    []byte
	counts map[string]*Counts
}

func newBlockClasses(src traces.Source) blockClasses {
	bo, ok := src.(blockOffsetter)
	if !ok {
		return blockClasses{}
	}
	n := len(src.Info().Refs)
	return blockClasses{src: bo, off: make([]int64, n), key: make([]byte, n), counts: map[string]*Counts{}}
}

// class is block b's class, or false when b is not regular.
func (bc *blockClasses) class(b int) ([]byte, bool) {
	if bc.src == nil || !bc.src.BlockOffsets(b, bc.off) {
		return nil, false
	}
	for r, o := range bc.off {
		bc.key[r] = byte(uint64(o) % memoPeriod)
	}
	return bc.key, true
}

// lookup finds block b's class: seen when b is regular and its class was
// met before (one is its counts, nil where only met), kept when b is
// regular and its class is seen or there is room for it (fewer than
// maxClasses met). A block of a class not kept is streamed through the
// cursor on its own.
func (bc *blockClasses) lookup(b int) (one *Counts, seen, kept bool) {
	key, ok := bc.class(b)
	if !ok {
		return nil, false, false
	}
	if one, seen = bc.counts[string(key)]; seen {
		return one, true, true
	}
	return nil, false, len(bc.counts) < maxClasses
}

// keep records one as the counts of the class lookup last found.
func (bc *blockClasses) keep(one *Counts) { bc.counts[string(bc.key)] = one }

// count adds to c the counts of block b when b is regular, through k
// the first time its class is met, and reports whether it did.
func (bc *blockClasses) count(k *counter, c *Counts, b int) bool {
	one, seen, kept := bc.lookup(b)
	if !kept {
		return false
	}
	if !seen {
		one = &Counts{Refs: make([]RefCounts, len(c.Refs))}
		k.block(one, b)
		bc.keep(one)
	}
	c.add(one)
	return true
}

// streamed is how many of blocks [from, to) of src a counter streams
// through the cursor, as count decides: the blocks that are not regular,
// one block of each of the first maxClasses classes, and every block of
// a class met past them.
func streamed(src traces.Source, from, to int64) int64 {
	var n int64
	for _, streams := range streaming(src, from, to) {
		if streams {
			n++
		}
	}
	return n
}

// streaming yields each block of [from, to) of src in order with whether
// a counter streams it through the cursor (count's decision, without the
// counting).
func streaming(src traces.Source, from, to int64) iter.Seq2[int64, bool] {
	return func(yield func(int64, bool) bool) {
		bc := newBlockClasses(src)
		for b := from; b < to; b++ {
			_, seen, kept := bc.lookup(int(b))
			if kept && !seen {
				bc.keep(nil)
			}
			if !yield(b, !seen) {
				return
			}
		}
	}
}

// BlockWalk is what Count's walk over a block costs, in warp instructions
// streamed: finding a regular block's class and adding the class's counts
// takes about 100 ns (trace -totals of vecadd at 2^28 elements on fermi,
// 1,048,576 blocks of one class, 0.11 s), streaming a memory instruction
// 20 to 70 ns (BenchmarkCountEveryBlock).
const BlockWalk = 2

// CountWork is the work of Count on src, in warp instructions streamed,
// when each block issues perBlock of them: those of the blocks it streams
// through the cursor (every block of a per-thread kernel; of a loop nest,
// the irregular ones and one of each class) and BlockWalk for each block
// it walks. It stops as soon as the sum passes bound, returning that sum,
// and does not walk the grid when the walk alone would pass it.
func CountWork(src traces.Source, perBlock, bound float64) float64 {
	blocks := int64(src.Info().Blocks())
	if walk := float64(blocks) * BlockWalk; walk > bound {
		return walk
	}
	var w float64
	for _, streams := range streaming(src, 0, blocks) {
		w += BlockWalk
		if streams {
			w += perBlock
		}
		if w > bound {
			break
		}
	}
	return w
}
