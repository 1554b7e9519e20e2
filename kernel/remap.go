package kernel

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Dymaxion remaps (CHE Ch. 5, models.md §1.5.2): an array declared with
// remap: lives in memory in another order than the source indexes it.
// The source stays in the original index space, as the paper prints the
// kernels; traces places element old at T(old) (or, for the gather,
// rewrites V[COL[e]] into V'[e]). AoS → SoA is not a remap here: it is
// the struct layout soa (layouts:).

// RemapKind is the transform of a remapped array.
type RemapKind uint8

// Remap kinds. For a 2-D array of H×W elements, element (r, c) at old =
// r·W + c moves to:
//   - RemapRow2Col: H·(old % W) + old / W = c·H + r (transform_row2col);
//   - RemapCol2Row: the inverse, for a source that indexes the array
//     column-major (old = c·H + r): W·(old % H) + old / H = r·W + c;
//   - RemapDiagonal: dim·((old % dim) + (old / dim)) + old / dim =
//     dim·(r + c) + r, square arrays only, (2·dim − 1)·dim slots
//     (transform_diagonal);
//   - RemapTile: tiles of TH×TW elements, one after the other in
//     row-major order of tiles, each row-major inside:
//     ((r/TH)·(W/TW) + c/TW)·TH·TW + (r%TH)·TW + c%TW (the chunked layout
//     [I]; Che's Fig. 5.4 chunks the transfer and the remap kernel, not
//     the layout, and map_user takes any transform);
//   - RemapGather: V'[e] = V[INDEX[e]]; every reference V[INDEX[e]] reads
//     V'[e], an array of INDEX's length, and INDEX is not read
//     (map_indirect).
const (
	RemapNone RemapKind = iota
	RemapRow2Col
	RemapCol2Row
	RemapDiagonal
	RemapTile
	RemapGather
)

func (k RemapKind) String() string {
	switch k {
	case RemapRow2Col:
		return "row2col"
	case RemapCol2Row:
		return "col2row"
	case RemapDiagonal:
		return "diagonal"
	case RemapTile:
		return "tile"
	case RemapGather:
		return "gather"
	}
	return "none"
}

// Remap is an array's declared remap.
type Remap struct {
	Kind RemapKind
	// Index is the gather's index array.
	Index string
	// Tile is a tile's height and width, expressions of params.
	Tile [2]*Expr
	// Line and Col locate the remap: value.
	Line, Col int
}

// Text writes the remap as the kernel file does: row2col, col2row, diagonal,
// {tile: [TH, TW]} or {gather: INDEX}.
func (r *Remap) Text() string {
	switch r.Kind {
	case RemapGather:
		return "{gather: " + r.Index + "}"
	case RemapTile:
		return "{tile: [" + r.Tile[0].String() + ", " + r.Tile[1].String() + "]}"
	}
	return r.Kind.String()
}

// Origin says where the remap comes from: "at line N" of the kernel
// file, or "from -remap" (SetRemap).
func (r *Remap) Origin() string {
	if r.Line == 0 {
		return "from -remap"
	}
	return fmt.Sprintf("at line %d", r.Line)
}

const remapHint = "want row2col, col2row, diagonal, {tile: [TH, TW]} or {gather: INDEX} (AoS to SoA is the struct layout soa: declare it under layouts:)"

// remap reads the remap: value n of array name.
func (ld *loader) remap(n *yaml.Node, name string, params map[string]bool) (*Remap, error) {
	r := &Remap{Line: n.Line, Col: n.Column}
	if n.Kind == yaml.MappingNode {
		return r, ld.remapMap(n, name, params, r)
	}
	switch n.Value {
	case "row2col":
		r.Kind = RemapRow2Col
	case "col2row":
		r.Kind = RemapCol2Row
	case "diagonal":
		r.Kind = RemapDiagonal
	case "soa":
		return nil, ld.errAt(n, "array "+name+": remap: soa is not a remap", "AoS to SoA is the struct layout soa: give "+name+" a struct type and declare layouts: {soa: {"+name+": soa}}")
	default:
		return nil, ld.errAt(n, fmt.Sprintf("array %s: unknown remap %q", name, n.Value), remapHint)
	}
	return r, nil
}

// remapMap reads a remap written as a mapping, {tile: [TH, TW]} or
// {gather: INDEX}, into r.
func (ld *loader) remapMap(n *yaml.Node, name string, params map[string]bool, r *Remap) error {
	f, keys, err := ld.fields(n, "array "+name+": remap", []string{"gather", "tile"})
	if err != nil {
		return err
	}
	if len(keys) != 1 {
		return ld.errAt(n, "array "+name+": remap: give one of gather and tile", "e.g. remap: {gather: COL} or remap: {tile: [16, 16]}")
	}
	if g := f["gather"]; g != nil {
		if g.Kind != yaml.ScalarNode || !isIdent(g.Value) {
			return ld.errAt(g, "array "+name+": remap: a gather names its index array", "e.g. remap: {gather: COL}")
		}
		r.Kind, r.Index = RemapGather, g.Value
		return nil
	}
	tn := f["tile"]
	if tn.Kind != yaml.SequenceNode || len(tn.Content) != 2 {
		return ld.errAt(tn, "array "+name+": remap: a tile is [height, width]", "e.g. remap: {tile: [16, 16]}")
	}
	r.Kind = RemapTile
	for i, e := range tn.Content {
		if r.Tile[i], err = ld.paramExpr(e, params, "tile"); err != nil {
			return err
		}
	}
	return nil
}

