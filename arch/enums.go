package arch

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The enumerations of a device config are small integer types, parsed once
// here from their YAML spelling with a positioned error; everything after
// loading compares values, not strings. The zero value of each is "not
// given", which Validate reports where a value is required.

// enum is the spelling of each value of one enumeration: names[v] is the
// spelling of value v, and names[0] is "" (not given).
type enum[T ~uint8] struct {
	what  string
	names []string
}

func (e enum[T]) name(v T) string {
	if int(v) < len(e.names) {
		return e.names[v]
	}
	return fmt.Sprintf("%s(%d)", e.what, uint8(v))
}

// list is the valid spellings, "a, b or c".
func (e enum[T]) list() string {
	names := e.names[1:]
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func (e enum[T]) parse(s string) (T, error) {
	for v, n := range e.names {
		if v > 0 && n == s {
			return T(v), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q; want %s", e.what, s, e.list())
}

func (e enum[T]) unmarshal(n *yaml.Node, v *T) error {
	if n.Kind != yaml.ScalarNode {
		return &PosError{Line: n.Line, Column: n.Column, Err: fmt.Errorf("want a %s: %s", e.what, e.list())}
	}
	x, err := e.parse(n.Value)
	if err != nil {
		return &PosError{Line: n.Line, Column: n.Column, Err: err}
	}
	*v = x
	return nil
}

// CoalescingRule is a compute-capability family's coalescing rule.
type CoalescingRule uint8

// Coalescing rules, one per compute-capability family.
const (
	RuleCC10 CoalescingRule = iota + 1 // CC 1.0/1.1: strict half-warp rule
	RuleCC13                           // CC 1.2/1.3: half-warp segment protocol
	RuleCC20                           // CC 2.x: per warp, 128-B lines cached, 32-B uncached
	RuleCC30                           // CC 3.x: 32-B segments through L2
	RuleCC50                           // CC 5.x: 32-B sectors
)

var rules = enum[CoalescingRule]{"coalescing rule", []string{"", "cc10", "cc13", "cc20", "cc30", "cc50"}}

// ParseCoalescingRule reads a rule's config spelling ("cc13").
func ParseCoalescingRule(s string) (CoalescingRule, error) { return rules.parse(s) }

func (r CoalescingRule) String() string                    { return rules.name(r) }
func (r CoalescingRule) MarshalText() ([]byte, error)      { return []byte(r.String()), nil }
func (r *CoalescingRule) UnmarshalYAML(n *yaml.Node) error { return rules.unmarshal(n, r) }

// MaxTransaction is the largest transaction the rule makes: 32 bytes
// under cc50's sectors, 128 under the others (CC 1.x's largest segment,
// CC 2.x's cached line, CC 3.x's; hardware.md §2). An unknown rule gives
// 0.
func (r CoalescingRule) MaxTransaction() Bytes {
	switch r {
	case RuleCC50:
		return 32
	case RuleCC10, RuleCC13, RuleCC20, RuleCC30:
		return 128
	}
	return 0
}

// Legacy reports whether the rule is a CC 1.x one, whose profiler had only
// the legacy per-size counters.
func (r CoalescingRule) Legacy() bool { return r == RuleCC10 || r == RuleCC13 }

// SchedulerPolicy is how a warp scheduler picks the warp to issue.
type SchedulerPolicy uint8

// Warp scheduler policies.
const (
	PolicyLRR SchedulerPolicy = iota + 1 // loose round robin
	PolicyGTO                            // greedy then oldest
)

var policies = enum[SchedulerPolicy]{"scheduler policy", []string{"", "lrr", "gto"}}

func (p SchedulerPolicy) String() string                    { return policies.name(p) }
func (p SchedulerPolicy) MarshalText() ([]byte, error)      { return []byte(p.String()), nil }
func (p *SchedulerPolicy) UnmarshalYAML(n *yaml.Node) error { return policies.unmarshal(n, p) }

// RegisterAllocation is the granularity at which the occupancy calculator
// allocates registers.
type RegisterAllocation uint8

// Register allocation granularities.
const (
	AllocPerBlock RegisterAllocation = iota + 1 // CC 1.x: registers are allocated per block
	AllocPerWarp                                // CC 2.x and later: per warp
)

var allocations = enum[RegisterAllocation]{"register allocation granularity", []string{"", "block", "warp"}}

func (a RegisterAllocation) String() string                    { return allocations.name(a) }
func (a RegisterAllocation) MarshalText() ([]byte, error)      { return []byte(a.String()), nil }
func (a *RegisterAllocation) UnmarshalYAML(n *yaml.Node) error { return allocations.unmarshal(n, a) }

// Replacement is a cache's replacement policy.
type Replacement uint8

// Cache replacement policies.
const (
	ReplaceLRU Replacement = iota + 1
	ReplaceFIFO
)

var replacements = enum[Replacement]{"replacement policy", []string{"", "lru", "fifo"}}

func (r Replacement) String() string                    { return replacements.name(r) }
func (r Replacement) MarshalText() ([]byte, error)      { return []byte(r.String()), nil }
func (r *Replacement) UnmarshalYAML(n *yaml.Node) error { return replacements.unmarshal(n, r) }

// SetIndex is a cache's set-index function.
type SetIndex uint8

// Set-index functions.
const (
	IndexLinear    SetIndex = iota + 1 // set = line address mod sets
	IndexFermiHash                     // Nugteren et al.'s XOR hash, 32 or 64 sets
	IndexXOR                           // low set bits XOR the next higher bits
)

var setIndexes = enum[SetIndex]{"set index", []string{"", "linear", "fermi_hash", "xor"}}

func (s SetIndex) String() string                    { return setIndexes.name(s) }
func (s SetIndex) MarshalText() ([]byte, error)      { return []byte(s.String()), nil }
func (s *SetIndex) UnmarshalYAML(n *yaml.Node) error { return setIndexes.unmarshal(n, s) }

// WritePolicy is what a cache does with stores.
type WritePolicy uint8

// Write policies.
const (
	WriteEvict   WritePolicy = iota + 1 // stores bypass the cache and evict a matching line
	WriteThrough                        // stores update a present line and go on
	WriteBack                           // stores stay in the cache until evicted
	ReadOnly                            // the cache holds no written data
)

var writePolicies = enum[WritePolicy]{"write policy", []string{"", "write_evict", "write_through", "write_back", "read_only"}}

func (w WritePolicy) String() string                    { return writePolicies.name(w) }
func (w WritePolicy) MarshalText() ([]byte, error)      { return []byte(w.String()), nil }
func (w *WritePolicy) UnmarshalYAML(n *yaml.Node) error { return writePolicies.unmarshal(n, w) }

// DRAMScheduler is the order in which a DRAM channel serves its queue.
type DRAMScheduler uint8

// DRAM schedulers.
const (
	SchedFRFCFS DRAMScheduler = iota + 1 // first ready, first come first served: row hits first
	SchedFCFS
)

var dramSchedulers = enum[DRAMScheduler]{"DRAM scheduler", []string{"", "frfcfs", "fcfs"}}

func (s DRAMScheduler) String() string                    { return dramSchedulers.name(s) }
func (s DRAMScheduler) MarshalText() ([]byte, error)      { return []byte(s.String()), nil }
func (s *DRAMScheduler) UnmarshalYAML(n *yaml.Node) error { return dramSchedulers.unmarshal(n, s) }

// CacheConfig is the L1/shared split a kernel prefers, as
// cudaFuncSetCacheConfig takes it; the values are cudaFuncCache's. Zero
// (cudaFuncCachePreferNone) keeps the split the device config gives.
type CacheConfig uint8

// Cache configs, in cudaFuncCache's order.
const (
	PreferShared CacheConfig = iota + 1 // cudaFuncCachePreferShared: more shared memory, less L1
	PreferL1                            // cudaFuncCachePreferL1: more L1, less shared memory
	PreferEqual                         // cudaFuncCachePreferEqual: as much L1 as shared memory
)

var cacheConfigs = enum[CacheConfig]{"cache config", []string{"", "prefer-shared", "prefer-l1", "prefer-equal"}}

// ParseCacheConfig reads a cache config as the -cache-config flag spells
// it ("prefer-l1"); "" is zero, the device config's own split.
func ParseCacheConfig(s string) (CacheConfig, error) {
	if s == "" {
		return 0, nil
	}
	return cacheConfigs.parse(s)
}

func (c CacheConfig) String() string               { return cacheConfigs.name(c) }
func (c CacheConfig) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// key is the split's key in the l1_shared section ("prefer_l1").
func (c CacheConfig) key() string { return strings.ReplaceAll(c.String(), "-", "_") }
