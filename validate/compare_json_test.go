package validate

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// A comparison written as JSON reads back as itself: J14's Table 2 (n=6,
// a low-power warning, its static pick the row of rank 1) and a constant
// series, whose correlations are undefined (NaN, written null) with a
// warning saying so; writing the one read gives the same bytes.
func TestComparisonJSONRoundTrip(t *testing.T) {
	table2, err := Compare(j14Table2OR, j14Table2MET)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := Compare([]float64{1, 2, 3}, []float64{5, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Comparison{table2, flat} {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Comparison
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		again, err := json.Marshal(back)
		if err != nil || !bytes.Equal(data, again) {
			t.Errorf("written %s, read and written again %s (%v)", data, again, err)
		}
		if back.StaticPick != c.StaticPick || back.SimulatedBest != c.SimulatedBest || len(back.Warnings) != len(c.Warnings) {
			t.Errorf("read back pick %d, best %d, %d warnings; want %d, %d, %d",
				back.StaticPick, back.SimulatedBest, len(back.Warnings), c.StaticPick, c.SimulatedBest, len(c.Warnings))
		}
		for _, p := range [][2]float64{{back.Spearman, c.Spearman}, {back.MeanRelError, c.MeanRelError}, {back.Regret, c.Regret}} {
			if p[0] != p[1] && !(math.IsNaN(p[0]) && math.IsNaN(p[1])) {
				t.Errorf("read back %v, want %v", p[0], p[1])
			}
		}
	}
	if !math.IsNaN(flat.Spearman) {
		t.Fatalf("a constant series' Spearman is %v, want NaN", flat.Spearman)
	}
}

// Rows are counted from 1 in the JSON and from 0 in a Comparison; a row
// outside 1..n is refused.
func TestComparisonJSONRows(t *testing.T) {
	var c Comparison
	good := `{"n":3,"spearman":0.5,"kendall_tau_b":null,"pearson":1,"mean_rel_error":null,"median_rel_error":null,` +
		`"static_pick":1,"static_tied_at_best":1,"sim_best":3,"top1_agree":false,"regret":1.25,"warnings":["n=3: low power"]}`
	if err := json.Unmarshal([]byte(good), &c); err != nil {
		t.Fatal(err)
	}
	if c.N != 3 || c.StaticPick != 0 || c.SimulatedBest != 2 || c.Spearman != 0.5 || !math.IsNaN(c.KendallTauB) ||
		c.Regret != 1.25 || len(c.Warnings) != 1 || c.Warnings[0].Error() != "n=3: low power" {
		t.Errorf("read %+v", c)
	}
	for _, bad := range []string{
		`{"n":3,"static_pick":0,"sim_best":1}`,
		`{"n":3,"static_pick":1,"sim_best":4}`,
		`{"n":-1}`,
		`{"n":3,"warnings":[1]}`,
	} {
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

// Whatever it is given, UnmarshalJSON does not panic, and a comparison it
// accepts is written and read back to the same bytes.
func FuzzComparisonJSON(f *testing.F) {
	c, _ := Compare(j14Table2OR, j14Table2MET)
	seed, _ := json.Marshal(c)
	f.Add(seed)
	f.Add([]byte(`{"n":0,"static_pick":0,"sim_best":0,"warnings":null}`))
	f.Add([]byte(`{"n":2,"spearman":1e308,"static_pick":2,"sim_best":1,"warnings":["a","b"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Comparison
		if json.Unmarshal(data, &c) != nil {
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("%s read, but not written: %v", data, err)
		}
		var back Comparison
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s written from %s, not read back: %v", out, data, err)
		}
		if again, _ := json.Marshal(back); !bytes.Equal(out, again) {
			t.Fatalf("%s read back and written as %s", out, again)
		}
	})
}
