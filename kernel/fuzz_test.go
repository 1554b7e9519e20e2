package kernel_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
	"gpumemsim/traces"
)

// Bounds on the work of one fuzz input: the stream is read for at most
// fuzzInsts instructions, and only from warps whose instructions, by
// WarpInstructions' upper bound, add up to at most fuzzWork (a cursor's
// time follows the instructions it issues, loop control included).
const (
	fuzzInsts = 10000
	fuzzWork  = 1e6
	// fuzzLaunches is how many launches of a sequence are streamed.
	fuzzLaunches = 4
)

// FuzzKernel parses its input as a kernel file. What parses must print
// (Format) to a file that parses to the same kernel, printing again the
// same bytes. What also binds, with the file's mapping, block and params
// on a GTX 480, must stream without a panic, with every active lane's
// address inside its array and every inactive lane's 0; and where the
// whole launch is small enough to stream, its instructions must match
// WarpInstructions (equal for loops with constant bounds, at most
// otherwise). A file with launches binds as a sequence, whose first
// launches are streamed so, and its remap kernels. The seeds are the
// shipped examples, loop nests and per-thread (__global__) kernels, and
// every kernel file of testdata.
func FuzzKernel(f *testing.F) {
	for _, data := range seedFiles(f, "examples/*.yaml", "testdata/*.yaml", "testdata/bind/*.yaml", "testdata/fuzz/*.yaml") {
		f.Add(data)
	}
	dev, err := configs.Load("fermi")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := kernel.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		if _, err := roundTrip(k); err != nil {
			t.Fatal(err)
		}
		ls, err := traces.BindSequence(k, nil, arch.Dim3{}, nil, dev)
		if err != nil {
			return
		}
		for _, l := range ls[:min(len(ls), fuzzLaunches)] {
			// A per-thread launch's work is counted by running sample
			// blocks: cap it, or one seed (mri-q-k-outer) counts for
			// 15 s, past the fuzzing engine's time per input.
			l.LimitWork(fuzzWork)
			checkStream(t, l)
		}
		// The remap kernels (Dymaxion's, run by -remap-cost include)
		// stream inside their arrays too.
		rls, err := traces.RemapLaunches(ls[0], dev)
		if err != nil {
			return
		}
		for _, l := range rls {
			checkStream(t, l)
		}
	})
}

// checkStream reads the launch's stream within the fuzz bounds and checks
// its addresses, and its size against WarpInstructions when it reads all
// of it.
func checkStream(t *testing.T, l *traces.Launch) {
	total, warps := l.WarpInstructions(), l.ActiveWarps()
	if math.IsNaN(total) || total < 0 || warps < 0 {
		t.Fatalf("WarpInstructions %v, ActiveWarps %d", total, warps)
	}
	perWarp := 0.0
	if warps > 0 {
		perWarp = total / float64(warps)
	}
	c := l.NewWarp()
	var w traces.WarpInst
	var insts, issued, work float64
	for b := range l.Blocks() {
		for wi := range l.WarpsPerBlock() {
			// The first warp always streams (fuzzInsts bounds it), so
			// that a launch whose estimate is past fuzzWork is checked.
			if work > 0 && work+perWarp > fuzzWork {
				return
			}
			work += perWarp
			c.Reset(b, wi)
			for c.NextTo(&w, &w.Addr) {
				if insts++; insts > fuzzInsts {
					return
				}
				issued++
				if w.Op == traces.OpCompute || w.Op == traces.OpBarrier {
					issued += float64(w.Count) - 1
					continue
				}
				checkAddresses(t, l, &w)
			}
		}
	}
	if l.Info().PerThread {
		// Its work is counted on sample blocks: an estimate, which the
		// stream need not stay under. Errors it meets must be positioned.
		if err := l.Err(); err != nil && !strings.Contains(err.Error(), ".yaml:") {
			t.Fatalf("stream error without a position: %v", err)
		}
		return
	}
	rect := true
	for _, bl := range l.Loops {
		rect = rect && (bl.Mapped || constant(bl.Lower) && constant(bl.Upper))
	}
	if rect && issued != total || issued > total {
		t.Fatalf("the stream issues %v warp instructions; WarpInstructions says %v (constant bounds: %v)", issued, total, rect)
	}
}

