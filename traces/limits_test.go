package traces

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"gpumemsim/arch"
	"gpumemsim/kernel"
)

// TestCursorMemoryAtLimits binds a kernel at every cap of package kernel
// (kernel.MaxLoops loops, all divergent but the mapped one, and
// kernel.MaxRefs references) and checks that a cursor allocates what
// kernel's limits promise: 8 bytes per reference, 20 per loop and 512 per
// divergent loop, plus 272 per reference for a block too large for the
// launch's shared lane table. The simulator keeps one cursor per resident
// warp slot, so this is what bounds its memory.
func TestCursorMemoryAtLimits(t *testing.T) {
	var src strings.Builder
	src.WriteString("for (i = 0; i < N; i++)\n")
	for d := range kernel.MaxLoops - 1 {
		fmt.Fprintf(&src, "for (l%d = 0; l%d < i + 2; l%d++)\n", d, d, d) // divergent: depends on i
	}
	src.WriteString("{\n" + strings.Repeat("A[i] = B[i];\n", kernel.MaxRefs/2) + "}")
	k := mustParse(t, "N: 4096", "A=N; B=N", src.String(), "mapping: {i: tx}\n")
	for _, tc := range []struct {
		block arch.Dim3
		own   bool // the cursor tabulates its own lane offsets
	}{
		{arch.Dim3{X: 1024, Y: 1, Z: 1}, false}, // 32 warps × 128 refs = 4096 entries: shared
		{arch.Dim3{X: 2048, Y: 1, Z: 1}, true},
	} {
		l, err := Bind(k, nil, tc.block, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.laneTab == nil; got != tc.own {
			t.Fatalf("block %v: cursors own their lane tables: %v; want %v", tc.block, got, tc.own)
		}
		limit := kernel.MaxRefs*8 + kernel.MaxLoops*(20+512)
		if tc.own {
			limit += kernel.MaxRefs * 272
		}
		limit += int(unsafe.Sizeof(WarpCursor{}))
		var c WarpCursor
		c.Start(l, 1, 3)
		if got := cursorBytes(&c); got > limit {
			t.Errorf("block %v: a cursor holds %d bytes; want at most %d", tc.block, got, limit)
		}
	}
}

// cursorBytes is the memory a cursor holds: itself and the backing
// arrays of its slices, except those that share the launch's (code,
// steps) or alias another field (tab and shape alias own and ownShape or
// the launch's table).
func cursorBytes(c *WarpCursor) int {
	n := int(unsafe.Sizeof(*c))
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch v.Type().Field(i).Name {
		case "code", "steps", "tab", "shape":
			continue
		}
		if f.Kind() == reflect.Slice {
			n += f.Cap() * int(f.Type().Elem().Size())
		}
	}
	return n
}
