package accelsim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds a line: an instruction with 32 listed addresses takes
// about 700 bytes.
const maxLine = 64 << 10

// errLong is the error of a line longer than maxLine.
var errLong = fmt.Errorf("a line longer than %d KiB; hint: is this an Accel-Sim trace (.traceg)?", maxLine>>10)

// lineReader reads the lines of r from an offset, a buffer at a time, as
// the index pass reads a whole file and a warp cursor a warp's lines.
type lineReader struct {
	r          io.ReaderAt
	size       int64 // the file's size: reading stops there
	buf        []byte
	start, end int   // unread bytes: buf[start:end]
	pos        int64 // file offset of buf[start]
	eof        bool  // buf[end] is at size
}

// reset positions the reader at off, keeping its buffer.
func (lr *lineReader) reset(r io.ReaderAt, size, off int64, bufSize int) {
	if cap(lr.buf) < bufSize {
		lr.buf = make([]byte, bufSize)
	}
	lr.r, lr.size, lr.buf = r, size, lr.buf[:cap(lr.buf)]
	lr.start, lr.end, lr.pos, lr.eof = 0, 0, off, off >= size
}

// next returns the next line without its end of line ('\n', or "\r\n"),
// the file offset it starts at, and io.EOF after the last line. The line
// aliases the buffer until the next call.
func (lr *lineReader) next() (line []byte, off int64, err error) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
			line, off = lr.buf[lr.start:lr.start+i], lr.pos
			lr.start += i + 1
			lr.pos += int64(i) + 1
			return bytes.TrimSuffix(line, []byte("\r")), off, nil
		}
		if lr.eof {
			if lr.start == lr.end {
				return nil, lr.pos, io.EOF
			}
			line, off = lr.buf[lr.start:lr.end], lr.pos
			lr.pos += int64(lr.end - lr.start)
			lr.start = lr.end
			return bytes.TrimSuffix(line, []byte("\r")), off, nil
		}
		if err := lr.fill(); err != nil {
			return nil, lr.pos, err
		}
	}
}

// fill moves the unread bytes to the front of the buffer, growing it for
// a line longer than it (up to maxLine), and reads more.
func (lr *lineReader) fill() error {
	n := copy(lr.buf, lr.buf[lr.start:lr.end])
	lr.start, lr.end = 0, n
	if n == len(lr.buf) {
		if len(lr.buf) >= maxLine {
			return errLong
		}
		lr.buf = append(lr.buf, make([]byte, min(len(lr.buf), maxLine-len(lr.buf)))...)
		lr.buf = lr.buf[:cap(lr.buf)]
	}
	at := lr.pos + int64(n)
	want := min(int64(len(lr.buf)-n), lr.size-at)
	got, err := lr.r.ReadAt(lr.buf[n:n+int(want)], at)
	lr.end += got
	if int64(got) == want {
		lr.eof = at+want >= lr.size
		return nil
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the file ends at byte %d, before its size %d: it changed while it was read", at+int64(got), lr.size)
	}
	return err
}
