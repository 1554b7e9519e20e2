package validate

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// J14 Table 1 (matmul, mapping β, GTX 285): the static rank OR and the
// measured time MET in ms, models.md §2.
var (
	j14Table1OR  = []float64{9, 6, 3, 1, 1, 10, 7, 4, 2, 11, 8, 5}
	j14Table1MET = []float64{29.31, 21.49, 15.58, 12.73, 11.30, 28.16, 20.77, 15.35, 11.19, 26.15, 19.70, 14.77}
	// J14 Table 2 (vector addition).
	j14Table2OR  = []float64{3, 2, 1, 4, 5, 5}
	j14Table2MET = []float64{3.39, 3.38, 3.39, 3.60, 5.89, 11.61}
)

func compareClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}

func TestCompareJ14Tables(t *testing.T) {
	tests := []struct {
		name              string
		static, simulated []float64
		// Derivations (by hand, checked with a separate Python script that
		// ranks with average ties and applies the plain Pearson formula and
		// a pair loop for τ-b):
		//
		// Table 1: OR ranks 10,7,4,1.5,1.5,11,8,5,3,12,9,6 (one tie);
		// MET ranks 12,9,6,3,2,11,8,5,1,10,7,4; Σd² = 30.5. Centred sums
		// of squares: MET n(n²−1)/12 = 143, OR 143 − (2³−2)/12 = 142.5;
		// cross sum (142.5 + 143 − 30.5)/2 = 127.5. ρ = 127.5/√(142.5·143)
		// = 0.8931712. Pairs: C = 54, D = 11, one pair tied in OR only:
		// τ-b = 43/√(65·66) = 0.6565077.
		//
		// Table 2: OR ranks 3,2,1,4,5.5,5.5; MET ranks 2.5,1,2.5,4,5,6.
		// Centred: OR −.5,−1.5,−2.5,.5,2,2 (Σ² = 17); MET −1,−2.5,−1,.5,1.5,
		// 2.5 (Σ² = 17); cross .5+3.75+2.5+.25+3+5 = 15; ρ = 15/17 =
		// 0.8823529. Pairs: C = 12, D = 1 (512 vs 128: OR 3 > 1, MET
		// equal → tied in MET only; 256 vs 128: OR 2 > 1, MET 3.38 <
		// 3.39 → discordant), one tied in OR only (32 vs 16):
		// τ-b = 11/√(14·14) = 11/14 = 0.7857143.
		spearman, kendall float64
		// The static pick is the first rank 1; regret is its time over
		// the best time: Table 1 16×32 12.73 / 16×16 11.19; Table 2 128
		// 3.39 / 256 3.38.
		pick, best int
		regret     float64
	}{
		{"Table 1", j14Table1OR, j14Table1MET, 127.5 / math.Sqrt(142.5*143), 43 / math.Sqrt(65*66), 3, 8, 12.73 / 11.19},
		{"Table 2", j14Table2OR, j14Table2MET, 15.0 / 17, 11.0 / 14, 2, 1, 3.39 / 3.38},
	}
	for _, tc := range tests {
		c, err := Compare(tc.static, tc.simulated)
		if err != nil {
			t.Fatalf("%s: Compare: %v", tc.name, err)
		}
		if !compareClose(c.Spearman, tc.spearman, 1e-12) {
			t.Errorf("%s: Spearman = %.7f; want %.7f", tc.name, c.Spearman, tc.spearman)
		}
		if !compareClose(c.KendallTauB, tc.kendall, 1e-12) {
			t.Errorf("%s: Kendall τ-b = %.7f; want %.7f", tc.name, c.KendallTauB, tc.kendall)
		}
		if c.StaticPick != tc.pick || c.SimulatedBest != tc.best || c.Top1Agree {
			t.Errorf("%s: static pick %d, simulated best %d, top-1 %v; want %d, %d, false",
				tc.name, c.StaticPick, c.SimulatedBest, c.Top1Agree, tc.pick, tc.best)
		}
		if !compareClose(c.Regret, tc.regret, 1e-12) {
			t.Errorf("%s: regret = %.6f; want %.6f", tc.name, c.Regret, tc.regret)
		}
		if !math.IsNaN(c.MeanRelError) || !math.IsNaN(c.MedianRelError) {
			t.Errorf("%s: relative errors %g, %g without WithRelativeErrors; want NaN", tc.name, c.MeanRelError, c.MedianRelError)
		}
	}
}

