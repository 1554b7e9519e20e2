package sim

import (
	"fmt"
	"reflect"

	"gpumemsim/sim/dram"
)

// walkInt64 walks type t, whose path from the Result is path and index
// path from the walk's root is index, depth first in field order, less
// the paths skip holds: it calls field with each int64's index path, and
// slice with each slice's index path and path, whose elements the walk
// of a type cannot reach.
func walkInt64(t reflect.Type, path string, index []int, skip map[string]bool, field func(index []int), slice func(index []int, path string)) {
	switch {
	case skip[path]:
	case t.Kind() == reflect.Int64:
		field(index)
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			walkInt64(f.Type, path+"."+f.Name, append(index[:len(index):len(index)], i), skip, field, slice)
		}
	case t.Kind() == reflect.Slice:
		slice(index, path)
	}
}

// int64Fields are the int64 fields within v, whose path from the Result
// is path, less those whose path skip holds: walkInt64's, each slice's
// elements in turn where the slice lies.
func int64Fields(v reflect.Value, path string, skip map[string]bool) []*int64 {
	var out []*int64
	walkInt64(v.Type(), path, nil, skip, func(index []int) {
		out = append(out, v.FieldByIndex(index).Addr().Interface().(*int64))
	}, func(index []int, path string) {
		s := v.FieldByIndex(index)
		for i := range s.Len() {
			out = append(out, int64Fields(s.Index(i), path+"[]", skip)...)
		}
	})
	return out
}

// counts are the int64 fields of a struct type that int64Fields yields
// for every value of it, less those skip holds, found once: adding one
// value's counts to another's is then a pass over index paths, not a
// walk of the type building path strings (over a sequence's 511
// launches on a small device, that walk was a third of the run). A type
// whose fields pass through a slice skip does not hold has no fixed
// fields, and counts refuses it.
type counts[T any] [][]int

func countsOf[T any](skip map[string]bool) counts[T] {
	var out counts[T]
	walkInt64(reflect.TypeFor[T](), "", nil, skip, func(index []int) {
		out = append(out, index)
	}, func(_ []int, path string) {
		panic(fmt.Sprintf("sim: counts of %v: a slice at %s", reflect.TypeFor[T](), path))
	})
	return out
}

// add adds every count of src to dst, times sign.
func (c counts[T]) add(dst, src *T, sign int64) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, index := range c {
		f := d.FieldByIndex(index)
		f.SetInt(f.Int() + sign*s.FieldByIndex(index).Int())
	}
}

var (
	channelCounts = countsOf[dram.ChannelStats](nil)
	refCounts     = countsOf[RefStats](nil)
	// Not summed over a sequence's launches: the launch's shape, and
	// the dirty data left; the references are summed by runs of one
	// kernel (runRefs).
	launchCounts = countsOf[Result](map[string]bool{".Occupancy": true, ".Block": true, ".Grid": true, ".L2.DirtySectorsAtEnd": true, ".Refs": true})
)
