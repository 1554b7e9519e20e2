package kernel

import (
	"fmt"
	"io"
	"os"
)

// Limits of a kernel file. A bound kernel keeps state per memory
// reference and per loop in every warp cursor, and the simulator keeps a
// cursor per resident warp slot (up to about 2048): 8 bytes per
// reference, 20 per loop and, for a divergent loop, 512 bytes of lane
// values; a block too large for its launch's shared lane table (more
// than 4096/MaxRefs = 32 warps at the cap) adds 272 bytes per reference.
// At the caps that is at most about 34 KiB per cursor on blocks of up to
// 1024 threads and 68 KiB beyond, so at most about 137 MiB for 2048
// cursors at the very worst (64 divergent loops, 128 references, blocks over 1024
// threads), and a few MiB for kernels like the examples. The caps are far
// above the papers' kernels (matmul has 3 references and 3 loops).
const (
	// MaxFileSize is the largest kernel file read, in bytes.
	MaxFileSize = 1 << 20
	// MaxRefs is the most array references a kernel may have.
	MaxRefs = 128
	// MaxStmts is the most statements a kernel may have.
	MaxStmts = 1024
	// MaxLoops is the most loops a kernel may have, and so also the
	// deepest a loop nest may be.
	MaxLoops = 64
	// MaxExprDepth is the deepest an expression may nest: operators
	// chained (a + b + c is 2 deep), parentheses and unary minus. It keeps
	// the recursion of the parser and of everything that walks an
	// expression shallow.
	MaxExprDepth = 256
	// MaxLocals is the most local variables a per-thread kernel may
	// declare (each declaration is one, sibling loops' i included).
	MaxLocals = 256
	// MaxNesting is the deepest the if, for, while and { } statements of
	// a per-thread kernel may nest (an else if is one level deeper than
	// its if); its loops count toward MaxLoops.
	MaxNesting = 64
	// MaxHostLoops is the most entries a kernel file's launches may have.
	MaxHostLoops = 64
	// MaxLaunches is the most launches a sequence may have, whatever
	// its params make of its loops: each launch's results are kept and
	// printed (Needleman-Wunsch at 16384 x 16384 launches 2047 kernels).
	MaxLaunches = 4096
)

// readFile reads at most max bytes of the file at path, and refuses a
// larger file (or an endless one such as /dev/zero) without reading more.
func readFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path)
	}
	return data, nil
}

func tooLarge(file string) error {
	return fmt.Errorf("%s: larger than %d bytes (1 MiB), the largest kernel file gpumemsim reads; hint: a kernel file is a loop nest of a few lines", file, MaxFileSize)
}
