package dataio

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// This file is FormatExport: the folder a DynamoDB export to S3 writes,
// as the developer guide describes it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html):
// AWSDynamoDB/<ExportId>/manifest-summary.json (the export's summary),
// manifest-files.json (JSON lines, one a data file: itemCount,
// md5Checksum, etag, dataFileS3Key) and data/<name>.json.gz.

// Manifest names in an export's folder.
const (
	summaryName = "manifest-summary.json"
	filesName   = "manifest-files.json"
)

// exportSummary is manifest-summary.json, its fields in the guide's order.
type exportSummary struct {
	Version            string  `json:"version"`
	ExportArn          string  `json:"exportArn"`
	StartTime          string  `json:"startTime"`
	EndTime            string  `json:"endTime"`
	TableArn           string  `json:"tableArn"`
	TableID            string  `json:"tableId"`
	ExportTime         string  `json:"exportTime"`
	S3Bucket           string  `json:"s3Bucket"`
	S3Prefix           *string `json:"s3Prefix"`
	S3SseAlgorithm     string  `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string  `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64   `json:"billedSizeBytes"`
	ItemCount          int64   `json:"itemCount"`
	OutputFormat       string  `json:"outputFormat"`
	ExportType         string  `json:"exportType"`
}

// exportFile is one line of manifest-files.json.
type exportFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	Etag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// findExport returns the folder holding manifest-summary.json: dir itself,
// or the one export under dir (dir being the AWSDynamoDB folder or the
// export prefix above it).
func findExport(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, summaryName)); err == nil {
		return dir, nil
	}
	var found []string
	for _, base := range []string{dir, filepath.Join(dir, "AWSDynamoDB")} {
		entries, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(base, e.Name(), summaryName)); err == nil {
					found = append(found, filepath.Join(base, e.Name()))
				}
			}
		}
	}
	switch len(found) {
	case 0:
		if unfinished := findUnfinished(dir); unfinished != "" {
			dir = unfinished
		}
		return "", fmt.Errorf("dataio: %s has no %s (nor have its subfolders or AWSDynamoDB/*): not an export, or an unfinished one", dir, summaryName)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("dataio: %s holds %d exports (%s); name one", dir, len(found), strings.Join(found, ", "))
}

// findUnfinished returns the folder at or under dir (as findExport looks)
// that holds an export's _started file or data folder but no
// manifest-summary.json, so that the message names it; "" if none.
func findUnfinished(dir string) string {
	cands := []string{dir}
	for _, base := range []string{dir, filepath.Join(dir, "AWSDynamoDB")} {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if e.IsDir() {
				cands = append(cands, filepath.Join(base, e.Name()))
			}
		}
	}
	for _, c := range cands {
		for _, mark := range []string{"_started", "data"} {
			if _, err := os.Stat(filepath.Join(c, mark)); err == nil {
				return c
			}
		}
	}
	return ""
}

// exportReader reads the data files of an export in manifest order.
type exportReader struct {
	dir    string
	files  []string     // data file paths
	meta   []exportFile // their manifest lines
	lines  []int        // their lines in manifest-files.json
	sizes  []int64      // their sizes in bytes
	decode func([]byte) (Item, error)
	ion    bool // the files are Ion text (else DynamoDB JSON)
	cur    *lineReader
	next   int   // index in files of the next file to open
	done   int64 // bytes of the data files finished
	total  int64
	// lastFile and lastLine are where the item Next last returned is.
	lastFile string
	lastLine int
}

// openExport opens the export at (or under) dir.
func openExport(dir string) (Reader, error) {
	dir, err := findExport(dir)
	if err != nil {
		return nil, err
	}
	sumPath := filepath.Join(dir, summaryName)
	b, err := os.ReadFile(sumPath)
	if err != nil {
		return nil, fmt.Errorf("dataio: %w", err)
	}
	var sum exportSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, &BadInput{File: sumPath, Err: fmt.Errorf("invalid JSON: %v", err)}
	}
	r := &exportReader{dir: dir}
	switch sum.OutputFormat {
	case "DYNAMODB_JSON", "":
		r.decode = decodeDynamoDBJSONLine
	case "ION":
		r.decode, r.ion = decodeIonLine, true
	default:
		return nil, &BadInput{File: sumPath, Err: fmt.Errorf("outputFormat %q (want DYNAMODB_JSON or ION)", sum.OutputFormat)}
	}
	if sum.ExportType != "" && sum.ExportType != "FULL_EXPORT" {
		return nil, &BadInput{File: sumPath, Err: fmt.Errorf("exportType %q: only full exports hold items (an incremental export's lines are changes)", sum.ExportType)}
	}
	if err := r.readFiles(filepath.Join(dir, filesName)); err != nil {
		return nil, err
	}
	return r, nil
}

