package main

import "testing"

// The probe's time over its reference scales the rates, twice as slow a
// host twice the seconds, within [1/16, 16]; without a time or a
// reference the rates stand as fitted.
func TestScaleOf(t *testing.T) {
	for _, tc := range []struct{ seconds, ref, want float64 }{
		{0.04, 0.02, 2},
		{0.01, 0.02, 0.5},
		{0.02, 0.02, 1},
		{1, 0.02, 16},           // 50 times as slow: held at 16
		{0.001, 0.02, 1.0 / 16}, // 20 times as fast: held at 1/16
		{0.02, 0, 1},
		{0, 0.02, 1},
		{-1, 0.02, 1},
	} {
		if got := scaleOf(tc.seconds, tc.ref); got != tc.want {
			t.Errorf("scaleOf(%v, %v) = %v; want %v", tc.seconds, tc.ref, got, tc.want)
		}
	}
}

// The probe's launches bind on their devices and run: a probe that failed
// would leave every estimate unscaled without a word.
func TestProbeRuns(t *testing.T) {
	s, err := probeSeconds()
	if err != nil {
		t.Fatal(err)
	}
	if !(s > 0) {
		t.Errorf("probeSeconds() = %v; want a positive time", s)
	}
}

// A scaled estimate's four times are each the factor times the rates',
// and its work is left as it is.
func TestScaled(t *testing.T) {
	w := workEstimate{warpInsts: 100, memInsts: 40, blocks: 8, launches: 2, seconds: 2, longest: 1.5,
		leastSeconds: 0.5, leastLongest: 0.25, sampled: true}
	want := workEstimate{warpInsts: 100, memInsts: 40, blocks: 8, launches: 2, seconds: 6, longest: 4.5,
		leastSeconds: 1.5, leastLongest: 0.75, sampled: true}
	if got := w.scaled(3); got != want {
		t.Errorf("scaled(3) = %+v; want %+v", got, want)
	}
}

// An estimate of less than probeWorth is shown as fitted, without the
// probe's time; from probeWorth on it is scaled by the host's factor.
func TestOnThisHost(t *testing.T) {
	short := workEstimate{blocks: 4, launches: 1, seconds: 0.99 * probeWorth, longest: 0.99 * probeWorth}
	if got := short.onThisHost(); got != short {
		t.Errorf("onThisHost(%+v) = %+v; want it unscaled", short, got)
	}
	long := workEstimate{blocks: 4, launches: 1, seconds: probeWorth, longest: probeWorth}
	if got, want := long.onThisHost(), long.scaled(hostScale()); got != want {
		t.Errorf("onThisHost(%+v) = %+v; want %+v", long, got, want)
	}
}
