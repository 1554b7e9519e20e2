package truth

import "testing"

func TestBit(t *testing.T) {
	if Bit(true) != 1 || Bit(false) != 0 {
		t.Fatalf("Bit(true), Bit(false) = %d, %d; want 1, 0", Bit(true), Bit(false))
	}
	if Int(true) != 1 || Int(false) != 0 {
		t.Fatalf("Int(true), Int(false) = %d, %d; want 1, 0", Int(true), Int(false))
	}
	// A mask of the lanes below 3 of 8, as a scan builds one.
	var m uint
	for k := range 8 {
		m |= uint(Bit(k < 3)) << k
	}
	if m != 0b111 {
		t.Fatalf("mask = %#b; want 0b111", m)
	}
}
