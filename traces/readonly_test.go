package traces

import (
	"strings"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/kernel"
)

const ldgSrc = `name: ldg
params: {N: 64}
arrays:
  O: {type: f32, dims: [N]}
  R: {type: f32, dims: [N]}
  P: {type: f32, dims: [N]}
  Q: {type: f32, dims: [N]}
source: |
  __global__ void k(float *O, const float * __restrict__ R, const float *P, float *Q) {
    int i = threadIdx.x;
    O[i] = R[i] + P[i] + __ldg(&Q[i]);
  }
block: [64]
grid: [1]
`

// spacesOf lists the spaces of l's references.
func spacesOf(l *Launch) string {
	var s []string
	for _, r := range l.Refs {
		s = append(s, r.Text+":"+r.Space.String())
	}
	return strings.Join(s, " ")
}

// TestReadOnlySpace: which loads go through the read-only data cache,
// by device: __ldg always (none without one, CC < 3.5, is an error at
// it); a load through a const __restrict__ pointer on CC 3.5 and later
// only (nvcc's choice), a global load on fermi and when no device is
// given; through a const pointer without __restrict__ never; every load
// of an array put in the readonly space.
func TestReadOnlySpace(t *testing.T) {
	for _, tc := range []struct {
		device string
		spaces map[string]kernel.Space
		want   string // spaces, or the error's start
	}{
		{"", nil, "R[i]:global P[i]:global __ldg(&Q[i]):readonly O[i]:global"},
		{"kepler", nil, "R[i]:readonly P[i]:global __ldg(&Q[i]):readonly O[i]:global"},
		{"maxwell", nil, "R[i]:readonly P[i]:global __ldg(&Q[i]):readonly O[i]:global"},
		{"kepler", map[string]kernel.Space{"P": kernel.SpaceReadOnly}, "R[i]:readonly P[i]:readonly __ldg(&Q[i]):readonly O[i]:global"},
		{"kepler", map[string]kernel.Space{"R": kernel.SpaceTexture}, "R[i]:texture P[i]:global __ldg(&Q[i]):readonly O[i]:global"},
		{"fermi", nil, "ldg.yaml:11:26: __ldg(&Q[i]) loads through the read-only data cache (ld.global.nc), which fermi (compute capability 2.0) does not have: it came with compute capability 3.5; hint: fetch Q through a texture instead (space: texture and tex1Dfetch(Q, i)), read it as Q[i], or run on kepler or maxwell"},
		{"gt200", map[string]kernel.Space{"P": kernel.SpaceReadOnly}, "ldg.yaml:11:19: P[i] reads array P, which is in readonly space, through the read-only data cache, which gt200 (compute capability 1.3) does not have: it came with compute capability 3.5; hint: put P in global or texture memory (-spaces P=texture), or run on kepler or maxwell"},
	} {
		k, err := kernel.Parse("ldg.yaml", []byte(ldgSrc))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SetSpaces(tc.spaces); err != nil {
			t.Fatal(err)
		}
		var dev *arch.Device
		if tc.device != "" {
			if dev, err = configs.Load(tc.device); err != nil {
				t.Fatal(err)
			}
		}
		l, err := Bind(k, nil, arch.Dim3{}, nil, dev)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = spacesOf(l)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %v: %s\nwant %s", cmpOr(tc.device, "no device"), tc.spaces, got, tc.want)
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestReadOnlyLoopNest: -spaces A=readonly on a loop nest makes A's loads
// LDGs on kepler and is an error at the first on gt200.
func TestReadOnlyLoopNest(t *testing.T) {
	for _, tc := range []struct{ device, want string }{
		{"kepler", "A[i]:readonly B[i]:global C[i]:global"},
		{"gt200", "examples/vecadd.yaml:13:12: A[i] reads array A, which is in readonly space"},
	} {
		k, err := kernel.Load("vecadd")
		if err != nil {
			t.Fatal(err)
		}
		if err := k.SetSpaces(map[string]kernel.Space{"A": kernel.SpaceReadOnly}); err != nil {
			t.Fatal(err)
		}
		dev, err := configs.Load(tc.device)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Bind(k, nil, arch.Dim3{}, map[string]int64{"N": 1024}, dev)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = spacesOf(l)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s\nwant %s", tc.device, got, tc.want)
		}
	}
}
