package sim

import (
	"fmt"
	"reflect"

	"gpumemsim/sim/dram"
)

// int64Fields are the int64 fields within v, whose path from the Result
// is path, less those whose path skip holds.
func int64Fields(v reflect.Value, path string, skip map[string]bool) []*int64 {
	if skip[path] {
		return nil
	}
	var out []*int64
	switch v.Kind() {
	case reflect.Int64:
		out = append(out, v.Addr().Interface().(*int64))
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, int64Fields(v.Field(i), path+"."+v.Type().Field(i).Name, skip)...)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, int64Fields(v.Index(i), path+"[]", skip)...)
		}
	}
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
	var walk func(t reflect.Type, path string, index []int)
	walk = func(t reflect.Type, path string, index []int) {
		switch {
		case skip[path]:
		case t.Kind() == reflect.Int64:
			out = append(out, index)
		case t.Kind() == reflect.Struct:
			for i := range t.NumField() {
				walk(t.Field(i).Type, path+"."+t.Field(i).Name, append(index[:len(index):len(index)], i))
			}
		case t.Kind() == reflect.Slice:
			panic(fmt.Sprintf("sim: counts of %v: a slice at %s", reflect.TypeFor[T](), path))
		}
	}
	walk(reflect.TypeFor[T](), "", nil)
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
