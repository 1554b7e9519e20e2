package sim

import (
	"context"

	"gpumemsim/arch"
	"gpumemsim/traces"
)

// RunAhead is Run with the schedulers' lookahead set to lookahead cycles
// (0: every event in strict time order), for the tests of sim_test.
func RunAhead(dev *arch.Device, l traces.Source, lookahead int64) (*Result, error) {
	e, err := newEngine(dev, l, Options{})
	if err != nil {
		return nil, err
	}
	e.clk.ahead = lookahead
	if err := e.run(context.Background()); err != nil {
		return nil, err
	}
	e.finish(dev)
	if err := e.check(dev); err != nil {
		return nil, err
	}
	return e.res, nil
}
