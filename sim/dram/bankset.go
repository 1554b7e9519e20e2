package dram

import "slices"

// bankSet is a set of the banks of a channel, listed in no particular
// order, with constant-time insertion and removal. It lists the banks
// themselves, so that a walk of the list reads each bank without
// indexing the channel's banks again.
type bankSet struct {
	list []*bank
	pos  []int32 // index in list per bank id, -1 when absent
}

func newBankSet(n int) bankSet {
	return bankSet{list: make([]*bank, 0, n), pos: slices.Repeat([]int32{-1}, n)}
}

// add puts b in the set. The list's capacity is every bank, so it grows
// by reslicing, without append's check for room.
func (s *bankSet) add(b *bank) {
	pos := &s.pos[b.id]
	if *pos >= 0 {
		return
	}
	n := len(s.list)
	*pos = int32(n)
	s.list = s.list[:n+1]
	s.list[n] = b
}

func (s *bankSet) remove(b *bank) {
	pos := &s.pos[b.id]
	p := *pos
	if p < 0 {
		return
	}
	list := s.list
	last := list[len(list)-1]
	list[p] = last
	s.pos[last.id] = p
	*pos = -1 // after: last may be b
	s.list = list[:len(list)-1]
}
