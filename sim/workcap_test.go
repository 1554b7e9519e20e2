package sim_test

import (
	"context"
	"errors"
	"testing"

	"gpumemsim/arch"
	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// vecadd on gt200 at N = 2^20 is 32,768 warps, each of 7 warp
// instructions (two loads, four compute, one store, as `trace` lists
// them) and 12 DRAM sectors (three rows of 32 lanes × 4 B, 128 B each,
// with no cache between on CC 1.3): 19 units of work a warp, the same
// from the first warp to the last.
const (
	vecaddWarps = 1 << 15
	vecaddWork  = vecaddWarps * (7 + 12) // 622,592
)

// workStop runs vecadd on gt200 at N = 2^20 under opts, n times in a
// sequence, and returns the error that stopped it, which must be a
// WorkError.
func workStop(t *testing.T, opts sim.Options, n int) *sim.WorkError {
	t.Helper()
	dev, l := bind(t, "gt200", "vecadd", "", "", map[string]int64{"N": 1 << 20})
	srcs := make([]traces.Source, n)
	for i := range srcs {
		srcs[i] = l
	}
	_, err := sim.RunSequence(context.Background(), dev, srcs, opts)
	var we *sim.WorkError
	if !errors.As(err, &we) {
		t.Fatalf("err = %v; want a WorkError", err)
	}
	return we
}

// Under a cap of twice its work the launch runs to the end, and its work
// is the warp instructions and DRAM sectors derived above.
func TestWorkCapHolds(t *testing.T) {
	dev, l := bind(t, "gt200", "vecadd", "", "", map[string]int64{"N": 1 << 20})
	r, err := sim.Run(context.Background(), dev, l, sim.Options{MaxWork: 2 * vecaddWork})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.WarpInsts + r.DRAM.ReadSectors + r.DRAM.WriteSectors; got != vecaddWork {
		t.Errorf("work = %d warp instructions + %d + %d DRAM sectors = %d; want %d", r.WarpInsts, r.DRAM.ReadSectors, r.DRAM.WriteSectors, got, vecaddWork)
	}
}

// Under 0.45 of its work the launch is on course past twice the cap, and
// is stopped soon after 1/64 of its warp instructions have issued (at the
// engine's next look, within 4,096 events), at a projection within 10% of
// its work: long before it would have passed the cap itself, at 0.45 of
// them.
func TestWorkCapProjects(t *testing.T) {
	defer sim.ProjectFrom(0)()
	we := workStop(t, sim.Options{MaxWork: 0.45 * vecaddWork}, 1)
	const insts = 7 * vecaddWarps
	if we.Total != insts {
		t.Errorf("Total = %v; want the launch's %d warp instructions", we.Total, insts)
	}
	if we.WarpInsts < insts/64 || we.WarpInsts > insts/16 {
		t.Errorf("stopped after %d warp instructions; want from 1/64 to 1/16 of %d", we.WarpInsts, insts)
	}
	if we.Projected < 0.9*vecaddWork || we.Projected > 1.1*vecaddWork {
		t.Errorf("Projected = %v; want %d within 10%%", we.Projected, vecaddWork)
	}
}

// stoppedPast checks that we stopped the launch, unprojected, once its
// own work passed from (the cap less the work before it) and before it
// reached to: the engine looks every 4,096 events, so a little past.
func stoppedPast(t *testing.T, we *sim.WorkError, from, to float64) {
	t.Helper()
	done := float64(we.WarpInsts + we.DRAMSectors)
	if we.Projected != 0 || done <= from || done > to {
		t.Errorf("stopped at %d warp instructions and %d DRAM sectors, projected %v; want past %v and within %v, unprojected",
			we.WarpInsts, we.DRAMSectors, we.Projected, from, to)
	}
}

// A sampled run simulates only some of the launch, so it is not
// projected: it stops when its work passes the cap, a hundredth of the
// launch's here, well short of a tenth of it.
func TestWorkCapSampled(t *testing.T) {
	opts := sim.Options{MaxWork: vecaddWork / 100}
	opts.Sample.On = true
	stoppedPast(t, workStop(t, opts, 1), opts.MaxWork, vecaddWork/10)
}

// A launch of fewer than 2^20 warp instructions (this one has 229,376)
// is not projected: under the same cap as TestWorkCapProjects it runs on
// until its work passes the cap.
func TestWorkCapShortLaunch(t *testing.T) {
	stoppedPast(t, workStop(t, sim.Options{MaxWork: 0.45 * vecaddWork}, 1), 0.45*vecaddWork, 0.5*vecaddWork)
}

// Under 0.55 of its work the launch is projected to less than twice the
// cap, and runs on until its work passes the cap.
func TestWorkCapMargin(t *testing.T) {
	defer sim.ProjectFrom(0)()
	stoppedPast(t, workStop(t, sim.Options{MaxWork: 0.55 * vecaddWork}, 1), 0.55*vecaddWork, 0.6*vecaddWork)
}

// In a sequence the cap is on the launches' work together: under one and
// a half launches' work the first runs whole, and the second stops once
// it has done more than half of its own.
func TestWorkCapSequence(t *testing.T) {
	we := workStop(t, sim.Options{MaxWork: 1.5 * vecaddWork}, 2)
	if we.Before != vecaddWork {
		t.Errorf("Before = %v; want the first launch's %d", we.Before, vecaddWork)
	}
	stoppedPast(t, we, 0.5*vecaddWork, 0.6*vecaddWork)
}

// ptVecadd is vecadd as a per-thread kernel on gt200 at N = 2^20: 4,096
// blocks of 8 warps, each of 9 warp instructions (2 compute for the
// index, two loads, 4 compute, one store, as `trace` lists them) and the
// 12 DRAM sectors of the loop nest's warps above. Its count is an
// estimate on 16 of its blocks, all alike: 294,912 warp instructions,
// with no spread.
func ptVecadd(t *testing.T) (*arch.Device, *traces.Launch) {
	t.Helper()
	dev, err := configs.Load("gt200")
	if err != nil {
		t.Fatal(err)
	}
	l := bindSource(t, dev, `name: vecadd-pt
params: {N: 1048576}
arrays:
  A: {type: f32, dims: [N]}
  B: {type: f32, dims: [N]}
  C: {type: f32, dims: [N]}
source: |
  __global__ void vecadd(const float *A, const float *B, float *C) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    C[i] = A[i] + B[i];
  }
block: [256]
grid: ["N / 256"]
`)
	if l.ExactWork() || l.WarpInstructions() != ptVecaddInsts || l.CountSpread() != 0 {
		t.Fatalf("count %v, exact %v, spread %v; want an estimate of %d with no spread", l.WarpInstructions(), l.ExactWork(), l.CountSpread(), ptVecaddInsts)
	}
	return dev, l
}

const (
	ptVecaddInsts = vecaddWarps * 9
	ptVecaddWork  = vecaddWarps * (9 + 12) // 688,128
)

// spreadCount is a launch whose estimated count has a spread of 20%.
type spreadCount struct{ *traces.Launch }

func (spreadCount) CountSpread() float64 { return 0.2 }

// An estimated count with no spread is projected as an exact one: under
// 0.45 of its work the per-thread launch stops between 1/64 and 1/16 of
// its warp instructions, projected within 10% of its work. With a spread
// of 20% it is not projected, and stops once its work passes the cap.
func TestWorkCapProjectsEstimate(t *testing.T) {
	defer sim.ProjectFrom(0)()
	dev, l := ptVecadd(t)
	opts := sim.Options{MaxWork: 0.45 * ptVecaddWork}
	_, err := sim.Run(context.Background(), dev, l, opts)
	var we *sim.WorkError
	if !errors.As(err, &we) {
		t.Fatalf("err = %v; want a WorkError", err)
	}
	if !we.Estimated || we.Total != ptVecaddInsts {
		t.Errorf("Total = %v, estimated %v; want the launch's estimate of %d", we.Total, we.Estimated, ptVecaddInsts)
	}
	if we.WarpInsts < ptVecaddInsts/64 || we.WarpInsts > ptVecaddInsts/16 {
		t.Errorf("stopped after %d warp instructions; want from 1/64 to 1/16 of %d", we.WarpInsts, ptVecaddInsts)
	}
	if we.Projected < 0.9*ptVecaddWork || we.Projected > 1.1*ptVecaddWork {
		t.Errorf("Projected = %v; want %d within 10%%", we.Projected, ptVecaddWork)
	}

	dev, l = ptVecadd(t)
	_, err = sim.Run(context.Background(), dev, spreadCount{l}, opts)
	if !errors.As(err, &we) {
		t.Fatalf("with a spread: err = %v; want a WorkError", err)
	}
	stoppedPast(t, we, opts.MaxWork, 0.5*ptVecaddWork)
}