func constant(f traces.Linear) bool {
	for _, c := range f.Coef {
		if c != 0 {
			return false
		}
	}
	return true
}

// checkAddresses checks that each active lane of memory instruction w
// addresses an element inside its reference's array, and that each
// inactive lane's address is 0.
func checkAddresses(t *testing.T, l *traces.Launch, w *traces.WarpInst) {
	ref := l.Refs[w.Ref]
	arrays := l.Arrays
	if ref.Space == kernel.SpaceShared {
		arrays = l.Shared
	}
	var a *traces.BoundArray
	for i := range arrays {
		if arrays[i].Name == ref.Array {
			a = &arrays[i]
		}
	}
	if int(w.Width) != ref.Width || ref.Width <= 0 {
		t.Fatalf("%s: width %d; the reference's is %d", ref.Text, w.Width, ref.Width)
	}
	end := a.Base + uint64(a.Size) - uint64(ref.Width)
	for lane := range traces.WarpSize {
		addr := w.Addr[lane]
		if w.Active>>lane&1 == 0 {
			if addr != 0 {
				t.Fatalf("%s block %d warp %d: inactive lane %d at %#x; want 0", ref.Text, w.Block, w.Warp, lane, addr)
			}
			continue
		}
		if addr < a.Base || addr > end || (addr-a.Base)%uint64(ref.Width) != 0 {
			t.Fatalf("%s block %d warp %d lane %d: address %#x outside %s [%#x, %#x) or not on an element",
				ref.Text, w.Block, w.Warp, lane, addr, a.Name, a.Base, a.Base+uint64(a.Size))
		}
	}
}

// FuzzSource is FuzzKernel with the mutations aimed at the source: a
// kernel file is the keys before its source, the source (a block scalar)
// and the keys after it, each fuzzed on its own. What parses must print
// (Format) to a file that parses to the same kernel, printing again the
// same bytes. The seeds are the kernel files of testdata/fuzz and the
// shipped examples.
func FuzzSource(f *testing.F) {
	for _, data := range seedFiles(f, "examples/*.yaml", "testdata/fuzz/*.yaml") {
		before, source, after, ok := splitSource(string(data))
		if !ok {
			f.Fatalf("a seed has no source: | block:\n%s", data)
		}
		f.Add(before, source, after)
	}
	f.Fuzz(func(t *testing.T, before, source, after string) {
		var b strings.Builder
		b.WriteString(before + "source: |2\n")
		for _, line := range strings.Split(source, "\n") {
			b.WriteString("  " + line + "\n")
		}
		b.WriteString(after)
		k, err := kernel.Parse("fuzz.yaml", []byte(b.String()))
		if err != nil {
			return
		}
		if _, err := roundTrip(k); err != nil {
			t.Fatal(err)
		}
	})
}

// splitSource cuts a kernel file around its source: | block, which it
// returns unindented.
func splitSource(file string) (before, source, after string, ok bool) {
	before, rest, ok := strings.Cut(file, "source: |\n")
	if !ok {
		return "", "", "", false
	}
	lines := strings.SplitAfter(rest, "\n")
	n := 0
	for n < len(lines) && (strings.HasPrefix(lines[n], "  ") || strings.TrimSpace(lines[n]) == "" && lines[n] != "") {
		n++
	}
	var src []string
	for _, l := range lines[:n] {
		src = append(src, strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "  "))
	}
	return before, strings.Join(src, "\n"), strings.Join(lines[n:], ""), true
}

// seedFiles reads the files the patterns match, in order.
func seedFiles(f *testing.F, patterns ...string) [][]byte {
	var out [][]byte
	for _, pattern := range patterns {
		m, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range m {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, data)
		}
	}
	return out
}
