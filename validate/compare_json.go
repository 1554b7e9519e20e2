package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// comparisonJSON is a Comparison as its JSON carries it.
type comparisonJSON struct {
	N                int      `json:"n"`
	Spearman         *float64 `json:"spearman"`
	KendallTauB      *float64 `json:"kendall_tau_b"`
	Pearson          *float64 `json:"pearson"`
	MeanRelError     *float64 `json:"mean_rel_error"`
	MedianRelError   *float64 `json:"median_rel_error"`
	StaticPick       int      `json:"static_pick"`
	StaticTiedAtBest int      `json:"static_tied_at_best"`
	SimulatedBest    int      `json:"sim_best"`
	Top1Agree        bool     `json:"top1_agree"`
	Regret           *float64 `json:"regret"`
	Warnings         []string `json:"warnings"`
}

// MarshalJSON writes the comparison with the JSON names of its field tags,
// NaN and infinite statistics as null, and the warnings as strings. The
// static pick and the simulated best are written as rows counted from 1,
// as every output of this project numbers them.
func (c Comparison) MarshalJSON() ([]byte, error) {
	warnings := make([]string, len(c.Warnings))
	for i, w := range c.Warnings {
		warnings[i] = w.Error()
	}
	return json.Marshal(comparisonJSON{
		c.N, compareFinite(c.Spearman), compareFinite(c.KendallTauB), compareFinite(c.Pearson),
		compareFinite(c.MeanRelError), compareFinite(c.MedianRelError),
		c.StaticPick + 1, c.StaticTiedAtBest, c.SimulatedBest + 1, c.Top1Agree, compareFinite(c.Regret), warnings,
	})
}

// UnmarshalJSON reads what MarshalJSON writes, so that a program can take
// validate's -format json back into a Comparison: null statistics as NaN
// (Compare makes none infinite), rows counted from 1 as indices, and the
// warnings as errors with their text. A row outside 1..n is an error.
func (c *Comparison) UnmarshalJSON(data []byte) error {
	var j comparisonJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.N < 0 {
		return fmt.Errorf("comparison: n %d, want at least 0", j.N)
	}
	for _, r := range []struct {
		name string
		row  int
	}{{"static_pick", j.StaticPick}, {"sim_best", j.SimulatedBest}} {
		if j.N > 0 && (r.row < 1 || r.row > j.N) {
			return fmt.Errorf("comparison: %s %d, want a row from 1 to n = %d", r.name, r.row, j.N)
		}
	}
	*c = Comparison{N: j.N, Spearman: orNaN(j.Spearman), KendallTauB: orNaN(j.KendallTauB), Pearson: orNaN(j.Pearson),
		MeanRelError: orNaN(j.MeanRelError), MedianRelError: orNaN(j.MedianRelError),
		StaticPick: j.StaticPick - 1, StaticTiedAtBest: j.StaticTiedAtBest, SimulatedBest: j.SimulatedBest - 1,
		Top1Agree: j.Top1Agree, Regret: orNaN(j.Regret)}
	for _, w := range j.Warnings {
		c.Warnings = append(c.Warnings, errors.New(w))
	}
	return nil
}

// compareFinite returns nil for NaN and ±Inf, which JSON cannot carry.
func compareFinite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// orNaN is *p, or NaN for a null.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
