package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"gpumemsim/sim"
)

// The bar sums the blocks and warp instructions of all launches, each
// reported from its own goroutine as validate's are.
func TestProgressSum(t *testing.T) {
	p := &progress{done: make([]launchDone, 3)}
	var wg sync.WaitGroup
	for i, blocks := range []int64{64, 1, 1000} {
		wg.Go(func() {
			report := p.counter(i)
			for done := int64(1); done <= blocks; done++ {
				report(sim.Progress{Blocks: done, WarpInsts: 10 * done})
			}
		})
	}
	wg.Wait()
	if blocks, insts := p.sum(); blocks != 64+1+1000 || insts != 10*(64+1+1000) {
		t.Errorf("sum = %d blocks, %d warp instructions; want %d and %d", blocks, insts, 64+1+1000, 10*(64+1+1000))
	}
}

// Where stderr is no terminal, nothing is shown and the simulator gets no
// callback to call.
func TestProgressHidden(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	est := workEstimate{warpInsts: 100, memInsts: 10, blocks: 4, launches: 2, seconds: 1, longest: 1}
	p := newProgress(f, "simulating", est, 2)
	if p.job(0) != nil || p.job(1) != nil {
		t.Errorf("newProgress(file): want nil callbacks, as no bar is shown")
	}
	p.finish()
	p.finish()
	if info, err := f.Stat(); err != nil || info.Size() != 0 {
		t.Errorf("newProgress(file) wrote %d bytes to it (%v); want none", info.Size(), err)
	}
}

// The count's line: nothing in its first second, then a line that ends
// by clearing the rest of the terminal's row, at most one per redraw, and
// a cleared row at the end; no line on a file, which is no terminal, and
// no callback for the count to call.
func TestCountLine(t *testing.T) {
	var buf bytes.Buffer
	c := &countLine{w: &buf, what: "k", budget: 2e9, start: time.Now()}
	c.counted(1 << 20)
	if buf.Len() != 0 {
		t.Errorf("within the count's first second: %q; want nothing", buf.String())
	}
	c.start = time.Now().Add(-2 * time.Second)
	c.counted(3 << 20)
	c.counted(4 << 20) // within redraw of the last
	want := "\rcounting the work of k: 3.15e+06 warp instructions so far; the count stops at 2e+09 (-max-work)\x1b[K"
	if buf.String() != want {
		t.Errorf("two seconds in: %q; want %q", buf.String(), want)
	}
	buf.Reset()
	c.end()
	if buf.String() != "\r\x1b[K" {
		t.Errorf("end: %q; want the row cleared", buf.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if c := newCountLine(f, "k", 2e9); c != nil || c.report() != nil {
		t.Errorf("newCountLine(file) = %v; want nil, and no callback", c)
	}
	c = nil
	c.end() // nothing drawn, nothing to clear
}

// stdout does not depend on what stderr is: the same bytes when stderr
// is a buffer and when it is a file, neither a terminal, and nothing on
// that file.
func TestStdoutWithoutTerminal(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-device", "fermi", "-kernel", "matmul", "-set", "M=64,N=64,P=64"},
		{"validate", "-device", "gt200", "-kernel", "vecadd", "-set", "N=65536", "-format", "csv"},
	} {
		var want, errBuf bytes.Buffer
		if err := run(context.Background(), args, &want, &errBuf); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		err = run(context.Background(), args, &got, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("gpumemsim %v: stdout differs when stderr is a file", args)
		}
		stderr, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if len(stderr) != 0 || errBuf.Len() != 0 {
			t.Errorf("gpumemsim %v: stderr %q (file), %q (buffer); want nothing", args, stderr, errBuf.String())
		}
	}
}
