// Package dataio owns the item file formats of dynago load and dynago
// dump: it reads items from files and writes them to files, and knows
// nothing of endpoints, tables or capacity (internal/cli's load and dump
// commands send what it reads and hand it what they scan).
//
// Items are the AWS SDK's map[string]types.AttributeValue, the shape
// BatchWriteItem and Scan take and give, so that a load or a dump works
// against any DynamoDB endpoint, real DynamoDB included.
//
// Formats (Format values), each read and written:
//   - FormatJSON: plain JSON objects, one a line (JSON lines; blank lines
//     skipped) or one array of them (../shared/data/moviedata.json);
//     numbers keep their text exactly (38 digits, never through float64)
//     and must be valid DynamoDB numbers; string is S, number N, true and
//     false BOOL, null NULL, array L, object M; with ReadOptions.Sets a
//     non-empty list of only strings or only numbers, none repeated,
//     reads as an SS or NS. Writing is JSON lines, names sorted: B is a
//     base64 string, SS and BS arrays of strings, NS an array of numbers,
//     so plain JSON loses the B / S and set / list distinctions (dynamodb-
//     json keeps them); a number whose text is not JSON's (DynamoDB also
//     takes "+1", ".5", "5.") is written in its canonical form.
//   - FormatDynamoDBJSON: DynamoDB JSON, one item a line, as {"Item":
//     {...}} (the export and ImportTable line) or a bare map of
//     AttributeValues; a line whose only key is "Item" is the first form
//     if its value reads as an item, else an attribute named Item. B and
//     BS are base64; all ten types; written as {"Item": {...}} lines.
//   - FormatExport: a DynamoDB export to S3 folder (manifest-summary.json,
//     manifest-files.json, data/*), read in its DYNAMODB_JSON and ION
//     output formats, gzip (.gz), zstd (.zst) or plain, full exports only
//     (outputFormat missing is DYNAMODB_JSON); each data file is checked
//     against its manifest-files.json line before its items are read: a
//     *BadInput at that line, and none of the file's items, if its item
//     count or MD5 differs (the file is read once to check, then to
//     decode); a data file
//     that cannot be opened or decompressed is one *BadInput at the file,
//     after which reading goes on with the next; a folder without
//     manifest-summary.json (an unfinished dump: Writer.Abort) is
//     refused; written in DYNAMODB_JSON with gzip, so that ImportTable
//     loads a dump into real DynamoDB (see WriteOptions and Create).
//   - FormatCSV: a header row, then one item a row (see CSV).
//
// Detection (ReadOptions.Format ""): a directory is an export, a *.csv
// name CSV, anything else JSON: plain if its first non-blank byte is "["
// or its first line that is valid JSON (of the first 100) does not read
// as a DynamoDB JSON item, DynamoDB JSON if it does. A plain JSON,
// DynamoDB JSON or CSV source whose first bytes are gzip's (1f 8b) or
// zstd's (28 b5 2f fd) magic number is decompressed first, whatever its
// name (a users' items.json.gz or items.csv.gz loads as it is; a name
// ending .csv, .csv.gz or .csv.zst is CSV), and a JSON one is detected
// in its decompressed text; Progress counts the compressed bytes.
//
// CSV. A header cell is a column's attribute name, or name:TYPE where
// TYPE is S N B BOOL NULL SS NS BS L M or AV, in any case (the cell is
// split at its last ':'); a suffix of 1 to 4 letters that is not a type
// (v:Q, v:INT) is a *BadInput at line 1, so that a typo is not an
// attribute named "v:Q" (such a name is written v:Q:S), and any other
// suffix (t:12, id:item-x) is part of the name. ReadOptions.CSVTypes,
// by name, overrides both; an entry naming no header column is an error
// from Open. An empty cell is an absent attribute. A cell
// of a typed column is: S its text; N a DynamoDB number; B base64; BOOL
// true or false; NULL true (or null); L, M, SS, NS, BS the DynamoDB JSON
// of the value under its type key ([{"S":"a"}], {"k":{"N":"1"}},
// ["a","b"], ["1"], ["AQ=="]); AV the DynamoDB JSON of a whole
// AttributeValue ({"S":""}). A cell of an untyped column is inferred on
// its own: a number in the canonical form DynamoDB writes numbers back
// in is N (12, -3.5, 0.25), so that 01234, 1e3, 1.50 or +7 stay the
// strings they may well be (a zip code, an id); true or false is BOOL;
// anything else S. Give --csv-types (CSVTypes) to read such cells as N. Two non-empty cells for one
// attribute in a row, a cell that does not parse as its type and a row
// whose cell count is not the header's are *BadInputs; a quoted field in
// error (a quote not closed, which encoding/csv reads to the end of the
// file) is a *BadInput that ends the reading. Writing always
// types every header cell, one column per name and type met (sorted), so
// that an attribute whose type differs between items gets a column for
// each, and puts an empty S or B, and an S holding a carriage return
// (which CSV readers drop before a newline), in a name:AV column: what
// dump writes, load reads back exactly. Rows are spooled to a temporary
// file and the CSV is written at Close, once all columns are known.
//
// Ion (an export's ION format) is read by a small reader of the subset
// exports write (see decodeIonLine's file): one item a line.
//
// Every reading error that is the input's fault is a *BadInput naming the
// file and line: in JSON, DynamoDB JSON and Ion a string or name that is
// not UTF-8 and a name given twice in one object (a type key, "Item"
// too) are (encoding/json alone would make the one U+FFFD, so that two
// names could merge, and keep the last of the other); a Reader can go on past one (dynago load --skip-bad),
// except in one JSON array, where a syntax error ends the reading, and
// at a CSV quoted field in error. A line (JSON lines, DynamoDB JSON, Ion,
// a CSV row) over 16 MiB is not one item (an item is at most 400 KB,
// its DynamoDB JSON a few MB): it is a *BadInput as soon as the limit is
// passed, and reading goes on at the next newline, the rest of the line
// skipped without being held; one before the line that format detection
// decides on makes Open fail (give the format). An element of one JSON
// array over 16 MiB (and a margin under 1 MiB for the decoder's
// read-ahead) is a *BadInput that ends the reading, as a syntax error
// there does.
package dataio

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

