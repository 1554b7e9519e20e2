package arch

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every spelling of every enumeration reads back as the value that writes
// it, and a wrong spelling is refused at its position with the list of
// right ones.
func TestEnumSpellings(t *testing.T) {
	check := func(what string, names []string, parse func(string) (string, error)) {
		for _, n := range names {
			got, err := parse(n)
			if err != nil || got != n {
				t.Errorf("%s %q reads back as %q, %v", what, n, got, err)
			}
		}
	}
	for _, tc := range []struct {
		names []string
		read  func(string) (string, error)
	}{
		{[]string{"cc10", "cc13", "cc20", "cc30", "cc50"}, func(s string) (string, error) { var v CoalescingRule; err := readYAML(s, &v); return v.String(), err }},
		{[]string{"lrr", "gto"}, func(s string) (string, error) { var v SchedulerPolicy; err := readYAML(s, &v); return v.String(), err }},
		{[]string{"block", "warp"}, func(s string) (string, error) {
			var v RegisterAllocation
			err := readYAML(s, &v)
			return v.String(), err
		}},
		{[]string{"lru", "fifo"}, func(s string) (string, error) { var v Replacement; err := readYAML(s, &v); return v.String(), err }},
		{[]string{"linear", "fermi_hash", "xor"}, func(s string) (string, error) { var v SetIndex; err := readYAML(s, &v); return v.String(), err }},
		{[]string{"write_evict", "write_through", "write_back", "read_only"}, func(s string) (string, error) { var v WritePolicy; err := readYAML(s, &v); return v.String(), err }},
		{[]string{"frfcfs", "fcfs"}, func(s string) (string, error) { var v DRAMScheduler; err := readYAML(s, &v); return v.String(), err }},
	} {
		check("enumeration", tc.names, tc.read)
	}
}

func readYAML(s string, v yaml.Unmarshaler) error {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		return err
	}
	return v.UnmarshalYAML(n.Content[0])
}

func TestEnumErrors(t *testing.T) {
	var p SchedulerPolicy
	err := readYAML("\n  gtoo", &p)
	var pe *PosError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 3 {
		t.Fatalf("reading gtoo: %v; want a *PosError at 2:3", err)
	}
	if want := `unknown scheduler policy "gtoo"; want lrr or gto`; pe.Err.Error() != want {
		t.Errorf("reading gtoo: %q; want %q", pe.Err, want)
	}
	if err := readYAML("[lrr]", &p); err == nil || !strings.Contains(err.Error(), "want a scheduler policy: lrr or gto") {
		t.Errorf("reading a list as a policy: %v", err)
	}
	if _, err := ParseCoalescingRule("cc35"); err == nil || err.Error() != `unknown coalescing rule "cc35"; want cc10, cc13, cc20, cc30 or cc50` {
		t.Errorf("ParseCoalescingRule(cc35) error = %v", err)
	}
	for _, s := range []string{"", "cc35", "CC13", "cc1", "fermi"} {
		if r, err := ParseCoalescingRule(s); err == nil {
			t.Errorf("ParseCoalescingRule(%q) = %v, nil; want an error", s, r)
		}
	}
	if s := CoalescingRule(9).String(); s != "coalescing rule(9)" {
		t.Errorf("CoalescingRule(9) = %q", s)
	}
}
