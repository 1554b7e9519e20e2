package accelsim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gpumemsim/traces"
)

var scratch traces.WarpInst

// BenchmarkIndex reads and indexes the vectorAdd fixture (1 MB, 32,498
// lines) from memory.
func BenchmarkIndex(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixture, "kernel-1.traceg"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadKernel("k", bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay reads every warp of the fixture back through a cursor,
// as the simulator does.
func BenchmarkReplay(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixture, "kernel-1.traceg"))
	if err != nil {
		b.Fatal(err)
	}
	k, err := ReadKernel("k", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	c := k.NewWarp()
	for b.Loop() {
		for _, blk := range k.blocks {
			for w := range k.wpb {
				c.Reset(int(blk.id), w)
				for c.NextTo(&scratch, &scratch.Addr) {
				}
			}
		}
	}
	b.ReportMetric(float64(k.counts.Insts)*float64(b.N)/b.Elapsed().Seconds(), "insts/s")
}
