package arch

import "testing"

// TestReadOnlyDataCache: the read-only data cache came with compute
// capability 3.5 (PG-3x); 3.0 (GK104) and earlier have none.
func TestReadOnlyDataCache(t *testing.T) {
	for _, tc := range []struct {
		cc   string
		want bool
	}{{"1.0", false}, {"1.3", false}, {"2.0", false}, {"3.0", false}, {"3.5", true}, {"3.7", true}, {"5.2", true}, {"6.0", true}, {"3.x", false}, {"", false}} {
		d := &Device{ComputeCapability: tc.cc}
		if got := d.ReadOnlyDataCache(); got != tc.want {
			t.Errorf("ReadOnlyDataCache(%q) = %v; want %v", tc.cc, got, tc.want)
		}
	}
}
