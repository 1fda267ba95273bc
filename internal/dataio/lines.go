package dataio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// This file bounds the lines read: an item is at most 400 KB, its
// DynamoDB JSON a few MB at most (base64 and type keys), so that a line
// (a JSON lines or DynamoDB JSON line, an Ion line, a CSV row) over
// maxLine is not one item but a file that is not what it is read as (a
// binary file, one with no newlines, a CSV quote never closed). It is a
// *BadInput, and reading goes on at the next newline, without holding
// the line in memory.

// maxLine is the longest line (or CSV row) read, in bytes: 16 MiB.
const maxLine = 16 << 20

// errLineTooLong is what is wrong with a line over maxLine.
var errLineTooLong = fmt.Errorf("line is over %d MiB: not one item", maxLine>>20)

// readLine reads the next line from br, its newline included, as
// bufio.Reader.ReadBytes does, but at most max bytes of it: a longer line
// is errLineTooLong, and tooLong says that its rest (up to and through
// its newline) is still to be skipped (skipLine). The line is a copy.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, rerr := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			if rerr != nil && rerr != io.EOF && rerr != bufio.ErrBufferFull {
				return nil, false, rerr
			}
			return nil, rerr == bufio.ErrBufferFull, errLineTooLong
		}
		if cap(line)-len(line) < len(frag) { // grow by doubling, to max at most
			grown := make([]byte, len(line), min(2*(len(line)+len(frag)), max+len(frag)))
			line = append(grown[:0], line...)
		}
		line = append(line, frag...)
		if rerr != bufio.ErrBufferFull {
			return line, false, rerr
		}
	}
}

// skipLine discards br's bytes up to and through the next newline (or to
// the end), a buffer at a time.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// rowLimiter passes a CSV source's bytes through to a bufio.Reader that
// encoding/csv reads, and fails a read once the row being read (from
// start, which the CSV reader sets before each row) passes maxLine
// before its line ends: encoding/csv then returns errLineTooLong for the
// row, and the next reads drop the rest of the line the limit was passed
// in, through its newline, so that reading goes on at the next line.
// encoding/csv asks for more only while it is in a row, so that the
// bytes passed on since start are all the row's.
type rowLimiter struct {
	r     io.Reader
	off   int64 // bytes passed on
	start int64 // the offset where the row being read starts
	lines int   // newlines passed on or dropped
	max   int64
	skip  bool   // drop bytes up to and through the next newline
	stash []byte // bytes read but not yet passed on or dropped
}

// Read passes bytes on, failing with errLineTooLong when the row has
// passed the limit.
func (l *rowLimiter) Read(p []byte) (int, error) {
	for {
		var b []byte
		var err error
		if len(l.stash) > 0 {
			b, l.stash = l.stash, nil
		} else {
			n, rerr := l.r.Read(p)
			b, err = p[:n], rerr
		}
		if l.skip {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				if err != nil {
					return 0, err
				}
				continue
			}
			l.skip, l.lines, b = false, l.lines+1, b[i+1:]
			if len(b) == 0 {
				if err != nil {
					return 0, err
				}
				continue
			}
		}
		end := len(b)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			end = i
		}
		if l.off+int64(end)-l.start > l.max {
			l.skip, l.stash = true, append([]byte(nil), b...)
			return 0, errLineTooLong
		}
		n := copy(p, b)
		if n < len(b) {
			l.stash, err = append([]byte(nil), b[n:]...), nil
		}
		l.off += int64(n)
		l.lines += bytes.Count(p[:n], []byte{'\n'})
		if n == 0 && err == nil {
			continue
		}
		return n, err
	}
}

// isLineTooLong reports whether err is errLineTooLong.
func isLineTooLong(err error) bool { return errors.Is(err, errLineTooLong) }
