package traces

import (
	"testing"

	"gpumemsim/arch"
)

// TestThreadAliases: a local declared at the top of the body from a
// thread index and never assigned again is read as that thread index;
// one assigned again (by a statement or a for's step), declared inside
// an if, declared from something else, or of a type that cannot hold
// every index of the block is not.
func TestThreadAliases(t *testing.T) {
	body := `
int tx = threadIdx.x, ty = threadIdx.y;
int j = threadIdx.x;
j += 3;
int d = blockDim.x;
int t1 = threadIdx.x + 1;
unsigned char c = threadIdx.x;
int i2 = threadIdx.x;
for (int k = 0; k < 2; i2++)
  k++;
if (tx < 2) {
  int n = threadIdx.x;
  C[n][ty] = 0;
}
C[tx + ty][j + d + t1 + c] = 0;`
	for _, tc := range []struct {
		block arch.Dim3
		want  map[string]int32 // the locals read as a thread index, by name
	}{
		{arch.Dim3{X: 16, Y: 2, Z: 1}, map[string]int32{"tx": 0, "ty": 1, "c": 0}},
		// threadIdx.x reaches 299, past an unsigned char's 255.
		{arch.Dim3{X: 300, Y: 1, Z: 1}, map[string]int32{"tx": 0, "ty": 1}},
	} {
		l := threadKernel(t, "[N, P]", body, tc.block, nil)
		xc := &xcompiler{dims: l.dimConsts(l.grid), aliases: threadAliases(l.Kernel.Program)}
		xc.prog = l.Kernel.Program
		xc.vary = varyingLocals(xc.prog, true)
		xc.localRanges()
		for _, lc := range l.Kernel.Program.Locals {
			want, ok := tc.want[lc.Name]
			if !ok {
				want = -1
			}
			if got := xc.alias(lc.Index, xc.local(lc.Index).t); got != want {
				t.Errorf("block %s: local %s reads as thread index %d; want %d", tc.block, lc.Name, got, want)
			}
		}
	}
}

// TestThreadAliasValues: what a store's lanes address where its
// subscripts read locals that are thread indices, and locals that are
// not, worked out by hand: lane i of warp w is thread 32w + i, and an
// unsigned char holds it modulo 256.
func TestThreadAliasValues(t *testing.T) {
	body := `
int tx = threadIdx.x;
int j = threadIdx.x;
j += 3;
unsigned char c = threadIdx.x;
C[c][0] = 0;
C[tx % 64][j % 32] = 0;`
	l := threadKernel(t, "[512, P]", body, arch.Dim3{X: 300, Y: 1, Z: 1}, nil)
	c := l.NewWarp().(*ThreadCursor)
	base := l.Arrays[len(l.Arrays)-1].Base // C, the last array bound
	for w := range l.WarpsPerBlock() {
		c.Reset(0, w)
		var in WarpInst
		for k := 0; c.NextTo(&in, &in.Addr); {
			if in.Op != OpStore {
				continue
			}
			for i := range WarpSize {
				th := int64(32*w + i)
				if th >= 300 {
					continue
				}
				elem := (th % 256) * 32 // C[c][0]
				if k == 1 {
					elem = th%64*32 + (th+3)%32 // C[tx % 64][j % 32]
				}
				if want := base + uint64(elem*4); in.Addr[i] != want {
					t.Fatalf("warp %d store %d lane %d: address %d; want %d", w, k, i, in.Addr[i], want)
				}
			}
			k++
		}
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
}