// Format is an item file format.
type Format string

// The formats dataio reads and writes (see the package documentation).
const (
	FormatJSON         Format = "json"
	FormatDynamoDBJSON Format = "dynamodb-json"
	FormatExport       Format = "export"
	FormatCSV          Format = "csv"
)

// A Reader reads the items of one source (a file, or an export folder) in
// order. It is not safe for concurrent use.
type Reader interface {
	// Next returns the next item; io.EOF after the last. An error that
	// is the input's fault is a *BadInput, and Next may be called again to
	// read on past it; any other error ends the reading.
	Next() (Item, error)
	// Progress returns the bytes of the source consumed so far and its
	// total size in bytes (compressed bytes for compressed files), for a
	// progress bar; total is 0 when unknown (standard input).
	Progress() (done, total int64)
	// Position says where the item Next last returned is: its file (for
	// an export, the data file) and the 1-based line it starts on, so
	// that a caller can name the place of an item it refuses (dynago
	// load's key and size checks). Before the first item it is the
	// source's name and line 0.
	Position() (file string, line int)
	// Close releases the source's files.
	Close() error
}

// A Writer writes items to one destination. It is not safe for
// concurrent use.
type Writer interface {
	// Write writes one item.
	Write(Item) error
	// Close finishes the destination (for FormatExport, the data files
	// and then the manifests) and releases its files; a destination is
	// complete only once Close has returned nil.
	Close() error
	// Abort releases the destination without finishing it, for a dump
	// that failed or was interrupted: an export gets no manifests, so
	// that nothing reads a partial dump as complete (its _started file
	// and data files stay, for inspection, and Open refuses the folder);
	// other formats close their file as it is (JSON lines: the lines
	// written so far; CSV, written only at Close: empty).
	Abort() error
}

// BadInput is an error in the input at a place: FILE:LINE: what is wrong.
// Line is 1-based; 0 when the error has no line (a manifest's field).
type BadInput struct {
	File string
	Line int
	Err  error
}

// Error formats the error as FILE:LINE: what is wrong (FILE: what is
// wrong when Line is 0).
func (b *BadInput) Error() string {
	if b.Line == 0 {
		return fmt.Sprintf("%s: %v", b.File, b.Err)
	}
	return fmt.Sprintf("%s:%d: %v", b.File, b.Line, b.Err)
}

// Unwrap returns what is wrong, for errors.Is and errors.As.
func (b *BadInput) Unwrap() error { return b.Err }
