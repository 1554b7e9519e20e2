package validate

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// compareMinPoints is the number of configurations below which a rank
// correlation is reported with a low-power warning: at n < 10 even
// ρ ≈ 0.6 is not significant at the 5% level (the two-sided critical value
// of Spearman's ρ is 0.648 at n = 10 and 0.886 at n = 6).
const compareMinPoints = 10

// Comparison is the agreement between a static model's predictions and the
// simulation over a set of configurations. In both inputs lower is better:
// a static cost or rank against simulated cycles or time.
//
// A statistic that is undefined for the data (a correlation of a constant
// series, relative errors that were not asked for, a regret with a zero
// best time) is NaN, and a warning says why; MarshalJSON writes NaN as null
// and UnmarshalJSON reads null back as NaN.
type Comparison struct {
	// N is the number of configurations compared.
	N int `json:"n"`
	// Spearman is Spearman's ρ: the Pearson correlation of the ranks, with
	// tied values given the average of the ranks they span.
	Spearman float64 `json:"spearman"`
	// KendallTauB is Kendall's τ-b, which corrects τ for ties in either
	// series.
	KendallTauB float64 `json:"kendall_tau_b"`
	// Pearson is the linear correlation of the raw values.
	Pearson float64 `json:"pearson"`
	// MeanRelError and MedianRelError summarise |static − sim| / |sim|.
	// They are NaN unless WithRelativeErrors was given, because they only
	// mean something when both series are in the same unit.
	MeanRelError   float64 `json:"mean_rel_error"`
	MedianRelError float64 `json:"median_rel_error"`
	// StaticPick is the index of the statically preferred configuration:
	// the lowest static value, the first in input order among ties.
	StaticPick int `json:"static_pick"`
	// StaticTiedAtBest is the number of configurations sharing the lowest
	// static value (1 when the static pick is unique).
	StaticTiedAtBest int `json:"static_tied_at_best"`
	// SimulatedBest is the index of the lowest simulated value, the first
	// in input order among ties.
	SimulatedBest int `json:"sim_best"`
	// Top1Agree reports whether the static pick's simulated value equals
	// the best simulated value (so a pick that ties with the simulated best
	// agrees even when its index differs).
	Top1Agree bool `json:"top1_agree"`
	// Regret is simulated[StaticPick] / simulated[SimulatedBest]: 1 when the
	// static model picks a best configuration, 1.25 when its pick runs 25%
	// longer than the best one.
	Regret float64 `json:"regret"`
	// Warnings say where the statistics are weak or undefined.
	Warnings []error `json:"warnings"`
}

// CompareOption changes what Compare computes.
type CompareOption func(*compareOptions)

type compareOptions struct {
	relativeErrors bool
}

// WithRelativeErrors asks Compare for the mean and median relative error
// |static − sim| / |sim|. Use it only when the static values predict the
// simulated ones in the same unit (cycles against cycles, transactions
// against transactions), not for ranks or unitless costs.
func WithRelativeErrors() CompareOption {
	return func(o *compareOptions) { o.relativeErrors = true }
}

