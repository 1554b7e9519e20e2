package sim

// pool hands out indices into items, reusing released ones, so that a
// unit's records (requests in flight, MSHR waiters) are kept in one slice
// that grows to its working size and then allocates nothing.
type pool[T any] struct {
	items []T
	free  []int32
}

// take returns the index of an unused item.
func (p *pool[T]) take() int32 {
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		return i
	}
	var zero T
	p.items = append(p.items, zero)
	return int32(len(p.items) - 1)
}

// release makes item i unused.
func (p *pool[T]) release(i int32) { p.free = append(p.free, i) }
