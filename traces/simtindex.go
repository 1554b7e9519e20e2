package traces

import (
	"fmt"
	"math/bits"
	"slices"

	"gpumemsim/kernel"
)

// slot is the slot of reference id's values in the lanes' vals.
func (xc *xcompiler) slot(id int) int32 {
	if xc.dry {
		return 0
	}
	if i := slices.Index(xc.slots, id); i >= 0 {
		return int32(i)
	}
	xc.slots = append(xc.slots, id)
	return int32(len(xc.slots) - 1)
}

// readValues keeps, for the active lanes of the read of pr (an index
// array's element), the element each lane read and its value from the
// array's contents, for the expressions that use them.
func (c *ThreadCursor) readValues(addr *[WarpSize]uint64, pr *ptRef) {
	vals, elems := &c.ln.vals[pr.slot], &c.ln.elems[pr.slot]
	for m := c.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		e := int64(addr[i]-pr.base) / pr.size
		elems[i], vals[i] = e, pr.data.At(e)
	}
}

// indexSource describes the index data lane i read that x uses (the
// first such read of x): "COL[517] = 1024"; "" when x reads none.
func (c *ThreadCursor) indexSource(x *xprog, i int) (string, *ptRef) {
	for _, o := range x.ops {
		if o.kind == kernel.ExprLoad {
			src := &c.pt.refs[c.pt.slots[o.arg]]
			return fmt.Sprintf("%s[%d] = %d", src.array, c.ln.elems[o.arg][i], c.ln.vals[o.arg][i]), src
		}
	}
	return "", nil
}

// outside describes lane i's subscript d of pr at value v outside its
// extent; an index made from index data names the element it read.
func (c *ThreadCursor) outside(pr *ptRef, d, i int, v int64) error {
	ln := &c.ln
	what := "index"
	if len(pr.subs) > 1 {
		what = fmt.Sprintf("subscript %d", d+1)
	}
	thread := fmt.Sprintf("thread (%d,%d,%d) of block (%d,%d,%d)", ln.tid[0][i], ln.tid[1][i], ln.tid[2][i], ln.bid[0], ln.bid[1], ln.bid[2])
	if src, sr := c.indexSource(pr.subs[d], i); src != "" {
		return at(pr.pos, fmt.Errorf("%s: %s reads %s, which makes %s %d, outside [0, %d) of %s; hint: the contents of %s (its data:) must index %s: check the generator's range, the file's values or %s's dims",
			pr.text, thread, src, what, v, pr.limits[d], pr.array, sr.array, pr.array, pr.array))
	}
	return at(pr.pos, fmt.Errorf("%s: %s has %s %d, outside [0, %d) of %s; hint: guard the access with an if, or check the grid and the params",
		pr.text, thread, what, v, pr.limits[d], pr.array))
}