// readFiles reads manifest-files.json: a data file's key is looked for
// in the export's data folder by its base name (the key's prefix is the
// S3 one).
func (r *exportReader) readFiles(manifest string) error {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f exportFile
		if err := json.Unmarshal(line, &f); err != nil || f.DataFileS3Key == "" {
			if err == nil {
				err = errors.New("no dataFileS3Key")
			}
			return &BadInput{File: manifest, Line: i + 1, Err: err}
		}
		p := filepath.Join(r.dir, "data", path.Base(f.DataFileS3Key))
		fi, err := os.Stat(p)
		if err != nil {
			return &BadInput{File: manifest, Line: i + 1, Err: fmt.Errorf("data file %s: %v", f.DataFileS3Key, err)}
		}
		r.files, r.meta, r.lines = append(r.files, p), append(r.meta, f), append(r.lines, i+1)
		r.sizes = append(r.sizes, fi.Size())
		r.total += fi.Size()
	}
	return nil
}

// Next returns the next item of the current data file, opening the next
// file at the end of one. A data file is checked against its manifest
// line before any of its items is returned (see verify): one that cannot
// be read or does not match is one *BadInput, and the Next after it
// goes on with the next data file.
func (r *exportReader) Next() (Item, error) {
	for {
		if r.cur == nil {
			if r.next == len(r.files) {
				return nil, io.EOF
			}
			i := r.next
			r.next++ // a file that fails is reported once, then passed
			if err := r.verify(i); err != nil {
				r.done += r.sizes[i]
				return nil, err
			}
			cur, err := openDataFile(r.files[i], r.decode, false)
			if err != nil {
				r.done += r.sizes[i]
				return nil, err
			}
			r.cur = cur
		}
		item, err := r.cur.Next()
		if err == nil {
			r.lastFile, r.lastLine = r.cur.Position()
		}
		if err != io.EOF {
			return item, err
		}
		d, _ := r.cur.Progress()
		r.done += d
		cerr := r.cur.Close()
		r.cur = nil
		if cerr != nil {
			return nil, fmt.Errorf("dataio: %w", cerr)
		}
	}
}

// verify reads data file i to its end without decoding its items, and
// compares it with its manifest line: its items (lines that are items,
// good or bad) against itemCount, the file's MD5 against md5Checksum
// (when the line has one). A file that cannot be opened or decompressed
// is a *BadInput at the file; a mismatch a *BadInput at the manifest
// line (a truncated or altered data file). Files are local: reading one
// twice, to check and then to decode, costs little next to loading
// items of a file that turns out to be corrupt.
func (r *exportReader) verify(i int) error {
	lr, err := openDataFile(r.files[i], countOnly(r.ion), true)
	if err != nil {
		return err
	}
	defer lr.Close()
	for {
		_, err := lr.Next()
		if err == io.EOF {
			break
		}
		var b *BadInput
		if errors.As(err, &b) {
			continue // counted as an item; reported when decoding
		}
		if err != nil {
			return readError(lr.name, err)
		}
	}
	if _, err := io.Copy(io.Discard, lr.src); err != nil { // what the decompressor left
		return readError(lr.name, err)
	}
	bad := func(e error) error { return &BadInput{File: filepath.Join(r.dir, filesName), Line: r.lines[i], Err: e} }
	if m := r.meta[i]; int64(lr.items) != m.ItemCount {
		return bad(fmt.Errorf("data file %s holds %d items, the manifest says %d", lr.name, lr.items, m.ItemCount))
	}
	if want := r.meta[i].MD5Checksum; want != "" {
		if got := base64.StdEncoding.EncodeToString(lr.src.hash.Sum(nil)); got != want {
			return bad(fmt.Errorf("data file %s has md5Checksum %s, the manifest says %s", lr.name, got, want))
		}
	}
	return nil
}

