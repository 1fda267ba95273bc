package dataio

import (
	"bufio"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynago/dynago/internal/attr"
)

// This file is FormatCSV (see the package documentation, "CSV").

// csvTypes are the column types a CSV header or ReadOptions.CSVTypes
// may name; AV is a cell of DynamoDB JSON of a whole AttributeValue.
var csvTypes = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "NULL": true, "SS": true, "NS": true, "BS": true, "L": true, "M": true, "AV": true}

// IsCSVType reports whether t (upper case) is a type a CSV column may
// have: S N B BOOL NULL SS NS BS L M, or AV (a cell of DynamoDB JSON of a
// whole AttributeValue).
func IsCSVType(t string) bool { return csvTypes[t] }

// csvColumn is one column: the attribute it fills and its type ("" is
// inferred per cell).
type csvColumn struct{ name, typ string }

// splitHeader splits a header cell "name:TYPE" at its last ':' when
// TYPE is one of csvTypes, in any case; a cell whose suffix after its
// last ':' looks like a type (1 to 4 letters) but is not one is an error
// (so that v:Q is not silently an attribute named "v:Q": such a name is
// written v:Q:S); any other cell (no ':', a suffix such as 12 or
// "item-id") is all name.
func splitHeader(cell string) (csvColumn, error) {
	i := strings.LastIndexByte(cell, ':')
	if i < 0 {
		return csvColumn{cell, ""}, nil
	}
	suffix := cell[i+1:]
	if t := strings.ToUpper(suffix); csvTypes[t] {
		return csvColumn{cell[:i], t}, nil
	}
	if looksLikeType(suffix) {
		return csvColumn{}, fmt.Errorf("%q: %s is not a type (S N B BOOL NULL SS NS BS L M AV); an attribute named %q is written %s:S", cell, suffix, cell, cell)
	}
	return csvColumn{cell, ""}, nil
}

// looksLikeType reports whether a header cell's suffix is 1 to 4 ASCII
// letters, the shape of a type name.
func looksLikeType(s string) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// csvReader reads a header row, then one item a row. A row over maxLine
// is a *BadInput and reading goes on at the next line; a quoted field in
// error ends the reading (see Next).
type csvReader struct {
	opened
	br      *bufio.Reader
	lim     *rowLimiter
	r       *csv.Reader
	cols    []csvColumn
	stopped error // the *BadInput that ended the reading
}

