package truth

// Bit is 1 if c, else 0. The compiler makes it a SETcc, inlined at every
// caller: an expression of Bits with & | ^ and shifts stays free of
// branches.
func Bit(c bool) uint8 {
	if c {
		return 1
	}
	return 0
}

// Int is C's value of a truth: 1 if c, else 0.
func Int(c bool) int64 {
	return int64(Bit(c))
}
