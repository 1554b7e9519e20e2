package accelsim_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"gpumemsim/configs"
	"gpumemsim/sim"
	"gpumemsim/traces/accelsim"
)

// One indexed kernel replays in several simulations at once (sim.RunAll,
// cursors sharing the file), and each gives what it gives alone.
func TestConcurrentReplay(t *testing.T) {
	k, err := accelsim.OpenKernel(filepath.Join("../../cmd/gpumemsim/testdata/accelsim", "kernel-1.traceg"))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	var jobs []sim.Job
	for _, name := range []string{"a100", "maxwell", "a100", "fermi"} {
		dev, err := configs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, sim.Job{Device: dev, Source: k})
	}
	all, err := sim.RunAll(context.Background(), jobs, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		alone, err := sim.Run(context.Background(), j.Device, k, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(alone)
		b, _ := json.Marshal(all[i])
		if string(a) != string(b) {
			t.Errorf("%s: the concurrent replay differs from the replay alone", j.Device.Name)
		}
	}
	if all[0].Loads.Requests != 3126 || all[0].Loads.Sectors != 12500 {
		t.Errorf("a100: %d load requests of %d sectors; want 3126 of 12500", all[0].Loads.Requests, all[0].Loads.Sectors)
	}
}