func TestCompareRoundedPublishedValues(t *testing.T) {
	// models.md §2 prints ρ(OR, MET) = 0.893 for Table 1 and 0.882 for
	// Table 2.
	for _, tc := range []struct {
		static, simulated []float64
		want              float64
	}{{j14Table1OR, j14Table1MET, 0.893}, {j14Table2OR, j14Table2MET, 0.882}} {
		if got := Spearman(tc.static, tc.simulated); math.Round(got*1000)/1000 != tc.want {
			t.Errorf("Spearman = %.4f; want %.3f after rounding", got, tc.want)
		}
	}
}

func TestCompareWarnings(t *testing.T) {
	c, _ := Compare(j14Table2OR, j14Table2MET)
	if len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0].Error(), "n=6: rank correlation has low power") {
		t.Errorf("Table 2 warnings %q; want a first warning about n=6", c.Warnings)
	}
	// Table 2 has 2 of 6 tied static ranks (5, 5) and 2 of 6 tied times
	// (3.39, 3.39): under half, so no tie warning.
	for _, w := range c.Warnings {
		if strings.Contains(w.Error(), "tied:") {
			t.Errorf("Table 2: unexpected tie warning %q", w)
		}
	}

	// Table 4's ranks: 9 of 10 share a value with another.
	table4 := []float64{3, 3, 3, 3, 2, 2, 2, 1, 1, 4}
	c, _ = Compare(table4, []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	want := "9 of 10 static values tied"
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w.Error(), want)
		if strings.Contains(w.Error(), "low power") {
			t.Errorf("n=10: unexpected low-power warning %q", w)
		}
	}
	if !found {
		t.Errorf("Table 4 ranks: warnings %q; want one containing %q", c.Warnings, want)
	}
	// Two configurations share rank 1: the first (index 7) is the pick.
	if c.StaticPick != 7 || c.StaticTiedAtBest != 2 {
		t.Errorf("Table 4 ranks: static pick %d with %d tied; want 7 with 2", c.StaticPick, c.StaticTiedAtBest)
	}
}

func TestKendallTauBHandExample(t *testing.T) {
	// x = 1,2,2,3 and y = 1,3,2,2. Pairs (i,j): (0,1) C, (0,2) C, (0,3) C,
	// (1,2) tied in x only, (1,3) D (x up, y down), (2,3) tied in y only.
	// τ-b = (3−1)/√((3+1+1)(3+1+1)) = 2/5.
	if got := KendallTauB([]float64{1, 2, 2, 3}, []float64{1, 3, 2, 2}); !compareClose(got, 0.4, 1e-15) {
		t.Errorf("KendallTauB = %g; want 0.4", got)
	}
}

func TestAverageRanks(t *testing.T) {
	got := AverageRanks([]float64{10, 20, 20, 5})
	want := []float64{2, 3.5, 3.5, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("AverageRanks([10 20 20 5]) = %v; want %v", got, want)
		}
	}
}

func TestComparePerfectAndReversed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	up := []float64{10, 20, 30, 40, 50}
	down := []float64{50, 40, 30, 20, 10}
	for _, tc := range []struct {
		name string
		y    []float64
		want float64
	}{{"perfect", up, 1}, {"reversed", down, -1}} {
		c, err := Compare(x, tc.y)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []struct {
			stat string
			v    float64
		}{{"Spearman", c.Spearman}, {"Kendall τ-b", c.KendallTauB}, {"Pearson", c.Pearson}} {
			if !compareClose(s.v, tc.want, 1e-12) {
				t.Errorf("%s order: %s = %g; want %g", tc.name, s.stat, s.v, tc.want)
			}
		}
	}
}

