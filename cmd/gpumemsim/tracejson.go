package main

import (
	"bytes"
	"encoding/json"

	"gpumemsim/arch"
	"gpumemsim/sim"
	"gpumemsim/traces"
)

// trace's JSON output.

// ordered is a JSON object whose keys keep their order.
type ordered []keyValue

type keyValue struct {
	key   string
	value any
}

// MarshalJSON writes the pairs as one object, in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type launchJSON struct {
	Mapping       string  `json:"mapping"`
	Block         string  `json:"block"`
	Grid          string  `json:"grid"`
	Blocks        int     `json:"blocks"`
	WarpsPerBlock int     `json:"warps_per_block"`
	Params        ordered `json:"params"`
}

type txnJSON struct {
	Addr    uint64 `json:"addr"`
	Size    uint32 `json:"size"`
	Sectors uint8  `json:"sectors"`
	Lanes   uint32 `json:"lanes"`
}

type instJSON struct {
	Block  int    `json:"block"`
	Warp   int    `json:"warp"`
	Op     string `json:"op"`
	Ref    string `json:"ref,omitempty"`
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"`
	Width  int    `json:"width,omitempty"`
	Active uint32 `json:"active"`
	// Count is the instructions of a compute step.
	Count int32 `json:"count,omitempty"`
	// Addresses has one entry per lane, null for inactive lanes.
	Addresses    []*uint64 `json:"addresses,omitempty"`
	Pattern      string    `json:"pattern,omitempty"`
	Transactions []txnJSON `json:"transactions,omitempty"`
	// ConstantPasses are a constant-memory read's passes through the
	// constant cache, per request (one, or two half-warps on CC 1.x).
	ConstantPasses []int `json:"constant_passes,omitempty"`
	// TextureLines are a texture fetch's 32-byte lines, by address, one
	// lookup of the texture cache each.
	TextureLines []uint64 `json:"texture_lines,omitempty"`
}

type refJSON struct {
	Ref   string `json:"ref"`
	Array string `json:"array"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Op    string `json:"op"`
	Width int    `json:"width"`
	sim.RefCounts
	TxnPerRequest float64 `json:"transactions_per_request"`
	Efficiency    float64 `json:"efficiency"`
}

func traceJSON(d *arch.Device, l *traces.Launch, insts []shownInst, metrics []sim.Metric, c *sim.Counts) any {
	params := make(ordered, len(l.Params))
	for i, p := range l.Params {
		params[i] = keyValue{p.Name, p.Value}
	}
	warps := make([]instJSON, 0, len(insts))
	for i := range insts {
		in := &insts[i].in
		j := instJSON{Block: in.Block, Warp: in.Warp, Op: in.Op.String(), Active: in.Active}
		switch in.Op {
		case traces.OpCompute:
			j.Count = in.Count
			warps = append(warps, j)
			continue
		case traces.OpBarrier: // no reference, no addresses
			warps = append(warps, j)
			continue
		}
		r := &l.Refs[in.Ref]
		j.Ref, j.Line, j.Col, j.Width = r.Text, r.Line, r.Col, int(in.Width)
		j.Addresses = make([]*uint64, traces.WarpSize)
		for lane := range traces.WarpSize {
			if in.Active&(1<<lane) != 0 {
				a := in.Addr[lane]
				j.Addresses[lane] = &a
			}
		}
		j.Pattern = addressPattern(in)
		j.Transactions = []txnJSON{}
		for _, t := range insts[i].txns {
			j.Transactions = append(j.Transactions, txnJSON{t.Addr, t.Size, t.Sectors, t.Lanes})
		}
		if insts[i].constant {
			j.ConstantPasses = insts[i].degrees
		}
		if insts[i].texture {
			j.TextureLines = insts[i].lines
		}
		warps = append(warps, j)
	}
	var ms ordered
	for _, m := range metrics {
		ms = append(ms, keyValue{m.Name, m.Value})
	}
	// Without whole-kernel counts (not asked for, and large), metrics and
	// references are null.
	var refs []refJSON
	if c != nil {
		refs = make([]refJSON, len(l.Refs))
		for i := range l.Refs {
			r, rc := &l.Refs[i], &c.Refs[i]
			refs[i] = refJSON{r.Text, r.Array, r.Line, r.Col, r.Op.String(), r.Width, *rc,
				rc.TransactionsPerRequest(), rc.Efficiency()}
		}
	}
	return struct {
		Device            string              `json:"device"`
		CacheConfig       arch.CacheConfig    `json:"cache_config,omitempty"`
		ComputeCapability string              `json:"compute_capability"`
		Coalescer         arch.CoalescingRule `json:"coalescer"`
		Kernel            string              `json:"kernel"`
		Launch            launchJSON          `json:"launch"`
		Warps             []instJSON          `json:"warps"`
		Metrics           ordered             `json:"metrics"`
		References        []refJSON           `json:"references"`
	}{
		d.Name, d.CacheConfig, d.ComputeCapability, d.Coalescer.Rule, l.Kernel.Name,
		launchJSON{l.Mapping.String(), l.Block.String(), l.Grid().String(), l.Blocks(), l.WarpsPerBlock(), params},
		warps, ms, refs,
	}
}