// Compare measures how well the static values predict the simulated ones;
// lower is better in both. static[i] and simulated[i] describe the same
// configuration. It returns an error only when the inputs cannot be
// compared at all (different lengths, no configurations, NaN or infinite
// values); weak or undefined statistics come back as NaN with warnings.
func Compare(static, simulated []float64, opts ...CompareOption) (Comparison, error) {
	var o compareOptions
	for _, opt := range opts {
		opt(&o)
	}
	n := len(static)
	switch {
	case n != len(simulated):
		return Comparison{}, fmt.Errorf("compare: %d static values but %d simulated ones", n, len(simulated))
	case n == 0:
		return Comparison{}, errors.New("compare: no configurations to compare")
	}
	if err := compareCheckFinite("static", static); err != nil {
		return Comparison{}, err
	}
	if err := compareCheckFinite("simulated", simulated); err != nil {
		return Comparison{}, err
	}

	c := Comparison{N: n, MeanRelError: math.NaN(), MedianRelError: math.NaN()}
	warn := func(format string, args ...any) {
		c.Warnings = append(c.Warnings, fmt.Errorf(format, args...))
	}

	if n < compareMinPoints {
		warn("n=%d: rank correlation has low power (fewer than %d configurations)", n, compareMinPoints)
	}
	for _, s := range []struct {
		name   string
		values []float64
	}{{"static", static}, {"simulated", simulated}} {
		if compareAllEqual(s.values) {
			warn("all %d %s values are equal: a correlation is undefined", n, s.name)
			continue
		}
		if tied := compareTiedCount(s.values); 2*tied >= n {
			warn("%d of %d %s values tied: rank correlations lose resolution", tied, n, s.name)
		}
	}

	if n >= 2 {
		c.Spearman = Spearman(static, simulated)
		c.KendallTauB = KendallTauB(static, simulated)
		c.Pearson = stat.Correlation(static, simulated, nil)
		if compareAllEqual(static) || compareAllEqual(simulated) {
			// stat.Correlation divides 0 by 0 here; make the NaN explicit
			// rather than relying on floating-point rounding.
			c.Spearman, c.KendallTauB, c.Pearson = math.NaN(), math.NaN(), math.NaN()
		}
	} else {
		c.Spearman, c.KendallTauB, c.Pearson = math.NaN(), math.NaN(), math.NaN()
		warn("n=1: a correlation needs at least 2 configurations")
	}

	if o.relativeErrors {
		rel, _ := RelativeErrors(static, simulated) // lengths checked above
		var kept []float64
		for i, r := range rel {
			if math.IsNaN(r) {
				warn("simulated[%d] = 0: its relative error is undefined and left out", i)
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) > 0 {
			c.MeanRelError = stat.Mean(kept, nil)
			c.MedianRelError = compareMedian(kept)
		}
	}

	c.StaticPick = compareArgMin(static)
	c.SimulatedBest = compareArgMin(simulated)
	for _, v := range static {
		if v == static[c.StaticPick] {
			c.StaticTiedAtBest++
		}
	}
	if c.StaticTiedAtBest > 1 {
		warn("%d configurations tie for the lowest static value: the first, row %d, is taken as the static pick",
			c.StaticTiedAtBest, c.StaticPick+1)
	}
	pick, best := simulated[c.StaticPick], simulated[c.SimulatedBest]
	c.Top1Agree = pick == best
	if best > 0 {
		c.Regret = pick / best
	} else {
		c.Regret = math.NaN()
		warn("the best simulated value is %g: regret needs positive times", best)
	}
	return c, nil
}

// Spearman returns Spearman's rank correlation ρ of x and y: the Pearson
// correlation (gonum's stat.Correlation) of their AverageRanks. It is NaN
// when the lengths differ, there are fewer than 2 values, or either series
// is constant.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 || compareAllEqual(x) || compareAllEqual(y) {
		return math.NaN()
	}
	return stat.Correlation(AverageRanks(x), AverageRanks(y), nil)
}

// AverageRanks returns the 1-based ranks of x in ascending order, tied
// values sharing the average of the ranks they span: [10, 20, 20, 5] ranks
// as [2, 3.5, 3.5, 1].
func AverageRanks(x []float64) []float64 {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(x))
	for lo := 0; lo < len(order); {
		hi := lo
		for hi+1 < len(order) && x[order[hi+1]] == x[order[lo]] {
			hi++
		}
		avg := float64(lo+hi)/2 + 1
		for _, i := range order[lo : hi+1] {
			ranks[i] = avg
		}
		lo = hi + 1
	}
	return ranks
}

// KendallTauB returns Kendall's τ-b of x and y:
//
//	τ_b = (C − D) / √((C + D + T_y)(C + D + T_x))
//
// over all pairs, where C and D count the concordant and discordant pairs,
// T_x the pairs tied in x only and T_y those tied in y only (pairs tied in
// both count nowhere). gonum's stat.Kendall is τ-a, which does not correct
// for ties. It is NaN when the lengths differ, there are fewer than 2
// values, or either series is constant. It takes O(n²) time, which is
// plenty for the tens to hundreds of configurations a search produces.
func KendallTauB(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	var concordant, discordant, tiedX, tiedY int64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tiedX++
			case dy == 0:
				tiedY++
			case (dx > 0) == (dy > 0):
				concordant++
			default:
				discordant++
			}
		}
	}
	den := float64(concordant+discordant+tiedY) * float64(concordant+discordant+tiedX)
	if den == 0 {
		return math.NaN()
	}
	return float64(concordant-discordant) / math.Sqrt(den)
}

// RelativeErrors returns |predicted[i] − actual[i]| / |actual[i]| for each
// i, NaN where actual[i] is 0. Both must be in the same unit.
func RelativeErrors(predicted, actual []float64) ([]float64, error) {
	if len(predicted) != len(actual) {
		return nil, fmt.Errorf("relative errors: %d predicted values but %d actual ones", len(predicted), len(actual))
	}
	rel := make([]float64, len(actual))
	for i, a := range actual {
		if a == 0 {
			rel[i] = math.NaN()
			continue
		}
		rel[i] = math.Abs(predicted[i]-a) / math.Abs(a)
	}
	return rel, nil
}

func compareCheckFinite(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("compare: %s[%d] is %g; want a finite number", name, i, v)
		}
	}
	return nil
}

func compareAllEqual(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// compareTiedCount counts the values that equal at least one other value.
func compareTiedCount(x []float64) int {
	tied := 0
	for i, v := range x {
		for j, w := range x {
			if i != j && v == w {
				tied++
				break
			}
		}
	}
	return tied
}

// compareArgMin returns the index of the smallest value, the first among
// ties.
func compareArgMin(x []float64) int {
	best := 0
	for i, v := range x {
		if v < x[best] {
			best = i
		}
	}
	return best
}

func compareMedian(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
