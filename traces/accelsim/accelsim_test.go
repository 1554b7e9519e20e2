package accelsim

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gpumemsim/traces"
)

// fixture is the sm_80 vectorAdd trace (sarchlab/mgpusim's
// simple-trace-example), kept with the command's test data.
const fixture = "../../cmd/gpumemsim/testdata/accelsim"

// header5 is a tracer version 5 header for a grid of 2 blocks of 64
// threads; tests append thread blocks to it.
const header5 = `-kernel name = k
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 1024
-nregs = 16
-binary version = 80
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007e0000000000
-nvbit version = 1.7
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate
`

func read(t testing.TB, text string) *Kernel {
	t.Helper()
	k, err := ReadKernel("t.traceg", strings.NewReader(text), int64(len(text)))
	if err != nil {
		t.Fatalf("ReadKernel: %v", err)
	}
	return k
}

// stream is every warp instruction of the blocks k traces (traces.Stream
// would visit every block of the grid, which a fuzzed header makes
// large), addresses of memory instructions copied.
func stream(k *Kernel) []traces.WarpInst {
	var out []traces.WarpInst
	c := k.NewWarp()
	for _, b := range k.blocks {
		for w := range k.wpb {
			c.Reset(int(b.id), w)
			var in traces.WarpInst
			for c.NextTo(&in, &in.Addr) {
				if in.Op == traces.OpCompute || in.Op == traces.OpBarrier {
					in.Addr = [traces.WarpSize]uint64{}
				}
				out = append(out, in)
			}
		}
	}
	return out
}

