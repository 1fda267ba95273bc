package dataio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ReadOptions says how Open reads a source.
type ReadOptions struct {
	// Format is the source's format; "" detects it: a directory is
	// FormatExport, a name ending .csv (any case) FormatCSV, anything
	// else (standard input too) JSON: a source whose first non-blank byte
	// is "[" is plain JSON (one array); otherwise the first line that is
	// valid JSON (of the first 100 lines) decides, DynamoDB JSON if it
	// reads as a DynamoDB JSON item ({"Item": {...}}
	// or an object whose every value is an AttributeValue object such as
	// {"S": "x"}, at least one), plain JSON if not. A plain JSON file whose
	// first object happens to look like DynamoDB JSON needs FormatJSON. A
	// JSON or CSV source that is gzip or zstd (by its magic number) is read
	// decompressed.
	Format Format
	// Sets makes FormatJSON read a non-empty list of only strings, or of
	// only numbers, with no member repeated, as an SS or an NS (a list
	// otherwise).
	Sets bool
	// CSVTypes gives FormatCSV columns' types by column name (the header
	// cell's name, without a ":TYPE" suffix): S N B BOOL NULL SS NS BS L
	// M, or AV. A column not named here takes its type from a
	// "name:TYPE" header cell, else each of its cells is inferred (see
	// the package documentation, "CSV").
	CSVTypes map[string]string
}

// Open opens path for reading as opts says ("-" is standard input, for
// every format but FormatExport). Open's own errors are the file's (not
// found, unreadable) or a bad option; a FormatCSV header or an export's
// manifest that is wrong is a *BadInput. The Reader's Next reports the
// items' errors.
func Open(path string, opts ReadOptions) (Reader, error) {
	format := opts.Format
	if format == "" {
		format = detectByName(path)
	}
	switch format {
	case FormatExport:
		if path == "-" {
			return nil, errors.New("dataio: an export is a folder; it cannot be read from standard input")
		}
		return openExport(path)
	case FormatCSV, FormatJSON, FormatDynamoDBJSON, "":
	default:
		return nil, fmt.Errorf("dataio: unknown format %q (want json, dynamodb-json, export or csv)", format)
	}
	src, name, err := openSource(path)
	if err != nil {
		return nil, err
	}
	if format == FormatCSV {
		r, err := newCSVReader(src, name, opts.CSVTypes)
		if err != nil {
			src.Close()
			return nil, err
		}
		return r, nil
	}
	return openJSON(src, name, format, opts.Sets)
}

// detectByName is the format a path names: FormatExport for a directory,
// FormatCSV for *.csv (also compressed: *.csv.gz, *.csv.zst), "" (JSON,
// detected from the content) otherwise.
func detectByName(path string) Format {
	if path != "-" {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return FormatExport
		}
	}
	lower := strings.ToLower(path)
	for _, ext := range []string{".gz", ".zst", ".zstd"} {
		lower = strings.TrimSuffix(lower, ext)
	}
	if strings.HasSuffix(lower, ".csv") {
		return FormatCSV
	}
	return ""
}

// source is an open input file counting the bytes read from it.
type source struct {
	f     *os.File
	done  int64
	total int64
	stdin bool
	hash  hash.Hash // if not nil, sums the bytes read (an export's data file)
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	s.done += int64(n)
	if s.hash != nil {
		s.hash.Write(p[:n])
	}
	return n, err
}

// Close closes the file (not standard input).
func (s *source) Close() error {
	if s.stdin {
		return nil
	}
	return s.f.Close()
}

// openSource opens path ("-" is standard input) and returns the name
// errors give it.
func openSource(path string) (*source, string, error) {
	if path == "-" {
		return &source{f: os.Stdin, stdin: true}, "<stdin>", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("dataio: %w", err)
	}
	s := &source{f: f}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		s.total = fi.Size()
	}
	return s, path, nil
}

// openJSON opens a plain JSON or DynamoDB JSON source (format "" detects
// which, by ReadOptions.Format's rule).
func openJSON(src *source, name string, format Format, sets bool) (Reader, error) {
	br, closers, err := decompress(bufio.NewReaderSize(src, 64<<10), name)
	if err != nil {
		src.Close()
		return nil, err
	}
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
		src.Close()
	}
	lines, err := skipBlank(br)
	if err != nil && err != io.EOF {
		closeAll()
		return nil, fmt.Errorf("dataio: %s: %w", name, err)
	}
	first, _ := br.Peek(1)
	if len(first) == 1 && first[0] == '[' {
		conv := func(v any) (Item, error) { return plainItem(v, sets) }
		if format == FormatDynamoDBJSON {
			conv = dynamoDBJSONItem
		}
		ar := newArrayReader(src, br, name, lines, conv)
		ar.closers = closers
		return ar, nil
	}
	lr := &lineReader{opened: opened{name: name, src: src, closers: closers}, br: br, line: lines}
	if format == "" {
		var err error
		if format, err = detectLines(lr); err != nil {
			closeAll()
			return nil, err
		}
	}
	lr.decode = decodeDynamoDBJSONLine
	if format == FormatJSON {
		lr.decode = func(b []byte) (Item, error) { return decodePlainLine(b, sets) }
	}
	return lr, nil
}