// readError is the error of reading data file name: the file system's
// own errors as they are, a decompressor's (corrupt data) a *BadInput at
// the file.
func readError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("dataio: %w", err)
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	return &BadInput{File: name, Err: fmt.Errorf("cannot be decompressed (%v)", err)}
}

// countOnly is the decode of verify's pass: it tells a line that is an
// item (a non-nil Item, good or bad) from one that is not (nil: an Ion
// line of only $ion_1_0 version markers), decoding only what it cannot
// tell at a glance.
func countOnly(ion bool) func([]byte) (Item, error) {
	return func(line []byte) (Item, error) {
		if !ion {
			return Item{}, nil
		}
		rest := line
		for {
			rest = bytes.TrimLeft(rest, " \t")
			after, ok := bytes.CutPrefix(rest, []byte("$ion_1_0"))
			if !ok || len(after) > 0 && isIdentChar(after[0]) {
				break
			}
			rest = after
		}
		switch {
		case len(rest) == 0:
			return nil, nil
		case rest[0] == '{':
			return Item{}, nil
		}
		return decodeIonLine(line) // a comment, say: decode to tell
	}
}

// openDataFile opens one data file, decompressing .gz and .zst, summing
// its MD5 if sum. A .gz file that is not gzip is a *BadInput.
func openDataFile(p string, decode func([]byte) (Item, error), sum bool) (*lineReader, error) {
	src, name, err := openSource(p)
	if err != nil {
		return nil, err
	}
	if sum {
		src.hash = md5.New()
	}
	lr := &lineReader{opened: opened{name: name, src: src}, decode: decode}
	var in io.Reader = bufio.NewReaderSize(src, 64<<10)
	switch {
	case strings.HasSuffix(p, ".gz"):
		zr, err := gzip.NewReader(in)
		if err != nil {
			src.Close()
			return nil, &BadInput{File: name, Err: notGzip(err)}
		}
		in, lr.closers = zr, []io.Closer{zr}
	case strings.HasSuffix(p, ".zst"):
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1))
		if err != nil {
			src.Close()
			return nil, &BadInput{File: name, Err: fmt.Errorf("not a zstd file (%v)", err)}
		}
		in = zr
		lr.closers = []io.Closer{closerFunc(func() error { zr.Close(); return nil })}
	}
	lr.br = bufio.NewReaderSize(in, 64<<10)
	return lr, nil
}

// notGzip says why gzip.NewReader refused a file: not a gzip file
// (gzip: invalid header), an empty file, or one cut off in its header.
func notGzip(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("not a gzip file (an empty file)")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("not a gzip file (cut off in its header)")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "gzip: ") {
		msg = "gzip: " + msg
	}
	return fmt.Errorf("not a gzip file (%s)", msg)
}

// closerFunc is a func as an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// Position is the data file and line of the item Next last returned (the
// export's folder and line 0 before the first).
func (r *exportReader) Position() (string, int) {
	if r.lastFile == "" {
		return r.dir, 0
	}
	return r.lastFile, r.lastLine
}

// Progress sums the compressed bytes read over the data files.
func (r *exportReader) Progress() (done, total int64) {
	done = r.done
	if r.cur != nil {
		d, _ := r.cur.Progress()
		done += d
	}
	return done, r.total
}

// Close closes the current data file.
func (r *exportReader) Close() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.Close()
	r.cur = nil
	return err
}

// exportWriter writes an export folder: data files as items come, the
// manifests at Close.
type exportWriter struct {
	dir      string // dest/AWSDynamoDB/<ExportID>
	keyBase  string // S3 key of dir
	opts     WriteOptions
	sum      exportSummary
	files    []exportFile
	f        *os.File
	zw       *gzip.Writer
	w        *bufio.Writer
	inFile   int64
	buf      []byte
	uncompr  int64
	fileSeed string
}