// checkRemaps checks the remapped arrays against the program: remaps
// are for __global__ kernels' global arrays of scalars; row2col,
// col2row, diagonal and tile need two dimensions; a gather's index array is an index array
// (data:) and every reference reads the gathered array through it.
func (ld *loader) checkRemaps(k *Kernel) error {
	for _, a := range k.Arrays {
		r := a.Remap
		if r == nil {
			continue
		}
		fail := func(msg, hint string) error {
			msg = "array " + a.Name + ": remap " + r.Text() + ": " + msg
			if r.Line == 0 { // a flag's (SetRemap)
				return fmt.Errorf("%s; hint: %s", msg, hint)
			}
			return posError(ld.file, r.Line, r.Col, msg, hint)
		}
		switch {
		case k.Program.Form != PerThread:
			return fail("a loop-nest kernel cannot be remapped", "write the kernel as a __global__ function, or give the array layout: col-major")
		case a.Struct != nil:
			return fail("the array holds structs", "AoS to SoA is the struct layout soa (layouts:); remap arrays of scalars")
		case a.Space != SpaceGlobal:
			return fail("the array is in "+a.Space.String()+" memory", "remap global arrays only: drop space:")
		case a.Data != nil:
			return fail("the array is an index array (data:), whose reads give values by element", "remap arrays of data, not index arrays")
		case a.Layout != RowMajor:
			return fail("the array is col-major already", "drop layout: (a remap transforms the row-major order)")
		case r.Kind != RemapGather && len(a.Dims) != 2:
			return fail(fmt.Sprintf("the array is %d-D; %s transforms a 2-D array", len(a.Dims), r.Kind), "declare dims: [H, W]")
		case r.Kind == RemapGather:
			if err := ld.checkGather(k, a, fail); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkGather checks a's gather through its index array.
func (ld *loader) checkGather(k *Kernel, a *Array, fail func(msg, hint string) error) error {
	ix := k.ArrayNamed(a.Remap.Index)
	switch {
	case ix == nil:
		return fail("no array "+a.Remap.Index, "name an index array declared under arrays:")
	case ix == a:
		return fail("an array cannot gather itself", "name the index array, e.g. {gather: COL}")
	case ix.Data == nil || ix.Struct != nil:
		return fail("array "+ix.Name+" is not an index array", "give "+ix.Name+" integer contents with data: (or matrix: col)")
	case ix.Remap != nil:
		return fail("index array "+ix.Name+" is remapped itself", "remap one of them")
	}
	for _, ref := range k.Program.Refs {
		if ref.Array != a {
			continue
		}
		if ref.Store {
			return posError(ld.file, ref.Line, ref.Col, fmt.Sprintf("%s: array %s is gathered through %s (remap %s), which makes a read-only copy %s'[e] = %s[%s[e]]",
				ref.Text, a.Name, ix.Name, a.Remap.Origin(), a.Name, a.Name, ix.Name), "store to another array, or drop the remap")
		}
		if GatherIndex(ref) == nil {
			return posError(ld.file, ref.Line, ref.Col, fmt.Sprintf("%s: array %s is gathered through %s (remap %s), so every reference must read %s[%s[e]]",
				ref.Text, a.Name, ix.Name, a.Remap.Origin(), a.Name, ix.Name), "write the reference as "+a.Name+"["+ix.Name+"[...]], or drop the remap")
		}
	}
	return nil
}

// GatherIndex is the read of the index array that reference r of a
// gathered array takes its subscript from (COL[e] of V[COL[e]]): r's one
// subscript, a load of the remap's index array as it stands; nil if r's
// array is not gathered or r does not read it so.
func GatherIndex(r *MemRef) *Expr {
	g := r.Array.Remap
	if g == nil || g.Kind != RemapGather || len(r.Index) != 1 {
		return nil
	}
	if x := r.Index[0]; x.Kind == ExprLoad && x.Name == g.Index && x.Field == nil && x.Fetch == NoFetch {
		return x
	}
	return nil
}

// ArrayNamed finds an array of k by name (nil: none).
func (k *Kernel) ArrayNamed(name string) *Array {
	for _, a := range k.Arrays {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// remapNode writes a remap for Format.
func remapNode(r *Remap) *yaml.Node {
	n := flowMap()
	switch r.Kind {
	case RemapGather:
		n.Content = append(n.Content, str("gather"), str(r.Index))
	case RemapTile:
		n.Content = append(n.Content, str("tile"), exprList(r.Tile[:]))
	default:
		return str(r.Kind.String())
	}
	return n
}
