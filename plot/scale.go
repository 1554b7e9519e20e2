package plot

import (
	"fmt"
	"math"
)

// linear maps [lo, hi] of the data onto [a, b] of the page.
type linear struct {
	lo, hi, a, b float64
	log2         bool // the data are mapped by their base-2 logarithms
}

func (s linear) at(v float64) float64 {
	lo, hi := s.lo, s.hi
	if s.log2 {
		v, lo, hi = math.Log2(v), math.Log2(lo), math.Log2(hi)
	}
	if hi == lo {
		return (s.a + s.b) / 2
	}
	return s.a + fraction(v, lo, hi)*(s.b-s.a)
}

// fraction is where v lies from lo (0) to hi (1), hi > lo, even where
// hi − lo is past the largest float64 (values of ±1e308: the halves'
// difference is not).
func fraction(v, lo, hi float64) float64 {
	if math.IsInf(hi-lo, 0) {
		return (v/2 - lo/2) / (hi/2 - lo/2)
	}
	return (v - lo) / (hi - lo)
}

// niceTicks returns about n round ticks (1, 2 or 5 times a power of ten)
// that cover [lo, hi], and the range they span.
func niceTicks(lo, hi float64, n int) []float64 {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	// Where the range or a round step past it leaves float64 (values
	// near ±1.8e308), the ends are the ticks.
	ends := []float64{max(lo, -math.MaxFloat64), min(hi, math.MaxFloat64)}
	if math.IsInf(hi-lo, 0) {
		return ends
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	first := math.Floor(lo/step) * step
	var ticks []float64
	for k := 0; ; k++ {
		t := first + float64(k)*step
		if math.IsInf(t, 0) || math.IsNaN(t) || k > 4*max(n, 1)+4 {
			return ends
		}
		ticks = append(ticks, roundTo(t, step))
		if t >= hi-step*1e-9 {
			break
		}
	}
	return ticks
}

// roundTo removes the float error of k·step (0.30000000000000004).
func roundTo(v, step float64) float64 {
	d := math.Max(0, -math.Floor(math.Log10(step))+1)
	p := math.Pow(10, d)
	return math.Round(v*p) / p
}

// log2Ticks are the powers of two from lo to hi (both positive).
func log2Ticks(lo, hi float64) []float64 {
	var ticks []float64
	for e := math.Floor(math.Log2(lo)); e <= math.Ceil(math.Log2(hi)); e++ {
		ticks = append(ticks, math.Exp2(e))
	}
	return ticks
}

// binaryNumber writes a power of two the way sizes are written: 512,
// 4Ki, 2Mi.
func binaryNumber(v float64) string {
	for _, u := range []struct {
		s string
		n float64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if v >= u.n && math.Mod(v, u.n) == 0 {
			return numberText(v/u.n) + u.s
		}
	}
	return numberText(v)
}

// viridis are nine stops of matplotlib's viridis colour map (van der
// Walt and Smith, 2015), dark purple for the lowest value to yellow for
// the highest; its lightness rises monotonically, so the order of the
// colours is the order of the values, in grey too.
var viridis = [...][3]float64{
	{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
	{39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
}

// colour is the colour at t in [0, 1] along viridis, as #rrggbb.
func colour(t float64) string {
	t = math.Min(1, math.Max(0, t))
	pos := t * float64(len(viridis)-1)
	i := min(int(pos), len(viridis)-2)
	frac := pos - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(viridis[i][k] + frac*(viridis[i+1][k]-viridis[i][k])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// dark says whether text on the colour at t should be white: the lower
// half of viridis is dark.
func dark(t float64) bool { return t < 0.5 }

// palette is Okabe and Ito's colour-blind-safe set, for series.
var palette = [...]string{"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000"}

func seriesColour(i int) string { return palette[i%len(palette)] }