func TestVectorAddFixture(t *testing.T) {
	tr, err := Open(filepath.Join(fixture, "kernelslist.g"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if want := []Copy{{0x7fb0fc400000, 200000}, {0x7fb0fc430e00, 200000}}; !reflect.DeepEqual(tr.Copies, want) {
		t.Errorf("Copies = %v; want %v", tr.Copies, want)
	}
	if len(tr.Kernels) != 1 {
		t.Fatalf("%d kernels; want 1", len(tr.Kernels))
	}
	k := tr.Kernels[0]
	h := k.Header
	if h.Name != "_Z9vectorAddPKfS0_Pfi" || h.Grid.X != 196 || h.Block.X != 256 || h.Regs != 12 || h.Shmem != 0 ||
		h.BinaryVersion != 80 || h.TracerVersion != 5 || h.ShmemBase != 0x7fb139000000 || h.LocalBase != 0x7fb137000000 {
		t.Errorf("Header = %+v", h)
	}
	// 196 blocks of 8 warps; 50000 elements are 1562.5 warps, so warps
	// 0-1562 load twice and store once (3 memory instructions of 17) and
	// the other 5 warps of block 195 exit after 6 instructions.
	c := k.Counts()
	want := Counts{Blocks: 196, Warps: 1568, Insts: 1563*17 + 5*6, MemInsts: 3 * 1563,
		GlobalLoads: 2 * 1563, GlobalLoadSectors: 2 * (1562*4 + 2), GlobalStores: 1563, GlobalStoreSectors: 1562*4 + 2,
		Refs: []int64{1563, 1563, 1563}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Counts = %+v\nwant     %+v", c, want)
	}
	var texts []string
	for _, r := range k.Info().Refs {
		texts = append(texts, fmt.Sprintf("%s %v %v", r.Text, r.Op, r.Space))
	}
	if got, want := strings.Join(texts, "; "), "LDG.E @0x00a0 load global; LDG.E @0x00b0 load global; STG.E @0x00f0 store global"; got != want {
		t.Errorf("Refs = %s; want %s", got, want)
	}
	// Warp 1 of block 0: 11 compute instructions, two loads, two compute,
	// the store, EXIT. The first load is b[i] (0x7fb0fc430e00 + 4 i).
	c0 := k.NewWarp()
	c0.Reset(0, 1)
	var got []string
	var w traces.WarpInst
	for c0.NextTo(&w, &w.Addr) {
		s := fmt.Sprintf("%v", w.Op)
		switch w.Op {
		case traces.OpCompute:
			s += fmt.Sprintf("x%d", w.Count)
		default:
			s += fmt.Sprintf(" %d %x+%d", w.Ref, w.Addr[0], w.Addr[31]-w.Addr[0])
		}
		got = append(got, s)
	}
	if g, want := strings.Join(got, ", "), "computex10, load 0 7fb0fc430e80+124, load 1 7fb0fc400080+124, computex3, store 2 7fb0fc461c80+124, computex1"; g != want {
		t.Errorf("warp 1 of block 0 = %s; want %s", g, want)
	}
}

// The three address modes decode as Accel-Sim's trace_parser.cc does:
// list_all one address per active lane, base_stride base + k·stride for
// the k-th active lane, base_delta each active lane from the one before.
func TestAddressModes(t *testing.T) {
	text := header5 + `
#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 4
0010 0000000f 1 R2 LDG.E.64 1 R4 8 0 0x1000 0x1008 0x1100 0xfff8 0
0020 00000ff0 1 R2 LDG.E 1 R4 4 1 0x2000 -4 0
0030 80000005 0 STG.E.U16 2 R4 R6 2 2 0x3000 6 -2 0
0040 00000000 0 STG.E 2 R4 R6 4 1 0x0 0 0

warp = 1
insts = 0
#END_TB
`
	k := read(t, text)
	ws := stream(k)
	if len(ws) != 4 {
		t.Fatalf("%d instructions; want 4", len(ws))
	}
	lanes := func(w traces.WarpInst) map[int]uint64 {
		m := map[int]uint64{}
		for l := range traces.WarpSize {
			if w.Active&(1<<l) != 0 {
				m[l] = w.Addr[l]
			}
		}
		return m
	}
	for i, want := range []map[int]uint64{
		{0: 0x1000, 1: 0x1008, 2: 0x1100, 3: 0xfff8},
		{4: 0x2000, 5: 0x1ffc, 6: 0x1ff8, 7: 0x1ff4, 8: 0x1ff0, 9: 0x1fec, 10: 0x1fe8, 11: 0x1fe4},
		{0: 0x3000, 2: 0x3006, 31: 0x3004},
		{},
	} {
		if got := lanes(ws[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("instruction %d: lanes %x; want %x", i, got, want)
		}
	}
	if ws[0].Width != 8 || ws[2].Width != 2 || ws[2].Op != traces.OpStore {
		t.Errorf("widths %d, %d, op %v; want 8, 2, store", ws[0].Width, ws[2].Width, ws[2].Op)
	}
	c := k.Counts()
	// Sectors: 0x1000-0x100f one, 0x1100 one, 0xfff8 one: 3; 0x1fe4-0x2003
	// spans 0x1fe0 and 0x2000: 2; the stores: 0x3000-0x3007 one.
	if c.GlobalLoadSectors != 5 || c.GlobalStoreSectors != 1 || c.GlobalStores != 2 {
		t.Errorf("Counts = %+v; want 5 load sectors, 2 stores of 1 sector", c)
	}
}

// Shared, local and generic accesses replay in the space the header's
// windows say, at the offsets the simulator takes.
func TestSpaces(t *testing.T) {
	text := header5 + `
#BEGIN_TB
thread block = 1,0,0
warp = 1
insts = 9
0010 00000003 1 R2 LDS.U.128 1 R4 16 1 0x7f0000000010 16 0
0020 00000003 0 STS 2 R4 R2 4 1 0x7f0000000020 4 0
0030 00000003 1 R2 LDL 1 R4 4 1 0x7e0000000008 0 0
0040 00000003 1 R2 LD.E 1 R4 4 1 0x7f0000000100 4 0
0050 00000003 1 R2 LD.E 1 R4 4 1 0x10000 4 0
0060 00000003 0 ST.E 2 R4 R2 4 1 0x7e0000000004 0 0
0070 00000003 1 R2 ATOMG.E.ADD.STRONG.GPU 2 R4 R6 4 1 0x20000 4 0
0080 00000003 0 BAR.ARV 0 0 0
0090 00000003 0 BAR.SYNC.DEFER_BLOCKING 0 0 0
#END_TB
`
	k := read(t, text)
	refs := k.Info().Refs
	var got []string
	for _, r := range refs {
		got = append(got, fmt.Sprintf("%s:%v:%v", r.Text, r.Op, r.Space))
	}
	want := []string{
		"LDS.U.128 @0x0010:load:shared", "STS @0x0020:store:shared", "LDL @0x0030:load:global",
		"LD.E @0x0040 [shared]:load:shared", "LD.E @0x0050 [global]:load:global", "ST.E @0x0060 [local]:store:global",
		"ATOMG.E.ADD.STRONG.GPU @0x0070:store:global",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ws := stream(k)
	// Block 1, warp 1: threads 96 and 97 of the grid's 128.
	const total, tid = 128, 96
	for i, want := range [][2]uint64{
		{0x10, 0x20},
		{0x20, 0x24},
		{0x7e0000000000 + 8*total + 4*tid, 0x7e0000000000 + 8*total + 4*(tid+1)},
		{0x100, 0x104},
		{0x10000, 0x10004},
		{0x7e0000000000 + 4*total + 4*tid, 0x7e0000000000 + 4*total + 4*(tid+1)},
		{0x20000, 0x20004},
	} {
		if got := [2]uint64{ws[i].Addr[0], ws[i].Addr[1]}; got != want {
			t.Errorf("instruction %d (%s): lanes 0 and 1 at %#x; want %#x", i, refs[ws[i].Ref].Text, got, want)
		}
	}
	if n := len(ws); n != 9 || ws[7].Op != traces.OpCompute || ws[7].Count != 1 || ws[8].Op != traces.OpBarrier {
		t.Errorf("the BARs replay as %v x%d and %v; want compute x1 (BAR.ARV) and barrier", ws[7].Op, ws[7].Count, ws[8].Op)
	}
}

// Every malformed trace names its file and line and says what is wrong.
func TestErrors(t *testing.T) {
	tb := func(body string) string { return header5 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n" + body }
	for _, tc := range []struct {
		name, text, want string
	}{
		{"truncated", tb("insts = 2\n0000 ffffffff 0 EXIT 0 0 0\n"),
			"t.traceg:21: the file ends inside warp 0 of thread block 0,0,0 (line 18), after 1 of its insts = 2 instruction lines; hint: the trace is truncated"},
		{"no end", tb("insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n"),
			"t.traceg:21: the file ends inside thread block 0,0,0 (begun at line 16), before its #END_TB; hint: the trace is truncated"},
		{"too many", tb("insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
			"t.traceg:21: warp 0 of thread block 0,0,0 has insts = 1, and this is instruction line 2 of it"},
		{"count short", tb("insts = 3\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
			"t.traceg:21: warp 0 of thread block 0,0,0 (line 18) has insts = 3 but 1 instruction lines"},
		{"bad mask", tb("insts = 1\n0000 fffffffff 0 EXIT 0 0 0\n#END_TB\n"),
			"t.traceg:20: mask \"fffffffff\": want 8 hex digits"},
		{"mask not hex", tb("insts = 1\n0000 ffffzfff 0 EXIT 0 0 0\n#END_TB\n"),
			"t.traceg:20: mask \"ffffzfff\""},
		{"unknown mode", tb("insts = 1\n0000 ffffffff 1 R1 LDG.E 1 R2 4 3 0x1000 4 0\n#END_TB\n"),
			"t.traceg:20: address mode \"3\": want 0 (list_all), 1 (base_stride) or 2 (base_delta)"},
		{"few addresses", tb("insts = 1\n0000 00000007 1 R1 LDG.E 1 R2 4 0 0x1000 0x1004 0\n#END_TB\n"),
			"t.traceg:20: mask 00000007 has 3 active lanes; list_all (mode 0) gives 2 addresses (the last field is tracer version 5's immediate)"},
		{"many deltas", tb("insts = 1\n0000 00000003 1 R1 LDG.E 1 R2 4 2 0x1000 4 4 0\n#END_TB\n"),
			"t.traceg:20: mask 00000003 has 2 active lanes; base_delta (mode 2) takes a base address and 1 deltas, got 3 fields"},
		{"stride gap", tb("insts = 1\n0000 00000005 1 R1 LDG.E 1 R2 4 1 0x1000 4 0\n#END_TB\n"),
			"t.traceg:20: base_stride (mode 1) with mask 00000005, whose active lanes are not one run"},
		{"bad width", tb("insts = 1\n0000 ffffffff 1 R1 LDG.E 1 R2 3 1 0x1000 4 0\n#END_TB\n"),
			"t.traceg:20: mem_width 3: want 1, 2, 4, 8 or 16"},
		{"no immediate", tb("insts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n"),
			"t.traceg:20: the line ends before its immediate"},
		{"bad register", tb("insts = 1\n0000 ffffffff 1 X1 MOV 0 0 0\n#END_TB\n"),
			"t.traceg:20: destination register \"X1\": want Rn"},
		{"warp out of block", header5 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n",
			"t.traceg:18: warp = 2, but a block of (64,1,1) threads has 2 warps"},
		{"block outside grid", header5 + "#BEGIN_TB\nthread block = 2,0,0\n",
			"t.traceg:17: thread block = 2,0,0 lies outside the grid (2,1,1)"},
		{"block twice", tb("insts = 0\n#END_TB\n#BEGIN_TB\nthread block = 0,0,0\n"),
			"t.traceg:22: thread block 0,0,0 again (first at line 17)"},
		{"nested begin", tb("insts = 0\n#BEGIN_TB\n"),
			"t.traceg:20: #BEGIN_TB inside the thread block begun at line 16"},
		{"no version", strings.Replace(header5, "-accelsim tracer version = 5\n", "", 1) + "#BEGIN_TB\n",
			"t.traceg:15: no -accelsim tracer version line before the first thread block"},
		{"old version", strings.Replace(header5, "version = 5", "version = 2", 1),
			"t.traceg:12: -accelsim tracer version = 2: gpumemsim reads versions 3 to 5"},
		{"raw trace", strings.Replace(header5, "#traces", "0 0 0 0 0000 ffffffff 0 EXIT 0 0 0\n#traces", 1),
			"t.traceg:15: \"0 0 0 0 0000 ffffffff 0 EXIT 0 0 0\" outside a thread block; hint: is this a raw .trace?"},
		{"bad grid", strings.Replace(header5, "(2,1,1)", "(2,0,1)", 1),
			"t.traceg:3: -grid dim = (2,0,1): want (x,y,z) with positive whole numbers below 2^31"},
		{"huge grid", strings.Replace(header5, "(2,1,1)", "(99999999999,1,1)", 1),
			"t.traceg:3: -grid dim = (99999999999,1,1): want (x,y,z) with positive whole numbers below 2^31"},
	} {
		_, err := ReadKernel("t.traceg", strings.NewReader(tc.text), int64(len(tc.text)))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one starting %q", tc.name, err, tc.want)
		}
	}
}

// Blocks and warps in another order than the post-processor's, and warps
// left out, replay as the ordered trace does.
func TestOrder(t *testing.T) {
	warp := func(w int, pc string) string {
		return fmt.Sprintf("warp = %d\ninsts = 1\n%s ffffffff 1 R1 LDG.E 1 R2 4 1 0x%x 4 0\n", w, pc, 0x1000*(w+1))
	}
	ordered := header5 + "#BEGIN_TB\nthread block = 0,0,0\n" + warp(0, "0010") + warp(1, "0020") + "#END_TB\n" +
		"#BEGIN_TB\nthread block = 1,0,0\n" + warp(1, "0020") + "#END_TB\n"
	shuffled := header5 + "#BEGIN_TB\nthread block = 1,0,0\n" + warp(1, "0020") + "#END_TB\n" +
		"#BEGIN_TB\nthread block = 0,0,0\n" + warp(1, "0020") + warp(0, "0010") + "#END_TB\n"
	a, b := read(t, ordered), read(t, shuffled)
	if got, want := stream(b), stream(a); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("shuffled trace replays %+v; want %+v", got, want)
	}
	if _, ok := b.spanOf(1, 0); ok {
		t.Errorf("warp 0 of block 1 is not traced, but spanOf finds it")
	}
}

// Version 4 lines end with the addresses; line info adds a first field.
func TestVersion4LineInfo(t *testing.T) {
	text := strings.NewReplacer("version = 5", "version = 4", "lineinfo = 0", "lineinfo = 1").Replace(header5) + `#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 2
12 0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000 4
13 0010 ffffffff 0 EXIT 0 0
#END_TB
`
	ws := stream(read(t, text))
	if len(ws) != 2 || ws[0].Op != traces.OpLoad || ws[0].Addr[31] != 0x1000+31*4 || ws[1].Op != traces.OpCompute {
		t.Errorf("stream = %+v", ws)
	}
}

func TestReadList(t *testing.T) {
	l, err := ReadList("dir/kernelslist.g", []byte("MemcpyHtoD,0x00007fb0fc400000,200000\n\nMemcpyDtoH,0x1,2\nkernel-1.traceg\nkernel-2.traceg\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join("dir", "kernel-1.traceg"), filepath.Join("dir", "kernel-2.traceg")}; !reflect.DeepEqual(l.Kernels, want) || len(l.Copies) != 1 {
		t.Errorf("ReadList = %+v", l)
	}
	for _, tc := range []struct{ text, want string }{
		{"MemcpyHtoD,0x10\nkernel-1.traceg\n", "k.g:1: \"MemcpyHtoD,0x10\": want MemcpyHtoD,ADDRESS,BYTES"},
		{"kernel-1.trace.xz\n", "k.g:1: kernel-1.trace.xz is xz-compressed"},
		{"launch kernel-1\n", "k.g:1: \"launch kernel-1\": want MemcpyHtoD,ADDRESS,BYTES or the name of a kernel's trace file"},
		{"MemcpyHtoD,0x10,4\n", "k.g: lists no kernel trace file"},
	} {
		if _, err := ReadList("k.g", []byte(tc.text)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ReadList(%q) error %v; want %q", tc.text, err, tc.want)
		}
	}
}

// A trace whose file changes after it was read fails at the line that
// changed when it is replayed, and the kernel reports it.
func TestChangedFile(t *testing.T) {
	text := header5 + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"
	path := filepath.Join(t.TempDir(), "k.traceg")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := OpenKernel(path)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := os.WriteFile(path, []byte(strings.Replace(text, "0000 ffffffff", "0000 fffzffff", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stream(k)
	if err := k.Err(); err == nil || !strings.Contains(err.Error(), "k.traceg:20: mask") || !strings.Contains(err.Error(), "changed") {
		t.Errorf("Err() = %v; want line 20's mask, and that the file changed", err)
	}
}

// canonical rewrites a trace with every address listed (mode 0) and
// every count recomputed: reading it back must give the same stream.
func canonical(k *Kernel) string {
	var b strings.Builder
	h := k.Header
	fmt.Fprintf(&b, "-kernel name = %s\n-grid dim = (%d,%d,%d)\n-block dim = (%d,%d,%d)\n-shmem = %d\n-nregs = %d\n-shmem base_addr = 0x%x\n-local mem base_addr = 0x%x\n-accelsim tracer version = 5\n",
		h.Name, h.Grid.X, h.Grid.Y, h.Grid.Z, h.Block.X, h.Block.Y, h.Block.Z, h.Shmem, h.Regs, h.ShmemBase, h.LocalBase)
	g := h.Grid
	for i, tb := range k.blocks {
		id := int(tb.id)
		fmt.Fprintf(&b, "#BEGIN_TB\nthread block = %d,%d,%d\n", id%g.X, id/g.X%g.Y, id/(g.X*g.Y))
		for _, sp := range k.blockWarps(i) {
			fmt.Fprintf(&b, "warp = %d\ninsts = %d\n", sp.warp, sp.insts)
			var lr lineReader
			lr.reset(k.r, k.size, sp.off, 64)
			var in inst
			for n := int64(0); n < sp.insts; {
				line, _, err := lr.next()
				if err != nil {
					panic(err)
				}
				if len(tokensOf(line)) == 0 {
					continue
				}
				if err := parseInst(line, &k.Header, &in); err != nil {
					panic(err)
				}
				n++
				fmt.Fprintf(&b, "%x %08x 0 %s 0 %d", in.pc, in.mask, in.opcode, in.width)
				if in.width > 0 {
					b.WriteString(" 0")
					for l := range traces.WarpSize {
						if in.mask&(1<<l) != 0 {
							fmt.Fprintf(&b, " 0x%x", in.addr[l])
						}
					}
				}
				b.WriteString(" 0\n")
			}
		}
		b.WriteString("#END_TB\n")
	}
	return b.String()
}

func FuzzKernel(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(fixture, "kernel-1.traceg"))
	if err != nil {
		f.Fatal(err)
	}
	// The fixture's header and first two blocks, and its last.
	first := bytes.Index(data, []byte("#BEGIN_TB"))
	third := first + 1 + bytes.Index(data[first+1:], []byte("#BEGIN_TB"))
	third += 1 + bytes.Index(data[third+1:], []byte("#BEGIN_TB"))
	last := bytes.LastIndex(data, []byte("#BEGIN_TB"))
	f.Add(data[:third])
	f.Add(append(append([]byte{}, data[:first]...), data[last:]...))
	f.Add([]byte(header5 + "#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 3\n0010 00000003 1 R2 LD.E 1 R4 4 2 0x7f0000000100 -4 0\n0020 00000001 1 R2 LDL 1 R4 4 0 0x7e0000000008 0\n0030 ffffffff 0 BAR.SYNC 0 0 0\n#END_TB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ReadKernel("f.traceg", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		ws := stream(k)
		if err := k.Err(); err != nil {
			t.Fatalf("replay failed: %v", err)
		}
		c := k.Counts()
		var insts, mem int64
		refs := make([]int64, len(c.Refs))
		for _, w := range ws {
			switch w.Op {
			case traces.OpCompute:
				insts += int64(w.Count)
			case traces.OpBarrier:
				insts++
			default:
				insts++
				mem++
				refs[w.Ref]++
				if w.Width == 0 || bits.OnesCount32(w.Active) > traces.WarpSize {
					t.Fatalf("memory instruction of width %d", w.Width)
				}
			}
		}
		if insts != c.Insts || mem != c.MemInsts || !reflect.DeepEqual(refs, c.Refs) {
			t.Fatalf("streamed %d instructions, %d with memory, refs %v; Counts say %d, %d, %v", insts, mem, refs, c.Insts, c.MemInsts, c.Refs)
		}
		again := read(t, canonical(k))
		if got := stream(again); !reflect.DeepEqual(got, ws) {
			t.Fatalf("the trace rewritten with listed addresses replays differently")
		}
		if !reflect.DeepEqual(again.Counts(), c) || !reflect.DeepEqual(again.Info().Refs, k.Info().Refs) {
			t.Fatalf("the trace rewritten with listed addresses counts %+v; want %+v", again.Counts(), c)
		}
	})
}
