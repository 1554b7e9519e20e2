package dram

// ChannelStats are the counters of one channel.
type ChannelStats struct {
	// Reads and Writes count accepted requests; the byte and 32-B sector
	// counts are theirs.
	Reads, Writes             int64
	ReadBytes, WriteBytes     int64
	ReadSectors, WriteSectors int64
	// Completed counts requests whose completion has been reported.
	Completed int64
	// RowHits counts requests that found their row open; RowMisses those
	// that needed an activate (RowConflicts of them also a precharge).
	RowHits, RowMisses, RowConflicts int64
	Activates, Precharges            int64
	// BusBusyTransfers counts the transfer slots the data bus was busy; a
	// DRAM cycle is dram_data_rate slots.
	BusBusyTransfers int64
	// Turnarounds counts column commands whose direction (read or write)
	// differs from the channel's previous column command's.
	Turnarounds int64
	// QueueFull counts Push calls refused because the queue was full.
	QueueFull int64
}

func (s *ChannelStats) add(o ChannelStats) {
	s.Reads += o.Reads
	s.Writes += o.Writes
	s.ReadBytes += o.ReadBytes
	s.WriteBytes += o.WriteBytes
	s.ReadSectors += o.ReadSectors
	s.WriteSectors += o.WriteSectors
	s.Completed += o.Completed
	s.RowHits += o.RowHits
	s.RowMisses += o.RowMisses
	s.RowConflicts += o.RowConflicts
	s.Activates += o.Activates
	s.Precharges += o.Precharges
	s.BusBusyTransfers += o.BusBusyTransfers
	s.Turnarounds += o.Turnarounds
	s.QueueFull += o.QueueFull
}

// Stats are the counters of every channel and their sum.
type Stats struct {
	Total    ChannelStats
	Channels []ChannelStats
}

// Stats returns a copy of the counters.
func (m *Memory) Stats() Stats { return statsOf(len(m.chans), m.channelStats) }

// Total is the counters summed over the channels: Stats().Total, without
// the copy of each channel's (a launch reads it three times).
func (m *Memory) Total() ChannelStats {
	var t ChannelStats
	for i := range m.chans {
		t.add(m.chans[i].stats)
	}
	return t
}

// BusUtilization is the fraction of the data-bus time of all channels
// that carried data over the first elapsed core cycles.
func (m *Memory) BusUtilization(elapsed int64) float64 {
	return busUtilization(m.ratio, elapsed, len(m.chans), m.channelStats)
}

func (m *Memory) channelStats(i int) *ChannelStats { return &m.chans[i].stats }

// statsOf copies the counters of n channels, of giving each, and sums
// them.
func statsOf(n int, of func(i int) *ChannelStats) Stats {
	s := Stats{Channels: make([]ChannelStats, n)}
	for i := range n {
		s.Channels[i] = *of(i)
		s.Total.add(*of(i))
	}
	return s
}

// busUtilization is the fraction of the data-bus time of n channels, of
// giving each one's counters, that carried data over the first elapsed
// core cycles.
func busUtilization(ratio clockRatio, elapsed int64, n int, of func(i int) *ChannelStats) float64 {
	if elapsed <= 0 {
		return 0
	}
	var busy int64
	for i := range n {
		busy += of(i).BusBusyTransfers
	}
	slots := float64(elapsed) * float64(ratio.num) / float64(ratio.den)
	return float64(busy) / (slots * float64(n))
}
