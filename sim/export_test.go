package sim

import (
	"context"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// RunAhead is Run with the schedulers' lookahead set to lookahead cycles
// (0: every event in strict time order), for the tests of sim_test.
func RunAhead(dev *arch.Device, l traces.Source, lookahead int64) (*Result, error) {
	e, err := newDevice(dev)
	if err != nil {
		return nil, err
	}
	e.clk.ahead = lookahead
	if err := e.runLaunch(context.Background(), dev, l, Options{}); err != nil {
		return nil, err
	}
	return e.res, nil
}

// WorthCounting is worthCounting, for the tests of sim_test.
var WorthCounting = worthCounting
