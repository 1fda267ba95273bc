package dataio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// WriteOptions says how Create writes a destination.
type WriteOptions struct {
	// Format is the destination's format; required.
	Format Format
	// The rest are for FormatExport only: what its manifest-summary.json
	// says (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html).
	//
	// TableArn is the exported table's ARN; "" writes
	// arn:aws:dynamodb:us-east-1:000000000000:table/dynago. The
	// exportArn is TableArn + "/export/" + ExportID.
	TableArn string
	// TableID is the table's id (a UUID in DynamoDB); "" writes none.
	TableID string
	// ExportTime is the point in time exported (and the startTime); zero
	// is the time Create is called.
	ExportTime time.Time
	// ExportID names the export's folder AWSDynamoDB/<ExportID>; "" makes
	// one as DynamoDB does: 14 digits of ExportTime's milliseconds since
	// 1970, "-" and 8 random hex digits.
	ExportID string
	// S3Bucket and S3Prefix are where the folder is meant to be uploaded
	// (s3://S3Bucket/S3Prefix/AWSDynamoDB/...): manifest keys start with
	// S3Prefix + "/" when it is not "".
	S3Bucket, S3Prefix string
	// ItemsPerFile starts a new data file after that many items; 0 is one
	// data file.
	ItemsPerFile int
}

// Create opens dest for writing items in opts.Format ("-" is standard
// output, for every format but FormatExport). For FormatExport dest is a
// folder that must not exist or be empty; Create writes
// dest/AWSDynamoDB/<ExportID>/ (data/*.json.gz as it goes, the manifests
// at Close), so that dest uploaded to s3://bucket/prefix is an export
// that ImportTable reads. FormatCSV spools rows to a temporary file and
// writes the file at Close. Errors are the destination's (it exists, it
// cannot be created) or a bad option.
func Create(dest string, opts WriteOptions) (Writer, error) {
	switch opts.Format {
	case FormatExport:
		if dest == "-" {
			return nil, errors.New("dataio: an export is a folder; it cannot be written to standard output")
		}
		return createExport(dest, opts)
	case FormatJSON, FormatDynamoDBJSON, FormatCSV:
	case "":
		return nil, errors.New("dataio: WriteOptions.Format is required")
	default:
		return nil, fmt.Errorf("dataio: unknown format %q (want json, dynamodb-json, export or csv)", opts.Format)
	}
	out, err := createFile(dest)
	if err != nil {
		return nil, err
	}
	if opts.Format == FormatCSV {
		return newCSVWriter(out)
	}
	enc := encodePlainLine
	if opts.Format == FormatDynamoDBJSON {
		enc = encodeDynamoDBJSONLine
	}
	return &lineWriter{out: out, w: bufio.NewWriterSize(out, 64<<10), enc: enc}, nil
}

// createFile creates dest ("-" is standard output, which Close leaves
// open).
func createFile(dest string) (io.WriteCloser, error) {
	if dest == "-" {
		return nopCloser{os.Stdout}, nil
	}
	f, err := os.Create(dest)
	if err != nil {
		return nil, fmt.Errorf("dataio: %w", err)
	}
	return f, nil
}

// nopCloser is a writer whose Close does nothing (standard output).
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lineWriter writes one item a line.
type lineWriter struct {
	out io.WriteCloser
	w   *bufio.Writer
	enc func([]byte, Item) ([]byte, error)
	buf []byte
}

// Write encodes item as one line.
func (lw *lineWriter) Write(item Item) error {
	b, err := lw.enc(lw.buf[:0], item)
	if err != nil {
		return err
	}
	lw.buf = b
	_, err = lw.w.Write(b)
	return err
}

// Close flushes and closes the file.
func (lw *lineWriter) Close() error {
	return errors.Join(lw.w.Flush(), lw.out.Close())
}

// Abort flushes the lines written so far and closes the file.
func (lw *lineWriter) Abort() error { return lw.Close() }