// createExport makes dest's export folder.
func createExport(dest string, opts WriteOptions) (Writer, error) {
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty: an export is written into a new or empty folder", dest)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("dataio: %w", err)
	}
	if opts.ExportTime.IsZero() {
		opts.ExportTime = time.Now().UTC() // wallclock: the export's time is now
	}
	if opts.TableArn == "" {
		opts.TableArn = "arn:aws:dynamodb:us-east-1:000000000000:table/dynago"
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	if opts.ExportID == "" {
		opts.ExportID = fmt.Sprintf("%014d-%s", opts.ExportTime.UnixMilli(), hex.EncodeToString(rnd[:]))
	}
	if strings.ContainsAny(opts.ExportID, `/\`) || opts.ExportID == "." || opts.ExportID == ".." {
		return nil, fmt.Errorf("dataio: invalid ExportID %q", opts.ExportID)
	}
	dir := filepath.Join(dest, "AWSDynamoDB", opts.ExportID)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("dataio: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_started"), nil, 0o644); err != nil {
		return nil, fmt.Errorf("dataio: %w", err)
	}
	keyBase := "AWSDynamoDB/" + opts.ExportID
	var prefix *string
	if opts.S3Prefix != "" {
		keyBase = strings.TrimSuffix(opts.S3Prefix, "/") + "/" + keyBase
		prefix = &opts.S3Prefix
	}
	ts := opts.ExportTime.UTC().Format("2006-01-02T15:04:05.000Z")
	w := &exportWriter{dir: dir, keyBase: keyBase, opts: opts, fileSeed: hex.EncodeToString(rnd[:])}
	w.sum = exportSummary{
		Version: "2020-06-30", ExportArn: opts.TableArn + "/export/" + opts.ExportID,
		StartTime: ts, TableArn: opts.TableArn, TableID: opts.TableID, ExportTime: ts,
		S3Bucket: opts.S3Bucket, S3Prefix: prefix, S3SseAlgorithm: "AES256",
		ManifestFilesS3Key: keyBase + "/" + filesName, OutputFormat: "DYNAMODB_JSON", ExportType: "FULL_EXPORT",
	}
	return w, nil
}

// Write appends item to the current data file, starting one if needed.
func (w *exportWriter) Write(item Item) error {
	if w.f == nil || w.opts.ItemsPerFile > 0 && w.inFile >= int64(w.opts.ItemsPerFile) {
		if err := w.finishFile(); err != nil {
			return err
		}
		if err := w.startFile(); err != nil {
			return err
		}
	}
	b, err := encodeDynamoDBJSONLine(w.buf[:0], item)
	if err != nil {
		return err
	}
	w.buf = b
	w.uncompr += int64(len(b))
	w.inFile++
	_, err = w.w.Write(b)
	return err
}

// startFile opens the next data file.
func (w *exportWriter) startFile() error {
	name := fmt.Sprintf("%s-%05d.json.gz", w.fileSeed, len(w.files))
	f, err := os.Create(filepath.Join(w.dir, "data", name))
	if err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	w.f, w.inFile = f, 0
	w.zw = gzip.NewWriter(f)
	w.w = bufio.NewWriterSize(w.zw, 64<<10)
	w.files = append(w.files, exportFile{DataFileS3Key: w.keyBase + "/data/" + name})
	return nil
}

// finishFile closes the current data file and records its checksums.
func (w *exportWriter) finishFile() error {
	if w.f == nil {
		return nil
	}
	err := errors.Join(w.w.Flush(), w.zw.Close(), w.f.Close())
	name := w.f.Name()
	w.f = nil
	if err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	sum := md5.Sum(data)
	last := &w.files[len(w.files)-1]
	last.ItemCount = w.inFile
	last.MD5Checksum = base64.StdEncoding.EncodeToString(sum[:])
	last.Etag = hex.EncodeToString(sum[:])
	w.sum.ItemCount += w.inFile
	return nil
}

// Close finishes the last data file (an export of no items has one
// empty file) and writes manifest-files.json, then manifest-summary.json.
func (w *exportWriter) Close() error {
	if w.f == nil && len(w.files) == 0 {
		if err := w.startFile(); err != nil {
			return err
		}
	}
	if err := w.finishFile(); err != nil {
		return err
	}
	var files []byte
	for _, f := range w.files {
		b, _ := json.Marshal(f)
		files = append(append(files, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(w.dir, filesName), files, 0o644); err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	w.sum.EndTime = time.Now().UTC().Format("2006-01-02T15:04:05.000Z") // wallclock: when the export ended
	w.sum.BilledSizeBytes = w.uncompr
	b, _ := json.MarshalIndent(w.sum, "", "  ")
	if err := os.WriteFile(filepath.Join(w.dir, summaryName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("dataio: %w", err)
	}
	return nil
}

// Abort closes the current data file (its items flushed, for inspection)
// and writes no manifests: the folder, with its _started file, is an
// unfinished export, which Open refuses.
func (w *exportWriter) Abort() error { return w.finishFile() }
