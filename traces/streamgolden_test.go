package traces

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gpumemsim/internal/golden"
)

// streamGolden is the file of one stream case: the launch and every
// instruction of every warp, one line each (see instText).
type streamGolden struct {
	Kernel       string           `json:"kernel"`
	Mapping      string           `json:"mapping"`
	Block        string           `json:"block"`
	Params       map[string]int64 `json:"params"`
	Instructions int64            `json:"instructions"`
	Stream       []string         `json:"stream"`
}

// instText writes a warp instruction on one line: block, warp, op, and
// for a compute its count and lanes; for a memory instruction its
// reference, width, lanes and all 32 lane addresses as runs, "A" for one
// lane, "A+D*N" for N lanes from A stepping by D bytes ("A*N": N lanes at
// A), so a warp of consecutive words reads 0x10000000+4*32; a run holds
// active or inactive lanes, not both.
func instText(w *WarpInst) string {
	if w.Op == OpCompute {
		return fmt.Sprintf("b%d w%d compute %d lanes %08x", w.Block, w.Warp, w.Count, w.Active)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "b%d w%d %s r%d %dB lanes %08x:", w.Block, w.Warp, w.Op, w.Ref, w.Width, w.Active)
	// Runs do not cross between active and inactive lanes (whose
	// addresses are 0).
	active := func(i int) bool { return w.Active>>i&1 == 1 }
	for i := 0; i < WarpSize; {
		n := 1
		var d int64
		if i+1 < WarpSize && active(i+1) == active(i) {
			d = int64(w.Addr[i+1] - w.Addr[i])
			for n = 2; i+n < WarpSize && active(i+n) == active(i) && int64(w.Addr[i+n]-w.Addr[i+n-1]) == d; n++ {
			}
		}
		switch {
		case n == 1:
			fmt.Fprintf(&b, " %#x", w.Addr[i])
		case d == 0:
			fmt.Fprintf(&b, " %#x*%d", w.Addr[i], n)
		default:
			fmt.Fprintf(&b, " %#x%+d*%d", w.Addr[i], d, n)
		}
		i += n
	}
	return b.String()
}

// TestStreamGolden pins the whole instruction stream of every shipped
// example and of kernels with divergent and nested loops, under several
// mappings and blocks, in testdata/stream/NAME.json (go test -update
// rewrites them). One cursor is reused across launches of different
// shapes, as the simulator reuses its warps' cursors.
func TestStreamGolden(t *testing.T) {
	var c WarpCursor
	for _, tc := range streamCases() {
		l := bindCase(t, tc)
		if huge := strings.Contains(tc.name, "huge"); huge != (l.laneTab == nil) {
			t.Fatalf("%s: lane table %v; want it only for blocks that fit", tc.name, l.laneTab != nil)
		}
		g := streamGolden{Kernel: l.Kernel.Name, Mapping: l.Mapping.String(), Block: l.Block.String(), Params: map[string]int64{}}
		for _, p := range l.Params {
			g.Params[p.Name] = p.Value
		}
		var w WarpInst
		for b := range l.Blocks() {
			for wi := range l.WarpsPerBlock() {
				c.Start(l, b, wi)
				for c.Next(&w) {
					g.Instructions++
					g.Stream = append(g.Stream, instText(&w))
				}
			}
		}
		data, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		name := strings.ReplaceAll(tc.name, " ", "-")
		golden.Check(t, filepath.Join("testdata", "stream", name+".json"), append(data, '\n'))
	}
}
