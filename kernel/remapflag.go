package kernel

import (
	"fmt"
	"strconv"
	"strings"
)

// SetRemap gives array name the remap spec instead of its file's remap:
// (the command's -remap NAME=SPEC): none, row2col, col2row, diagonal, tile:THxTW
// (integers) or gather:INDEX. The kernel is checked as if its file
// declared it; on error nothing changes.
func (k *Kernel) SetRemap(name, spec string) error {
	what := "-remap " + name + "=" + spec
	a := k.ArrayNamed(name)
	if a == nil {
		names := make([]string, len(k.Arrays))
		for i, a := range k.Arrays {
			names[i] = a.Name
		}
		return fmt.Errorf("%s: unknown array %s; hint: the arrays of %s are %s", what, name, k.Name, strings.Join(names, ", "))
	}
	r, err := parseRemapSpec(spec)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	old := a.Remap
	a.Remap = r
	ld := &loader{file: k.File}
	if err := ld.checkRemaps(k); err != nil {
		a.Remap = old
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// parseRemapSpec reads a -remap SPEC; nil for none.
func parseRemapSpec(spec string) (*Remap, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "none", "row2col", "col2row", "diagonal":
		if arg != "" {
			return nil, fmt.Errorf("%s takes no argument; hint: write %s", kind, kind)
		}
	}
	switch kind {
	case "none":
		return nil, nil
	case "row2col":
		return &Remap{Kind: RemapRow2Col}, nil
	case "col2row":
		return &Remap{Kind: RemapCol2Row}, nil
	case "diagonal":
		return &Remap{Kind: RemapDiagonal}, nil
	case "gather":
		if !isIdent(arg) {
			return nil, fmt.Errorf("a gather names its index array; hint: e.g. gather:COL")
		}
		return &Remap{Kind: RemapGather, Index: arg}, nil
	case "tile":
		h, w, ok := strings.Cut(arg, "x")
		th, errH := strconv.ParseInt(h, 10, 64)
		tw, errW := strconv.ParseInt(w, 10, 64)
		if !ok || errH != nil || errW != nil || th <= 0 || tw <= 0 {
			return nil, fmt.Errorf("a tile is tile:HEIGHTxWIDTH in elements, positive integers; got %q; hint: e.g. tile:16x16", spec)
		}
		return &Remap{Kind: RemapTile, Tile: [2]*Expr{{Kind: ExprConst, Val: th}, {Kind: ExprConst, Val: tw}}}, nil
	}
	return nil, fmt.Errorf("unknown remap %q; hint: want none, row2col, col2row, diagonal, tile:THxTW or gather:INDEX", kind)
}
