package arch_test

import (
	"strings"
	"testing"

	"gpumemsim/arch"
)

// TestValidateTextureSharing: texture.shared_by must split the SMs into
// whole groups of a cache that exists, and a texture-only L2 needs an L2
// and a texture cache to hold anything.
func TestValidateTextureSharing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		device string
		change func(d *arch.Device)
		want   []string
	}{
		{"4 of gt200's 30 SMs", "gt200", func(d *arch.Device) { d.Texture.SharedBy = 4 }, []string{
			"texture.shared_by: 4 does not divide sms = 30",
		}},
		{"a negative group", "gt200", func(d *arch.Device) { d.Texture.SharedBy = -3 }, []string{
			"texture.shared_by: must be positive, got -3",
		}},
		{"a shared texture cache that is absent", "gt200", func(d *arch.Device) {
			d.Texture = arch.TextureCache{SharedBy: 3}
			d.L2.TextureOnly = false
		}, []string{
			"texture.shared_by: 3 SMs share a texture cache that is absent",
		}},
		{"a texture-only L2 without a texture cache", "gt200", func(d *arch.Device) { d.Texture = arch.TextureCache{} }, []string{
			"l2.texture_only: is true but the device has no texture cache",
		}},
		{"a texture-only L2 that is absent", "fermi", func(d *arch.Device) { d.L2 = arch.L2Cache{TextureOnly: true} }, []string{
			"l2: slices, queue_depth and texture_only describe an L2 that is absent",
		}},
	} {
		d := load(t, tc.device)
		tc.change(d)
		err := d.Validate()
		if err == nil {
			t.Errorf("%s: Validate() = nil; want errors", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Validate() does not report %q; got:\n%v", tc.name, w, err)
			}
		}
		if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != len(tc.want) {
			t.Errorf("%s: Validate() reported %d problems; want %d:\n%v", tc.name, n, len(tc.want), err)
		}
	}
}

// The shipped GT200 and G80 share their texture caches per TPC (3 and 2
// SMs) and have texture-only L2s; the others keep one per SM and an L2
// for everything.
func TestTextureSharingShipped(t *testing.T) {
	for _, tc := range []struct {
		device      string
		perCache    int
		textureOnly bool
	}{{"g80", 2, true}, {"gt200", 3, true}, {"fermi", 1, false}, {"kepler", 1, false}, {"maxwell", 1, false}} {
		d := load(t, tc.device)
		if got := d.Texture.SMsPerCache(); got != tc.perCache {
			t.Errorf("%s: Texture.SMsPerCache() = %d; want %d", tc.device, got, tc.perCache)
		}
		if d.L2.TextureOnly != tc.textureOnly || d.L2.CachesGlobal() == tc.textureOnly {
			t.Errorf("%s: L2.TextureOnly = %v, CachesGlobal() = %v; want %v, %v", tc.device, d.L2.TextureOnly, d.L2.CachesGlobal(), tc.textureOnly, !tc.textureOnly)
		}
	}
}
