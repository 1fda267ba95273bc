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
//   - FormatJSON: plain JSON objects, one a line or one array of them
//     (../shared/data/moviedata.json); numbers keep their text exactly (38
//     digits, never through float64); with ReadOptions.Sets a list of only
//     strings or only numbers reads as a string or number set.
//   - FormatDynamoDBJSON: DynamoDB JSON, one item a line, as {"Item":
//     {...}} (the export and ImportTable line) or a bare map of
//     AttributeValues.
//   - FormatExport: a DynamoDB export to S3 folder (manifest-summary.json,
//     manifest-files.json, data/*.json.gz), read in its DYNAMODB_JSON and
//     ION output formats, gzip, zstd or plain; written in DYNAMODB_JSON with
//     gzip, so that ImportTable loads a dump into real DynamoDB.
//   - FormatCSV: a header row, then one item a row; the types of columns
//     given (name:N) or inferred by the rule in ReadOptions.CSVTypes' doc.
//
// Every reading error that is the input's fault is a *BadInput naming the
// file and line; a Reader can go on past one (dynago load --skip-bad).
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
}

// BadInput is an error in the input at a place: FILE:LINE: what is wrong.
// Line is 1-based; 0 when the error has no line (a manifest's field).
type BadInput struct {
	File string
	Line int
	Err  error
}

func (b *BadInput) Error() string {
	if b.Line == 0 {
		return fmt.Sprintf("%s: %v", b.File, b.Err)
	}
	return fmt.Sprintf("%s:%d: %v", b.File, b.Line, b.Err)
}

func (b *BadInput) Unwrap() error { return b.Err }