// Magic numbers of the compressed streams a JSON source may be.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// decompress returns br itself, or, if its first bytes are a gzip or a
// zstd magic number (a users' items.json.gz), a reader of the stream
// decompressed and the decompressor to close. A gzip header that does
// not read is a *BadInput.
func decompress(br *bufio.Reader, name string) (*bufio.Reader, []io.Closer, error) {
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &BadInput{File: name, Err: notGzip(err)}
		}
		return bufio.NewReaderSize(zr, 64<<10), []io.Closer{zr}, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, &BadInput{File: name, Err: fmt.Errorf("not a zstd file (%v)", err)}
		}
		return bufio.NewReaderSize(zr, 64<<10), []io.Closer{closerFunc(func() error { zr.Close(); return nil })}, nil
	}
	return br, nil, nil
}

// detectScan is how many lines detection reads, at most, to find one that
// is valid JSON.
const detectScan = 100

// detectLines reads lines ahead (kept for Next) up to the first that is
// valid JSON, so that a broken first line does not decide, and returns
// FormatDynamoDBJSON if that one reads as a DynamoDB JSON item,
// FormatJSON otherwise (a line with a name given twice does not decide
// either: it is refused in both formats).
func detectLines(lr *lineReader) (Format, error) {
	for range detectScan {
		line, _, err := readLine(lr.br, maxLine)
		if isLineTooLong(err) {
			return "", &BadInput{File: lr.name, Line: lr.line + len(lr.pending) + 1,
				Err: fmt.Errorf("%v, and the format cannot be detected past it (give it)", err)}
		}
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("dataio: %s: %w", lr.name, err)
		}
		if len(line) > 0 {
			lr.pending = append(lr.pending, line)
		}
		if v, derr := decodeJSON(bytes.TrimSpace(line)); derr == nil && !hasTwice(v) {
			if obj, ok := v.(map[string]any); ok && len(obj) > 0 {
				if _, derr := dynamoDBJSONItem(v); derr == nil {
					return FormatDynamoDBJSON, nil
				}
			}
			return FormatJSON, nil
		}
		if err == io.EOF {
			break
		}
	}
	return FormatJSON, nil
}

// skipBlank consumes leading white space (and a UTF-8 byte order mark)
// and returns the number of newlines in it.
func skipBlank(br *bufio.Reader) (int, error) {
	if bom, err := br.Peek(3); err == nil && string(bom) == "\ufeff" {
		br.Discard(3)
	}
	lines := 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			return lines, err
		}
		switch c {
		case '\n':
			lines++
		case ' ', '\t', '\r':
		default:
			return lines, br.UnreadByte()
		}
	}
}

// lineReader reads one item a line (JSON lines, DynamoDB JSON, Ion text);
// blank lines are skipped, a line that does not decode is a *BadInput and
// the next Next reads the next line. A line over maxLine is a *BadInput
// as soon as the limit is passed; the next Next skips its rest.
type lineReader struct {
	opened
	br      *bufio.Reader
	line    int // lines consumed
	items   int // non-blank lines that were items, good or bad
	decode  func([]byte) (Item, error)
	pending [][]byte // lines read ahead (detection), handed out first
	skip    bool     // the rest of an over-long line is to be skipped
}

// Next reads the next non-blank line's item.
func (r *lineReader) Next() (Item, error) {
	for {
		var line []byte
		var err error
		if len(r.pending) > 0 {
			line, r.pending = r.pending[0], r.pending[1:]
		} else {
			if r.skip {
				r.skip = false
				if err := skipLine(r.br); err != nil {
					return nil, fmt.Errorf("dataio: %s: %w", r.name, err)
				}
			}
			line, r.skip, err = readLine(r.br, maxLine)
			if isLineTooLong(err) {
				r.line++
				r.items++
				return nil, &BadInput{File: r.name, Line: r.line, Err: err}
			}
		}
		if len(line) > 0 {
			r.line++
			t := bytes.TrimSpace(line)
			if r.line == 1 {
				t = bytes.TrimPrefix(t, []byte("\ufeff"))
			}
			if len(t) == 0 {
				continue
			}
			r.items++
			item, derr := r.decode(t)
			if derr != nil {
				return nil, &BadInput{File: r.name, Line: r.line, Err: derr}
			}
			if item == nil { // a line of no item (Ion's version marker)
				r.items--
				continue
			}
			r.last = r.line
			return item, nil
		}
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("dataio: %s: %w", r.name, err)
		}
	}
}

// opened is what the Readers of one file share: the file, the
// decompressors over it, and the line of the item Next last returned;
// it gives them Progress, Position and Close.
type opened struct {
	name    string
	src     *source
	closers []io.Closer // closed by Close before src (a decompressor)
	last    int         // the line of the item Next last returned
}