func TestComparePearsonHandExample(t *testing.T) {
	// x = 1,2,3 (mean 2), y = 2,4,7 (mean 13/3): Σdxdy = 7/3 + 8/3 = 5,
	// Σdx² = 2, Σdy² = (49+1+64)/9 = 114/9: r = 5/√(228/9) = 15/√228.
	c, _ := Compare([]float64{1, 2, 3}, []float64{2, 4, 7})
	if want := 15 / math.Sqrt(228); !compareClose(c.Pearson, want, 1e-12) {
		t.Errorf("Pearson = %.10f; want %.10f", c.Pearson, want)
	}
}

func TestCompareTop1AndRegret(t *testing.T) {
	tests := []struct {
		name              string
		static, simulated []float64
		pick, best        int
		top1              bool
		regret            float64
	}{
		// The static pick (index 1, 12 cycles) is not the fastest (index
		// 2, 10 cycles): regret 12/10.
		{"miss", []float64{3, 1, 2}, []float64{30, 12, 10}, 1, 2, false, 1.2},
		// The pick ties with the simulated best: top-1 agrees, regret 1.
		{"tie with best", []float64{2, 1, 3}, []float64{4, 4, 5}, 1, 0, true, 1},
		{"hit", []float64{5, 1, 9}, []float64{7, 3, 8}, 1, 1, true, 1},
	}
	for _, tc := range tests {
		c, err := Compare(tc.static, tc.simulated)
		if err != nil {
			t.Fatal(err)
		}
		if c.StaticPick != tc.pick || c.SimulatedBest != tc.best || c.Top1Agree != tc.top1 || !compareClose(c.Regret, tc.regret, 1e-15) {
			t.Errorf("%s: pick %d, best %d, top-1 %v, regret %g; want %d, %d, %v, %g",
				tc.name, c.StaticPick, c.SimulatedBest, c.Top1Agree, c.Regret, tc.pick, tc.best, tc.top1, tc.regret)
		}
	}
}

func TestCompareUndefinedIsNaN(t *testing.T) {
	c, err := Compare([]float64{1, 1, 1, 1}, []float64{4, 3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(c.Spearman) || !math.IsNaN(c.KendallTauB) || !math.IsNaN(c.Pearson) {
		t.Errorf("constant static values: ρ %g, τ-b %g, r %g; want NaN", c.Spearman, c.KendallTauB, c.Pearson)
	}
	want := "all 4 static values are equal: a correlation is undefined"
	found := false
	for _, w := range c.Warnings {
		found = found || w.Error() == want
	}
	if !found {
		t.Errorf("warnings %q; want %q", c.Warnings, want)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("json.Marshal with NaN statistics: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"spearman", "kendall_tau_b", "pearson", "mean_rel_error", "median_rel_error"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("JSON %s = %v (present %v); want null", k, v, ok)
		}
	}
	// All four tie statically, so the pick is index 0 (4 cycles) against
	// the best 1: regret 4.
	if m["regret"] != 4.0 || m["top1_agree"] != false || m["n"] != 4.0 {
		t.Errorf("JSON regret %v, top1_agree %v, n %v; want 4, false, 4", m["regret"], m["top1_agree"], m["n"])
	}
	if ws, ok := m["warnings"].([]any); !ok || len(ws) != len(c.Warnings) {
		t.Errorf("JSON warnings %v; want %d strings", m["warnings"], len(c.Warnings))
	}

	// One configuration: correlations are undefined, the pick is the best.
	c, err = Compare([]float64{7}, []float64{3})
	if err != nil || !math.IsNaN(c.Spearman) || !c.Top1Agree || c.Regret != 1 {
		t.Errorf("n=1: ρ %g, top-1 %v, regret %g, err %v; want NaN, true, 1, nil", c.Spearman, c.Top1Agree, c.Regret, err)
	}
	// A zero best time: regret is undefined.
	c, _ = Compare([]float64{1, 2}, []float64{5, 0})
	if !math.IsNaN(c.Regret) {
		t.Errorf("best time 0: regret %g; want NaN", c.Regret)
	}
}

func TestCompareRelativeErrors(t *testing.T) {
	// Errors 10/100, 10/100, 0/100: mean 0.2/3, median 0.1.
	c, err := Compare([]float64{110, 90, 100}, []float64{100, 100, 100}, WithRelativeErrors())
	if err != nil {
		t.Fatal(err)
	}
	if !compareClose(c.MeanRelError, 0.2/3, 1e-15) || !compareClose(c.MedianRelError, 0.1, 1e-15) {
		t.Errorf("mean, median relative error %g, %g; want %g, 0.1", c.MeanRelError, c.MedianRelError, 0.2/3)
	}
	// Even count: median of 0.5 and 0.25 (0 is left out with a warning).
	c, _ = Compare([]float64{3, 5, 7}, []float64{2, 4, 0}, WithRelativeErrors())
	if !compareClose(c.MedianRelError, 0.375, 1e-15) {
		t.Errorf("median relative error %g; want 0.375", c.MedianRelError)
	}
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w.Error(), "simulated[2] = 0: its relative error is undefined")
	}
	if !found {
		t.Errorf("warnings %q; want one about simulated[2] = 0", c.Warnings)
	}
	if _, err := RelativeErrors([]float64{1}, []float64{1, 2}); err == nil {
		t.Error("RelativeErrors with lengths 1 and 2: no error")
	}
}

