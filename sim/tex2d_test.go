package sim_test

import (
	"testing"

	"gpumemsim/kernel"
)

// TestConvolutionTex2D runs the shipped convolution-tex2d on a 16×12
// image, one block of 16×12: warp w reads rows 2w + k and 2w + k + 1 of
// 16 columns for each of the 17 taps k = -8..8, rows clamped to [0, 11].
// Block-linear, a sector is 4 columns of rows 2j and 2j + 1, so a fetch
// looks up 4 sectors, or 8 when its first row r is odd and 1 ≤ r ≤ 9
// (the pair straddles two sector rows; clamped pairs at the edges are one
// row). Odd r in [1, 9] within [2w - 8, 2w + 8]: 4, 5, 5, 5, 5, 4 for
// w = 0..5, 28 fetches; 102 fetches in all, 102·4 + 28·4 = 520 lookups.
// The image covers 4×6 = 24 sectors, each read once from DRAM on gt200
// (the 5 KB cache holds them all) and once through the L2 on fermi.
func TestConvolutionTex2D(t *testing.T) {
	k, err := kernel.Load("convolution-tex2d")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gt200", "fermi"} {
		texDev = texDevice(t, name)
		res := runTex(t, k, map[string]int64{"imageW": 16, "imageH": 12})
		if tx := res.Texture; tx.Requests != 102 || tx.Passes != 520 || tx.Cache.FillSectors != 24 {
			t.Errorf("%s: texture %+v; want 102 requests, 520 lookups, 24 fill sectors", name, tx)
		}
	}
}
