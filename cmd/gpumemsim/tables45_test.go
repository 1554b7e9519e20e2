package main

import "testing"

// TestTables4And5: validate ranks J14 Table 4's work groups for siddon
// and Table 5's for nms (-blocks jang picks exactly the tables' shapes
// on gt200, with their AWG, OC and OR), against the simulation, at
// smaller sizes than the papers' so that the goldens run in seconds.
func TestTables4And5(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		heavy bool // skipUnderRace
	}{
		{"validate-siddon-gt200", []string{"validate", "-device", "gt200", "-kernel", "siddon", "-set", "NV=16,H=16"}, true},
		{"validate-nms-gt200", []string{"validate", "-device", "gt200", "-kernel", "nms", "-set", "H=32"}, true},
		{"estimate-siddon-gt200", []string{"estimate", "-device", "gt200", "-kernel", "siddon", "-set", "NV=16,H=16"}, false},
		{"estimate-nms-fermi", []string{"estimate", "-device", "fermi", "-kernel", "nms", "-set", "H=32"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy {
				skipUnderRace(t)
			}
			runGolden(t, tc.name, tc.args...)
		})
	}
}
