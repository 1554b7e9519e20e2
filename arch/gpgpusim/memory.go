package gpgpusim

import (
	"fmt"
	"strconv"
	"strings"

	"gpumemsim/arch"
)

// cacheFields are the YAML keys a cache string sets.
var cacheFields = []string{"size", "line", "sector", "associativity", "replacement", "set_index",
	"write_policy", "write_allocate", "mshr_entries", "mshr_merges"}

// cacheOption reads a cache string option; present is false for "none".
func (im *importer) cacheOption(path, name string) (c arch.Cache, present, given bool) {
	o, ok := im.get(name)
	if !ok {
		return c, false, false
	}
	cs, present, err := parseCacheString(o.Value)
	if err != nil {
		im.fail(o, "%v", err)
		return c, false, false
	}
	text := written(o)
	if !present {
		im.note(text+": no cache", path+".size")
		return c, false, true
	}
	for _, f := range cacheFields {
		im.note(text, path+"."+f)
	}
	if cs.writeNote != "" {
		im.note(text+": "+cs.writeNote, path+".write_policy")
	}
	if cs.indexNote != "" {
		im.note(text+": "+cs.indexNote, path+".set_index")
	}
	if cs.alloc != 'm' {
		im.note(text+fmt.Sprintf(": allocation %q (on fill or streaming) is not modelled; gpumemsim allocates on miss", cs.alloc), path+".size")
	}
	return cs.cache(), true, true
}

// caches translates the L1 data, texture, constant and L2 cache strings
// and their latencies.
func (im *importer) caches() {
	d := im.d
	if c, present, ok := im.cacheOption("l1", "-gpgpu_cache:dl1"); ok {
		c.HitLatency = d.L1.HitLatency
		if !present {
			c = arch.Cache{}
		}
		d.L1 = c
	}
	if d.L1.Present() {
		im.setInt(&d.L1.HitLatency, "l1.hit_latency", "-gpgpu_l1_latency")
	} else {
		im.skip("the device has no L1 (-gpgpu_cache:dl1 none)", "-gpgpu_l1_latency")
	}
	skip, o, ok := im.flag("-gpgpu_gmem_skip_L1D", "-gmem_skip_L1D")
	switch {
	case !d.L1.Present():
		d.Coalescer.CacheGlobalLoads = false
		im.note("-gpgpu_cache:dl1 none: no L1 to cache global loads in", "coalescer.cache_global_loads")
	case ok:
		d.Coalescer.CacheGlobalLoads = !skip
		im.note(written(o), "coalescer.cache_global_loads")
	}
	if c, present, ok := im.cacheOption("texture", "-gpgpu_tex_cache:l1"); ok {
		c.HitLatency = d.Texture.HitLatency
		if !present {
			c = arch.Cache{}
		}
		d.Texture = arch.TextureCache{Cache: c}
		im.note(written(im.last("-gpgpu_tex_cache:l1"))+": GPGPU-Sim gives each core its own texture cache", "texture.shared_by")
	}
	if c, present, ok := im.cacheOption("constant", "-gpgpu_const_cache:l1"); ok {
		c.HitLatency = d.Constant.HitLatency
		if !present {
			c = arch.Cache{}
		}
		d.Constant = c
	}
	im.l2()
}

// last is the last occurrence of name, already read.
func (im *importer) last(name string) Option {
	o, _ := im.opts.Last(name)
	return o
}

