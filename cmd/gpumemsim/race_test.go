//go:build race

package main

// raceEnabled is set under the race detector, where the slowest tests,
// which run in the plain pass too, are left out.
const raceEnabled = true
