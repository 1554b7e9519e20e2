package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A sweep file never panics the parser; one it accepts expands into the
// product of its lists' lengths (or is refused as too large), the same
// rows and sweep ID every time, and its first row binds or fails with an
// error, as sweep would run it.
func FuzzSweepFile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/sweep/*.yaml")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("devices: fermi\nkernels: [vecadd, copy]\nset: {N: 64, M: [1, 2]}\nspaces: [~, \"A=texture\"]\n"))
	f.Add([]byte("maps: [&a x, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseSweepFile("fuzz.yaml", data)
		if err != nil {
			return
		}
		a = a.withDefaults()
		rows, err := a.rows()
		if err != nil {
			return
		}
		want := len(a.Devices) * len(a.Kernels) * len(a.Maps) * len(a.Blocks) * len(a.Layouts) * len(a.Spaces)
		for _, p := range a.Set {
			want *= len(p.Values)
		}
		if len(rows) != want {
			t.Fatalf("%d rows; want the product of the lists, %d", len(rows), want)
		}
		again, _ := parseSweepFile("fuzz.yaml", data)
		rows2, _ := again.withDefaults().rows()
		if sweepID(sweepSettings{}, rows) != sweepID(sweepSettings{}, rows2) {
			t.Fatal("the same file gives two sweep IDs")
		}
		// Bind the first row as sweep would (an error is fine, a panic is
		// not), when it names shipped configs and kernels: a path could be
		// any file, /dev/zero included.
		if p := rows[0]; !strings.ContainsAny(p.Device+p.Kernel, `/\.`) {
			s := &sweeper{maxWork: 1e6}
			s.prepare(context.Background(), p, nil)
		}
	})
}

// A sweep's output read back never panics; a table it accepts writes
// CSV and JSON that read back to the same rows.
func FuzzSweepTable(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/sweep/*.[cj]s*")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("sweep,row,rows,device,kernel,map,block,set,layout,spaces,error,a,b\nx,0,2,fermi,vecadd,,64,,,,,1.5,\nx,1,2,kepler,vecadd,,64,,,,oops,,\n"))
	f.Add([]byte(`[{"sweep":"x","row":0,"rows":1,"device":"d","kernel":"k","map":"","block":"","set":"","layout":"","spaces":"","error":"","m":1e300}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := readSweepTable("fuzz", data)
		if err != nil {
			return
		}
		for _, format := range []string{"csv", "json"} {
			var b bytes.Buffer
			if err := tab.write(&b, format); err != nil {
				return // a NaN or an infinity has no JSON
			}
			back, err := readSweepTable("fuzz."+format, b.Bytes())
			if err != nil {
				t.Fatalf("%s written from an accepted table is refused: %v\n%s", format, err, b.Bytes())
			}
			if !reflect.DeepEqual(normal(back), normal(tab)) {
				t.Fatalf("%s round trip changed the table:\n%v\n%v", format, back, tab)
			}
		}
	})
}

// normal prints a table's rows, NaN equal to NaN and an empty table to
// no table.
func normal(t *sweepTable) string { return fmt.Sprintf("%v", t.Records) }