// l2 translates -gpgpu_cache:dl2, a string per memory sub-partition: the
// L2 has one slice per sub-partition.
func (im *importer) l2() {
	d := im.d
	channels, oc, okc := im.count("-gpgpu_n_mem")
	if okc {
		d.DRAM.Channels = channels
		im.note(written(oc), "dram.channels")
	}
	sub, os, oks := im.count("-gpgpu_n_sub_partition_per_mchannel")
	if !oks {
		sub = max(1, im.base.L2.Slices/max(1, im.base.DRAM.Channels))
	}
	perSlice := im.base.L2.SliceSize()
	sizeFrom := fmt.Sprintf("configs/%s.yaml's %v per slice (base)", im.baseName, perSlice)
	c, present, ok := im.cacheOption("l2", "-gpgpu_cache:dl2")
	switch {
	case ok && !present:
		d.L2 = arch.L2Cache{}
		im.skip("the device has no L2 (-gpgpu_cache:dl2 none)", "-gpgpu_l2_rop_latency", "-rop_latency",
			"-gpgpu_dram_partition_queues", "-gpgpu_cache:dl2_texture_only")
		return
	case ok:
		c.HitLatency = d.L2.HitLatency
		d.L2.Cache = c
		perSlice = c.Size
		sizeFrom = written(im.last("-gpgpu_cache:dl2")) + fmt.Sprintf(": %v per sub-partition", perSlice)
	case !d.L2.Present() || !okc && !oks:
		return // the base's L2 as it is
	}
	var given []Option
	if okc {
		given = append(given, oc)
	}
	if oks {
		given = append(given, os)
	}
	d.L2.Slices = d.DRAM.Channels * sub
	d.L2.Size = perSlice * arch.Bytes(d.L2.Slices)
	slices := fmt.Sprintf("%d channels × %d sub-partitions per channel", d.DRAM.Channels, sub)
	if len(given) > 0 {
		slices = written(given...) + ": " + slices
	}
	im.note(slices, "l2.slices")
	im.note(fmt.Sprintf("%s × %d slices", sizeFrom, d.L2.Slices), "l2.size")
	im.setInt(&d.L2.HitLatency, "l2.hit_latency", "-gpgpu_l2_rop_latency", "-rop_latency")
	if texOnly, o, ok := im.flag("-gpgpu_cache:dl2_texture_only"); ok {
		d.L2.TextureOnly = texOnly
		im.note(written(o), "l2.texture_only")
	}
	if o, ok := im.get("-gpgpu_dram_partition_queues"); ok {
		q := strings.Split(o.Value, ":")
		n, err := strconv.Atoi(q[0])
		if len(q) != 4 || err != nil || n <= 0 {
			im.fail(o, "want four positive queue sizes <icnt to L2>:<L2 to DRAM>:<DRAM to L2>:<L2 to icnt>, e.g. 64:64:64:64")
		} else {
			d.L2.QueueDepth = n
			im.note(written(o)+": the interconnect-to-L2 queue (the other three are not modelled)", "l2.queue_depth")
		}
	}
}

// sharedMemory translates the shared memory's size, banks and latency.
// The per-block limit is the compute capability's (from the base) unless
// -gpgpu_shmem_per_block gives it, and at most the SM's shared memory.
func (im *importer) sharedMemory() {
	s := &im.d.SM
	perBlock := s.MaxSharedMemoryPerBlock
	if im.base.L1Shared.Present() {
		perBlock = im.base.L1Shared.MaxSharedMemoryPerBlock
	}
	defer func() { im.splits(min(perBlock, s.MaxSharedMemoryPerBlock)) }()
	if n, o, ok := im.count("-gpgpu_shmem_size"); ok {
		s.SharedMemory = arch.Bytes(n)
		im.note(written(o), "sm.shared_memory")
	}
	if n, o, ok := im.count("-gpgpu_shmem_per_block"); ok {
		s.MaxSharedMemoryPerBlock = arch.Bytes(n)
		im.note(written(o), "sm.max_shared_memory_per_block")
	}
	if _, given := im.from["sm.max_shared_memory_per_block"]; !given && s.MaxSharedMemoryPerBlock > s.SharedMemory {
		s.MaxSharedMemoryPerBlock = s.SharedMemory
		im.note("base's limit, cut to sm.shared_memory", "sm.max_shared_memory_per_block")
	}
	im.setInt(&s.SharedMemoryBanks, "sm.shared_memory_banks", "-gpgpu_shmem_num_banks")
	im.setInt(&s.SharedLatency, "sm.shared_latency", "-gpgpu_smem_latency")
}