// Progress is the bytes read from the file and its size.
func (o *opened) Progress() (done, total int64) { return o.src.done, o.src.total }

// Position is the file and the line of the item Next last returned (for
// an array, the line where the element starts).
func (o *opened) Position() (string, int) { return o.name, o.last }

// Close closes the decompressors, if any, and the file.
func (o *opened) Close() error {
	var errs []error
	for _, c := range o.closers {
		errs = append(errs, c.Close())
	}
	errs = append(errs, o.src.Close())
	return errors.Join(errs...)
}

// lineTracker passes a reader's bytes through and remembers where its
// newlines are, so that a byte offset can be turned into a line number;
// the offsets asked for must not decrease.
type lineTracker struct {
	r        io.Reader
	off      int64
	newlines []int64 // offsets of newlines not yet passed by lineAt
	before   int     // newlines before the last offset asked for
	// limit, when not 0, is the offset past which Read fails with
	// errElementTooLong (arrayReader sets it for each element).
	limit int64
}

// errElementTooLong is a JSON array element longer than maxLine: not one
// item (an item is at most 400 KB), and not to be held in memory whole.
var errElementTooLong = fmt.Errorf("an array element over %d MiB: not one item", maxLine>>20)

func (t *lineTracker) Read(p []byte) (int, error) {
	if t.limit > 0 {
		if t.off >= t.limit {
			return 0, errElementTooLong
		}
		p = p[:min(int64(len(p)), t.limit-t.off)]
	}
	n, err := t.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			t.newlines = append(t.newlines, t.off+int64(i))
		}
	}
	t.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of byte offset off.
func (t *lineTracker) lineAt(off int64) int {
	i := 0
	for i < len(t.newlines) && t.newlines[i] < off {
		i++
	}
	t.before += i
	t.newlines = t.newlines[i:]
	return t.before + 1
}

// arrayReader reads one JSON array of items. An element that is valid
// JSON but not a valid item is a *BadInput and reading goes on; a syntax
// error is a *BadInput that ends the reading: the Next after it returns
// a plain error (an array cannot be resynchronised).
type arrayReader struct {
	opened
	track   *lineTracker
	dec     *json.Decoder
	conv    func(any) (Item, error)
	started bool
	broken  error
	base    int // lines skipped before the decoder's first byte
}

// newArrayReader reads the array that br (positioned at its "[", after
// skipped lines) holds.
func newArrayReader(src *source, br *bufio.Reader, name string, skipped int, conv func(any) (Item, error)) *arrayReader {
	t := &lineTracker{r: br}
	dec := json.NewDecoder(t)
	return &arrayReader{opened: opened{name: name, src: src}, track: t, dec: dec, conv: conv, base: skipped}
}

// bad records and returns a *BadInput at byte offset off.
func (r *arrayReader) bad(off int64, err error) error {
	return &BadInput{File: r.name, Line: r.base + r.track.lineAt(off), Err: err}
}

// syntax ends the reading at a decoding error.
func (r *arrayReader) syntax(err error) error {
	off := r.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		off = r.track.off // the end of the input: its last line
		err = errors.New("the JSON array is truncated")
	}
	if errors.Is(err, errElementTooLong) {
		b := r.bad(off, err)
		r.broken = b
		return b
	}
	b := r.bad(off, fmt.Errorf("invalid JSON: %v", err))
	r.broken = b
	return b
}

// Next returns the array's next element as an item.
func (r *arrayReader) Next() (Item, error) {
	if r.broken != nil {
		// Not a *BadInput (%v, not %w): nothing can be read past it, so a
		// caller that skips bad input (dynago load --skip-bad) stops here.
		return nil, fmt.Errorf("reading stopped at the syntax error in the JSON array (%v)", r.broken)
	}
	if !r.started {
		r.started = true
		if _, err := r.dec.Token(); err != nil { // the "["
			return nil, r.syntax(err)
		}
	}
	if !r.dec.More() {
		if _, err := r.dec.Token(); err != nil { // the "]"
			return nil, r.syntax(err)
		}
		if _, err := r.dec.Token(); err != io.EOF {
			r.broken = r.bad(r.dec.InputOffset(), errors.New("invalid JSON: data after the array"))
			return nil, r.broken
		}
		return nil, io.EOF
	}
	var raw json.RawMessage
	// The element starts at or after InputOffset; reading more than
	// maxLine past it (and the decoder's read-ahead) means it is too long.
	r.track.limit = r.dec.InputOffset() + maxLine + 64<<10
	err := r.dec.Decode(&raw)
	r.track.limit = 0
	if err != nil {
		return nil, r.syntax(err)
	}
	start := r.dec.InputOffset() - int64(len(raw))
	v, err := decodeJSON(raw)
	if err == nil {
		var item Item
		if item, err = r.conv(v); err == nil {
			r.last = r.base + r.track.lineAt(start)
			return item, nil
		}
	}
	return nil, r.bad(start, err)
}