// newCSVReader reads the header of a CSV source. Its errors are
// *BadInputs at line 1 but for a CSVTypes entry that is not a type or
// names no column.
func newCSVReader(src *source, name string, given map[string]string) (*csvReader, error) {
	in, closers, err := decompress(bufio.NewReaderSize(src, 64<<10), name)
	if err != nil {
		return nil, err
	}
	cr, err := newCSVReaderOf(src, in, name, given)
	if err != nil {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	cr.closers = closers
	return cr, nil
}

// newCSVReaderOf is newCSVReader reading the rows from in (src itself, or
// src decompressed).
func newCSVReaderOf(src *source, in io.Reader, name string, given map[string]string) (*csvReader, error) {
	lim := &rowLimiter{r: in, max: maxLine}
	br := bufio.NewReaderSize(lim, 64<<10)
	r := csv.NewReader(br) // reads br itself (a bufio.Reader big enough)
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	cr := &csvReader{opened: opened{name: name, src: src}, br: br, lim: lim, r: r}
	header, err := r.Read()
	if err == io.EOF {
		return cr, nil // an empty file: no columns, no items
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &BadInput{File: name, Line: 1, Err: err}
	}
	seen := map[csvColumn]bool{}
	named := map[string]bool{}
	for i, cell := range header {
		if i == 0 {
			cell = strings.TrimPrefix(cell, "\ufeff")
		}
		if !utf8.ValidString(cell) {
			return nil, &BadInput{File: name, Line: 1, Err: fmt.Errorf("column %d: a name that is not UTF-8", i+1)}
		}
		c, err := splitHeader(cell)
		if err != nil {
			return nil, &BadInput{File: name, Line: 1, Err: fmt.Errorf("column %d: %v", i+1, err)}
		}
		if t, ok := given[c.name]; ok {
			if t = strings.ToUpper(t); !csvTypes[t] {
				return nil, fmt.Errorf("dataio: CSVTypes[%q] = %q (want one of S N B BOOL NULL SS NS BS L M AV)", c.name, given[c.name])
			}
			c.typ = t
		}
		if c.name == "" || seen[c] {
			return nil, &BadInput{File: name, Line: 1, Err: fmt.Errorf("column %d: an empty or repeated column %q", i+1, cell)}
		}
		seen[c], named[c.name] = true, true
		cr.cols = append(cr.cols, c)
	}
	for _, n := range sortedNames(given) {
		if !named[n] {
			return nil, fmt.Errorf("dataio: %s: CSVTypes names column %s, which the header does not have", name, n)
		}
	}
	return cr, nil
}

// Next reads the next row as an item: empty cells are absent attributes;
// two non-empty cells for one attribute are a *BadInput.
//
// A quoted field in error (csv.ErrQuote: a quote not closed, or text
// after the closing one) is a *BadInput that ends the reading, as a
// syntax error in a JSON array does: encoding/csv may have read the rest
// of the file into the field, so that the rows after it would be lost
// without a word; the Next after it is a plain error. A bare quote in an
// unquoted field (csv.ErrBareQuote) and a row of the wrong cell count
// are *BadInputs that reading goes on past.
func (r *csvReader) Next() (Item, error) {
	if r.stopped != nil {
		// Not a *BadInput (%v, not %w): the rows after it are gone, so a
		// caller that skips bad input (dynago load --skip-bad) stops here.
		return nil, fmt.Errorf("reading stopped at the quoted field in error (%v)", r.stopped)
	}
	r.lim.start = r.lim.off - int64(r.br.Buffered())
	rec, err := r.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		switch {
		case isLineTooLong(err):
			return nil, &BadInput{File: r.name, Line: r.lim.lines + 1, Err: fmt.Errorf("row is over %d MiB: not one item", maxLine>>20)}
		case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrQuote):
			r.stopped = &BadInput{File: r.name, Line: pe.StartLine, Err: fmt.Errorf("%v: a quoted field that does not end where it should may have taken in the rest of the file; reading stops here", pe.Err)}
			return nil, r.stopped
		case errors.As(err, &pe):
			return nil, &BadInput{File: r.name, Line: pe.StartLine, Err: pe.Err}
		}
		return nil, fmt.Errorf("dataio: %s: %w", r.name, err)
	}
	line, _ := r.r.FieldPos(0)
	if len(rec) != len(r.cols) {
		return nil, &BadInput{File: r.name, Line: line, Err: fmt.Errorf("%d cells, the header has %d", len(rec), len(r.cols))}
	}
	item := Item{}
	for i, cell := range rec {
		if cell == "" {
			continue
		}
		c := r.cols[i]
		if !utf8.ValidString(cell) {
			return nil, &BadInput{File: r.name, Line: line, Err: fmt.Errorf("column %q: a cell that is not UTF-8", c.name)}
		}
		av, err := csvCell(c.typ, cell)
		if err != nil {
			return nil, &BadInput{File: r.name, Line: line, Err: fmt.Errorf("column %q: %v", c.name, err)}
		}
		if _, dup := item[c.name]; dup {
			return nil, &BadInput{File: r.name, Line: line, Err: fmt.Errorf("two cells for attribute %q", c.name)}
		}
		item[c.name] = av
	}
	r.last = line
	return item, nil
}

// csvCell reads a non-empty cell of type t ("" infers: a number written
// as DynamoDB writes it back, in its canonical form, is N, so that 01234,
// 1e3 or 1.50 stay the strings they may well be (a zip code, an id);
// true or false is BOOL; anything else S).
func csvCell(t, cell string) (types.AttributeValue, error) {
	switch t {
	case "":
		if canon, err := attr.ParseNumber(cell); err == nil && canon == cell {
			return &types.AttributeValueMemberN{Value: cell}, nil
		}
		if cell == "true" || cell == "false" {
			return &types.AttributeValueMemberBOOL{Value: cell == "true"}, nil
		}
		return &types.AttributeValueMemberS{Value: cell}, nil
	case "S":
		return &types.AttributeValueMemberS{Value: cell}, nil
	case "N":
		if err := checkNumber(cell); err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: cell}, nil
	case "B":
		b, err := decodeBase64(cell)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberB{Value: b}, nil
	case "BOOL":
		if cell != "true" && cell != "false" {
			return nil, fmt.Errorf("BOOL wants true or false, got %q", cell)
		}
		return &types.AttributeValueMemberBOOL{Value: cell == "true"}, nil
	case "NULL":
		if cell != "true" && cell != "null" {
			return nil, fmt.Errorf("NULL wants true or null, got %q", cell)
		}
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	v, err := decodeJSON([]byte(cell))
	if err != nil {
		return nil, err
	}
	if t == "AV" {
		return avFromJSON(v, "", 1)
	}
	return avOfType(t, v, "", 1)
}