func TestCompareBadInput(t *testing.T) {
	for _, tc := range []struct {
		static, simulated []float64
		want              string
	}{
		{[]float64{1, 2}, []float64{1}, "2 static values but 1 simulated"},
		{nil, nil, "no configurations"},
		{[]float64{1, math.NaN()}, []float64{1, 2}, "static[1] is NaN"},
		{[]float64{1, 2}, []float64{math.Inf(1), 2}, "simulated[0] is +Inf"},
	} {
		if _, err := Compare(tc.static, tc.simulated); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compare(%v, %v) error %v; want one containing %q", tc.static, tc.simulated, err, tc.want)
		}
	}
}

func ExampleCompare() {
	// J14 Table 2: the static ranks of vector addition against the
	// measured times (ms).
	static := []float64{3, 2, 1, 4, 5, 5}
	measured := []float64{3.39, 3.38, 3.39, 3.60, 5.89, 11.61}
	c, err := Compare(static, measured)
	if err != nil {
		panic(err)
	}
	fmt.Printf("spearman %.3f, kendall_tau_b %.3f, top1_agree %v, regret %.4f\n",
		c.Spearman, c.KendallTauB, c.Top1Agree, c.Regret)
	for _, w := range c.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// spearman 0.882, kendall_tau_b 0.786, top1_agree false, regret 1.0030
	// warning: n=6: rank correlation has low power (fewer than 10 configurations)
}

func BenchmarkCompare(b *testing.B) {
	const n = 100
	static, simulated := make([]float64, n), make([]float64, n)
	for i := range n {
		static[i] = float64((i * 37) % n)
		simulated[i] = float64((i*37)%n) + float64(i%7)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(static, simulated); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "configurations/s")
}

// The JSON and the warnings number configurations from 1, as the tables
// do: static values 3, 1, 1, 2 pick the second (the first of the tied
// lowest), and simulated values 4, 3, 2, 1 are best at the fourth.
func TestCompareRowsFromOne(t *testing.T) {
	c, err := Compare([]float64{3, 1, 1, 2}, []float64{4, 3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.StaticPick != 1 || c.SimulatedBest != 3 {
		t.Fatalf("StaticPick %d, SimulatedBest %d; want indices 1 and 3", c.StaticPick, c.SimulatedBest)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		StaticPick int `json:"static_pick"`
		SimBest    int `json:"sim_best"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.StaticPick != 2 || v.SimBest != 4 {
		t.Errorf("JSON static_pick %d, sim_best %d; want rows 2 and 4", v.StaticPick, v.SimBest)
	}
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w.Error(), "the first, row 2, is taken")
	}
	if !found {
		t.Errorf("warnings %v; want the tie named as row 2", c.Warnings)
	}
}
