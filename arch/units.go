package arch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Bytes is a size in bytes. In YAML it is written with a binary unit:
// "128B", "48KiB", "1.5MiB", "2GiB", "1TiB".
type Bytes int64

// Binary size units.
const (
	B   Bytes = 1
	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
	TiB Bytes = 1 << 40
)

var byteUnits = []struct {
	name string
	size Bytes
}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}, {"B", B}}

// ParseBytes reads a size such as "128B", "48KiB" or "1.5MiB" (B, KiB,
// MiB, GiB, TiB). The unit is required, and the value must come to a whole
// number of bytes.
func ParseBytes(s string) (Bytes, error) {
	t := strings.TrimSpace(s)
	for _, dec := range []string{"kB", "KB", "MB", "GB", "TB"} {
		if strings.HasSuffix(t, dec) {
			return 0, fmt.Errorf("size %q: binary units are spelled KiB, MiB, GiB, TiB (1024-based), e.g. 48KiB", s)
		}
	}
	// The unit is what follows the number: letters at the end.
	cut := strings.LastIndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) + 1
	num, unit := t[:cut], t[cut:]
	for _, u := range byteUnits {
		if unit != u.name {
			continue
		}
		v, err := parseUnitNumber(num, float64(u.size))
		if err != nil {
			return 0, fmt.Errorf("size %q: %v", s, err)
		}
		return Bytes(v), nil
	}
	hint := "a number with a unit B, KiB, MiB, GiB or TiB, e.g. 48KiB"
	switch {
	case t != "" && unit == "":
		if _, err := parseUnitNumber(num, 1); err != nil {
			return 0, fmt.Errorf("size %q: %v", s, err) // a unit would not help
		}
		hint = "a unit, e.g. " + t + "B"
	case unit != "" && num != "":
		hint = fmt.Sprintf("a unit B, KiB, MiB, GiB or TiB, not %q", unit)
	}
	return 0, fmt.Errorf("size %q: want %s", s, hint)
}

// String writes the size in the largest unit that divides it exactly.
func (b Bytes) String() string {
	for _, u := range byteUnits {
		if b != 0 && b%u.size == 0 {
			return strconv.FormatInt(int64(b/u.size), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// UnmarshalYAML reads a size with its unit.
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseBytes(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		if err == nil {
			err = fmt.Errorf("want a size such as 48KiB")
		}
		return &PosError{Line: n.Line, Column: n.Column, Err: err}
	}
	*b = v
	return nil
}

// MarshalYAML writes the size with its unit.
func (b Bytes) MarshalYAML() (any, error) { return b.String(), nil }

// MarshalText writes the size with its unit (used by encoding/json).
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// Hz is a frequency in hertz. In YAML it is written with a unit:
// "700MHz", "1.4GHz".
type Hz int64

// Frequency units.
const (
	HzUnit Hz = 1
	KHz    Hz = 1000
	MHz    Hz = 1000 * KHz
	GHz    Hz = 1000 * MHz
)

var hzUnits = []struct {
	name string
	f    Hz
}{{"GHz", GHz}, {"MHz", MHz}, {"kHz", KHz}, {"Hz", HzUnit}}

// ParseHz reads a frequency such as "700MHz" or "1.4GHz".
func ParseHz(s string) (Hz, error) {
	t := strings.TrimSpace(s)
	for _, u := range hzUnits {
		num, ok := strings.CutSuffix(t, u.name)
		if !ok {
			continue
		}
		v, err := parseUnitNumber(num, float64(u.f))
		if err != nil {
			return 0, fmt.Errorf("frequency %q: %v", s, err)
		}
		return Hz(v), nil
	}
	return 0, fmt.Errorf("frequency %q: want a number with a unit Hz, kHz, MHz or GHz, e.g. 700MHz", s)
}

// String writes the frequency in the largest unit that divides it exactly.
func (h Hz) String() string {
	for _, u := range hzUnits {
		if h != 0 && h%u.f == 0 {
			return strconv.FormatInt(int64(h/u.f), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(h), 10) + "Hz"
}

// UnmarshalYAML reads a frequency with its unit.
func (h *Hz) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseHz(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		if err == nil {
			err = fmt.Errorf("want a frequency such as 700MHz")
		}
		return &PosError{Line: n.Line, Column: n.Column, Err: err}
	}
	*h = v
	return nil
}

// MarshalYAML writes the frequency with its unit.
func (h Hz) MarshalYAML() (any, error) { return h.String(), nil }

// MarshalText writes the frequency with its unit (used by encoding/json).
func (h Hz) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// parseUnitNumber parses a non-negative decimal and scales it by unit; the
// result must be a whole number.
func parseUnitNumber(num string, unit float64) (int64, error) {
	num = strings.TrimSpace(num)
	if num == "" {
		return 0, fmt.Errorf("missing number before the unit")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", num)
	}
	if f < 0 {
		return 0, fmt.Errorf("must not be negative")
	}
	v := f * unit
	r := math.Round(v)
	if math.Abs(v-r) > 1e-6*math.Max(1, v) {
		return 0, fmt.Errorf("is not a whole number of the base unit")
	}
	if r > math.MaxInt64/2 {
		return 0, fmt.Errorf("is too large")
	}
	return int64(r), nil
}