// memory translates the DRAM: its geometry, timing, scheduler, queue,
// latency and address mapping.
func (im *importer) memory() {
	m := &im.d.DRAM
	ctrl, oc, okc := im.count("-gpgpu_n_mem_per_ctrlr")
	width, ow, okw := im.count("-gpgpu_dram_buswidth")
	if okc || okw {
		if !okc {
			ctrl = 1
		}
		if !okw {
			width = 4
		}
		m.BusWidthBits = ctrl * width * 8
		im.note(written(oc, ow)+": chips per channel × bytes per chip × 8", "dram.bus_width_bits")
	}
	im.setInt(&m.BurstLength, "dram.burst_length", "-gpgpu_dram_burst_length")
	if n, o, ok := im.count("-dram_data_command_freq_ratio"); ok {
		im.d.Clocks.DRAMDataRate = n
		im.note(written(o)+": data transfers per command clock", "clocks.dram_data_rate")
		m.Type = dramType(n)
		im.note(written(o)+": the option file names no DRAM type; this is what the ratio implies", "dram.type")
	}
	if o, ok := im.get("-gpgpu_dram_timing_opt"); ok {
		if t, err := parseDRAMTiming(o.Value); err != nil {
			im.fail(o, "%v", err)
		} else {
			m.Banks, m.BankGroups, m.Timing = t.banks, t.bankGroups, t.t
			text := written(o)
			im.note(text, "dram.banks", "dram.bank_groups", "dram.timing.tCL", "dram.timing.tRCD", "dram.timing.tRP",
				"dram.timing.tRAS", "dram.timing.tCCD", "dram.timing.tRRD", "dram.timing.tWR", "dram.timing.tWL", "dram.timing.tRTPL")
			im.note(text+": CDLR", "dram.timing.tWTR")
			im.note(text+": CCDL (tCCD where CCDL is 0, no bank groups)", "dram.timing.tCCDL")
			im.note(text+fmt.Sprintf(" (RC=%d is not modelled: a row stays open tRAS, then tRP)", t.rc), "dram.timing")
		}
	}
	if o, ok := im.get("-gpgpu_dram_scheduler"); ok {
		switch o.Value {
		case "0":
			m.Scheduler = arch.SchedFCFS
		case "1":
			m.Scheduler = arch.SchedFRFCFS
		default:
			im.fail(o, "want 0 (FIFO) or 1 (FR-FCFS), GPGPU-Sim's dram_ctrl_t")
		}
		im.note(written(o), "dram.scheduler")
	}
	if o, ok := im.get("-gpgpu_frfcfs_dram_sched_queue_size"); ok {
		if n, err := strconv.Atoi(o.Value); err != nil || n <= 0 {
			im.fail(o, "want a positive number of requests, e.g. 64; hint: 0 is GPGPU-Sim's unbounded queue, which gpumemsim does not model")
		} else {
			m.QueueDepth = n
			im.note(written(o), "dram.queue_depth")
		}
	}
	im.setInt(&m.Latency, "dram.latency", "-dram_latency")
	if o, ok := im.get("-gpgpu_mem_addr_mapping"); ok {
		if a, err := parseAddrMapping(o.Value); err != nil {
			im.fail(o, "%v", err)
		} else {
			m.Interleave, m.RowSize = a.interleave, a.rowSize
			im.note(written(o)+": the channel bits' position", "dram.interleave")
			im.note(written(o)+": 2^(C and S bits) bytes", "dram.row_size")
		}
	}
	if o, ok := im.opts.Last("-gpgpu_memory_partition_indexing"); ok && o.Value == "0" {
		im.get(o.Name)
		im.from["dram.interleave"] += "; " + written(o) + ": linear, as gpumemsim interleaves channels"
	}
}

// dramType names the DRAM a data/command ratio implies.
func dramType(ratio int) string {
	switch ratio {
	case 4:
		return "GDDR5"
	case 2:
		return "GDDR3 or HBM (double data rate)"
	}
	return fmt.Sprintf("DRAM with %d transfers per command clock", ratio)
}
