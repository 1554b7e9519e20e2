package arch

import "strconv"

// Capability returns the major and minor numbers of the device's compute
// capability; ok is false when it is not "major.minor" with one digit
// each (Validate refuses such a config).
func (d *Device) Capability() (major, minor int, ok bool) {
	cc := d.ComputeCapability
	if !ccPattern.MatchString(cc) {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(cc[:1])
	minor, _ = strconv.Atoi(cc[2:])
	return major, minor, true
}

// ReadOnlyDataCache says the device has the read-only data cache that
// __ldg and loads through const __restrict__ pointers use (LDG,
// ld.global.nc): compute capability 3.5 and later. On GK110 it is the
// SM's texture cache hardware (PG-3x: "each SM has a 48 KB read-only
// data cache"), on Maxwell the unified L1/texture cache (PG-5x), so it
// is the config's texture cache.
func (d *Device) ReadOnlyDataCache() bool {
	major, minor, ok := d.Capability()
	return ok && (major > 3 || major == 3 && minor >= 5)
}
