package sim

import "testing"

// filling by hand: a kind of cache is still filling when more than the
// tolerance's share of its lines is free and it lost some over the last
// wave at a rate that would use them all within the waves left; one that
// lost none, gained some back (invalidations), is all but full, or would
// not fill before the grid's end is not.
func TestFilling(t *testing.T) {
	at := func(kind int, free, lines int64) fillState {
		var n fillState
		n.free[kind], n.lines[kind] = free, lines
		return n
	}
	for _, c := range []struct {
		name        string
		before, now fillState
		waves       int64
		want        bool
	}{
		{"L2 losing 1,536 of 81,920 a wave, 10 waves left", at(fillL2, 81920, 81920), at(fillL2, 80384, 81920), 10, false},
		{"L2 losing 1,536 a wave, 53 waves left (81,408 ≥ 80,384)", at(fillL2, 81920, 81920), at(fillL2, 80384, 81920), 53, true},
		{"L2 losing 1,536 a wave, 52 waves left (79,872 < 80,384)", at(fillL2, 81920, 81920), at(fillL2, 80384, 81920), 52, false},
		{"1,000 left (1.2%), 1,536 a wave, one wave left", at(fillL2, 2536, 81920), at(fillL2, 1000, 81920), 1, true},
		{"512 left (0.6%), all but full", at(fillL2, 2048, 81920), at(fillL2, 512, 81920), 100, false},
		{"full", at(fillL2, 512, 81920), at(fillL2, 0, 81920), 100, false},
		{"a working set that fits: no more fills", at(fillL1, 300, 1920), at(fillL1, 300, 1920), 100, false},
		{"invalidations give lines back", at(fillL1, 300, 1920), at(fillL1, 310, 1920), 100, false},
		{"the texture cache filling", at(fillTexture, 64, 96), at(fillTexture, 32, 96), 1, true},
	} {
		if got := filling(c.before, c.now, c.waves, 0.01); got != c.want {
			t.Errorf("%s: filling = %v, want %v", c.name, got, c.want)
		}
	}
}