// csvWriter spools items as DynamoDB JSON lines to a temporary file,
// collecting the columns, and writes the CSV at Close.
type csvWriter struct {
	out   io.WriteCloser
	spool *os.File
	w     *bufio.Writer
	cols  map[csvColumn]bool
	buf   []byte
}

// newCSVWriter starts the spool of a CSV destination.
func newCSVWriter(out io.WriteCloser) (*csvWriter, error) {
	f, err := os.CreateTemp("", "dynago-csv-*.jsonl")
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("dataio: %w", err)
	}
	return &csvWriter{out: out, spool: f, w: bufio.NewWriter(f), cols: map[csvColumn]bool{}}, nil
}

// csvType is the column type a value is written in: its own (TypeOf),
// but AV for an empty S or B (an empty cell is an absent attribute) and
// for an S with a carriage return (encoding/csv drops the \r of \r\n).
func csvType(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if v.Value == "" || strings.ContainsRune(v.Value, '\r') {
			return "AV"
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) == 0 {
			return "AV"
		}
	}
	if t := TypeOf(av); t != "" {
		return t
	}
	return "AV"
}

// TypeOf names an AttributeValue's DynamoDB type: S, N, B, BOOL, NULL, SS,
// NS, BS, L or M; "" for a value of none of them (nil, or an SDK union
// member it does not know).
func TypeOf(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberM:
		return "M"
	}
	return ""
}

// Write spools one item.
func (cw *csvWriter) Write(item Item) error {
	b, err := encodeDynamoDBJSONLine(cw.buf[:0], item)
	if err != nil {
		return err
	}
	cw.buf = b
	for name, av := range item {
		cw.cols[csvColumn{name, csvType(av)}] = true
	}
	_, err = cw.w.Write(b)
	return err
}

// csvText is the cell text of av in a column of type t.
func csvText(t string, av types.AttributeValue) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if t == "S" {
			return v.Value, nil
		}
	case *types.AttributeValueMemberN:
		return v.Value, nil
	case *types.AttributeValueMemberB:
		if t == "B" {
			return base64.StdEncoding.EncodeToString(v.Value), nil
		}
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return "true", nil
		}
		return "false", nil
	case *types.AttributeValueMemberNULL:
		return "true", nil
	}
	b, err := appendAV(nil, av)
	if err != nil || t == "AV" {
		return string(b), err
	}
	// {"L":[...]} → [...]: the value of the type key.
	return string(b[len(t)+4 : len(b)-1]), nil
}

// Close writes the header (every name:TYPE, sorted) and the spooled rows,
// then removes the spool.
func (cw *csvWriter) Close() error {
	defer os.Remove(cw.spool.Name())
	err := cw.writeCSV()
	return errors.Join(err, cw.spool.Close(), cw.out.Close())
}

// Abort removes the spool and closes the file as it is: empty, since the
// CSV is written only at Close.
func (cw *csvWriter) Abort() error {
	defer os.Remove(cw.spool.Name())
	return errors.Join(cw.spool.Close(), cw.out.Close())
}

// writeCSV writes the CSV from the spool.
func (cw *csvWriter) writeCSV() error {
	if err := cw.w.Flush(); err != nil {
		return err
	}
	if _, err := cw.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	cols := make([]csvColumn, 0, len(cw.cols))
	for c := range cw.cols {
		cols = append(cols, c)
	}
	slices.SortFunc(cols, func(a, b csvColumn) int {
		return strings.Compare(a.name+"\x00"+a.typ, b.name+"\x00"+b.typ)
	})
	index := make(map[csvColumn]int, len(cols))
	header := make([]string, len(cols))
	for i, c := range cols {
		index[c], header[i] = i, c.name+":"+c.typ
	}
	out := bufio.NewWriterSize(cw.out, 64<<10)
	w := csv.NewWriter(out)
	if len(header) == 0 {
		return out.Flush() // no attributes at all: an empty file
	}
	if err := w.Write(header); err != nil {
		return err
	}
	lr := &lineReader{opened: opened{name: cw.spool.Name(), src: &source{f: cw.spool}}, br: bufio.NewReaderSize(cw.spool, 64<<10), decode: decodeDynamoDBJSONLine}
	row := make([]string, len(cols))
	for {
		item, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		clear(row)
		for name, av := range item {
			c := csvColumn{name, csvType(av)}
			i, ok := index[c]
			if !ok { // the spool changed it: not UTF-8
				return fmt.Errorf("dataio: CSV: attribute %q is not UTF-8", name)
			}
			if row[i], err = csvText(c.typ, av); err != nil {
				return err
			}
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return out.Flush()
}
